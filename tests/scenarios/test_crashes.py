"""The crash model through the public API: a process dies before a request leaves, after the server
ran a write and before the tick acts on the answer, and at the end of a tick whose last action was a
side effect; async and synchronous ticks alike, and a crashed incarnation does nothing more."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from kubernetes_asyncio.client import ApiException

from scenarios import TickContext, at_least_once, at_most_once, exactly_once, explore, scenario
from scenarios._engine import Engine
from tests.scenarios.conftest import CRD, Pick, job

GROUP, VERSION, PLURAL = "example.com", "v1", "jobs"
CLAIM = "example.com/claimed-by"


def claim_then_complete(*, trust_memory: bool) -> Any:
    """Claim job-1 with a resourceVersion test, naming the claimer, then complete it (the effect).

    ``trust_memory``: after a restart a replica that finds the job claimed takes it as someone else's
    (it does not compare the name), which is right unless it was itself the claimer that died.
    """

    async def tick(ctx: TickContext) -> None:
        current = await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
        claimer = (current["metadata"].get("annotations") or {}).get(CLAIM)
        if claimer is not None:
            if not trust_memory and claimer == ctx.actor:
                ctx.effect("complete", "default/job-1")
            return
        operations = [
            {"op": "test", "path": "/metadata/resourceVersion", "value": current["metadata"]["resourceVersion"]},
            {"op": "add", "path": "/metadata/annotations", "value": {CLAIM: ctx.actor}},
        ]
        try:
            await ctx.custom.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1", operations)
        except ApiException as error:
            if error.status in (409, 422):
                return
            raise
        ctx.effect("complete", "default/job-1")

    return tick


def completing(tick: Any, check: Any, **keywords: Any) -> Any:
    return scenario(
        objects=[CRD, job("job-1")],
        actors={"replica-a": tick, "replica-b": tick},
        checks=check,
        faults=["crash"],
        **keywords,
    )


def test_a_crash_after_the_claim_committed_makes_a_claimer_that_forgets_itself_at_most_once() -> None:
    forgetful = claim_then_complete(trust_memory=True)
    result = explore(completing(forgetful, at_least_once("complete", "default/job-1")))
    assert result.verdict == "violated: liveness"
    crash = next(step for step in result.counterexample.steps if step.fault)  # type: ignore[union-attr]
    assert crash.fault == "crash-after" and crash.option.method == "PATCH" and crash.committed
    assert "the server ran it, then the actor crashed before acting on the answer" in result.report()
    assert explore(completing(forgetful, at_most_once("complete"))).holds


def test_a_claimer_that_recognises_its_own_claim_is_at_least_once_and_a_crash_after_its_effect_repeats_it() -> None:
    recognising = claim_then_complete(trust_memory=False)
    result = explore(completing(recognising, at_least_once("complete", "default/job-1")))
    assert result.verdict == "holds", result.report()
    assert "crash (before a request leaves, after a write ran, at the end of a tick)" in result.scope
    twice = explore(completing(recognising, at_most_once("complete")))
    assert twice.verdict == "violated: safety"
    assert [step.option.verb for step in twice.counterexample.steps if step.fault] == ["tick-end"]  # type: ignore[union-attr]


def test_the_forgetful_claim_without_crashes_holds_so_only_the_crash_after_commit_finds_it() -> None:
    forgetful = claim_then_complete(trust_memory=True)
    target = scenario(
        objects=[CRD, job("job-1")],
        actors={"replica-a": forgetful, "replica-b": forgetful},
        checks=exactly_once("complete", "default/job-1"),
    )
    assert explore(target).holds


def sync_claim_then_complete(ctx: TickContext) -> None:
    """The forgetful claimer with the synchronous ``kubernetes`` client, in a thread."""
    from kubernetes import client

    api = client.CustomObjectsApi(ctx.sync_api)
    current = api.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
    if (current["metadata"].get("annotations") or {}).get(CLAIM):
        return
    operations = [
        {"op": "test", "path": "/metadata/resourceVersion", "value": current["metadata"]["resourceVersion"]},
        {"op": "add", "path": "/metadata/annotations", "value": {CLAIM: ctx.actor}},
    ]
    try:
        api.patch_namespaced_custom_object(
            GROUP, VERSION, "default", PLURAL, "job-1", operations, _content_type="application/json-patch+json"
        )
    except client.ApiException as error:
        if error.status in (409, 422):
            return
        raise
    ctx.effect("complete", "default/job-1")


def test_a_synchronous_tick_crashes_after_its_write_too_and_runs_no_more_of_its_code() -> None:
    result = explore(completing(sync_claim_then_complete, at_least_once("complete", "default/job-1")))
    assert result.verdict == "violated: liveness", result.report()
    run = result.counterexample
    assert run is not None
    crash = next(step for step in run.steps if step.fault)
    assert crash.fault == "crash-after" and crash.committed
    # The thread that died never declared its effect, and the restarted incarnation found the claim taken.
    assert run.effects == []
    assert [step.incarnation for step in run.steps if step.actor == crash.actor][-1] == 1


def notify_without_a_record(ctx: TickContext) -> None:
    """Reads the job and notifies: nothing in the store remembers that it did."""
    from kubernetes import client

    client.CustomObjectsApi(ctx.sync_api).get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
    ctx.effect("notify", "default/job-1")


async def notify_async(ctx: TickContext) -> None:
    await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
    ctx.effect("notify", "default/job-1")


@pytest.mark.parametrize("tick", [notify_async, notify_without_a_record], ids=["async", "sync"])
def test_a_crash_at_the_end_of_a_tick_runs_the_tick_again_after_its_side_effect(tick: Any) -> None:
    target = scenario(objects=[CRD, job("job-1")], actors={"a": tick}, checks=at_most_once("notify"), faults=["crash"])
    result = explore(target)
    assert result.verdict == "violated: safety"
    run = result.counterexample
    assert run is not None
    assert [(step.option.verb, step.fault) for step in run.steps] == [
        ("get", None),
        ("tick-end", "crash"),
        ("get", None),
    ]
    assert [effect.incarnation for effect in run.effects] == [0, 1]
    assert "| 2 | a | end of tick | crash | crashed |" in result.report()
    without = explore(scenario(objects=[CRD, job("job-1")], actors={"a": tick}, checks=at_most_once("notify")))
    assert without.holds


def test_a_crash_before_a_request_follows_a_side_effect_and_the_restart_has_empty_memory() -> None:
    async def remember(ctx: TickContext) -> None:
        await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
        ctx.effect("seen", f"incarnation-{ctx.incarnation}-memory-{sorted(ctx.memory)}")
        ctx.memory["read"] = True
        await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")

    target = scenario(objects=[CRD, job("job-1")], actors={"a": remember}, faults=["crash"])

    async def run_once() -> Any:
        engine = Engine(target)
        await engine.start()
        try:
            return await engine.run(Pick("a", "crash", "GET"))
        finally:
            await engine.stop()

    run = asyncio.run(run_once())
    assert [effect.key for effect in run.effects] == ["incarnation-0-memory-[]", "incarnation-1-memory-[]"]
    crash = next(step for step in run.steps if step.fault == "crash")
    assert crash.number == 2 and not crash.committed


def test_no_crash_is_offered_where_it_would_repeat_an_earlier_one() -> None:
    """Dying before a request that follows a read (nothing observable between) is dying after the read,
    which is dying before it: the same as not having started. Such schedules are not explored twice."""

    async def two_reads(ctx: TickContext) -> None:
        for _ in range(2):
            await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
        ctx.effect("read", "default/job-1")

    def options_seen(exploration: Any) -> None:
        seen.update(step.fault for step in exploration.last.steps if step.fault)

    seen: set[str | None] = set()
    target = scenario(
        objects=[CRD, job("job-1")],
        actors={"a": two_reads},
        checks=exactly_once("read", "default/job-1"),
        faults=["crash"],
    )
    result = explore(target, keep_going=True, progress=options_seen)
    assert seen == {"crash"}  # only the crash at the tick's end, after the effect
    assert result.runs == 2
