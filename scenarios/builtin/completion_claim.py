"""completion-claim: the seed operator's completion claim, two replicas racing while kopf writes its annotation.

The job's spec holds ``sh -c "echo hi > /tmp/x"``; kopf's last-handled-configuration annotation
holds an older copy of it (``json.dumps``, so ``>`` raw), and kopf rewrites it during the race.
Each replica reads the job and, unless someone completed it, claims completion with a JSON patch
sent by kubernetes_asyncio; the replica whose claim applies marks the job complete (the effect).

* ``whole-annotations`` (the pre-fix claim): tests uid and the whole annotations map. The stored
  annotation spells ``>`` as ``\\u003e``, the client sends ``>``: 422 every time, a liveness violation.
* ``resource-version`` (the fix): tests uid and resourceVersion; exactly once in every schedule.
* ``unconditional``: no precondition; two replicas that both read before either writes both win.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubernetes_asyncio.client import ApiException

from scenarios._actors import Actor, TickContext
from scenarios._checks import exactly_once
from scenarios._model import Scenario
from scenarios.builtin._jobs import (
    COMMAND,
    GROUP,
    INTERCHANGEABLE_REPLICAS,
    KOPF_LAST_HANDLED,
    PLURAL,
    VERSION,
    add_annotation,
    job,
    job_crd,
    kopf_essence,
    kopf_writer,
    read_job,
    resource_version_test,
    uid_test,
)

__all__ = ["NAME", "SUMMARY", "VARIANTS", "build"]

NAME = "completion-claim"
SUMMARY = "two replicas claim a job's completion while kopf rewrites last-handled-configuration"
VARIANTS = {
    "whole-annotations": "caught: liveness (the claim 422s every time)",
    "resource-version": "holds in every schedule (exhaustive)",
    "unconditional": "caught: safety (two winners)",
}
COMPLETED = "example.com/completed-by"
KEY = "default/job-1"

Preconditions = Callable[[dict[str, Any]], list[dict[str, Any]]]

PRECONDITIONS: dict[str, Preconditions] = {
    "whole-annotations": lambda job: [
        uid_test(job),
        {"op": "test", "path": "/metadata/annotations", "value": job["metadata"].get("annotations") or {}},
    ],
    "resource-version": lambda job: [uid_test(job), resource_version_test(job)],
    "unconditional": lambda job: [],
}


def completion_tick(preconditions: Preconditions, name: str = "job-1") -> Callable[[TickContext], Any]:
    async def tick(ctx: TickContext) -> None:
        current = await read_job(ctx, name)
        if COMPLETED in (current["metadata"].get("annotations") or {}):
            return
        claim = add_annotation(current, COMPLETED, ctx.actor)
        try:
            await ctx.custom.patch_namespaced_custom_object(
                GROUP, VERSION, "default", PLURAL, name, [*preconditions(current), claim]
            )
        except ApiException as error:
            if error.status in (409, 422):
                return
            raise
        ctx.effect("complete", f"default/{name}")

    return tick


def _handled(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec kopf handled before the user added ``image``."""
    return {key: value for key, value in spec.items() if key != "image"}


def derive(obj: dict[str, Any]) -> dict[str, Any]:
    """Keep kopf's annotation a copy of the (older) handled spec after a hostile mutation of the spec."""
    annotations = obj.get("metadata", {}).get("annotations")
    if isinstance(annotations, dict) and KOPF_LAST_HANDLED in annotations:
        annotations[KOPF_LAST_HANDLED] = kopf_essence(_handled(obj["spec"]))
    return obj


def build(variant: str) -> Scenario:
    spec = {"command": COMMAND, "image": "busybox:1.36", "retries": 3}
    tick = completion_tick(PRECONDITIONS[variant])
    return Scenario(
        name=NAME,
        interchangeable=INTERCHANGEABLE_REPLICAS,
        variant=variant,
        description=__doc__ or "",
        objects=(job_crd(), job("job-1", spec, handled_spec=_handled(spec))),
        actors=(
            Actor("replica-a", tick, ticks=2),
            Actor("replica-b", tick, ticks=2),
            Actor("kopf", kopf_writer("job-1"), writer=True),
        ),
        checks=(exactly_once("complete", KEY),),
        derive=derive,
    )
