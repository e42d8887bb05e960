"""An operator that is any process, here a JavaScript controller written with @kubernetes/client-node,
raced as replicas: its requests wait at the gate by their token like a kopf replica's, but the
engine has no agent inside it, so runs are sampled, a violation is reported only once a replay
reproduced it, and a sample without one is never "holds" (docs/scenarios-operators.md, "Any
operator process")."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from scenarios import Operator, WriteEffect, exactly_once, explore, scenario
from scenarios._exploration import Exploration
from scenarios._model import Scenario
from scenarios.builtin._jobs import job, job_crd
from scenarios.cli import exit_status, main

JS = Path(__file__).parent / "operators" / "js"
CONTROLLER = JS / "claim-controller.js"
BUDGET = 6
"""Schedules sampled for each version of the controller: the racy one is caught within it, the fixed one is not."""
REAL_TIME = "the operator's processes run without the engine's agent"


@pytest.fixture(scope="module", autouse=True)
def client_node() -> None:
    """node, and @kubernetes/client-node installed next to the controller (``npm ci``, once)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI runs the JavaScript controller: node and npm must be installed")
        pytest.skip("node and npm are needed to run the JavaScript controller (@kubernetes/client-node)")
    with open(JS / ".npm-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # pytest-xdist workers install it once between them
        if not (JS / "node_modules" / "@kubernetes" / "client-node").is_dir():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=JS, check=True, capture_output=True)


def claim(guard: str) -> Scenario:
    """Two replicas of the JavaScript controller and one Job marked done: each Event it posts about
    the Job is the completion (at most one is right)."""
    operator = Operator(
        ("node", str(CONTROLLER)),
        replicas=2,
        agent=False,
        effects=(
            WriteEffect(
                "complete",
                "events",
                verb="create",
                key="{object[involvedObject][namespace]}/{object[involvedObject][name]}",
            ),
        ),
        environment={"CLAIM_GUARD": guard},
    )
    return scenario(
        name="js-claim",
        variant=guard,
        objects=[job_crd(), job("job-1", {"done": True})],
        operator=operator,
        checks=exactly_once("complete", "default/job-1"),
    )


def claim_scenario(variant: str) -> Scenario:
    """For the command line: ``tests.scenarios.test_foreign_operators:claim_scenario --variant none``."""
    return claim(variant)


@pytest.fixture(scope="module")
def racy() -> Exploration:
    return explore(claim("none"), schedules=BUDGET, seed=0, reproduce=3, progress=False)


def test_the_racy_claim_is_caught_and_reported_with_its_replays(racy: Exploration) -> None:
    assert racy.mode == "random"
    assert racy.violated, racy.report()
    assert racy.reproductions == 3
    assert 1 <= racy.reproduced <= 3
    assert racy.verdict.startswith(f"violated: safety (reproduced {racy.reproduced} of 3 replays; {REAL_TIME}")
    assert exit_status(racy) == 1
    report = racy.report()
    schedule = racy.schedule_id
    assert schedule is not None
    assert f"reproduced {racy.reproduced} of 3 replays of schedule {schedule} with fresh processes" in report
    assert 'effect "complete" for default/job-1 happened 2 times' in report
    assert "replicas of the process node " in report
    assert "HOLDS" not in report
    run = racy.counterexample
    assert run is not None
    posts = [step for step in run.steps if step.option.method == "POST" and step.option.target[1] == "events"]
    assert sorted(step.actor for step in posts) == ["replica-1", "replica-2"]
    assert sorted(effect.actor for effect in run.effects) == ["replica-1", "replica-2"]
    # Each replica read the Job before either marked it complete: the race the guard closes.
    reads = {step.actor: step.number for step in run.steps if step.option.verb == "list"}
    marks = [step.number for step in run.steps if step.option.method == "PATCH"]
    assert max(reads.values()) < min(marks)


def test_the_guarded_claim_is_not_caught_in_the_same_budget_and_never_holds() -> None:
    exploration = explore(claim("resource-version"), schedules=BUDGET, seed=0, progress=False)
    assert not exploration.violated, exploration.report()
    assert exploration.unconfirmed is None
    assert exploration.runs == BUDGET
    assert not exploration.holds
    assert exploration.verdict.startswith(f"unknown: {REAL_TIME}")
    assert exit_status(exploration) == 3
    report = exploration.report()
    assert "UNKNOWN, no violation in 6 schedules explored at random (seed 0)" in report
    assert "HOLDS" not in report
    last = exploration.last
    assert last is not None
    assert [effect.key for effect in last.effects] == ["default/job-1"]
    final = last.final["example.com", "jobs", "default", "job-1"]
    assert final is not None and final["status"] == {"completed": True}


def test_a_violation_no_replay_reproduced_is_unknown(racy: Exploration) -> None:
    """How an unreproduced violation reads: shown, marked as not reproduced, the verdict unknown."""
    seen = racy.counterexample
    assert seen is not None
    unreproduced = replace(racy, counterexample=None, unconfirmed=seen, reproduced=0, reproductions=3)
    assert not unreproduced.violated and not unreproduced.holds
    assert unreproduced.verdict.startswith(
        f"unknown: schedule {seen.schedule_id} violated safety once, but none of its 3 replays did (reproduced 0 of 3)"
    )
    assert exit_status(unreproduced) == 3
    report = unreproduced.report()
    assert "A violation seen once and not reproduced in 3 replays (not a counterexample)" in report
    assert 'effect "complete" for default/job-1 happened 2 times' in report


def test_a_foreign_operator_is_never_searched_exhaustively() -> None:
    with pytest.raises(ValueError, match="sampled, not searched exhaustively"):
        explore(claim("none"), exhaustive=True, progress=False)


def test_operator_without_agent_takes_write_effects_only() -> None:
    from scenarios import CallEffect

    with pytest.raises(ValueError, match="WriteEffects only"):
        Operator(("node", "x.js"), agent=False, effects=(CallEffect("complete", "notify.send"),))
    operator = Operator(("./manager", "--leader-elect=false"), agent=False)
    assert operator.options == ("./manager", "--leader-elect=false")
    assert operator.describe_command().startswith("the process ./manager --leader-elect=false (no agent")


def test_command_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parents[2])
    target = "tests.scenarios.test_foreign_operators:claim_scenario"
    command = f"node {CONTROLLER}"
    assert main(["run", target, "--variant", "none", "--exhaustive", "--no-progress"]) == 2
    assert "use --schedules N, not --exhaustive" in capsys.readouterr().err

    status = main(
        [
            *("run", target, "--variant", "none", "--operator", command, "--foreign", "--replicas", "2"),
            *("--schedules", "4", "--reproduce", "2", "--no-progress"),
        ]
    )
    out = capsys.readouterr().out
    assert status == 1, out
    assert re.search(r"VIOLATED \(safety \(reproduced [12] of 2 replays;", out), out
    assert "--foreign --replay s" in out

    status = main(["run", target, "--variant", "resource-version", "--schedules", "2", "--no-progress"])
    out = capsys.readouterr().out
    assert status == 3, out
    assert "UNKNOWN, no violation in 2 schedules explored at random (seed 0)" in out
    assert REAL_TIME in out
