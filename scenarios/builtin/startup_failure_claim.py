"""startup-failure-claim: the seed operator's stable-blocker claim (docs/json-encoding.md), raced while
a controller heartbeat writes.

A job's pods cannot start: ``status.startupIssue`` holds the kubelet's message, whose image-pull URL
carries a query string with ``&``. Two replicas read the job and claim the cleanup of the stable
blocker with a JSON patch (kubernetes_asyncio); the winner cleans up (the effect). A heartbeat
controller, written with the synchronous ``kubernetes`` client, keeps touching an annotation.

* ``whole-spec-and-annotations`` (pre-fix): also tests ``/spec`` and ``/metadata/annotations`` whole;
  the spec holds ``>``, stored as ``\\u003e``: 422 every time, caught as liveness.
* ``resource-version-and-startup-issue`` (the post-fix claim the review flagged): still tests the whole
  ``/status/startupIssue``, whose message holds ``&`` (stored ``\\u0026``): caught as liveness.
* ``resource-version``: uid and resourceVersion only; exactly once.
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
    read_job,
    resource_version_test,
    uid_test,
)

__all__ = ["NAME", "SUMMARY", "VARIANTS", "build"]

NAME = "startup-failure-claim"
SUMMARY = "two replicas claim cleanup of a job whose pods cannot pull their image"
VARIANTS = {
    "whole-spec-and-annotations": "caught: liveness (the spec holds >)",
    "resource-version-and-startup-issue": "caught: liveness (the startup issue message holds &)",
    "resource-version": "holds in every schedule (exhaustive)",
}
BLOCKER = "example.com/stable-blocker-claimed-by"
HEARTBEAT = "example.com/heartbeat"
KEY = "default/job-2"
STARTUP_ISSUE = {
    "reason": "ImagePullBackOff",
    "message": 'Back-off pulling image "registry.example.com/team/app:pr-1488": failed to fetch anonymous token: '
    "https://auth.example.com/token?scope=repository:team/app:pull&service=registry.example.com",
}

Preconditions = Callable[[dict[str, Any]], list[dict[str, Any]]]

PRECONDITIONS: dict[str, Preconditions] = {
    "whole-spec-and-annotations": lambda job: [
        uid_test(job),
        resource_version_test(job),
        {"op": "test", "path": "/spec", "value": job["spec"]},
        {"op": "test", "path": "/metadata/annotations", "value": job["metadata"].get("annotations") or {}},
    ],
    "resource-version-and-startup-issue": lambda job: [
        uid_test(job),
        resource_version_test(job),
        {"op": "test", "path": "/status/startupIssue", "value": job["status"]["startupIssue"]},
    ],
    "resource-version": lambda job: [uid_test(job), resource_version_test(job)],
}


def blocker_tick(preconditions: Preconditions) -> Callable[[TickContext], Any]:
    async def tick(ctx: TickContext) -> None:
        current = await read_job(ctx, "job-2")
        issue = (current.get("status") or {}).get("startupIssue")
        if not issue or BLOCKER in (current["metadata"].get("annotations") or {}):
            return
        claim = add_annotation(current, BLOCKER, ctx.actor)
        try:
            await ctx.custom.patch_namespaced_custom_object(
                GROUP, VERSION, "default", PLURAL, "job-2", [*preconditions(current), claim]
            )
        except ApiException as error:
            if error.status in (409, 422):
                return
            raise
        ctx.effect("cleanup", KEY)

    return tick


def heartbeat(ctx: TickContext) -> None:
    """A controller heartbeat, synchronous ``kubernetes`` client, run in a thread by the engine."""
    from kubernetes import client

    api = client.CustomObjectsApi(ctx.sync_api)
    patch = {"metadata": {"annotations": {HEARTBEAT: f"{ctx.actor}-{ctx.tick}"}}}
    api.patch_namespaced_custom_object(
        GROUP, VERSION, "default", PLURAL, "job-2", patch, _content_type="application/merge-patch+json"
    )


def derive(obj: dict[str, Any]) -> dict[str, Any]:
    annotations = obj.get("metadata", {}).get("annotations")
    if isinstance(annotations, dict) and KOPF_LAST_HANDLED in annotations:
        annotations[KOPF_LAST_HANDLED] = kopf_essence(obj["spec"])
    return obj


def build(variant: str) -> Scenario:
    spec = {"command": COMMAND, "image": "registry.example.com/team/app:pr-1488"}
    tick = blocker_tick(PRECONDITIONS[variant])
    return Scenario(
        name=NAME,
        interchangeable=INTERCHANGEABLE_REPLICAS,
        variant=variant,
        description=__doc__ or "",
        objects=(job_crd(), {**job("job-2", spec, handled_spec=spec), "status": {"startupIssue": STARTUP_ISSUE}}),
        actors=(
            Actor("replica-a", tick, ticks=2),
            Actor("replica-b", tick, ticks=2),
            Actor("heartbeat", heartbeat, writer=True),
        ),
        checks=(exactly_once("cleanup", KEY),),
        derive=derive,
    )
