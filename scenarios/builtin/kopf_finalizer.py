"""kopf-finalizer: kopf's own finalizer pattern, raced by two replicas while a user edits the spec.

kopf guards finalizer edits with a JSON patch that tests ``/metadata/resourceVersion`` and then adds
or removes one entry of ``/metadata/finalizers``. ``job-4`` is new: each replica adds kopf's
finalizer unless it is there. ``job-5`` is being deleted and also carries another controller's
finalizer (``example.com/protect``): each replica removes kopf's entry, by index, unless it is gone.

* ``resource-version``: the pattern as kopf writes it: holds in every schedule (each finalizer
  added once and removed once, ``example.com/protect`` untouched).
* ``no-precondition``: the same edits without the test: caught (the finalizer is added twice, and
  the second removal by index takes the other controller's finalizer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubernetes_asyncio.client import ApiException

from scenarios._actors import Actor, SetupContext, TickContext
from scenarios._checks import exactly_once, predicate
from scenarios._model import RunRecord, Scenario
from scenarios.builtin._jobs import (
    GROUP,
    INTERCHANGEABLE_REPLICAS,
    PLURAL,
    VERSION,
    job,
    job_crd,
    job_path,
    read_job,
    resource_version_test,
)

__all__ = ["NAME", "SUMMARY", "VARIANTS", "build"]

NAME = "kopf-finalizer"
SUMMARY = "kopf's finalizer pattern (test resourceVersion, then edit finalizers) under a race"
VARIANTS = {
    "resource-version": "holds in every schedule (exhaustive)",
    "no-precondition": "caught: safety (finalizer added twice) and a removed foreign finalizer",
}
FINALIZER = "kopf.zalando.org/KopfFinalizerMarker"
PROTECT = "example.com/protect"


async def _patch(ctx: TickContext, name: str, operations: list[dict[str, Any]]) -> bool:
    try:
        await ctx.custom.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, name, operations)
    except ApiException as error:
        if error.status in (404, 409, 422):
            return False
        raise
    return True


def finalizer_tick(guarded: bool) -> Callable[[TickContext], Any]:
    def guard(current: dict[str, Any]) -> list[dict[str, Any]]:
        return [resource_version_test(current)] if guarded else []

    async def tick(ctx: TickContext) -> None:
        fresh = await read_job(ctx, "job-4")
        finalizers = fresh["metadata"].get("finalizers")
        if not finalizers or FINALIZER not in finalizers:
            add = (
                {"op": "add", "path": "/metadata/finalizers/-", "value": FINALIZER}
                if finalizers
                else {"op": "add", "path": "/metadata/finalizers", "value": [FINALIZER]}
            )
            if await _patch(ctx, "job-4", [*guard(fresh), add]):
                ctx.effect("finalizer-added", "default/job-4")
        try:
            deleting = await read_job(ctx, "job-5")
        except ApiException as error:
            if error.status == 404:
                return
            raise
        finalizers = deleting["metadata"].get("finalizers") or []
        if deleting["metadata"].get("deletionTimestamp") and FINALIZER in finalizers:
            remove = {"op": "remove", "path": f"/metadata/finalizers/{finalizers.index(FINALIZER)}"}
            if await _patch(ctx, "job-5", [*guard(deleting), remove]):
                ctx.effect("finalizer-removed", "default/job-5")

    return tick


async def user_edits_spec(ctx: TickContext) -> None:
    """A user scales job-4 (merge patch, no precondition), bumping its resourceVersion mid-race."""
    headers = {"Content-Type": "application/merge-patch+json"}
    async with ctx.session.patch(job_path("job-4"), data='{"spec":{"parallelism":2}}', headers=headers) as response:
        response.raise_for_status()


async def delete_job_5(ctx: SetupContext) -> None:
    from kubernetes_asyncio import client

    await client.CustomObjectsApi(ctx.api).delete_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-5")


def _finalizers(run: RunRecord, name: str) -> list[str] | None:
    for (_, _, _, object_name), obj in run.final.items():
        if object_name == name:
            return list((obj or {}).get("metadata", {}).get("finalizers") or []) if obj is not None else None
    return None


def _job_4_once(run: RunRecord) -> bool | str:
    count = (_finalizers(run, "job-4") or []).count(FINALIZER)
    return count == 1 or f"job-4 carries {FINALIZER} {count} times"


def _protect_kept(run: RunRecord) -> bool | str:
    finalizers = _finalizers(run, "job-5")
    if finalizers is None:
        return f"job-5 is gone: its {PROTECT} finalizer was removed by a replica"
    return PROTECT in finalizers or f"job-5 lost {PROTECT}: finalizers {finalizers}"


def build(variant: str) -> Scenario:
    tick = finalizer_tick(guarded=variant == "resource-version")
    return Scenario(
        name=NAME,
        interchangeable=INTERCHANGEABLE_REPLICAS,
        variant=variant,
        description=__doc__ or "",
        objects=(
            job_crd(),
            job("job-4", {"command": "echo four", "parallelism": 1}),
            job("job-5", {"command": "echo five"}, finalizers=[FINALIZER, PROTECT]),
        ),
        actors=(
            Actor("replica-a", tick, ticks=2),
            Actor("replica-b", tick, ticks=2),
            Actor("user", user_edits_spec, writer=True),
        ),
        checks=(
            exactly_once("finalizer-added", "default/job-4"),
            exactly_once("finalizer-removed", "default/job-5"),
            predicate("kopf's finalizer is on job-4 exactly once", _job_4_once),
            predicate("the other controller's finalizer stays on job-5", _protect_kept),
        ),
        setup=delete_job_5,
    )
