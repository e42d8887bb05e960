"""An operator as users ship it, unmodified, raced as replica processes: kopf's own machinery (its
watches, workers, last-handled annotations) runs in each replica; the verdicts, replays and
reports are those of any exploration (docs/scenarios-operators.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from scenarios import ANY_VALUE, CallEffect, Operator, WriteEffect, at_most_once, exactly_once, explore, scenario
from scenarios._engine import Engine
from scenarios._model import Option, RunRecord, Scenario
from scenarios._schedules import Replay
from scenarios.builtin._jobs import job, job_crd

pytest.importorskip("kopf")

OPERATOR = str(Path(__file__).parent / "operators" / "seed_operator.py")
COMPLETED = "/metadata/annotations/example.com~1completed-by"


async def mark_done(ctx: Any) -> None:
    """A user marks the job done: the operator's update handler then claims its completion."""
    await ctx.custom.patch_namespaced_custom_object(
        "example.com",
        "v1",
        "default",
        "jobs",
        "job-1",
        {"spec": {"done": True}},
        _content_type="application/merge-patch+json",
    )


def seed(
    guard: str, *, replicas: int = 1, faults: Sequence[str] = (), payload: str = "a<b", horizon: float = 0.0
) -> Scenario:
    """The seed-shaped operator against one job a user marks done. The operator retries a refused
    claim in its handler, so no timer matters: ``horizon=0`` keeps the clock still."""
    operator = Operator(
        (OPERATOR, "--standalone", "-A"),
        replicas=replicas,
        effects=(CallEffect("complete", "seed_notify.send_completion", "{namespace}/{name}"),),
        environment={"SEED_GUARD": guard},
    )
    return scenario(
        name="seed-operator",
        variant=guard,
        objects=[job_crd(), job("job-1", {"payload": payload, "done": False})],
        writers={"user": mark_done},
        operator=operator,
        checks=exactly_once("complete", "default/job-1"),
        faults=faults,
        horizon=horizon,
        # Two standalone kopf replicas overwrite each other's last-handled annotation: a race of
        # kopf's own (its docs ask for peering), not of the claim these tests judge.
        default_checks=replicas == 1,
    )


def claim_scenario(variant: str) -> Scenario:
    """For the command line: ``tests.scenarios.test_operators:claim_scenario --variant resource-version``."""
    return seed(variant)


def run_engine(target: Scenario, choose: Any = None, runs: int = 1) -> list[RunRecord]:
    async def body() -> list[RunRecord]:
        engine = Engine(target)
        await engine.start()
        try:
            return [await engine.run(choose() if choose else Replay([])) for _ in range(runs)]
        finally:
            await engine.stop()

    return asyncio.run(body())


def test_operator_command_line_is_split_as_kopf_run_reads_it() -> None:
    operator = Operator(("kopf", "run", "handlers.py", "-n", "ns1", "--standalone", "-m", "pkg.more", "--verbose"))
    assert operator.paths == (str(Path("handlers.py").resolve()),)
    assert operator.modules == ("pkg.more",)
    assert operator.options == ("-n", "ns1", "--standalone", "--verbose")
    assert operator.replica_names == ("replica-1", "replica-2")
    with pytest.raises(ValueError, match="needs a path or -m MODULE"):
        Operator(("--standalone",))
    with pytest.raises(ValueError, match="at least one replica"):
        Operator(("handlers.py",), replicas=0)


def test_kopf_runs_its_own_machinery_in_the_replica() -> None:
    """kopf lists and watches the resource, writes its last-handled annotation, and runs the update
    handler when the user's write reaches it through the watch; the wrapped function counts."""
    (run,) = run_engine(seed("resource-version"))
    described = [step.option.describe() for step in run.steps]
    replica = [step for step in run.steps if step.actor == "replica-1"]
    assert any(step.option.verb == "list" and step.option.target[1] == "jobs" for step in replica), described
    assert any(step.option.verb == "watch-event" for step in replica), described
    handled = run.final["example.com", "jobs", "default", "job-1"]
    assert handled is not None
    annotations = handled["metadata"]["annotations"]
    assert "kopf.zalando.org/last-handled-configuration" in annotations
    assert annotations["example.com/completed-by"] == "replica-1"
    assert [(effect.name, effect.key, effect.actor) for effect in run.effects] == [
        ("complete", "default/job-1", "replica-1")
    ]
    assert not run.errors


def test_a_run_is_a_function_of_its_choices() -> None:
    first, second = run_engine(seed("resource-version", replicas=2), runs=2)
    assert [step.option.label for step in first.steps] == [step.option.label for step in second.steps]
    assert [step.event for step in first.steps] == [step.event for step in second.steps]
    assert first.final == second.final


def test_whole_annotations_guard_never_completes() -> None:
    """The seed's bug with kopf itself writing the annotation the claim tests: the spec's ``<`` is
    escaped where the apiserver stores it, so the test op fails every time and nobody completes."""
    exploration = explore(seed("annotations"), exhaustive=True)
    assert exploration.verdict == "violated: liveness"
    assert exploration.counterexample is not None
    report = exploration.report()
    assert "replica-1" in report
    assert "test /metadata/annotations" in report
    # The step table says what kopf was doing: its watcher's list, the worker's own patches, and the
    # handler (by its id) with the object it handled.
    assert "| replica-1 | GET jobs (kopf watcher for jobs.v1.example.com) |" in report
    assert "| replica-1 | PATCH jobs/job-1 (json-patch) (kopf handler complete for default/job-1) |" in report
    assert "| replica-1 | PATCH jobs/job-1 (merge-patch) (kopf worker for a jobs.v1.example.com object) |" in report
    assert "| user | PATCH jobs/job-1 (merge-patch) |" in report
    replayed = explore(seed("annotations"), replay=exploration.counterexample.schedule_id)
    assert replayed.verdict == "violated: liveness"


def test_resource_version_guard_holds_exhaustively() -> None:
    exploration = explore(seed("resource-version"), exhaustive=True)
    assert exploration.verdict == "holds", exploration.report()
    assert exploration.runs > 1


def test_resource_version_guard_is_at_most_once_with_a_crash_anywhere() -> None:
    """A SIGKILL before the claim leaves, or after the server ran it: never two completions. Not
    exactly once: a replica killed after its claim committed and before it sent the completion
    leaves a claim nobody acts on (the restarted process finds it and stops), as
    docs/scenarios-crash-model.md says of every claim-then-act design."""
    target = seed("resource-version", faults=("crash",))
    safe = explore(replace(target, checks=(at_most_once("complete", "default/job-1"),)), exhaustive=True)
    assert safe.verdict == "holds", safe.report()
    exact = explore(target, exhaustive=True)
    assert exact.verdict == "violated: liveness"
    assert exact.counterexample is not None
    crashed = [step for step in exact.counterexample.steps if step.fault == "crash-after"]
    assert [step.option.method for step in crashed] == ["PATCH"]
    assert "crashed before acting on the answer" in exact.report()


def test_unguarded_claim_by_two_replicas_completes_twice() -> None:
    """Two standalone replicas, a claim without precondition: both complete the job. Seeded random
    schedules: the scenario's own default is exhaustive, whose first schedules in depth-first order
    run one replica to its end before the other starts, and take minutes to reach a race."""
    exploration = explore(
        seed("none", replicas=2, payload="plain"), exhaustive=False, schedules=40, seed=3, shrink=False
    )
    assert exploration.verdict.startswith("violated"), exploration.report()
    assert exploration.counterexample is not None
    safety = [v for v in exploration.counterexample.violations if v.kind == "safety"]
    assert safety, exploration.report()
    actors = {effect.actor for effect in exploration.counterexample.effects}
    assert actors == {"replica-1", "replica-2"}


def test_a_crash_is_a_real_process_death_and_the_restart_lists_again() -> None:
    """SIGKILL after the completion was sent and before kopf recorded the handling (its next
    request): a fresh process lists and watches again, runs the handler again, finds the claim,
    and does not send the completion twice."""

    class CrashAfterTheEffect:
        def __init__(self) -> None:
            self.crashed = False

        def choose(self, options: Sequence[Option], default: int) -> int:
            if not self.crashed:
                for index, option in enumerate(options):
                    if option.fault == "crash" and option.actor == "replica-1":
                        self.crashed = True
                        return index
            return default

    (run,) = run_engine(seed("resource-version", faults=("crash",)), choose=CrashAfterTheEffect)
    crashes = [step for step in run.steps if step.fault == "crash"]
    assert len(crashes) == 1
    assert [(effect.actor, effect.incarnation) for effect in run.effects] == [("replica-1", 0)]
    assert run.effects[0].step < crashes[0].number
    later = [step for step in run.steps if step.actor == "replica-1" and step.number > crashes[0].number]
    assert later and all(step.incarnation == 1 for step in later)
    assert [step.option.verb for step in later][:2] == ["list", "get"], [step.option.describe() for step in later]
    final = run.final["example.com", "jobs", "default", "job-1"]
    assert final is not None and final["metadata"]["annotations"]["example.com/completed-by"] == "replica-1"


def test_an_effect_can_be_a_committed_write() -> None:
    operator = Operator(
        (OPERATOR, "--standalone", "-A"),
        replicas=1,
        effects=(WriteEffect("claimed", "jobs", COMPLETED, ANY_VALUE, verb="patch"),),
        environment={"SEED_GUARD": "resource-version"},
    )
    target = scenario(
        objects=[job_crd(), job("job-1", {"payload": "x", "done": False})],
        writers={"user": mark_done},
        operator=operator,
        checks=exactly_once("claimed", "default/job-1"),
    )
    (run,) = run_engine(target)
    claims = [effect for effect in run.effects if effect.name == "claimed"]
    assert [(effect.key, effect.actor) for effect in claims] == [("default/job-1", "replica-1")]
    step = next(step for step in run.steps if step.number == claims[0].step)
    assert step.option.method == "PATCH" and step.committed
