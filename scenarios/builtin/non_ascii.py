"""non-ascii: a claim that pins a spec string holding ``é``, as kubernetes_asyncio sends it.

Python's ``json.dumps`` (what kubernetes_asyncio uses) escapes non-ASCII: ``é`` leaves the client as
``\\u00e9``. The apiserver stores it raw (UTF-8) and compares ``test`` values byte by byte, so a
claim that tests ``/spec/owner`` = ``"José"`` never applies.

* ``spec-string``: tests uid and ``/spec/owner``: caught (liveness, 422 every time).
* ``resource-version``: tests uid and resourceVersion: exactly once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubernetes_asyncio.client import ApiException

from scenarios._actors import Actor, TickContext
from scenarios._checks import exactly_once
from scenarios._model import Scenario
from scenarios.builtin._jobs import (
    GROUP,
    INTERCHANGEABLE_REPLICAS,
    PLURAL,
    VERSION,
    add_annotation,
    job,
    job_crd,
    read_job,
    resource_version_test,
    uid_test,
)

__all__ = ["NAME", "SUMMARY", "VARIANTS", "build"]

NAME = "non-ascii"
SUMMARY = "a claim that tests a spec string holding é, sent as kubernetes_asyncio spells it (\\u00e9)"
VARIANTS = {
    "spec-string": "caught: liveness (the test of /spec/owner 422s every time)",
    "resource-version": "holds in every schedule (exhaustive)",
}
CLAIMED = "example.com/started-by"
KEY = "default/job-3"

Preconditions = Callable[[dict[str, Any]], list[dict[str, Any]]]

PRECONDITIONS: dict[str, Preconditions] = {
    "spec-string": lambda job: [uid_test(job), {"op": "test", "path": "/spec/owner", "value": job["spec"]["owner"]}],
    "resource-version": lambda job: [uid_test(job), resource_version_test(job)],
}


def start_tick(preconditions: Preconditions) -> Callable[[TickContext], Any]:
    async def tick(ctx: TickContext) -> None:
        current = await read_job(ctx, "job-3")
        if CLAIMED in (current["metadata"].get("annotations") or {}):
            return
        claim = add_annotation(current, CLAIMED, ctx.actor)
        try:
            await ctx.custom.patch_namespaced_custom_object(
                GROUP, VERSION, "default", PLURAL, "job-3", [*preconditions(current), claim]
            )
        except ApiException as error:
            if error.status in (409, 422):
                return
            raise
        ctx.effect("start", KEY)

    return tick


def build(variant: str) -> Scenario:
    tick = start_tick(PRECONDITIONS[variant])
    return Scenario(
        name=NAME,
        interchangeable=INTERCHANGEABLE_REPLICAS,
        variant=variant,
        description=__doc__ or "",
        objects=(job_crd(), job("job-3", {"command": "echo café au lait", "owner": "José"})),
        actors=(Actor("replica-a", tick, ticks=2), Actor("replica-b", tick, ticks=2)),
        checks=(exactly_once("start", KEY),),
    )
