"""A replica at time 0 is forked from its name's template, which ran kopf's start-up once
(docs/scenarios-operators.md, "Start-up once per exploration"); a template that cannot serve says
why, and its replicas start fresh, start-up and all."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from scenarios import CallEffect, Operator, exactly_once, scenario
from scenarios._engine import Engine, EngineStuck
from scenarios._model import RunRecord, Scenario
from scenarios._schedules import Replay
from scenarios.builtin._jobs import job, job_crd

pytest.importorskip("kopf")

OPERATOR = str(Path(__file__).parent / "operators" / "startup_marks.py")


def marking(marks: Path, *, replicas: int = 1, effect_at_startup: bool = False, never_ends: bool = False) -> Scenario:
    environment = {"STARTUP_MARKS": str(marks)}
    if effect_at_startup:
        environment["EFFECT_AT_STARTUP"] = "1"
    if never_ends:
        environment["STARTUP_NEVER_ENDS"] = "1"
    operator = Operator(
        (OPERATOR, "--standalone", "-A"),
        replicas=replicas,
        effects=(CallEffect("complete", "seed_notify.send_completion", "{namespace}/{name}"),),
        environment=environment,
    )
    return scenario(
        name="startup-marks",
        objects=[job_crd(), job("job-1", {"done": True})],
        operator=operator,
        checks=exactly_once("complete", "default/job-1"),
        default_checks=replicas == 1,
    )


def runs_of(target: Scenario, runs: int, settle_timeout: float = 30.0) -> tuple[list[RunRecord], str, list[str]]:
    """The runs' records, the launcher's log, and every replica log's text in order of its start."""

    async def body() -> tuple[list[RunRecord], str, list[str]]:
        engine = Engine(target, settle_timeout=settle_timeout)
        await engine.start()
        try:
            records = [await engine.run(Replay([])) for _ in range(runs)]
            assert engine.pool is not None
            workdir = engine.pool.workdir
            launcher = (workdir / "launcher.log").read_text()
            logs = [log for log in workdir.glob("replica-*.*.log") if log.name.split(".")[1].isdigit()]
            logs.sort(key=lambda log: int(log.name.split(".")[1]))
            return records, launcher, [log.read_text() for log in logs]
        finally:
            await engine.stop()

    return asyncio.run(body())


def test_start_up_runs_once_per_replica_name_and_every_run_behaves_as_a_fresh_start(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    records, launcher, logs = runs_of(marking(marks, replicas=2), runs=3)
    assert "cannot serve" not in launcher, launcher
    assert sorted(marks.read_text().split()) == ["replica-1", "replica-2"], [
        step.option.describe() for step in records[0].steps
    ]
    for record in records:
        assert not record.errors
        assert [effect.key for effect in record.effects] == ["default/job-1"]
        listed = {step.actor for step in record.steps if step.option.verb == "list"}
        assert listed == {"replica-1", "replica-2"}
    assert [step.option.label for step in records[1].steps] == [step.option.label for step in records[2].steps]
    # Each replica's log starts with the start-up its template ran, as a fresh process's would. The
    # first six starts are the three runs'; the next run's, prepared ahead, may have begun too.
    assert len(logs) >= 6
    assert all("Activity 'configure' succeeded." in log for log in logs[:6]), logs[:6]


def test_a_template_whose_start_up_declares_an_effect_refuses_and_replicas_start_fresh(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    records, launcher, _ = runs_of(marking(marks, effect_at_startup=True), runs=2)
    assert "replica replica-1: forked fresh from now on" in launcher
    assert "the operator declared an effect during its start-up" in launcher
    # The template's start-up, then one per start: each run's, and the next run's, prepared ahead
    # while a run ends. Each fresh process ran it, and reported its effect.
    assert marks.read_text().split() == ["replica-1"] * 4
    for record in records:
        assert not record.errors
        assert sorted(effect.key for effect in record.effects) == ["default/job-1", "default/start-up"]


def test_a_start_up_that_never_ends_is_reported_stuck_as_without_templates(tmp_path: Path) -> None:
    """The template gives up after the start timeout, the replica is forked fresh, and that one is
    reported stuck in its start-up, naming it: what a start-up that never waits got before."""
    target = marking(tmp_path / "marks", never_ends=True)

    async def body() -> str:
        engine = Engine(target, settle_timeout=2.0)
        try:
            with pytest.raises(EngineStuck, match="replica replica-1 did not finish its start-up within 2 s"):
                await engine.start()
                await engine.run(Replay([]))
            assert engine.pool is not None
            return (engine.pool.workdir / "launcher.log").read_text()
        finally:
            await engine.stop()

    launcher = asyncio.run(body())
    assert "replica replica-1: forked fresh from now on" in launcher
    assert "its start-up did not end within the start timeout" in launcher
