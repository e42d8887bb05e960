"""kube-controller-manager's Job controller (``pkg/controller/job/job_controller.go`` ``syncJob``), NonIndexed Jobs.

For each unfinished, unsuspended Job it reads the pods its controller reference owns and:

* creates the missing ones (``manageJob``): ``min(parallelism, completions - succeeded)`` minus the
  active ones, from the template, named ``<job>-<5 random characters>``, with the template's labels
  (``batch.kubernetes.io/controller-uid``, ``batch.kubernetes.io/job-name`` and the legacy ones the
  apiserver added), a controller ownerReference and the ``batch.kubernetes.io/job-tracking``
  finalizer; each create gets a ``SuccessfulCreate`` Event (``Created pod: <name>``). After a
  failure, replacements wait out the pod failure back-off (10s doubling per failure since the last
  success, at most 10 minutes: ``backoff_utils.go``);
* tracks finished pods with finalizers (``trackJobStatusAndRemoveFinalizers``): their uids go into
  ``status.uncountedTerminatedPods`` first, then their finalizer is removed, then they move into
  ``succeeded``/``failed``, each a separate write as upstream does;
* writes ``active``, ``ready``, ``terminating`` and ``startTime`` (first sync);
* finishes the Job: ``succeeded >= completions`` adds ``SuccessCriteriaMet`` then ``Complete``
  (reason ``CompletionsReached``, message ``Reached expected number of succeeded pods``), with
  ``completionTime`` and a ``Completed`` Event (``Job completed``); ``failed > backoffLimit`` adds
  ``FailureTarget`` (reason ``BackoffLimitExceeded``, message ``Job has reached the specified
  backoff limit``), deletes the active pods, and once none is left adds ``Failed`` with the same
  reason and message and a ``BackoffLimitExceeded`` Warning Event.

Writes are by ``kube-controller-manager``; Events come from ``job-controller``. Indexed Jobs,
``activeDeadlineSeconds``, pod failure and success policies, ``backoffLimitPerIndex`` and
``ttlSecondsAfterFinished`` are not simulated: such Jobs get no pods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.controller_refs import controller_reference
from fakeapi._cluster.status_writes import CONTROLLER_MANAGER, write_status_fields
from fakeapi._state.clock import parse_timestamp
from fakeapi._state.kinds import builtin_type
from fakeapi._state.label_selectors import requirements_match
from fakeapi._state.objects import metadata_of, with_metadata

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["JOB_TRACKING_FINALIZER", "job_due", "sync_jobs"]

JOBS = builtin_type("batch", "v1", "Job")
PODS = builtin_type("", "v1", "Pod")
COMPONENT = "job-controller"
JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
POD_FAILURE_BACKOFF, POD_FAILURE_BACKOFF_MAX = 10.0, 600.0
COMPLETIONS_REACHED = ("CompletionsReached", "Reached expected number of succeeded pods")
BACKOFF_LIMIT_EXCEEDED = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")


def sync_jobs(simulation: ControllerContext) -> None:
    for job in simulation.store.items(JOBS, None):
        if _simulated(job):
            _sync(simulation, job)
    _release_orphans(simulation)


def _release_orphans(simulation: ControllerContext) -> None:
    """``syncOrphanPod``: a pod holding the tracking finalizer whose Job is gone (or finished, or
    another Job of the same name) loses the finalizer; one controlled by something else keeps it."""
    store = simulation.store
    for pod in store.items(PODS, None):
        meta = metadata_of(pod)
        if JOB_TRACKING_FINALIZER not in (meta.get("finalizers") or []):
            continue
        controller = next((r for r in meta.get("ownerReferences") or [] if r.get("controller") is True), None)
        if controller is not None:
            if controller.get("kind") != "Job" or controller.get("apiVersion") != "batch/v1":
                continue
            job = store.find(JOBS, meta.get("namespace", ""), str(controller.get("name", "")))
            if job is not None and metadata_of(job).get("uid") == controller.get("uid") and not _finished(job):
                continue
        _remove_tracking_finalizer(simulation, pod)


def _remove_tracking_finalizer(simulation: ControllerContext, pod: dict[str, Any]) -> None:
    meta = metadata_of(pod)
    kept: list[str] = [f for f in meta.get("finalizers") or [] if f != JOB_TRACKING_FINALIZER]

    def without_tracking(current: dict[str, Any]) -> dict[str, Any]:
        return with_metadata(current, finalizers=kept or None)

    simulation.store.update(
        PODS,
        meta.get("namespace", ""),
        meta.get("name", ""),
        without_tracking,
        manager=CONTROLLER_MANAGER,
        unconditional=True,
    )


def job_due(simulation: ControllerContext) -> float | None:
    """When a replacement pod held back by the failure back-off may be created."""
    times = []
    for job in simulation.store.items(JOBS, None):
        if _simulated(job):
            ready_at = _backoff_over(job, _owned_pods(simulation, job))
            if ready_at is not None and ready_at > simulation.store.clock.now():
                times.append(ready_at)
    return min(times, default=None)


def _simulated(job: dict[str, Any]) -> bool:
    spec = job.get("spec") or {}
    return not _finished(job) and not spec.get("suspend") and spec.get("completionMode", "NonIndexed") == "NonIndexed"


def _finished(job: dict[str, Any]) -> bool:
    return any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True" for c in _conditions(job))


def _conditions(job: dict[str, Any]) -> list[dict[str, Any]]:
    return list((job.get("status") or {}).get("conditions") or [])


def _has(job: dict[str, Any], kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True" for c in _conditions(job))


def _owned_pods(simulation: ControllerContext, job: dict[str, Any]) -> list[dict[str, Any]]:
    meta = metadata_of(job)
    selector = (job.get("spec") or {}).get("selector") or {}
    owned = []
    for pod in simulation.store.items(PODS, meta.get("namespace", "")):
        controller = next(
            (ref for ref in metadata_of(pod).get("ownerReferences") or [] if ref.get("controller") is True), None
        )
        if controller is None or controller.get("uid") != meta.get("uid"):
            continue
        labels = metadata_of(pod).get("labels") or {}
        if requirements_match(selector.get("matchLabels") or {}, selector.get("matchExpressions") or [], labels):
            owned.append(pod)
    return owned


def _phase(pod: dict[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "Pending")


def _finished_at(pod: dict[str, Any]) -> float:
    times = [
        parse_timestamp(((s.get("state") or {}).get("terminated") or {}).get("finishedAt", "")) or 0.0
        for s in (pod.get("status") or {}).get("containerStatuses") or []
    ]
    return max(times, default=0.0)


def _backoff_over(job: dict[str, Any], pods: list[dict[str, Any]]) -> float | None:
    """When the pod failure back-off after the latest failures ends (None: no failure to wait for)."""
    finished = sorted((p for p in pods if _phase(p) in ("Succeeded", "Failed")), key=_finished_at)
    failures = 0
    for pod in finished:
        failures = failures + 1 if _phase(pod) == "Failed" else 0
    if not failures:
        return None
    delay = min(POD_FAILURE_BACKOFF * 2.0 ** (failures - 1), POD_FAILURE_BACKOFF_MAX)
    return _finished_at(finished[-1]) + delay


def _sync(simulation: ControllerContext, job: dict[str, Any]) -> None:
    store = simulation.store
    meta = metadata_of(job)
    namespace, name = meta.get("namespace", ""), meta.get("name", "")
    pods = _owned_pods(simulation, job)
    status = job.get("status") or {}
    uncounted = status.get("uncountedTerminatedPods") or {}
    counted = set(uncounted.get("succeeded") or []) | set(uncounted.get("failed") or [])
    # ``isPodFailed``: a pod being deleted counts as failed unless it succeeded.
    newly = [
        p
        for p in pods
        if (_phase(p) in ("Succeeded", "Failed") or _deleting(p))
        and JOB_TRACKING_FINALIZER in (metadata_of(p).get("finalizers") or [])
        and metadata_of(p).get("uid") not in counted
    ]
    if newly:
        succeeded_uids = [metadata_of(p)["uid"] for p in newly if _phase(p) == "Succeeded"]
        failed_uids = [metadata_of(p)["uid"] for p in newly if _phase(p) != "Succeeded"]
        _write_status(
            simulation,
            job,
            uncountedTerminatedPods={
                **({"succeeded": [*(uncounted.get("succeeded") or []), *succeeded_uids]} if succeeded_uids or uncounted.get("succeeded") else {}),
                **({"failed": [*(uncounted.get("failed") or []), *failed_uids]} if failed_uids or uncounted.get("failed") else {}),
            },
        )  # fmt: skip
        job = store.get(JOBS, namespace, name)
    _flush_uncounted(simulation, job, pods)
    job = store.get(JOBS, namespace, name)
    pods = _owned_pods(simulation, job)
    spec = job.get("spec") or {}
    status = job.get("status") or {}
    active = [p for p in pods if _phase(p) not in ("Succeeded", "Failed") and not _deleting(p)]
    terminating = [p for p in pods if _phase(p) not in ("Succeeded", "Failed") and _deleting(p)]
    succeeded, failed = int(status.get("succeeded") or 0), int(status.get("failed") or 0)
    completions = spec.get("completions")
    now = store.clock.timestamp()
    conditions = _conditions(job)
    if failed > int(spec.get("backoffLimit", 6)) and not _has(job, "FailureTarget"):
        conditions.append(_condition("FailureTarget", BACKOFF_LIMIT_EXCEEDED, now))
    if _has(job, "FailureTarget") or any(c.get("type") == "FailureTarget" for c in conditions):
        for pod in active:
            store.delete(PODS, namespace, metadata_of(pod)["name"])
        terminating, active = terminating + active, []
    elif completions is not None and succeeded >= int(completions) and not _has(job, "SuccessCriteriaMet"):
        conditions.append(_condition("SuccessCriteriaMet", COMPLETIONS_REACHED, now))
    finishing = {c.get("type") for c in conditions} & {"FailureTarget", "SuccessCriteriaMet"}
    if not finishing and not _deleting(job):  # ``manageJob`` is not called for a Job being deleted
        active += _create_pods(simulation, job, pods, len(active), succeeded)
    extra: dict[str, Any] = {}
    events: list[tuple[str, str, str]] = []
    if finishing and not terminating and not active:
        if "SuccessCriteriaMet" in finishing:
            conditions.append(_condition("Complete", COMPLETIONS_REACHED, now))
            extra["completionTime"] = now
            events.append(("Normal", "Completed", "Job completed"))
        else:
            conditions.append(_condition("Failed", BACKOFF_LIMIT_EXCEEDED, now))
            events.append(("Warning", *BACKOFF_LIMIT_EXCEEDED))
    ready = sum(1 for p in active if _pod_ready(p))
    _write_status(
        simulation,
        job,
        startTime=status.get("startTime") or now,
        active=len(active) or None,
        ready=ready,
        terminating=len(terminating),
        uncountedTerminatedPods=status.get("uncountedTerminatedPods") or {},
        conditions=conditions or None,
        **extra,
    )
    for event_type, reason, message in events:
        simulation.recorder.record(job, event_type, reason, message, component=COMPONENT, manager=CONTROLLER_MANAGER)


def _flush_uncounted(simulation: ControllerContext, job: dict[str, Any], pods: list[dict[str, Any]]) -> None:
    """Remove the tracking finalizer from the uncounted pods (from every pod of a Job being deleted:
    ``canRemoveFinalizer``), then count them."""
    status = job.get("status") or {}
    uncounted = status.get("uncountedTerminatedPods") or {}
    uids = {*uncounted.get("succeeded", []), *uncounted.get("failed", [])}
    for pod in pods:
        meta = metadata_of(pod)
        releasing = meta.get("uid") in uids or _deleting(job)
        if releasing and JOB_TRACKING_FINALIZER in (meta.get("finalizers") or []):
            _remove_tracking_finalizer(simulation, pod)
    if not uids:
        return
    _write_status(
        simulation,
        job,
        succeeded=int(status.get("succeeded") or 0) + len(uncounted.get("succeeded") or []) or None,
        failed=int(status.get("failed") or 0) + len(uncounted.get("failed") or []) or None,
        uncountedTerminatedPods={},
    )


def _create_pods(
    simulation: ControllerContext, job: dict[str, Any], pods: list[dict[str, Any]], active: int, succeeded: int
) -> list[dict[str, Any]]:
    spec = job.get("spec") or {}
    want = int(spec.get("parallelism", 1))
    if spec.get("completions") is not None:
        want = min(want, int(spec["completions"]) - succeeded)
    missing = want - active
    backoff = _backoff_over(job, pods)
    if missing <= 0 or (backoff is not None and backoff > simulation.store.clock.now()):
        return []
    meta = metadata_of(job)
    template = spec.get("template") or {}
    template_meta = template.get("metadata") or {}
    reference = controller_reference(job, "batch/v1", "Job")
    created = []
    for _ in range(missing):
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "generateName": f"{meta.get('name')}-",
                "namespace": meta.get("namespace"),
                "labels": dict(template_meta.get("labels") or {}),
                **({"annotations": dict(template_meta["annotations"])} if template_meta.get("annotations") else {}),
                "ownerReferences": [reference],
                "finalizers": [JOB_TRACKING_FINALIZER],
            },
            "spec": template.get("spec") or {},
        }
        stored = simulation.store.create(PODS, meta.get("namespace", ""), pod, manager=CONTROLLER_MANAGER).object
        created.append(stored)
        message = f"Created pod: {metadata_of(stored)['name']}"
        simulation.recorder.record(
            job, "Normal", "SuccessfulCreate", message, component=COMPONENT, manager=CONTROLLER_MANAGER
        )
    return created


def _write_status(simulation: ControllerContext, job: dict[str, Any], **fields: Any) -> None:
    write_status_fields(simulation, JOBS, job, fields)


def _condition(kind: str, reason_message: tuple[str, str], now: str) -> dict[str, Any]:
    reason, message = reason_message
    return {
        "type": kind,
        "status": "True",
        "lastProbeTime": now,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }


def _deleting(pod: dict[str, Any]) -> bool:
    return metadata_of(pod).get("deletionTimestamp") is not None


def _pod_ready(pod: dict[str, Any]) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
