"""Counterexamples are cheapest in the engine's order: fewest faults (proven by the exhaustive search),
then fewest actors, steps and context switches up to the violation (by shrinking); shrinking never
makes a schedule cost more, and every id it reports replays to itself."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios import Settings, TickContext, at_most_once, explore, scenario
from scenarios._engine import Engine
from scenarios._exploring import explore_async
from scenarios._model import Choice, RunRecord
from scenarios._schedules import Replay, decode_schedule, encode_schedule
from scenarios._shrinking import cost, shrink, violation_horizon
from scenarios.builtin import builtin_scenario
from tests.scenarios.conftest import CRD, job
from tests.scenarios.test_engine import racing

GROUP, VERSION, PLURAL = "example.com", "v1", "jobs"


async def clean_up(ctx: TickContext) -> None:
    """Read the job; unless it is marked cleaned, clean up (the effect) and mark it, unconditionally."""
    current = await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
    if (current["metadata"].get("annotations") or {}).get("cleaned"):
        return
    ctx.effect("cleanup", "default/job-1")
    await ctx.custom.patch_namespaced_custom_object(
        GROUP,
        VERSION,
        "default",
        PLURAL,
        "job-1",
        {"metadata": {"annotations": {"cleaned": "yes"}}},
        _content_type="application/merge-patch+json",
    )


def cleanup_race(**keywords: Any) -> Any:
    return scenario(
        objects=[CRD, job("job-1")],
        actors={"a": clean_up, "b": clean_up},
        checks=at_most_once("cleanup"),
        faults=["crash", "lost-response"],
        **keywords,
    )


def test_a_bug_that_needs_no_fault_is_reported_without_one() -> None:
    result = explore(cleanup_race())
    run = result.counterexample
    assert run is not None and result.verdict == "violated: safety"
    assert [step.fault for step in run.steps] == [None] * len(run.steps)
    assert {step.actor for step in run.steps[: violation_horizon(run)]} == {"a", "b"}
    assert result.fewest_faults_proven
    assert "it needs no fault at all" in result.report()


def _violating_fault_counts(target: Any) -> list[int]:
    counts: list[int] = []

    def note(exploration: Any) -> None:
        run = exploration.last
        if run.violations:
            counts.append(sum(1 for choice in run.choices if choice.fault is not None))

    explore(target, keep_going=True, shrink=False, progress=note)
    return counts


def test_the_fewest_faults_reported_are_the_fewest_any_schedule_needs() -> None:
    single_crash = scenario(
        objects=[CRD, job("job-1")],
        actors={"a": clean_up},
        checks=at_most_once("cleanup"),
        faults=["crash", "lost-response"],
    )
    targets = [
        single_crash,
        cleanup_race(),
        builtin_scenario("lost-response", "trust-response"),
        racing(guard="none", faults=["timeout", "lost-response"]),
    ]
    for target in targets:
        counts = _violating_fault_counts(target)
        result = explore(target)
        run = result.counterexample
        assert run is not None and counts
        found = sum(1 for choice in run.choices if choice.fault is not None)
        assert found == min(counts), (target.name, found, sorted(set(counts)))
        assert result.fewest_faults_proven
    assert min(_violating_fault_counts(single_crash)) == 1


async def _random_violations(count: int) -> list[tuple[RunRecord, RunRecord, RunRecord]]:
    """Violating random runs of the unguarded claim with faults, each shrunk: (found, shrunk, replays)."""
    target = racing(guard="none", ticks=2, faults=["lost-response", "timeout", "conflict"], max_faults=2)
    engine = Engine(target)
    await engine.start()
    try:
        pairs = []
        for index in range(40):
            found = (
                await explore_async(
                    target, Settings(exhaustive=False, schedules=1, seed=index, shrink=False), engine=engine
                )
            ).counterexample
            if found is None:
                continue

            async def judged(chooser: Any) -> Any:
                from scenarios._exploring import _judged

                return await _judged(engine, chooser)

            shrunk, _ = await shrink(found, judged)
            again = await judged(Replay(decode_schedule(shrunk.schedule_id)))
            pairs.append((found, shrunk, again))
            if len(pairs) == count:
                break
        return pairs
    finally:
        await engine.stop()


def test_shrinking_never_costs_more_and_its_ids_replay_to_themselves() -> None:
    pairs = asyncio.run(_random_violations(6))
    assert len(pairs) == 6
    for found, shrunk, again in pairs:
        assert cost(shrunk) <= cost(found)
        assert {v.kind for v in shrunk.violations} & {v.kind for v in found.violations}
        assert again.schedule_id == shrunk.schedule_id
        assert [v.message for v in again.violations] == [v.message for v in shrunk.violations]
    assert any(cost(shrunk) < cost(found) for found, shrunk, _ in pairs)


def test_shrinking_takes_faults_out() -> None:
    target = racing(guard="none", faults=["lost-response", "timeout"], max_faults=1)
    result = explore(target, exhaustive=False, schedules=40, seed=2)
    assert result.violated
    assert all(choice.fault is None for choice in result.counterexample.choices)  # type: ignore[union-attr]


def test_the_schedule_of_every_default_choice_is_s0() -> None:
    assert encode_schedule([Choice(0, 2, 0), Choice(1, 2, 1)]) == "s0"
    spelled = [CRD, job("job-1", owner="a>b")]
    result = explore(racing(guard="owner", objects=spelled), shrink=False)
    assert result.verdict == "violated: liveness" and result.found_after == 1
    assert result.counterexample is not None and result.counterexample.choice_id == "s0"
    assert result.schedule_id is not None and result.schedule_id.startswith("s0:")
    assert explore(racing(guard="owner", objects=spelled), replay=result.schedule_id).schedule_id == result.schedule_id


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), min_size=1, max_size=12))
def test_schedule_ids_round_trip(pairs: list[tuple[int, int]]) -> None:
    choices = [Choice(index, max(index, default) + 1, default) for index, default in pairs]
    schedule_id = encode_schedule(choices)
    decoded = decode_schedule(schedule_id)
    assert decoded == [choice.index for choice in choices[: len(decoded)]]
    assert all(choice.index == choice.default for choice in choices[len(decoded) :])
    assert encode_schedule(choices[: len(decoded)]) == schedule_id
