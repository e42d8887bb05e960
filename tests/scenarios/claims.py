"""Scenarios a user would write, importable by the command line (``tests.scenarios.claims:NAME``).

``CHILDREN``: a buggy "one child per parent" operator (list the children, create one when there is
none, with ``generateName``): two replicas can both see none and both create. ``COMPLETION``: a
completion claim read by name (a quorum read) or from the watch cache (``resourceVersion=0``), whose
crash-recovery path ("claimed by me but not marked complete: finish it") completes twice when its own
write is not yet in what it reads.
"""

from __future__ import annotations

from typing import Any

from kubernetes_asyncio.client import ApiException, CoreV1Api

from scenarios import RunRecord, TickContext, exactly_once, predicate, scenario
from tests.scenarios.conftest import CRD, job

GROUP, VERSION, PLURAL = "example.com", "v1", "jobs"


async def make_child(ctx: TickContext) -> None:
    core = CoreV1Api(ctx.api)
    children = await core.list_namespaced_config_map("default", label_selector="parent=job-1")
    if children.items:
        return
    child = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"generateName": "child-", "labels": {"parent": "job-1"}},
    }
    await core.create_namespaced_config_map("default", child)


def one_child(run: RunRecord) -> bool | str:
    children = sorted(
        key[3]
        for key, obj in run.final.items()
        if obj is not None and key[1] == "configmaps" and (obj["metadata"].get("labels") or {}).get("parent") == "job-1"
    )
    return len(children) == 1 or f"job-1 has {len(children)} children: {', '.join(children) or 'none'}"


CHILDREN = scenario(
    name="children",
    objects=[CRD, job("job-1")],
    actors={"a": make_child, "b": make_child},
    checks=predicate("one child per parent", one_child),
)


def completion_tick(*, cached: bool) -> Any:
    async def tick(ctx: TickContext) -> None:
        if cached:
            listed = await ctx.custom.list_namespaced_custom_object(
                GROUP, VERSION, "default", PLURAL, field_selector="metadata.name=job-1", resource_version="0"
            )
            current = listed["items"][0]
        else:
            current = await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
        status = current.get("status") or {}
        if status.get("completed"):
            return
        if status.get("claimedBy") not in (None, ctx.actor):
            return
        if status.get("claimedBy") is None:
            claim = [
                {"op": "test", "path": "/metadata/resourceVersion", "value": current["metadata"]["resourceVersion"]},
                {"op": "add", "path": "/status", "value": {"claimedBy": ctx.actor}},
            ]
            try:
                await ctx.custom.patch_namespaced_custom_object_status(
                    GROUP, VERSION, "default", PLURAL, "job-1", claim
                )
            except ApiException as error:
                if error.status in (409, 422):
                    return
                raise
        ctx.effect("complete", "default/job-1")
        done = [{"op": "add", "path": "/status/completed", "value": True}]
        await ctx.custom.patch_namespaced_custom_object_status(GROUP, VERSION, "default", PLURAL, "job-1", done)

    return tick


def completion(*, cached: bool, faults: tuple[str, ...] = ("stale-read",)) -> Any:
    tick = completion_tick(cached=cached)
    return scenario(
        name="completion",
        variant="cached" if cached else "quorum",
        objects=[CRD, job("job-1")],
        actors={"replica-a": tick, "replica-b": tick},
        ticks=2,
        faults=faults,
        checks=exactly_once("complete", "default/job-1"),
    )


COMPLETION = completion(cached=False)
