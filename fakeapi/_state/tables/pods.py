"""Rows of pods: readiness, the status reason ``kubectl get pods`` shows, restarts, and a Completed condition.

Reproduced from kube-apiserver 1.32 ``pkg/printers/internalversion/printers.go`` ``printPod``
(wide): the reason walks init containers (restartable sidecars included) and then containers as
Go does, ``Terminating`` and ``Unknown`` come from the deletion timestamp, and a finished pod's row
carries the ``Completed`` condition.
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.tables.columns import AGE_COLUMN, NAME_COLUMN, Printer, column
from fakeapi._state.tables.durations import ZERO_TIME, age, parse_time, since
from fakeapi._state.tables.fields import Obj, as_int, as_obj, as_str, dicts, metadata, nested

__all__ = ["POD_PRINTER"]

_DOCS = {
    "pod.podIP": (
        "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."
    ),
    "pod.nodeName": (
        "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling "
        "by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes "
        "responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod "
        "to be scheduled on a specific node. "
        "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"
    ),
    "pod.nominatedNodeName": (
        "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled "
        "right away as preemption victims receive their graceful termination periods. This field does not "
        "guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if "
        "other nodes become available sooner. Scheduler may also decide to give the resources on this node to a "
        "higher priority pod that is created after preemption. As a result, this field may be different than "
        "PodSpec.nodeName when the pod is scheduled."
    ),
    "pod.readinessGates": (
        "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its "
        'containers are ready AND all conditions specified in the readiness gates have status equal to "True" '
        "More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates"
    ),
}


def _pod_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = as_obj(obj.get("spec")), as_obj(obj.get("status"))
    containers, init_containers = dicts(spec.get("containers")), dicts(spec.get("initContainers"))
    phase = as_str(status.get("phase"))
    reason = as_str(status.get("reason")) or phase
    for condition in dicts(status.get("conditions")):
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    sidecars = {as_str(c.get("name")) for c in init_containers if c.get("restartPolicy") == "Always"}
    total, ready = len(containers) + len(sidecars), 0
    restarts = sidecar_restarts = 0
    last_restart = last_sidecar_restart = ZERO_TIME
    initializing = False
    for index, container in enumerate(dicts(status.get("initContainerStatuses"))):
        count, finished = as_int(container.get("restartCount")), _finished_at(container)
        restarts, last_restart = restarts + count, max(last_restart, finished)
        sidecar = as_str(container.get("name")) in sidecars
        if sidecar:
            sidecar_restarts, last_sidecar_restart = sidecar_restarts + count, max(last_sidecar_restart, finished)
        terminated, waiting = nested(container, "state", "terminated"), nested(container, "state", "waiting")
        if isinstance(terminated, dict) and as_int(terminated.get("exitCode")) == 0:
            continue
        if sidecar and container.get("started") is True:
            ready += 1 if container.get("ready") is True else 0
            continue
        if isinstance(terminated, dict):
            reason = "Init:" + (as_str(terminated.get("reason")) or _exit_reason(terminated))
        elif isinstance(waiting, dict) and as_str(waiting.get("reason")) not in ("", "PodInitializing"):
            reason = "Init:" + as_str(waiting.get("reason"))
        else:
            reason = f"Init:{index}/{len(init_containers)}"
        initializing = True
        break
    initialized = any(
        c.get("type") == "Initialized" and c.get("status") == "True" for c in dicts(status.get("conditions"))
    )
    if not initializing or initialized:
        restarts, last_restart = sidecar_restarts, last_sidecar_restart
        running = False
        for container in reversed(dicts(status.get("containerStatuses"))):
            restarts += as_int(container.get("restartCount"))
            last_restart = max(last_restart, _finished_at(container))
            state = as_obj(container.get("state"))
            terminated, waiting = state.get("terminated"), state.get("waiting")
            if isinstance(waiting, dict) and as_str(waiting.get("reason")):
                reason = as_str(waiting.get("reason"))
            elif isinstance(terminated, dict):
                reason = as_str(terminated.get("reason")) or _exit_reason(terminated)
            elif container.get("ready") is True and isinstance(state.get("running"), dict):
                running = True
                ready += 1
        if reason == "Completed" and running:
            pod_ready = any(
                c.get("type") == "Ready" and c.get("status") == "True" for c in dicts(status.get("conditions"))
            )
            reason = "Running" if pod_ready else "NotReady"
    if metadata(obj).get("deletionTimestamp") is not None:
        if status.get("reason") == "NodeLost":
            reason = "Unknown"
        elif phase not in ("Failed", "Succeeded"):
            reason = "Terminating"
    restarts_text = str(restarts)
    if restarts != 0 and last_restart != ZERO_TIME:
        restarts_text = f"{restarts} ({since(last_restart, now_ns)} ago)"
    pod_ips = dicts(status.get("podIPs"))
    gates = dicts(spec.get("readinessGates"))
    return [
        metadata(obj).get("name", ""),
        f"{ready}/{total}",
        reason,
        restarts_text,
        age(obj, now_ns),
        (as_str(pod_ips[0].get("ip")) if pod_ips else "") or "<none>",
        as_str(spec.get("nodeName")) or "<none>",
        as_str(status.get("nominatedNodeName")) or "<none>",
        f"{_true_gates(gates, status)}/{len(gates)}" if gates else "<none>",
    ]


def _finished_at(container_status: Obj) -> tuple[int, int]:
    terminated = nested(container_status, "lastState", "terminated")
    if not isinstance(terminated, dict):
        return ZERO_TIME
    return parse_time(terminated.get("finishedAt")) or ZERO_TIME


def _exit_reason(terminated: Obj) -> str:
    signal = as_int(terminated.get("signal"))
    return f"Signal:{signal}" if signal != 0 else f"ExitCode:{as_int(terminated.get('exitCode'))}"


def _true_gates(gates: list[Obj], status: Obj) -> int:
    conditions = dicts(status.get("conditions"))
    count = 0
    for gate in gates:
        matching = [c for c in conditions if c.get("type") == gate.get("conditionType")]
        count += 1 if matching and matching[0].get("status") == "True" else 0
    return count


def _pod_conditions(obj: Obj) -> list[Obj]:
    phase = nested(obj, "status", "phase")
    messages = {"Succeeded": "The pod has completed successfully.", "Failed": "The pod failed."}
    if phase not in messages:
        return []
    return [{"type": "Completed", "status": "True", "reason": phase, "message": messages[phase]}]


POD_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
        column("Status", "string", "The aggregate status of the containers in this pod."),
        column(
            "Restarts",
            "string",
            "The number of times the containers in this pod have been restarted and when the last container "
            "in this pod has restarted.",
        ),
        AGE_COLUMN,
        column("IP", "string", _DOCS["pod.podIP"], priority=1),
        column("Node", "string", _DOCS["pod.nodeName"], priority=1),
        column("Nominated Node", "string", _DOCS["pod.nominatedNodeName"], priority=1),
        column("Readiness Gates", "string", _DOCS["pod.readinessGates"], priority=1),
    ),
    _pod_cells,
    conditions=_pod_conditions,
)
