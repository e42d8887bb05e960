"""A claim guarded by a validating webhook: the scenario's handler answers every call, each call is a
step of the writer, and ``webhook-down`` fails one (refused or timed out) as a real apiserver sees it."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from kubernetes_asyncio.client import ApiException, CoreV1Api

from scenarios import RunRecord, TickContext, exactly_once, explore, scenario
from scenarios._engine import Engine
from scenarios._schedules import DepthFirst
from tests.scenarios.conftest import cli

WEBHOOK = "complete-once.example.com"
URL = "https://10.0.0.7:8443/validate"
JOB = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "job-1"}, "data": {"state": "pending"}}


SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "hooks", "namespace": "default"},
    "spec": {"clusterIP": "10.96.0.20", "ports": [{"port": 443, "targetPort": 9443}]},
}
BY_SERVICE = {"service": {"namespace": "default", "name": "hooks", "path": "/validate"}}


def configuration(policy: str, client_config: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "complete-once"},
        "webhooks": [
            {
                "name": WEBHOOK,
                "clientConfig": client_config or {"url": URL},
                "rules": [
                    {"operations": ["UPDATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}
                ],
                "failurePolicy": policy,
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
            }
        ],
    }


CALLS: list[dict[str, Any]] = []


def complete_once(review: dict[str, Any]) -> dict[str, Any]:
    """Refuses to complete a job that is complete already: a completion happens once."""
    request = review["request"]
    CALLS.append(request)
    old = (request.get("oldObject") or {}).get("data") or {}
    new = (request.get("object") or {}).get("data") or {}
    if old.get("state") == "complete" and new.get("state") == "complete":
        return {"allowed": False, "status": {"code": 409, "message": "job-1 is complete already"}}
    return {"allowed": True}


async def complete(ctx: TickContext) -> None:
    """Completes the job unless it reads it complete; the webhook is what keeps a racer from doing it twice."""
    core = CoreV1Api(ctx.api)
    job = await core.read_namespaced_config_map("job-1", "default")
    if (job.data or {}).get("state") == "complete":
        return
    try:
        await core.patch_namespaced_config_map("job-1", "default", {"data": {"state": "complete"}})
    except ApiException:
        return
    ctx.effect("complete", "default/job-1")


def guarded(
    policy: str = "Ignore", faults: tuple[str, ...] = (), *, webhook: bool = True, by_service: bool = False
) -> Any:
    hooks = [SERVICE, configuration(policy, BY_SERVICE)] if by_service else [configuration(policy)]
    return scenario(
        name="webhook-guarded",
        variant=policy,
        objects=[JOB, *hooks] if webhook else [JOB],
        actors={"a": complete, "b": complete},
        faults=faults,
        checks=exactly_once("complete", "default/job-1"),
        webhooks={WEBHOOK: complete_once} if webhook else None,
    )


IGNORE = guarded("Ignore")
"""For the command line: ``python -m scenarios run tests.scenarios.test_webhooks:IGNORE``."""


def test_without_the_webhook_the_claim_is_violated() -> None:
    result = explore(guarded(webhook=False), progress=False)
    assert result.verdict == "violated: safety"


def test_the_claim_holds_with_the_webhook_up() -> None:
    CALLS.clear()
    result = explore(guarded(), progress=False)
    assert result.verdict == "holds", result.report()
    assert result.complete
    denied = [call for call in CALLS if call["oldObject"]["data"]["state"] == "complete"]
    assert denied, "no schedule had the webhook refuse a second completion"


def test_the_webhook_down_under_ignore_lets_the_second_completion_through_and_replays() -> None:
    target = guarded("Ignore", ("webhook-down",))
    result = explore(target, progress=False)
    assert result.verdict == "violated: safety", result.report()
    run = result.counterexample
    assert run is not None
    faulted = [step for step in run.steps if step.fault is not None]
    assert len(faulted) == 1 and faulted[0].option.webhook == WEBHOOK
    assert faulted[0].fault in ("webhook-down", "webhook-timeout")
    assert faulted[0].entry is not None and faulted[0].entry.status == 200
    assert faulted[0].entry.warnings == []
    assert len(run.effects_named("complete")) == 2
    assert result.fewest_faults_proven
    report = result.report()
    assert f"webhook {WEBHOOK} of PATCH" in report and run.schedule_id in report

    replayed = explore(target, replay=run.schedule_id, progress=False)
    assert replayed.verdict == "violated: safety"
    again = replayed.counterexample
    assert again is not None
    assert [step.option.describe() for step in again.steps] == [step.option.describe() for step in run.steps]
    assert len(again.effects_named("complete")) == 2


def test_the_claim_holds_with_the_webhook_down_under_fail() -> None:
    result = explore(guarded("Fail", ("webhook-down",)), progress=False)
    assert result.verdict == "holds", result.report()
    assert result.complete


class FailB:
    """b runs first; its first webhook call fails with ``fault``; then a runs."""

    def __init__(self, fault: str) -> None:
        self.fault = fault
        self.used = False

    def choose(self, options: Any, default: int) -> int:
        for index, option in enumerate(options):
            if option.actor == "b" and option.webhook and option.fault == self.fault and not self.used:
                self.used = True
                return index
        plain_b = [i for i, option in enumerate(options) if option.actor == "b" and option.fault is None]
        return plain_b[0] if plain_b else default


def _refused_write(policy: str, fault: str, *, by_service: bool = False) -> RunRecord:
    async def run() -> RunRecord:
        engine = Engine(guarded(policy, ("webhook-down",), by_service=by_service))
        await engine.start()
        try:
            return await engine.run(FailB(fault))
        finally:
            await engine.stop()

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("fault", "cause"),
    [
        ("webhook-down", "dial tcp 10.0.0.7:8443: connect: connection refused"),
        ("webhook-timeout", "context deadline exceeded"),
    ],
)
def test_under_fail_a_failed_call_refuses_the_write_with_the_apiservers_internal_error(fault: str, cause: str) -> None:
    run = _refused_write("Fail", fault)
    faulted = next(step for step in run.steps if step.fault == fault)
    assert faulted.entry is not None and faulted.entry.status == 500
    status = json.loads(faulted.entry.response_body)
    text = f'failed calling webhook "{WEBHOOK}": failed to call webhook: Post "{URL}?timeout=10s": {cause}'
    assert status["reason"] == "InternalError"
    assert status["message"] == f"Internal error occurred: {text}"
    assert status["details"]["causes"] == [{"message": text}]
    assert not faulted.committed
    assert [effect.actor for effect in run.effects_named("complete")] == ["a"]


class Script:
    """Takes the options named, in order (as ``Option.describe`` spells them)."""

    def __init__(self, *steps: str) -> None:
        self.steps = list(steps)

    def choose(self, options: Any, default: int) -> int:
        described = [option.describe() for option in options]
        assert self.steps, f"the script ran out; offered {described}"
        return described.index(self.steps.pop(0))


def test_a_webhook_behind_a_service_is_dialled_at_its_cluster_ip() -> None:
    run = _refused_write("Fail", "webhook-down", by_service=True)
    faulted = next(step for step in run.steps if step.fault == "webhook-down")
    assert faulted.entry is not None and faulted.entry.status == 500
    assert json.loads(faulted.entry.response_body)["message"] == (
        f'Internal error occurred: failed calling webhook "{WEBHOOK}": failed to call webhook: Post '
        '"https://hooks.default.svc:443/validate?timeout=10s": dial tcp 10.96.0.20:443: connect: connection refused'
    )
    answered = [step for step in run.steps if step.option.webhook and step.fault is None and step.entry is not None]
    assert [(step.actor, step.entry.status) for step in answered if step.entry is not None] == [("a", 200)]
    assert [effect.actor for effect in run.effects_named("complete")] == ["a"]


def test_a_write_waits_at_admission_as_a_step_of_its_own() -> None:
    """Between b's write reaching admission and its webhook's answer, a's write commits: b's write is
    computed again from what is stored, and the webhook, called again, refuses it."""
    call = f"webhook {WEBHOOK} of PATCH job-1"
    script = Script(
        "a: GET job-1", "b: GET job-1", "b: PATCH job-1", "a: PATCH job-1", f"a: {call}", f"b: {call}", f"b: {call}"
    )

    async def run() -> RunRecord:
        engine = Engine(guarded())
        await engine.start()
        try:
            return await engine.run(script)
        finally:
            await engine.stop()

    record = asyncio.run(run())
    assert not script.steps
    assert len(record.steps) == 7
    assert [effect.actor for effect in record.effects_named("complete")] == ["a"]
    waiting = record.steps[2]
    assert waiting.entry is None and waiting.waits_on == WEBHOOK
    first_call, second_call = record.steps[5], record.steps[6]
    assert first_call.entry is None and not first_call.committed
    assert second_call.entry is not None and second_call.entry.status == 409
    assert json.loads(second_call.entry.response_body)["message"] == (
        f'admission webhook "{WEBHOOK}" denied the request: job-1 is complete already'
    )


def test_every_webhook_of_the_configurations_needs_a_handler() -> None:
    target = scenario(
        objects=[JOB, configuration("Fail")],
        actors={"a": complete},
        checks=exactly_once("complete", "default/job-1"),
        webhooks={"other.example.com": complete_once},
    )
    with pytest.raises(ValueError, match=f"webhooks without a handler in the scenario's webhooks: {WEBHOOK}"):
        Engine(target)


def test_the_command_line_lists_the_webhook_fault() -> None:
    done = cli("run", "--help")
    assert done.code == 0
    assert "webhook-down" in " ".join(done.out.split())


def test_the_command_line_finds_and_replays_the_webhook_down_counterexample(tmp_path: Path) -> None:
    up = cli("run", "tests.scenarios.test_webhooks:IGNORE", "--exhaustive", "-q", "--no-progress")
    assert up.code == 0, up.out + up.err
    assert up.out.startswith("webhook-guarded / Ignore: HOLDS in every one of")
    down = cli(
        "run",
        "tests.scenarios.test_webhooks:IGNORE",
        "--exhaustive",
        "--faults",
        "webhook-down",
        "--no-progress",
        "--report",
        tmp_path / "a.md",
    )
    assert down.code == 1, down.out + down.err
    replay = down.out.split("## Replay\n")[1].splitlines()[0]
    assert replay.startswith(
        "python -m scenarios run tests.scenarios.test_webhooks:IGNORE --faults webhook-down --replay s"
    )
    again = cli(*replay.split()[3:], "--no-progress", "--report", tmp_path / "b.md")
    assert again.code == 1, again.out + again.err
    assert (tmp_path / "a.md").read_bytes() == (tmp_path / "b.md").read_bytes()


async def _outcomes(target: Any, reduction: str) -> set[tuple[Any, ...]]:
    """What the schedules of a search end in: who completed, the job's data, the writes' statuses."""
    engine = Engine(target)
    await engine.start()
    seen: set[tuple[Any, ...]] = set()
    search = DepthFirst(reduction=reduction)
    try:
        while not search.finished:
            search.begin()
            run = await engine.run(search)
            if run.outcome != "pruned":
                job = run.final_object("configmaps", "job-1") or {}
                writes = sorted(
                    (step.actor, step.entry.status)
                    for step in run.steps
                    if step.entry is not None and step.entry.method == "PATCH"
                )
                seen.add((tuple(sorted(e.actor for e in run.effects)), json.dumps(job.get("data")), tuple(writes)))
            search.advance()
    finally:
        await engine.stop()
    return seen


@pytest.mark.parametrize("policy", ["Ignore", "Fail"])
def test_the_reductions_reach_every_outcome_of_the_full_search(policy: str) -> None:
    """A webhook call, faulted or not, is a step the reductions order soundly: DPOR and sleep sets end in
    every outcome the search without reduction ends in, with two faults allowed."""
    target = replace(guarded(policy, ("webhook-down",)), max_faults=2)

    async def compare() -> tuple[set[tuple[Any, ...]], ...]:
        return tuple([await _outcomes(target, reduction) for reduction in ("off", "sleep-sets", "dpor")])

    full, sleeping, dpor = asyncio.run(compare())
    assert len(full) >= 5
    assert sleeping == full
    assert dpor == full
