"""The pytest plugin as an operator repository uses it: the example runs, a failing scenario prints
its counterexample and the decorator that replays it, verdicts are the same under xdist, and the
seed given to ``explore`` is the random exploration's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from tests.scenarios.conftest import REPO

PLUGIN_INSTALLED = any(entry.name == "scenarios" for entry in entry_points(group="pytest11"))
PLUGIN_ARGS = [] if PLUGIN_INSTALLED else ["-p", "scenarios.pytest_plugin"]

FAILING = """
from scenarios import exactly_once
from tests.scenarios.test_engine import CRD, claim_tick, job

def test_unguarded_claim(explore):
    tick = claim_tick("job-1", guard="none")
    explore(objects=[CRD, job("job-1", owner="ada")], actors={"a": tick, "b": tick},
            checks=exactly_once("claim", "default/job-1")).assert_holds()
"""

VERDICTS = """
from scenarios import exactly_once
from tests.scenarios.test_engine import CRD, claim_tick, job

def race(explore, guard, **settings):
    tick = claim_tick("job-1", guard=guard)
    return explore(objects=[CRD, job("job-1", owner="ada")], actors={"a": tick, "b": tick}, ticks=2,
                   checks=exactly_once("claim", "default/job-1"), **settings)

def test_the_guarded_claim_holds(explore):
    result = race(explore, "resourceVersion")
    result.assert_holds()
    print("RUNS", result.runs)

def test_the_unguarded_claim_is_caught(explore):
    result = race(explore, "none")
    assert result.verdict.startswith("violated")

def test_hostile_values_are_judged_whole(explore):
    assert not explore.hostile(objects=[CRD, job("job-1", owner="ada")],
                               actors={"a": claim_tick("job-1"), "b": claim_tick("job-1")},
                               checks=exactly_once("claim", "default/job-1"), schedules=2).fragile
"""

SEEDED = """
from scenarios import exactly_once
from tests.scenarios.test_engine import CRD, claim_tick, job

def test_seeded(explore):
    ids = []
    tick = claim_tick("job-1", guard="none")
    explore(objects=[CRD, job("job-1", owner="ada")], actors={"a": tick, "b": tick}, ticks=2,
            checks=exactly_once("claim", "default/job-1"), exhaustive=False, schedules=6, seed=SEED,
            keep_going=True, shrink=False, progress=lambda e: ids.append(e.last.schedule_id))
    print("IDS", " ".join(ids))
"""


SHARDED = """
import pytest

from scenarios import exactly_once
from tests.scenarios.test_engine import CRD, claim_tick, job

def race(explore, guard):
    tick = claim_tick("job-1", guard=guard)
    return explore(objects=[CRD, job("job-1", owner="ada")], actors={"a": tick, "b": tick}, ticks=2,
                   checks=exactly_once("claim", "default/job-1"))

def test_whole(explore):
    print("WHOLE", race(explore, "GUARD").runs)

@pytest.mark.scenarios_shards(3)
def test_split(explore):
    race(explore, "GUARD").assert_holds()
"""


def pytest_in(directory: Path, *args: str, xdist: bool = False) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    environment.pop("PYTEST_XDIST_WORKER_COUNT", None)
    plugins = [] if xdist else ["-p", "no:xdist"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *plugins, *PLUGIN_ARGS, *args],
        cwd=directory,
        env=environment,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )


def test_the_example_operator_repository_passes() -> None:
    result = pytest_in(REPO / "examples" / "scenarios", "-q", "--rootdir", str(REPO / "examples" / "scenarios"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 passed" in result.stdout


def test_a_failing_scenario_prints_its_counterexample_and_replay_decorator(tmp_path: Path) -> None:
    (tmp_path / "test_claim.py").write_text(FAILING)
    result = pytest_in(tmp_path, "-q")
    assert result.returncode == 1
    assert "SAFETY VIOLATION in schedule s" in result.stdout
    assert "```mermaid" in result.stdout
    schedule = result.stdout.split('@pytest.mark.scenarios_replay("')[1].split('"')[0]
    replayed = FAILING.replace("def test_", f'import pytest\n@pytest.mark.scenarios_replay("{schedule}")\ndef test_')
    (tmp_path / "test_claim.py").write_text(replayed)
    again = pytest_in(tmp_path, "-q")
    assert again.returncode == 1
    assert f"VIOLATION in schedule {schedule}" in again.stdout


def test_verdicts_do_not_depend_on_the_number_of_workers(tmp_path: Path) -> None:
    (tmp_path / "test_claims.py").write_text(VERDICTS)
    alone = pytest_in(tmp_path, "-q", "-s")
    spread = pytest_in(tmp_path, "-q", "-s", "-n", "2", xdist=True)
    assert alone.returncode == 0, alone.stdout + alone.stderr
    assert spread.returncode == 0, spread.stdout + spread.stderr
    assert "3 passed" in alone.stdout and "3 passed" in spread.stdout
    whole = re.findall(r"RUNS (\d+)", alone.stdout)
    assert len(whole) == 1 and int(whole[0]) > 1


def test_the_seed_given_to_explore_is_the_random_explorations_seed(tmp_path: Path) -> None:
    def ids(seed: int, *options: str) -> list[str]:
        (tmp_path / "test_seeded.py").write_text(SEEDED.replace("SEED", str(seed)))
        result = pytest_in(tmp_path, "-q", "-s", *options)
        assert result.returncode == 0, result.stdout + result.stderr
        found: list[str] = re.findall(r"IDS (.*)", result.stdout)[0].split()
        return found

    first, again, other = ids(7), ids(7), ids(8)
    assert first == again and first != other and len(first) == 6
    assert ids(3, "--scenario-seed", "7") == first


def test_a_marked_exploration_is_split_over_items_and_merged_into_one_verdict(tmp_path: Path) -> None:
    """Three items, one per shard, spread over two xdist workers: the merged verdict is the whole
    search's (the same schedules judged), printed at the session's end; a shard left out makes it
    unknown and fails the session even though every item that ran passed."""
    (tmp_path / "test_split.py").write_text(SHARDED.replace("GUARD", "resourceVersion"))
    spread = pytest_in(tmp_path, "-q", "-s", "-n", "2", xdist=True)
    assert spread.returncode == 0, spread.stdout + spread.stderr
    assert "4 passed" in spread.stdout
    merged = re.findall(
        r"HOLDS: all 3 shards of an exhaustive search explored their part \((\d+) judged\)", spread.stdout
    )
    assert merged, spread.stdout
    alone = pytest_in(tmp_path, "-q", "-s", "-k", "whole")
    unsplit = int(re.findall(r"WHOLE (\d+)", alone.stdout)[0])
    assert int(merged[0]) == unsplit

    partial = pytest_in(tmp_path, "-q", "-k", "shard1of3 or shard2of3")
    assert partial.returncode == 1, partial.stdout + partial.stderr
    assert "2 passed" in partial.stdout
    assert "shard 3 of 3 missing" in partial.stdout
    assert "does not hold as a whole" in partial.stdout


def test_a_violation_in_one_shard_fails_its_item_and_the_merged_verdict(tmp_path: Path) -> None:
    (tmp_path / "test_split.py").write_text(SHARDED.replace("GUARD", "none"))
    result = pytest_in(tmp_path, "-q", "-k", "split")
    assert result.returncode == 1
    assert "SAFETY VIOLATION in schedule s" in result.stdout
    assert re.search(r"VIOLATED in shard \d of 3", result.stdout), result.stdout


def test_the_shards_of_one_parametrized_test_are_merged_per_parameter() -> None:
    """A test with parameters of its own besides the shards: each parameter's shards are one
    exploration, merged apart from the other parameter's."""
    from scenarios._pytest_shards import whole_test_id

    assert whole_test_id("t.py::test_claim[shard1of3]", 1, 3) == "t.py::test_claim"
    assert whole_test_id("t.py::test_claim[fixed-shard2of3]", 2, 3) == "t.py::test_claim[fixed]"
    assert whole_test_id("t.py::test_claim[shard3of3-racy]", 3, 3) == "t.py::test_claim[racy]"
    assert whole_test_id("t.py::test_claim[a-b-shard1of2]", 1, 2) != whole_test_id(
        "t.py::test_claim[a-c-shard1of2]", 1, 2
    )
