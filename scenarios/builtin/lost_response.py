"""lost-response: the resourceVersion claim when the winner's answer never arrives.

Two replicas claim a job's completion with the fixed claim (test uid and resourceVersion). The
engine may lose the response to any one committed write: the claim is stored, but its sender sees a
connection error and cannot tell whether it won. The other replica's claim then fails (the
resourceVersion moved) and it sees the job claimed.

* ``reread-claimer`` holds: the claim value names the claimer, and after an error the replica reads
  the job again; finding its own name there, it knows it won and completes the job, exactly once.
* ``trust-response`` is caught (liveness): the claim value says only "claimed", the replica takes the
  error for a loss, and nobody ever completes the job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import aiohttp
from kubernetes_asyncio.client import ApiException

from scenarios._actors import Actor, TickContext
from scenarios._checks import exactly_once
from scenarios._model import Scenario
from scenarios.builtin._jobs import (
    COMMAND,
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

NAME = "lost-response"
SUMMARY = "the resourceVersion claim when the winner's response is lost after commit"
VARIANTS = {
    "reread-claimer": "holds: the claim names its claimer, who re-reads after an error",
    "trust-response": "caught: liveness (the winner believes it lost; nobody completes)",
}
CLAIMED = "example.com/claimed-by"
KEY = "default/job-1"


def claim_tick(*, reread: bool) -> Callable[[TickContext], Any]:
    async def tick(ctx: TickContext) -> None:
        current = await read_job(ctx, "job-1")
        if CLAIMED in (current["metadata"].get("annotations") or {}):
            return
        value = ctx.actor if reread else "true"
        claim = add_annotation(current, CLAIMED, value)
        operations = [uid_test(current), resource_version_test(current), claim]
        try:
            await ctx.custom.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1", operations)
        except ApiException as error:
            if error.status in (409, 422):
                return
            raise
        except aiohttp.ClientError:
            if not reread:
                return
            again = await read_job(ctx, "job-1")
            if (again["metadata"].get("annotations") or {}).get(CLAIMED) != ctx.actor:
                return
        ctx.effect("complete", KEY)

    return tick


def build(variant: str) -> Scenario:
    tick = claim_tick(reread=variant == "reread-claimer")
    spec = {"command": COMMAND, "image": "busybox:1.36"}
    return Scenario(
        name=NAME,
        interchangeable=INTERCHANGEABLE_REPLICAS,
        variant=variant,
        description=__doc__ or "",
        objects=(job_crd(), job("job-1", spec)),
        actors=(Actor("replica-a", tick, ticks=2), Actor("replica-b", tick, ticks=2)),
        checks=(exactly_once("complete", KEY),),
        faults=("lost-response",),
        max_faults=1,
    )
