"""The kubelet of each fake node: the pods bound to it go Pending -> Running -> Succeeded or Failed.

What the kubelet writes is its status manager's patch of ``pods/status`` (``pkg/kubelet/status/
status_manager.go``) built by ``generateAPIPodStatus`` (``pkg/kubelet/kubelet_pods.go``): the phase
from ``getPhase``, the conditions of ``pkg/kubelet/status/generate.go`` (PodReadyToStartContainers,
Initialized, Ready, ContainersReady, then the conditions others own, PodScheduled among them),
``hostIP``/``hostIPs``, ``podIP``/``podIPs`` once the sandbox exists (the node's address for a pod
on the host's network), ``startTime`` when the kubelet first sees the pod, and one container status
per container, sorted by name, with the runtime's ``containerID`` and ``imageID``. Each status is written as an update of ``pods/status`` by
``kubelet``; a condition keeps its ``lastTransitionTime`` while its status stays the same.

A pod goes through these writes, each at the instant on the server's clock when it is due:

1. seen: Pending, containers waiting ``ContainerCreating`` (``PodInitializing`` behind init
   containers), PodReadyToStartContainers False;
2. started: the image pulled (or found present), each container created and started (the
   ``Pulling``/``Pulled``/``Created``/``Started`` Events), Running; init containers are taken to
   complete at once; a container whose outcome ``starts after`` some seconds waits
   ``ContainerCreating`` until then (the pull and the create take that long);
3. as its :mod:`outcome <fakeapi._cluster.outcomes>` says: a container that exits is
   ``terminated`` (``Completed``, ``Error`` or ``OOMKilled``); under ``restartPolicy: Always`` (or
   ``OnFailure`` after a failure) it restarts at once the first time, then waits in
   ``CrashLoopBackOff`` 10s, 20s, 40s ... up to 5m (``doBackOff`` in ``kuberuntime_manager.go``);
   otherwise, once every container is terminated, the pod is Succeeded (all exited 0) or Failed.
   An image that cannot be pulled leaves the container waiting ``ErrImagePull``, then
   ``ImagePullBackOff`` ten seconds later (the pod worker's back-off), or ``ErrImageNeverPull`` for
   good under ``imagePullPolicy: Never``; a container backed by a local process
   (:mod:`.process_containers`) terminates when its process exits; a reference that does not
   parse (:func:`~fakeapi._cluster.images.invalid_image_message`) leaves it waiting
   ``InvalidImageName`` for good, whatever the outcome says.

A pod being deleted is stopped instead (:mod:`.pod_termination`); pods on nodes the simulation
does not run, and terminal pods, are left alone. This module holds the pod's sync and its status
write; each container's steps are :mod:`.container_states`, the phase and conditions
:mod:`.pod_conditions`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.container_states import (
    Event,
    container_due,
    init_container_done,
    next_container_status,
    waiting_container,
)
from fakeapi._cluster.nodes import KUBELET, host_ip, pod_subnet
from fakeapi._cluster.outcomes import outcome_for
from fakeapi._cluster.pod_conditions import pod_conditions, pod_phase
from fakeapi._cluster.pod_termination import terminate, terminating, termination_due
from fakeapi._cluster.probe_cache import items_read_for
from fakeapi._cluster.process_containers import process_exit, sync_processes
from fakeapi._cluster.status_writes import write_status
from fakeapi._state.clock import parse_timestamp
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["kubelet_due", "pod_workers", "run_pods"]

PODS = builtin_type("", "v1", "Pod")
TERMINAL = ("Succeeded", "Failed")


def run_pods(simulation: ControllerContext) -> None:
    """One sync of every pod on a simulated node whose next step is due (only the focused pod's,
    when a caller steps the kubelet's pod workers one at a time)."""
    nodes = {spec.name: index for index, spec in enumerate(simulation.options.nodes)}
    now = simulation.store.clock.now()
    for pod in _pods_to_sync(simulation):
        index = nodes.get((pod.get("spec") or {}).get("nodeName") or "")
        if index is None:
            continue
        if metadata_of(pod).get("deletionTimestamp") is not None:
            if terminating(pod):
                terminate(simulation, pod, lambda pod, status: _write_terminal_status(simulation, pod, status))
            continue
        if (pod.get("status") or {}).get("phase") in TERMINAL:
            continue
        due = _due(simulation, pod)
        if due is not None and due <= now:
            _sync(simulation, pod, index)
    if simulation.focus is None:
        sync_processes(simulation, frozenset(nodes))


def _pods_to_sync(simulation: ControllerContext) -> list[dict[str, Any]]:
    """Every pod, or only the focused one: a pod worker looks up its own pod and reads no other (but
    for a new pod's address), so that another pod's write leaves what it does unchanged."""
    if simulation.focus is None:
        return simulation.store.items(PODS, None)
    pod = simulation.store.find(PODS, *simulation.focus)
    return [] if pod is None else [pod]


def pod_workers(simulation: ControllerContext) -> list[tuple[str, str]]:
    """The pods the kubelets run (namespace, name): each has its own pod worker upstream."""
    return [_key(pod) for pod in _on_simulated_nodes(simulation) if _runnable(pod) or terminating(pod)]


def kubelet_due(simulation: ControllerContext) -> float | None:
    """When the next pod step is due (None when no pod has one coming)."""
    times = []
    for pod in _on_simulated_nodes(simulation):
        if _runnable(pod) and (due := _due(simulation, pod)) is not None:
            times.append(due)
        if terminating(pod):
            times.append(termination_due(simulation, pod))
    return min(times, default=None)


def _on_simulated_nodes(simulation: ControllerContext) -> Iterator[dict[str, Any]]:
    nodes = {spec.name for spec in simulation.options.nodes}
    return (pod for pod in simulation.store.items(PODS, None) if (pod.get("spec") or {}).get("nodeName") in nodes)


def _key(pod: dict[str, Any]) -> tuple[str, str]:
    meta = metadata_of(pod)
    return (str(meta.get("namespace", "")), str(meta.get("name", "")))


def _runnable(pod: dict[str, Any]) -> bool:
    return metadata_of(pod).get("deletionTimestamp") is None and (pod.get("status") or {}).get("phase") not in TERMINAL


def _due(simulation: ControllerContext, pod: dict[str, Any]) -> float | None:
    status = pod.get("status") or {}
    statuses = {s.get("name"): s for s in status.get("containerStatuses") or []}
    started = parse_timestamp(status.get("startTime") or "")
    if not statuses or started is None:  # not seen yet: due since it was bound
        return parse_timestamp(metadata_of(pod).get("creationTimestamp") or "") or simulation.store.clock.now()
    times = []
    for container in (pod.get("spec") or {}).get("containers") or []:
        entry = statuses.get(container.get("name"))
        outcome = outcome_for(pod, container, simulation.options.outcomes)
        due = container_due(pod, entry or {}, outcome, started, process_exit(simulation, entry or {}, outcome))
        if due is not None:
            times.append(due)
    return min(times, default=None)


def _sync(simulation: ControllerContext, pod: dict[str, Any], index: int) -> None:
    store = simulation.store
    now, stamp = store.clock.now(), store.clock.timestamp()
    spec = pod.get("spec") or {}
    status = dict(pod.get("status") or {})
    statuses = {s.get("name"): s for s in status.get("containerStatuses") or []}
    events: list[Event] = []
    first = not statuses or status.get("startTime") is None
    containers = []
    for container in spec.get("containers") or []:
        outcome = outcome_for(pod, container, simulation.options.outcomes)
        if first:
            reason = "PodInitializing" if spec.get("initContainers") else "ContainerCreating"
            containers.append(waiting_container(container, reason))
        else:
            entry = statuses.get(container.get("name")) or waiting_container(container, "ContainerCreating")
            ended = process_exit(simulation, entry, outcome)
            containers.append(next_container_status(pod, container, entry, outcome, now, stamp, events, ended))
    init = [] if first else [init_container_done(pod, c, stamp) for c in spec.get("initContainers") or []]
    if first:
        init = [waiting_container(c, "ContainerCreating") for c in spec.get("initContainers") or []]
        status["startTime"] = stamp
        status["hostIP"] = host_ip(index)
        status["hostIPs"] = [{"ip": host_ip(index)}]
    elif not status.get("podIP"):
        # A pod on the host's network has the node's address (kubelet_pods.go generateAPIPodStatus).
        ip = host_ip(index) if spec.get("hostNetwork") else _pod_ip(simulation, pod, index)
        status["podIP"], status["podIPs"] = ip, [{"ip": ip}]
    if init:
        status["initContainerStatuses"] = sorted(init, key=lambda s: s["name"])
    status["containerStatuses"] = sorted(containers, key=lambda s: s["name"])
    status["phase"] = pod_phase(spec, init, containers)
    status["conditions"] = pod_conditions(pod, status, init, containers, first, stamp)
    write_status(simulation, PODS, pod, status, manager=KUBELET)
    node = simulation.options.nodes[index].name
    for event_type, reason, message, container_name in events:
        field_path = f"spec.containers{{{container_name}}}" if container_name else None
        simulation.recorder.record(
            pod, event_type, reason, message, component=KUBELET, manager=KUBELET, host=node, field_path=field_path
        )


def _write_terminal_status(simulation: ControllerContext, pod: dict[str, Any], status: dict[str, Any]) -> None:
    """A stopped pod's status (:mod:`.pod_termination`), with the conditions of a terminal pod."""
    stamp = simulation.store.clock.timestamp()
    init = list(status.get("initContainerStatuses") or [])
    conditions = pod_conditions(pod, status, init, status["containerStatuses"], False, stamp)
    write_status(simulation, PODS, pod, {**status, "conditions": conditions}, manager=KUBELET)


def _address_held(pod: dict[str, Any]) -> tuple[Any, Any, bool]:
    """All that a new pod's address depends on of another pod: its node, its address, whether it runs."""
    return ((pod.get("spec") or {}).get("nodeName"), (pod.get("status") or {}).get("podIP"), _runnable(pod))


def _pod_ip(simulation: ControllerContext, pod: dict[str, Any], index: int) -> str:
    """The lowest address of the node's pod range no other live pod on it holds."""
    subnet = pod_subnet(index)
    node = (pod.get("spec") or {}).get("nodeName")
    taken = {
        address
        for other_node, address, runnable in map(
            _address_held, items_read_for(simulation.store, PODS, None, _address_held)
        )
        if other_node == node and runnable
    }
    host = 2
    while f"{subnet}.{host}" in taken:
        host += 1
    return f"{subnet}.{host}"
