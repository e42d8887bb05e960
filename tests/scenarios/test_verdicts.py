"""Verdicts mean what they say: "holds" only of a complete search of the whole space in which every
check was put to the test; a cut-short, sharded or untested search is "unknown"; a claim nobody
ever wins is caught; a hostile probe of a claim that is already broken is not called robust."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes_asyncio.client import ApiException

from scenarios import Shard, TickContext, at_most_once, exactly_once, explore, probe, scenario
from tests.scenarios.conftest import CRD, job
from tests.scenarios.test_engine import claim_tick, racing

GROUP, VERSION, PLURAL = "example.com", "v1", "jobs"


async def never_wins(ctx: TickContext) -> None:
    """The seed's bug in miniature: the claim tests a value no stored object ever has."""
    current = await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
    operations = [
        {"op": "test", "path": "/spec/owner", "value": str(current["spec"].get("owner")) + " "},
        {"op": "add", "path": "/spec/claimedBy", "value": ctx.actor},
    ]
    try:
        await ctx.custom.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1", operations)
    except ApiException:
        return
    ctx.effect("own", "default/job-1")


def test_exactly_once_without_keys_refuses_to_run_rather_than_drop_liveness() -> None:
    with pytest.raises(ValueError, match=r"exactly_once\(.own.\) needs the keys"):
        exactly_once("own")


def test_exactly_once_for_each_object_of_a_kind_catches_a_claim_nobody_wins() -> None:
    target = scenario(
        objects=[CRD, job("job-1", owner="ada"), job("job-2", owner="bob")],
        actors={"a": never_wins, "b": never_wins},
        checks=exactly_once("own", for_each="Job"),
    )
    result = explore(target)
    assert result.verdict == "violated: liveness"
    messages = [violation.message for violation in result.counterexample.violations]  # type: ignore[union-attr]
    assert any("default/job-1 never happened" in message for message in messages)
    assert any("default/job-2 never happened" in message for message in messages)


def test_for_each_names_a_kind_the_scenario_has() -> None:
    target = scenario(objects=[CRD, job("job-1")], actors={"a": never_wins}, checks=exactly_once("own", for_each="Pod"))
    with pytest.raises(ValueError, match="no Pod among the scenario's objects"):
        explore(target)


def test_a_safety_check_whose_effect_never_happens_is_untested_not_holding() -> None:
    target = scenario(
        objects=[CRD, job("job-1", owner="ada")], actors={"a": never_wins, "b": never_wins}, checks=at_most_once("own")
    )
    result = explore(target)
    assert not result.holds and not result.violated
    assert result.verdict.startswith("unknown: ")
    assert "at most once for every key was never put to the test" in result.verdict
    with pytest.raises(AssertionError, match="UNKNOWN"):
        result.assert_holds()


def test_a_search_stopped_at_its_budget_is_unknown() -> None:
    result = explore(racing(ticks=2), max_runs=3)
    assert result.runs == 3 and not result.complete
    assert result.verdict == "unknown: the search stopped at its budget of 3 runs before it was complete"
    with pytest.raises(AssertionError, match="stopped at its budget"):
        result.assert_holds()
    assert "cut short at the budget of 3 runs" in result.scope
    assert explore(racing(ticks=2)).holds


def test_one_shard_is_unknown_but_a_violation_in_it_is_real() -> None:
    part = explore(racing(ticks=2), shard=Shard(0, 2))
    assert part.verdict.startswith("unknown: only shard 1 of 2 was explored")
    found = [explore(racing(guard="none", ticks=2), shard=Shard(index, 3)) for index in range(3)]
    assert any(result.violated for result in found)
    assert all(result.violated or result.verdict.startswith("unknown") for result in found)


def test_the_scope_says_what_was_explored() -> None:
    exhaustive = explore(racing(ticks=2, faults=["conflict"], max_faults=1))
    assert exhaustive.holds, exhaustive.report()
    assert exhaustive.scope == (
        "actors a (2 ticks), b (2 ticks); faults conflict, at most 1 per schedule; exhaustive over every "
        f"schedule up to reordering of independent steps (dpor): {exhaustive.runs} judged, {exhaustive.pruned} cut "
        "short as equivalent; complete."
    )
    sampled = explore(racing(), exhaustive=False, schedules=4, seed=5)
    assert "sampled: 4 schedules at random with seed 5 (" in sampled.scope
    assert sampled.scope.endswith("; a sample, not a search.")
    assert "Scope: " + sampled.scope in sampled.report().splitlines()


def test_a_hostile_probe_of_a_claim_already_broken_with_plain_data_is_not_robust() -> None:
    report = probe(racing(guard="none"), exhaustive=True)
    assert report.baseline.violated
    assert report.fragile and report.verdict == "unknown"
    assert report.robust == [] and report.findings == [] and report.mutations == 0
    assert "does not hold even with plain data" in report.report()


def test_a_hostile_probe_of_a_robust_claim_is_robust() -> None:
    report = probe(racing(), schedules=1)
    assert report.verdict == "robust" and not report.fragile and report.robust


def test_claims_are_judged_over_the_keys_they_name() -> None:
    tick = claim_tick("job-1")
    target = scenario(
        objects=[CRD, job("job-1", owner="ada")],
        actors={"a": tick, "b": tick},
        checks=exactly_once("claim", "default/job-1", "default/job-2"),
    )
    result = explore(target)
    assert result.verdict == "violated: liveness"
    assert "default/job-2 never happened" in result.report()


def test_a_live_run_whose_effect_never_happens_is_untested_too(tmp_path: Any) -> None:
    from fakeapi import FakeAPIServer

    target = scenario(objects=[CRD, job("job-1", owner="ada")], actors={"a": never_wins}, checks=at_most_once("own"))
    with FakeAPIServer() as cluster:
        result = explore(target, kubeconfig=cluster.kubeconfig(tmp_path / "kubeconfig"), schedules=2, exhaustive=False)
    assert result.mode == "live" and result.verdict.startswith("unknown: ")


def test_no_schedule_judged_proves_nothing() -> None:
    result = explore(racing(), exhaustive=False, schedules=0)
    assert result.runs == 0 and result.verdict.startswith("unknown: no schedule was judged")
