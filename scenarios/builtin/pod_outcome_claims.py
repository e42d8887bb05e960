"""pod-outcome-claims: the seed operator's two terminal claims, startup failure and completion, raced
against the simulated scheduler and kubelet that make its pods fail and finish.

A job runs two pods, bound to the fake node. The launcher's container exits 0 as soon as it
starts; the worker's image reference holds ``&`` (a query string pasted into the tag), so the
kubelet cannot parse it and the container waits in ``InvalidImageName`` with a message that quotes
the reference (fakeapi's docs/controllers.md). Two replicas of the operator watch the job's pods. When the worker
cannot start, a replica records the kubelet's reason and message as ``status.startupIssue`` and
claims the startup failure (``status.phase: Failed``); when the launcher has succeeded and no
startup issue is recorded, it claims completion (``status.phase: Completed``). Each claim is a JSON
patch of ``jobs/status`` with preconditions, retried on 409/422 with a fresh read; the replica whose
claim applies acts on the outcome (the effect, ``terminal``), which must happen exactly once.

The kubelet's writes (each pod seen, started, finished or failed) are steps of the schedule like
the replicas' requests, and so is each replica's start of its watch: the worker may fail while a
completion claim is in flight, before it, or after it landed.

* ``resource-version`` (the fix): both claims test uid and resourceVersion; exactly once in every
  schedule.
* ``startup-issue-whole`` (the post-fix claim the review flagged): the startup claim also tests the
  whole ``/status/startupIssue``; its message holds ``&``, stored ``\\u0026`` while the client sends
  ``&``, so the claim 422s every time and, once the issue is recorded, nothing ends the job: caught
  as liveness.
* ``unconditional``: no precondition; two replicas that both read a non-terminal job both win.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubernetes_asyncio import watch
from kubernetes_asyncio.client import ApiException, CoreV1Api

from scenarios._actors import Actor, TickContext
from scenarios._checks import exactly_once
from scenarios._model import Scenario
from scenarios.builtin._jobs import (
    GROUP,
    INTERCHANGEABLE_REPLICAS,
    PLURAL,
    VERSION,
    job,
    job_crd,
    resource_version_test,
    uid_test,
)

__all__ = ["NAME", "SUMMARY", "VARIANTS", "build"]

NAME = "pod-outcome-claims"
SUMMARY = "two replicas claim a job's startup failure or completion while the kubelet runs its pods"
VARIANTS = {
    "resource-version": "holds in every schedule (exhaustive)",
    "startup-issue-whole": "caught: liveness (the kubelet's message holds &)",
    "unconditional": "caught: safety (two winners)",
}
JOB = "job-3"
KEY = f"default/{JOB}"
LAUNCHER_IMAGE = "registry.example.com/team/launcher:1.0"
WORKER_IMAGE = "registry.example.com/team/app:pr-1488&debug=1"
STARTUP_FAILURES = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName")
TERMINAL = ("Completed", "Failed")
ATTEMPTS = 5  # each failed attempt means another replica wrote the job: a handful always suffices

Preconditions = Callable[[dict[str, Any]], list[dict[str, Any]]]

STARTUP_PRECONDITIONS: dict[str, Preconditions] = {
    "resource-version": lambda job: [uid_test(job), resource_version_test(job)],
    "startup-issue-whole": lambda job: [
        uid_test(job),
        resource_version_test(job),
        {"op": "test", "path": "/status/startupIssue", "value": job["status"]["startupIssue"]},
    ],
    "unconditional": lambda job: [],
}
COMPLETION_PRECONDITIONS: dict[str, Preconditions] = {
    "resource-version": lambda job: [uid_test(job), resource_version_test(job)],
    "startup-issue-whole": lambda job: [uid_test(job), resource_version_test(job)],
    "unconditional": lambda job: [],
}


def pod(name: str, role: str, image: str, outcome: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "labels": {"example.com/job": JOB, "example.com/role": role},
            "annotations": {"fakeapi.dev/outcome": outcome},
        },
        "spec": {"nodeName": "node-1", "restartPolicy": "Never", "containers": [{"name": role, "image": image}]},
    }


def startup_failure(pod: Any) -> dict[str, str] | None:
    """The worker's startup failure as the kubelet reports it (reason and message), if it has one."""
    for status in pod.status.container_statuses or []:
        waiting = status.state.waiting if status.state is not None else None
        if waiting is not None and waiting.reason in STARTUP_FAILURES:
            return {"reason": waiting.reason, "message": waiting.message or ""}
    return None


def operator(variant: str) -> Callable[[TickContext], Any]:
    async def claim(ctx: TickContext, phase: str, issue: dict[str, str] | None) -> None:
        """Record the startup issue (if any) and claim the terminal phase, retrying on a stale read."""
        current = await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, JOB)
        for _ in range(ATTEMPTS):
            status = current.get("status") or {}
            if status.get("phase") in TERMINAL:
                return
            if issue is None and status.get("startupIssue"):
                return  # a startup issue is recorded: the job will not complete
            if issue is not None and not status.get("startupIssue"):
                current = await ctx.custom.patch_namespaced_custom_object_status(
                    GROUP, VERSION, "default", PLURAL, JOB, {"status": {"startupIssue": issue}},
                    _content_type="application/merge-patch+json",
                )  # fmt: skip
                continue  # judge the job as recorded: another replica may have ended it meanwhile
            preconditions = (STARTUP_PRECONDITIONS if issue else COMPLETION_PRECONDITIONS)[variant](current)
            mark = (
                {"op": "add", "path": "/status/phase", "value": phase}
                if "status" in current
                else {"op": "add", "path": "/status", "value": {"phase": phase}}
            )
            operations = [*preconditions, mark]
            try:
                await ctx.custom.patch_namespaced_custom_object_status(
                    GROUP, VERSION, "default", PLURAL, JOB, operations
                )
            except ApiException as error:
                if error.status not in (409, 422):
                    raise
                current = await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, JOB)
                continue
            ctx.effect("terminal", KEY)
            return

    async def tick(ctx: TickContext) -> None:
        pods = CoreV1Api(ctx.api)
        stream = watch.Watch().stream(pods.list_namespaced_pod, "default", label_selector=f"example.com/job={JOB}")
        async for event in stream:
            pod = event["object"]
            role = (pod.metadata.labels or {}).get("example.com/role")
            if role == "worker" and (issue := startup_failure(pod)) is not None:
                await claim(ctx, "Failed", issue)
            elif role == "launcher" and pod.status.phase == "Succeeded":
                await claim(ctx, "Completed", None)

    return tick


def build(variant: str) -> Scenario:
    tick = operator(variant)
    return Scenario(
        name=NAME,
        interchangeable=INTERCHANGEABLE_REPLICAS,
        variant=variant,
        description=__doc__ or "",
        objects=(
            job_crd(),
            job(JOB, {"image": LAUNCHER_IMAGE, "workerImage": WORKER_IMAGE}),
            pod(f"{JOB}-launcher", "launcher", LAUNCHER_IMAGE, "succeed"),
            pod(f"{JOB}-worker", "worker", WORKER_IMAGE, "run"),
        ),
        actors=(Actor("replica-a", tick), Actor("replica-b", tick)),
        checks=(exactly_once("terminal", KEY),),
        controllers=("nodes", "kubelet"),
    )
