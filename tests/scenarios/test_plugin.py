"""The pytest plugin as an operator repository uses it: the example runs, a failing scenario prints
its counterexample and the decorator that replays it, and explorations shard into tests."""

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

HOLDING = """
from scenarios import exactly_once
from tests.scenarios.test_engine import CRD, claim_tick, job

def test_guarded_claim(explore):
    tick = claim_tick("job-1")
    result = explore(objects=[CRD, job("job-1", owner="ada")], actors={"a": tick, "b": tick}, ticks=2,
                     checks=exactly_once("claim", "default/job-1"))
    result.assert_holds()
    print("SHARD", result.settings.shard.index, result.settings.shard.count, result.runs)
"""


def pytest_in(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    environment.pop("PYTEST_XDIST_WORKER_COUNT", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", *PLUGIN_ARGS, *args],
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
    assert "3 passed" in result.stdout


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


def test_explorations_shard_into_tests(tmp_path: Path) -> None:
    (tmp_path / "test_claim.py").write_text(HOLDING)
    whole = pytest_in(tmp_path, "-q", "-s", "--scenario-shards", "1")
    split = pytest_in(tmp_path, "-q", "-s", "--scenario-shards", "3")
    assert whole.returncode == 0 and split.returncode == 0, split.stdout + split.stderr
    assert "3 passed" in split.stdout

    def runs(out: str) -> list[int]:
        return [int(count) for count in re.findall(r"SHARD \d+ \d+ (\d+)", out)]

    assert len(runs(split.stdout)) == 3
    assert sum(runs(split.stdout)) == sum(runs(whole.stdout))
