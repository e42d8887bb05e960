"""How an operator repository proves its claim exactly-once with the ``explore`` fixture.

Each tick calls the operator's own handler (which loads kubeconfig as usual) and declares the
non-idempotent step it guards with ``ctx.effect``. ``explore`` runs the ticks of two replicas and a
synchronous heartbeat controller under every interleaving and reports a minimal counterexample.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from jobs_operator.handlers import complete_job, record_heartbeat

from scenarios import TickContext, exactly_once

CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "jobs.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "jobs", "singular": "job", "kind": "Job"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
            }
        ],
    },
}
SPEC = {"command": "echo done"}
LAST_HANDLED = json.dumps({"spec": SPEC}, separators=(",", ":")) + "\n"
JOB: dict[str, Any] = {
    "apiVersion": "example.com/v1",
    "kind": "Job",
    "metadata": {"name": "job-1", "annotations": {"kopf.zalando.org/last-handled-configuration": LAST_HANDLED}},
    "spec": SPEC,
}


async def completion(ctx: TickContext) -> None:
    if await complete_job("job-1", ctx.actor):
        ctx.effect("complete", "default/job-1")


async def completion_pre_fix(ctx: TickContext) -> None:
    if await complete_job("job-1", ctx.actor, whole_annotations=True):
        ctx.effect("complete", "default/job-1")


# The id a failure report printed for the pre-fix claim on a spec holding ">": it replays that exact
# schedule, or is refused if the scenario or the engine's schedule encoding changed since.
REPORTED = "s0:2:86db36:41de"


def heartbeat(ctx: TickContext) -> None:
    record_heartbeat("job-1", f"beat-{ctx.tick}")


def refresh_last_handled(job: dict[str, Any]) -> dict[str, Any]:
    """kopf's annotation is a copy of the spec: keep it one under hostile mutations."""
    job["metadata"]["annotations"]["kopf.zalando.org/last-handled-configuration"] = (
        json.dumps({"spec": job["spec"]}, separators=(",", ":")) + "\n"
    )
    return job


SCENARIO = {
    "objects": [CRD, JOB],
    "writers": {"heartbeat": heartbeat},
    "ticks": 2,
    "checks": exactly_once("complete", "default/job-1"),
    "derive": refresh_last_handled,
}


def test_the_fixed_claim_is_exactly_once(explore: Any) -> None:
    result = explore(actors={"replica-a": completion, "replica-b": completion}, **SCENARIO)
    result.assert_holds()
    assert result.runs > 1


def test_the_pre_fix_claim_holds_today_but_is_fragile(explore: Any) -> None:
    pre_fix = {"replica-a": completion_pre_fix, "replica-b": completion_pre_fix}
    today = explore(actors=pre_fix, **SCENARIO)
    today.assert_holds()
    assert any(flag.path == "/metadata/annotations" for flag in today.flags)
    # each hostile spelling explored on a sample: a mutation that breaks the claim is a real
    # counterexample, but no field is called robust on a sample
    tomorrow = explore.hostile(actors=pre_fix, exhaustive=False, schedules=1, **SCENARIO)
    assert tomorrow.fragile
    assert any(str(finding.mutation) == "job-1/spec/command=gt" for finding in tomorrow.findings)


def test_a_sample_a_ci_job_accepts_without_calling_it_a_proof(explore: Any) -> None:
    sampled = explore(
        actors={"replica-a": completion, "replica-b": completion},
        exhaustive=False,
        schedules=20,
        seed=1,
        accept_sample=True,
        **SCENARIO,
    )
    sampled.assert_holds()  # passes: no violation in the sample, and it was accepted as one
    assert sampled.verdict.startswith("unknown: a random sample")


def _with_command(command: str) -> dict[str, Any]:
    spec = {"command": command}
    annotation = json.dumps({"spec": spec}, separators=(",", ":")) + "\n"
    job = {**JOB, "spec": spec, "metadata": {**JOB["metadata"], "annotations": {LAST_HANDLED_KEY: annotation}}}
    return {**SCENARIO, "objects": [CRD, job]}


LAST_HANDLED_KEY = "kopf.zalando.org/last-handled-configuration"


@pytest.mark.scenarios_replay(REPORTED)
def test_a_reported_counterexample_replays(explore: Any) -> None:
    pre_fix = {"replica-a": completion_pre_fix, "replica-b": completion_pre_fix}
    result = explore(actors=pre_fix, **_with_command('sh -c "echo hi > /tmp/x"'))
    assert result.mode == "replay" and result.runs == 1 and result.verdict == "violated: liveness"
