"""The kubelet stopping a pod being deleted: its containers stopped, a terminal status, the final delete.

A DELETE of a pod on a node gives it ``deletionTimestamp`` and ``deletionGracePeriodSeconds``
(docs/graceful-deletion.md). Its kubelet then (docs/graceful-deletion.md, after
``pkg/kubelet/pod_workers.go``, ``kuberuntime_container.go`` ``killContainer`` and
``pkg/kubelet/status/status_manager.go``):

1. stops every running container with SIGTERM, the grace period being the pod's
   ``deletionGracePeriodSeconds`` (at least 1 s, ``calculateEffectiveGracePeriod``), counted from the
   DELETE (``deletionTimestamp`` minus the grace); a container exits as its
   :class:`~fakeapi._cluster.outcomes.Outcome` says (0 at once by default), or is killed
   (137) when the grace ends, or ends on its own before that; each gets a Normal ``Killing`` Event,
   ``Stopping container <name>``;
2. once all have stopped, writes the status ``generateAPIPodStatus`` builds for a terminal pod and
   ``TerminatePod`` completes: containers terminated (one that never ran is ``ContainerStatusUnknown``,
   137), phase Succeeded when every container exited 0 and Failed otherwise, Ready False;
3. deletes the pod with ``gracePeriodSeconds: 0`` and its uid as precondition (``syncPod`` once
   ``canBeDeleted``), which removes it unless a finalizer holds it.

Each of the two writes is a step of its own pod worker.

A container backed by a local process (docs/process-containers.md) is stopped for real: its
process gets SIGTERM when the kubelet first sees the pod being deleted, and stops when the process
exits; one still running when the grace period ends on the server's clock is killed (SIGKILL, 137).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.nodes import KUBELET
from fakeapi._cluster.outcomes import outcome_for
from fakeapi._cluster.process_containers import process_exit, signal_stops
from fakeapi._state.clock import format_timestamp, parse_timestamp
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["terminate", "terminating", "termination_due"]

PODS = builtin_type("", "v1", "Pod")
TERMINAL = ("Succeeded", "Failed")
KILLED = 137  # SIGKILL at the end of the grace period
UNKNOWN_MESSAGE = "The container could not be located when the pod was terminated"


def terminating(pod: dict[str, Any]) -> bool:
    """A pod being deleted that its kubelet still has something to write for."""
    meta = metadata_of(pod)
    if meta.get("deletionTimestamp") is None:
        return False
    return (pod.get("status") or {}).get("phase") not in TERMINAL or bool(meta.get("deletionGracePeriodSeconds"))


def termination_due(simulation: ControllerContext, pod: dict[str, Any]) -> float:
    """When the kubelet's next write for a terminating pod falls due."""
    if (pod.get("status") or {}).get("phase") in TERMINAL:
        return _deleted_at(pod)
    return max((when for when, _ in _stops(simulation, pod).values()), default=_deleted_at(pod))


def terminate(
    simulation: ControllerContext, pod: dict[str, Any], write_status: Callable[[dict[str, Any], dict[str, Any]], None]
) -> None:
    """The kubelet's next write for a terminating pod, if it is due: the terminal status (through
    ``write_status(pod, status)``), or the final delete."""
    store = simulation.store
    due = termination_due(simulation, pod)
    if due > store.clock.now():
        return
    meta = metadata_of(pod)
    namespace, name = meta.get("namespace", ""), meta.get("name", "")
    if (pod.get("status") or {}).get("phase") in TERMINAL:
        store.delete(PODS, namespace, name, uid=meta.get("uid"), grace_period=0)
        return
    stops = _stops(simulation, pod)
    signal_stops(simulation, pod, kill=True)  # a process still running at this point is past its grace
    status = dict(pod.get("status") or {})
    initialized = _initialized(pod)
    containers = []
    for entry in status.get("containerStatuses") or []:
        state = entry.get("state") or {}
        stop = stops.get(entry.get("name"))
        if stop is not None:
            when, code = stop
            terminated = {
                "exitCode": code,
                "reason": "Completed" if code == 0 else "Error",
                "startedAt": state["running"].get("startedAt"),
                "finishedAt": format_timestamp(when),
                "containerID": entry.get("containerID"),
            }
            containers.append({**entry, "state": {"terminated": terminated}, "ready": False, "started": False})
        elif "terminated" in state or not initialized:
            containers.append(entry)
        else:
            unknown = {"exitCode": KILLED, "reason": "ContainerStatusUnknown", "message": UNKNOWN_MESSAGE}
            containers.append({**entry, "state": {"terminated": unknown}, "ready": False, "started": False})
    # ``getPhase`` for a terminal pod: Succeeded only when every container ran and exited 0; a pod
    # that never got that far is Pending there, which ``TerminatePod`` turns into Failed.
    every_success = len(containers) == len((pod.get("spec") or {}).get("containers") or []) and all(
        ((c.get("state") or {}).get("terminated") or {}).get("exitCode") == 0 for c in containers
    )
    status["containerStatuses"] = containers
    status["phase"] = "Succeeded" if initialized and containers and every_success else "Failed"
    write_status(pod, status)
    node = (pod.get("spec") or {}).get("nodeName")
    for container in stops:
        simulation.recorder.record(
            pod,
            "Normal",
            "Killing",
            f"Stopping container {container}",
            component=KUBELET,
            manager=KUBELET,
            host=node,
            field_path=f"spec.containers{{{container}}}",
        )


def _deleted_at(pod: dict[str, Any]) -> float:
    """When the DELETE that set the grace period came: the deadline less the grace."""
    meta = metadata_of(pod)
    deadline = parse_timestamp(meta.get("deletionTimestamp") or "") or 0.0
    return deadline - int(meta.get("deletionGracePeriodSeconds") or 0)


def _stops(simulation: ControllerContext, pod: dict[str, Any]) -> dict[str, tuple[float, int]]:
    """Each running container's stop: when, and its exit code."""
    began = _deleted_at(pod)
    grace = max(int(metadata_of(pod).get("deletionGracePeriodSeconds") or 0), 1)
    specs = {c.get("name"): c for c in (pod.get("spec") or {}).get("containers") or []}
    stops: dict[str, tuple[float, int]] = {}
    for entry in (pod.get("status") or {}).get("containerStatuses") or []:
        running = (entry.get("state") or {}).get("running")
        spec = specs.get(entry.get("name"))
        if running is None or spec is None:
            continue
        outcome = outcome_for(pod, spec, simulation.options.outcomes)
        stop = (began + grace, KILLED)
        if outcome.local_process is not None:
            ended = process_exit(simulation, entry, outcome)
            if ended is not None and ended.time < stop[0]:
                stop = (ended.time, ended.exit_code)
            stops[str(entry.get("name"))] = (max(stop[0], began), stop[1])
            continue
        if outcome.term_exit_code is not None and outcome.term_after < grace:
            stop = (began + outcome.term_after, outcome.term_exit_code)
        started = parse_timestamp(running.get("startedAt") or "")
        if outcome.exit_code is not None and started is not None and started + outcome.after < stop[0]:
            stop = (started + outcome.after, outcome.exit_code)
        stops[str(entry.get("name"))] = (max(stop[0], began), stop[1])
    return stops


def _initialized(pod: dict[str, Any]) -> bool:
    """``hasPodInitialized``: no init containers, or a container that left waiting, or the last init
    container done with 0."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    if not spec.get("initContainers"):
        return True
    for entry in status.get("containerStatuses") or []:
        if (entry.get("lastState") or {}).get("terminated") is not None or "waiting" not in (entry.get("state") or {}):
            return True
    inits = status.get("initContainerStatuses") or []
    if inits:
        last = inits[-1]
        for state in (last.get("lastState") or {}, last.get("state") or {}):
            if (state.get("terminated") or {}).get("exitCode") == 0 and "terminated" in state:
                return True
    return False
