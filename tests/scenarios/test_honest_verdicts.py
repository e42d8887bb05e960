"""What a user is told must be true of what was explored: a random sample is never "holds" unless it
ran the whole space, a split search holds only when its shards merge to a complete one, stale reads
come only where the watch cache may answer, a replay id replays its schedule or is refused, and the
search for the fewest faults finishes."""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import Any

import pytest

from scenarios import TickContext, exactly_once, explore, scenario
from tests.scenarios.claims import CHILDREN, completion, make_child
from tests.scenarios.conftest import CRD, cli, job
from tests.scenarios.test_controllers import operators

CHILDREN_NAME = "tests.scenarios.claims:CHILDREN"


@functools.cache
def children_found() -> Any:
    """The exhaustive exploration of the buggy operator (several tests read its counterexample)."""
    return explore(CHILDREN)


# -- a sample is not a proof --------------------------------------------------------------------


def test_a_sample_that_misses_the_bug_is_unknown_not_holds() -> None:
    sampled = explore(CHILDREN, exhaustive=False, schedules=2, seed=0)
    assert not sampled.violated, "the sample was chosen to miss the bug"
    assert not sampled.holds and not sampled.accepted
    assert sampled.verdict.startswith("unknown: a random sample (")
    assert "is not a complete search" in sampled.verdict
    with pytest.raises(AssertionError, match="A random sample is not a proof"):
        sampled.assert_holds()
    assert children_found().verdict == "violated: predicate"


def test_a_sample_says_about_how_large_the_space_is() -> None:
    sampled = explore(CHILDREN, exhaustive=False, schedules=2, seed=0)
    assert sampled.sample is not None and sampled.sample.distinct <= 2
    assert sampled.sample.estimated_size > sampled.sample.distinct
    assert "distinct schedule" in sampled.scope and "in the space" in sampled.scope
    assert sampled.scope.endswith("a sample, not a search.")


def test_a_clean_sample_passes_only_when_accepted_and_still_says_it_is_no_proof() -> None:
    accepted = explore(CHILDREN, exhaustive=False, schedules=2, seed=0, accept_sample=True)
    accepted.assert_holds()
    assert accepted.accepted and not accepted.holds and accepted.verdict.startswith("unknown")
    assert "accepted as a sample (accept_sample): not a proof" in accepted.report().splitlines()[0]


def test_an_accepted_sample_still_fails_on_a_violation() -> None:
    found = explore(CHILDREN, exhaustive=False, schedules=50, seed=0, accept_sample=True)
    assert found.violated and not found.accepted
    with pytest.raises(AssertionError):
        found.assert_holds()


def test_the_command_line_exits_3_for_a_sample_and_0_only_when_the_sample_is_accepted() -> None:
    sampled = cli("run", CHILDREN_NAME, "--schedules", "2", "--no-progress")
    assert sampled.code == 3, sampled.out + sampled.err
    assert sampled.out.startswith("children: UNKNOWN, no violation in 2 schedules explored at random (seed 0)")
    accepted = cli("run", CHILDREN_NAME, "--schedules", "2", "--accept-sample", "--no-progress")
    assert accepted.code == 0, accepted.out + accepted.err
    assert "NO VIOLATION in 2 schedules" in accepted.out and "not a proof" in accepted.out
    exhaustive = cli("run", CHILDREN_NAME, "--exhaustive", "--no-progress")
    assert exhaustive.code == 1
    assert "children: VIOLATED (predicate)" in exhaustive.out


def test_a_sample_that_ran_every_schedule_holds() -> None:
    async def reader(ctx: TickContext) -> None:
        await ctx.custom.get_namespaced_custom_object("example.com", "v1", "default", "jobs", "job-1")
        ctx.effect("read", "default/job-1")

    alone = scenario(objects=[CRD, job("job-1")], actors={"a": reader}, checks=exactly_once("read", "default/job-1"))
    covered = explore(alone, exhaustive=False, schedules=3)
    assert covered.sample is not None and covered.sample.complete and covered.sample.distinct == 1
    assert covered.holds, covered.report()
    assert covered.scope.endswith(
        "every schedule of the space (every option at every choice point taken)); the sample ran the whole space."
    )


def test_a_hostile_probe_on_a_sample_calls_nothing_robust() -> None:
    from scenarios import probe
    from tests.scenarios.test_engine import racing

    report = probe(racing(), exhaustive=False, schedules=1)
    assert report.verdict == "unknown" and report.robust == []


# -- the shards of a split search --------------------------------------------------------------


def _shards(tmp_path: Path, *args: str, count: int = 2) -> list[Path]:
    paths = []
    tmp_path.mkdir(exist_ok=True)
    for index in range(1, count + 1):
        path = tmp_path / f"shard-{index}.json"
        result = cli("run", *args, "--shard", f"{index}/{count}", "--summary", path, "-q")
        assert result.code in (1, 3), result.out + result.err
        paths.append(path)
    return paths


def test_the_shards_of_an_exhaustive_search_merge_into_holds(tmp_path: Path) -> None:
    paths = _shards(tmp_path, "completion-claim", "--variant", "resource-version", "--exhaustive")
    merged = cli("merge", *paths)
    assert merged.code == 0, merged.out + merged.err
    assert merged.out.startswith("completion-claim / resource-version: HOLDS: all 2 shards of an exhaustive search")
    missing = cli("merge", paths[0])
    assert missing.code == 3 and "shard 2 of 2 missing" in missing.out


USER_SCENARIO = """
from dataclasses import replace

from scenarios import builtin_scenario


def spelled_as_stored(obj):
    return obj


CLAIM = replace(builtin_scenario("completion-claim", "resource-version"), derive=spelled_as_stored)
"""


def test_shards_of_different_code_never_merge(tmp_path: Path) -> None:
    """A change to the scenario's own module between two shard jobs (a push landing while the
    matrix runs): the summaries carry a digest of the code, and the merge refuses them."""
    module = tmp_path / "claims_here.py"

    def shard(index: int) -> Path:
        path = tmp_path / f"shard-{index}.json"
        result = cli(
            "run", "claims_here:CLAIM", "--exhaustive", "--shard", f"{index}/2", "--summary", path, "-q", cwd=tmp_path
        )
        assert result.code == 3, result.out + result.err
        return path

    module.write_text(USER_SCENARIO)
    first = shard(1)
    module.write_text(USER_SCENARIO + "# changed between the two jobs\n")
    changed = cli("merge", first, shard(2))
    assert changed.code == 2 and "code" in changed.err, changed.out + changed.err
    module.write_text(USER_SCENARIO)
    same = cli("merge", first, shard(2))
    assert same.code == 0 and "HOLDS" in same.out, same.out + same.err


def test_the_shards_of_a_sample_merge_into_unknown_unless_accepted(tmp_path: Path) -> None:
    paths = _shards(tmp_path, CHILDREN_NAME, "--schedules", "2")
    merged = cli("merge", *paths)
    assert merged.code == 3 and "not a complete search" in merged.out
    assert cli("merge", *paths, "--accept-sample").code == 0


def test_a_violated_shard_makes_the_merge_violated_and_foreign_summaries_are_refused(tmp_path: Path) -> None:
    paths = _shards(tmp_path, "completion-claim", "--variant", "unconditional", "--exhaustive", count=3)
    merged = cli("merge", *paths)
    assert merged.code == 1 and "VIOLATED in shard" in merged.out and "--replay s" in merged.out
    other = _shards(tmp_path / "other", "completion-claim", "--variant", "resource-version", "--exhaustive")
    mixed = cli("merge", paths[0], other[1])
    assert mixed.code == 2 and "not of one exploration" in mixed.err


# -- stale reads only where the watch cache may answer -----------------------------------------


def test_a_claim_read_by_name_is_never_served_stale_and_holds() -> None:
    result = explore(completion(cached=False))
    assert result.holds, result.report()
    offered = {step.fault for step in (result.last.steps if result.last else [])}
    assert "stale-read" not in offered


def test_the_same_claim_read_from_the_watch_cache_completes_twice_on_a_stale_read() -> None:
    result = explore(completion(cached=True))
    assert result.verdict == "violated: safety", result.report()
    stale = [step for step in result.counterexample.steps if step.fault == "stale-read"]  # type: ignore[union-attr]
    assert stale and stale[0].entry is not None
    assert "resourceVersion=0" in stale[0].entry.query
    assert stale[0].entry.fault.startswith("served stale at revision")
    assert result.fewest_faults_proven


def test_a_not_older_than_read_is_never_served_older_than_it_asked() -> None:
    from fakeapi import GateRequest
    from scenarios._faults import may_serve_stale

    def read(query: str, verb: str = "list") -> GateRequest:
        return GateRequest(
            actor="a",
            method="GET",
            path="/",
            query=query,
            verb=verb,
            group="",
            version="v1",
            resource="pods",
            subresource="",
            namespace="default",
            name="p" if verb == "get" else "",
            sequence=1,
        )

    assert not may_serve_stale(read(""), 5)
    assert may_serve_stale(read("resourceVersion=0"), 5)
    assert may_serve_stale(read("resourceVersion=5&resourceVersionMatch=NotOlderThan"), 5)
    assert not may_serve_stale(read("resourceVersion=6&resourceVersionMatch=NotOlderThan"), 5)
    assert not may_serve_stale(read("resourceVersion=4&resourceVersionMatch=Exact"), 5)
    assert not may_serve_stale(read("resourceVersion=4&limit=10"), 5)
    assert may_serve_stale(read("resourceVersion=0&limit=10"), 5)
    assert not may_serve_stale(read("", verb="get"), 5)
    assert may_serve_stale(read("resourceVersion=3", verb="get"), 5)


# -- replay ids that cannot lie ----------------------------------------------------------------


def test_a_replay_id_carries_the_encoding_the_scenario_and_the_run() -> None:
    found = children_found()
    schedule = found.schedule_id
    assert schedule is not None
    choices, encoding, fingerprint, digest = schedule.split(":")
    assert choices.startswith("s") and encoding == "2" and len(fingerprint) == 6 and len(digest) == 4
    replayed = explore(CHILDREN, replay=schedule)
    assert replayed.violated and replayed.schedule_id == schedule


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda s: s.split(":")[0], "carries no engine version nor scenario fingerprint"),
        (lambda s: s.replace(":2:", ":1:", 1), "was written by schedule encoding 1"),
        (lambda s: s[: s.rindex(":")], "malformed schedule id"),
    ],
    ids=["bare", "old-encoding", "malformed"],
)
def test_an_id_from_another_engine_version_is_refused(mangle: Any, message: str) -> None:
    schedule = children_found().schedule_id
    assert schedule is not None
    from scenarios._ids import ScheduleError

    with pytest.raises(ScheduleError, match=message):
        explore(CHILDREN, replay=mangle(schedule))
    result = cli("run", CHILDREN_NAME, "--replay", mangle(schedule))
    assert result.code == 2 and message in result.err


def test_an_id_of_another_scenario_is_refused() -> None:
    from scenarios._ids import ScheduleError

    schedule = children_found().schedule_id
    other = dataclasses.replace(CHILDREN, objects=(CRD, job("job-1", owner="ada")))
    with pytest.raises(ScheduleError, match="was written for another scenario"):
        explore(other, replay=schedule)


def test_a_replay_that_takes_other_steps_is_refused() -> None:
    from scenarios._ids import ScheduleError

    schedule = children_found().schedule_id
    assert schedule is not None

    async def reads_first(ctx: TickContext) -> None:
        await ctx.custom.get_namespaced_custom_object("example.com", "v1", "default", "jobs", "job-1")
        await make_child(ctx)

    changed = dataclasses.replace(
        CHILDREN, actors=tuple(dataclasses.replace(actor, tick=reads_first) for actor in CHILDREN.actors)
    )
    with pytest.raises(ScheduleError, match="took other steps than the run it was written from"):
        explore(changed, replay=schedule)


def test_a_replay_that_no_longer_violates_is_unknown_not_holds() -> None:
    seen: list[Any] = []
    explore(CHILDREN, keep_going=True, progress=lambda exploration: seen.append(exploration.last))
    harmless = next(run.schedule_id for run in seen if run is not None and not run.violations)
    replayed = explore(CHILDREN, replay=harmless)
    assert not replayed.violated and not replayed.holds
    assert replayed.verdict.startswith("unknown: one replayed schedule is not a search")
    assert cli("run", CHILDREN_NAME, "--replay", harmless, "-q").code == 3


# -- created objects, the fewest faults --------------------------------------------------------


def test_objects_the_run_created_are_in_final_and_the_step_table() -> None:
    found = children_found()
    run = found.counterexample
    assert run is not None
    created = [key for key in run.final if key[1] == "configmaps"]
    assert len(created) == 2 and all(key[3].startswith("child-") for key in created)
    assert run.final_object("ConfigMap", created[0][3]) is not None
    assert f"configmaps (created {created[0][3]})" in found.report()
    assert "job-1 has 2 children: child-" in found.report()


def test_the_fewest_faults_are_searched_by_fault_count_and_the_search_ends(caplog: pytest.LogCaptureFixture) -> None:
    crashing = dataclasses.replace(operators(guarded=True), faults=("crash",))
    phases: list[str] = []
    with caplog.at_level("INFO", logger="scenarios"):
        result = explore(crashing, progress=lambda exploration: phases.append(exploration.phase))
    assert result.verdict == "violated: liveness", result.report()
    assert result.fewest_faults_proven and "no schedule violates it with fewer than 1 fault" in result.report()
    fault_free = explore(operators(guarded=True))
    assert fault_free.holds
    # the rounds below one fault are exactly the fault-free search: no schedule carrying a fault
    assert result.minimizing_runs == fault_free.runs
    assert "was written and the effect never followed" in result.report()
    assert "crashed before acting on the answer" in result.report()
    # progress reaches the callable (per schedule, with its phase) and the log
    assert phases[0] == "exploring" and "fewer faults: every schedule with at most 0" in phases
    assert result.phase == "done"
    assert any("fewer faults" in record.getMessage() for record in caplog.records)


def test_the_summary_is_json_a_person_can_read(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    cli("run", "completion-claim", "--variant", "unconditional", "--exhaustive", "-q", "--summary", path)
    summary = json.loads(path.read_text())
    assert summary["verdict"].startswith("violated") and summary["counterexample"].startswith("s")


def test_shards_that_took_other_actors_as_interchangeable_never_merge(tmp_path: Path) -> None:
    """Which actors mirror each other decides which subtrees a shard leaves out: a summary carries
    the groups, and shards of different groups are not parts of one search."""
    paths = _shards(tmp_path, "completion-claim", "--variant", "resource-version", "--exhaustive")
    summary = json.loads(paths[1].read_text())
    assert summary["interchangeable"] == [["replica-a", "replica-b"]]
    paths[1].write_text(json.dumps({**summary, "interchangeable": []}))
    mixed = cli("merge", *paths)
    assert mixed.code == 2 and "not of one exploration" in mixed.err, mixed.out + mixed.err
