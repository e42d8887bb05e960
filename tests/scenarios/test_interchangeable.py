"""Interchangeable actors: an exhaustive search explores a schedule or its mirror (the same schedule
with two interchangeable actors' names swapped), not both, and still ends in every outcome of the
full search up to that swap (docs/scenarios-reductions.md, "Interchangeable actors")."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from kubernetes_asyncio.client import ApiException

from scenarios import TickContext, exactly_once, explore, scenario
from scenarios.builtin import builtin_scenario
from tests.scenarios.conftest import CRD, job

GROUP, VERSION, PLURAL = "example.com", "v1", "jobs"


def claim(*, guard: bool, odd_one: str = "") -> Any:
    """Signs in on job-2 (appends its name to a list), then claims job-1 with a JSON patch naming the
    claimer, guarded by the resourceVersion or not. ``odd_one``: the actor of that name notes when it
    signed in first, so it is not interchangeable with the others."""

    async def tick(ctx: TickContext) -> None:
        signed = await ctx.custom.patch_namespaced_custom_object(
            GROUP, VERSION, "default", PLURAL, "job-2", [{"op": "add", "path": "/spec/order/-", "value": ctx.actor}]
        )
        if ctx.actor == odd_one and signed["spec"]["order"] == [ctx.actor]:
            ctx.effect("first", "default/job-2")
        current = await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
        if current["spec"].get("claimedBy"):
            return
        operations: list[dict[str, Any]] = [{"op": "add", "path": "/spec/claimedBy", "value": ctx.actor}]
        if guard:
            version = current["metadata"]["resourceVersion"]
            operations.insert(0, {"op": "test", "path": "/metadata/resourceVersion", "value": version})
        try:
            await ctx.custom.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1", operations)
        except ApiException as error:
            if error.status in (409, 422):
                return
            raise
        ctx.effect("claim", "default/job-1")

    return tick


def three_racers(*, guard: bool = True, odd_one: str = "", **keywords: Any) -> Any:
    tick = claim(guard=guard, odd_one=odd_one)
    return scenario(
        objects=[CRD, job("job-1", owner="ada"), job("job-2", owner="bob", order=[])],
        actors={"a": tick, "b": tick, "c": tick},
        checks=exactly_once("claim", "default/job-1"),
        default_checks=False,  # the sign-in appends without reading, which is the point, not a lost update
        **keywords,
    )


def outcomes(target: Any, reduction: str, mirror: tuple[str, str]) -> tuple[int, set[str]]:
    """Every outcome (who claimed, with what effects, every object's spec) the search ends in, each
    taken with its mirror: the lesser of it and its copy with ``mirror``'s two names swapped."""
    seen: set[str] = set()
    first, second = mirror

    def spelled(run: Any, names: dict[str, str]) -> str:
        effects = sorted((names.get(effect.actor, effect.actor), effect.name, effect.key) for effect in run.effects)
        final = {str(key): (obj or {}).get("spec") for key, obj in run.final.items()}
        text = json.dumps(final, sort_keys=True)
        for name, other in names.items():
            text = text.replace(f'"{name}"', f'"\0{other}"')
        return json.dumps(effects) + text.replace("\0", "")

    def note(exploration: Any) -> None:
        run = exploration.last
        seen.add(min(spelled(run, {}), spelled(run, {first: second, second: first})))

    result = explore(target, reduction=reduction, keep_going=True, progress=note)
    return result.runs, seen


@pytest.mark.parametrize("guard", [True, False])
def test_the_search_up_to_swapping_reaches_every_outcome_of_the_full_search(guard: bool) -> None:
    full_runs, full = outcomes(three_racers(guard=guard), "off", ("a", "b"))
    mirrored = three_racers(guard=guard, interchangeable=[("a", "b")])
    runs, reduced = outcomes(mirrored, "dpor", ("a", "b"))
    plain_runs, plain = outcomes(three_racers(guard=guard), "dpor", ("a", "b"))
    assert full == reduced == plain
    assert runs < plain_runs < full_runs
    verdict = explore(mirrored)
    assert verdict.holds is guard
    assert "up to swapping interchangeable actors (a and b)" in verdict.scope


def test_actors_that_differ_are_not_interchangeable() -> None:
    """The declaration is the author's: ``b`` tells when it signed in first and ``a`` does not, so
    they differ, and a search that takes them as interchangeable never lets ``b`` sign in first."""
    _, full = outcomes(three_racers(odd_one="b"), "off", ("a", "b"))
    _, reduced = outcomes(three_racers(odd_one="b", interchangeable=[("a", "b")]), "dpor", ("a", "b"))
    assert reduced < full
    assert any('"first"' in outcome for outcome in full - reduced)


def test_the_built_in_scenarios_keep_their_verdicts_with_fewer_schedules() -> None:
    for variant, verdict in (("resource-version", "holds"), ("unconditional", "safety")):
        target = builtin_scenario("completion-claim", variant)
        plain = explore(replace(target, interchangeable=()), keep_going=True)
        mirrored = explore(target, keep_going=True)
        assert target.interchangeable == (("replica-a", "replica-b"),)
        assert plain.verdict == mirrored.verdict and verdict in mirrored.verdict
        assert mirrored.runs < plain.runs


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        ([("a",)], "names two actors or more"),
        ([("a", "a")], "names two actors or more"),
        ([("a", "z")], "do not exist: z"),
        ([("a", "b"), ("b", "c")], "in two interchangeable groups: b"),
        (["ab"], "groups of actor names"),
    ],
)
def test_groups_are_checked(groups: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        three_racers(interchangeable=groups)
