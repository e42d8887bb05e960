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
does not run, and terminal pods, are left alone.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.container_processes import ProcessExit
from fakeapi._cluster.images import image_id, invalid_image_message, never_pull_message, normalized_image, pull_error
from fakeapi._cluster.nodes import KUBELET, host_ip, pod_subnet
from fakeapi._cluster.outcomes import Outcome, outcome_for
from fakeapi._cluster.pod_termination import terminate, terminating, termination_due
from fakeapi._cluster.process_containers import process_exit, process_terminated, sync_processes
from fakeapi._state.clock import format_timestamp, parse_timestamp
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["kubelet_due", "pod_workers", "run_pods"]

PODS = builtin_type("", "v1", "Pod")
KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady")
IMAGE_PULL_BACKOFF_AFTER = 10.0
BACKOFF_INITIAL, BACKOFF_MAX = 10, 300
TERMINAL = ("Succeeded", "Failed")

Event = tuple[str, str, str, str | None]  # type, reason, message, container


def run_pods(simulation: ControllerContext) -> None:
    """One sync of every pod on a simulated node whose next step is due (only the focused pod's,
    when a caller steps the kubelet's pod workers one at a time)."""
    nodes = {spec.name: index for index, spec in enumerate(simulation.options.nodes)}
    now = simulation.store.clock.now()
    for pod in simulation.store.items(PODS, None):
        index = nodes.get((pod.get("spec") or {}).get("nodeName") or "")
        if index is None or (simulation.focus is not None and simulation.focus != _key(pod)):
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


def pod_workers(simulation: ControllerContext) -> list[tuple[str, str]]:
    """The pods the kubelets run (namespace, name): each has its own pod worker upstream."""
    nodes = {spec.name for spec in simulation.options.nodes}
    return [
        _key(pod)
        for pod in simulation.store.items(PODS, None)
        if (pod.get("spec") or {}).get("nodeName") in nodes and (_runnable(pod) or terminating(pod))
    ]


def _key(pod: dict[str, Any]) -> tuple[str, str]:
    meta = metadata_of(pod)
    return (str(meta.get("namespace", "")), str(meta.get("name", "")))


def kubelet_due(simulation: ControllerContext) -> float | None:
    """When the next pod step is due (None when no pod has one coming)."""
    nodes = {spec.name for spec in simulation.options.nodes}
    times = [
        due
        for pod in simulation.store.items(PODS, None)
        if (pod.get("spec") or {}).get("nodeName") in nodes
        and _runnable(pod)
        and (due := _due(simulation, pod)) is not None
    ]
    times += [
        termination_due(simulation, pod)
        for pod in simulation.store.items(PODS, None)
        if (pod.get("spec") or {}).get("nodeName") in nodes and terminating(pod)
    ]
    return min(times, default=None)


def _runnable(pod: dict[str, Any]) -> bool:
    return metadata_of(pod).get("deletionTimestamp") is None and (pod.get("status") or {}).get("phase") not in TERMINAL


# -- when the next step is due -------------------------------------------------------------------


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
        due = _container_due(pod, entry or {}, outcome, started, process_exit(simulation, entry or {}, outcome))
        if due is not None:
            times.append(due)
    return min(times, default=None)


def _container_due(
    pod: dict[str, Any], entry: dict[str, Any], outcome: Outcome, started: float, ended: ProcessExit | None = None
) -> float | None:
    state = entry.get("state") or {}
    if "waiting" in state:
        reason = state["waiting"].get("reason")
        if reason in ("ContainerCreating", "PodInitializing"):
            return started + outcome.start_after
        if reason == "ErrImagePull":
            return started + IMAGE_PULL_BACKOFF_AFTER
        if reason == "CrashLoopBackOff":
            finished = parse_timestamp(((entry.get("lastState") or {}).get("terminated") or {}).get("finishedAt", ""))
            return None if finished is None else finished + _backoff(entry.get("restartCount", 0))
        return None
    if "running" in state:
        if outcome.local_process is not None:
            return None if ended is None else ended.time
        if outcome.exit_code is None:
            return None
        since = parse_timestamp(state["running"].get("startedAt", ""))
        return None if since is None else since + outcome.after
    if "terminated" in state and _restarts(pod, state["terminated"].get("exitCode", 0)):
        return parse_timestamp(state["terminated"].get("finishedAt", "")) or started
    return None


def _backoff(restarts: int) -> int:
    return int(min(BACKOFF_INITIAL * 2 ** max(restarts - 1, 0), BACKOFF_MAX))


def _restarts(pod: dict[str, Any], exit_code: int) -> bool:
    policy = (pod.get("spec") or {}).get("restartPolicy", "Always")
    return policy == "Always" or (policy == "OnFailure" and exit_code != 0)


# -- one sync ------------------------------------------------------------------------------------


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
            containers.append(_waiting(container, reason))
        else:
            entry = statuses.get(container.get("name")) or _waiting(container, "ContainerCreating")
            ended = process_exit(simulation, entry, outcome)
            containers.append(_step(pod, container, entry, outcome, now, stamp, events, ended))
    init = [] if first else [_init_done(pod, c, stamp) for c in spec.get("initContainers") or []]
    if first:
        init = [_waiting(c, "ContainerCreating") for c in spec.get("initContainers") or []]
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
    status["phase"] = _phase(spec, init, containers)
    status["conditions"] = _conditions(pod, status, init, containers, first, stamp)
    meta = metadata_of(pod)
    namespace, name = meta.get("namespace", ""), meta.get("name", "")
    store.update(
        PODS,
        namespace,
        name,
        lambda current: {**current, "status": status},
        subresource="status",
        manager=KUBELET,
        unconditional=True,
    )
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
    status = {**status, "conditions": _conditions(pod, status, init, status["containerStatuses"], False, stamp)}
    meta = metadata_of(pod)
    simulation.store.update(
        PODS,
        meta.get("namespace", ""),
        meta.get("name", ""),
        lambda current: {**current, "status": status},
        subresource="status",
        manager=KUBELET,
        unconditional=True,
    )


def _waiting(container: dict[str, Any], reason: str, message: str | None = None) -> dict[str, Any]:
    waiting = {"reason": reason, **({"message": message} if message else {})}
    return {
        "name": container.get("name"),
        "state": {"waiting": waiting},
        "lastState": {},
        "ready": False,
        "restartCount": 0,
        "image": container.get("image", ""),
        "imageID": "",
        "started": False,
    }


def _init_done(pod: dict[str, Any], container: dict[str, Any], stamp: str) -> dict[str, Any]:
    previous = next(
        (s for s in (pod.get("status") or {}).get("initContainerStatuses") or [] if s.get("name") == container["name"]),
        None,
    )
    if previous is not None and "terminated" in (previous.get("state") or {}):
        return dict(previous)
    identifier = _container_id(pod, container, 0)
    return {
        "name": container.get("name"),
        "state": {
            "terminated": {
                "exitCode": 0,
                "reason": "Completed",
                "startedAt": stamp,
                "finishedAt": stamp,
                "containerID": identifier,
            }
        },
        "lastState": {},
        "ready": True,
        "restartCount": 0,
        "image": normalized_image(container.get("image", "")),
        "imageID": image_id(container.get("image", "")),
        "containerID": identifier,
        "started": False,
    }


def _step(
    pod: dict[str, Any],
    container: dict[str, Any],
    entry: dict[str, Any],
    outcome: Outcome,
    now: float,
    stamp: str,
    events: list[Event],
    ended: ProcessExit | None = None,
) -> dict[str, Any]:
    """The container's next state, if its step is due; the Events it takes go to ``events``."""
    state = entry.get("state") or {}
    name = container.get("name")
    image = container.get("image", "")
    started = parse_timestamp((pod.get("status") or {}).get("startTime") or "") or now
    due = _container_due(pod, entry, outcome, started, ended)
    if due is None or due > now:
        return entry
    restarts = int(entry.get("restartCount", 0))
    if "waiting" in state and state["waiting"].get("reason") in ("ContainerCreating", "PodInitializing"):
        invalid = invalid_image_message(image)
        if invalid is not None:
            events.append(("Warning", "InspectFailed", invalid, name))
            events.append(("Warning", "Failed", "Error: InvalidImageName", name))
            return {**entry, "state": {"waiting": {"reason": "InvalidImageName", "message": invalid}}}
        if outcome.image_pull_failure and container.get("imagePullPolicy") == "Never":
            absent = never_pull_message(image)
            events.append(("Warning", "ErrImageNeverPull", absent, name))
            events.append(("Warning", "Failed", "Error: ErrImageNeverPull", name))
            return {**entry, "state": {"waiting": {"reason": "ErrImageNeverPull", "message": absent}}}
        if outcome.image_pull_failure:
            error = pull_error(image)
            events.append(("Normal", "Pulling", f'Pulling image "{image}"', name))
            events.append(("Warning", "Failed", f'Failed to pull image "{image}": {error}', name))
            events.append(("Warning", "Failed", "Error: ErrImagePull", name))
            return {**entry, "state": {"waiting": {"reason": "ErrImagePull", "message": error}}}
        return _running(pod, container, entry, outcome, restarts, stamp, events)
    if "waiting" in state and state["waiting"].get("reason") == "ErrImagePull":
        events.append(("Normal", "BackOff", f'Back-off pulling image "{image}"', name))
        events.append(("Warning", "Failed", "Error: ImagePullBackOff", name))
        message = f'Back-off pulling image "{image}"'
        return {**entry, "state": {"waiting": {"reason": "ImagePullBackOff", "message": message}}}
    if "waiting" in state:  # CrashLoopBackOff, its back-off over
        return _running(pod, container, entry, outcome, restarts + 1, stamp, events)
    if "running" in state and ended is not None:
        return process_terminated(entry, ended)
    if "running" in state:
        terminated = {
            "exitCode": outcome.exit_code,
            "reason": outcome.reason,
            "startedAt": state["running"].get("startedAt"),
            "finishedAt": format_timestamp(due),
            "containerID": entry.get("containerID"),
        }
        return {**entry, "state": {"terminated": terminated}, "ready": False, "started": False}
    # terminated, and the restart policy restarts it: at once the first time, then after a back-off
    if restarts == 0:
        return _running(pod, container, {**entry, "lastState": state}, outcome, 1, stamp, events)
    backoff = _backoff(restarts)
    meta = metadata_of(pod)
    pod_name = f"{meta.get('name')}_{meta.get('namespace')}({meta.get('uid')})"
    message = f"back-off {_go_seconds(backoff)} restarting failed container={name} pod={pod_name}"
    events.append(("Warning", "BackOff", f"Back-off restarting failed container {name} in pod {pod_name}", name))
    return {
        **entry,
        "state": {"waiting": {"reason": "CrashLoopBackOff", "message": message}},
        "lastState": state,
        "ready": False,
        "started": False,
    }


def _running(
    pod: dict[str, Any],
    container: dict[str, Any],
    entry: dict[str, Any],
    outcome: Outcome,
    restarts: int,
    stamp: str,
    events: list[Event],
) -> dict[str, Any]:
    name, image = container.get("name"), container.get("image", "")
    if container.get("imagePullPolicy") == "Always":
        events.append(("Normal", "Pulling", f'Pulling image "{image}"', name))
        size = int(hashlib.sha256(image.encode()).hexdigest()[:6], 16)
        pulled = f'Successfully pulled image "{image}" in 0s (0s including waiting). Image size: {size} bytes.'
        events.append(("Normal", "Pulled", pulled, name))
    else:
        events.append(("Normal", "Pulled", f'Container image "{image}" already present on machine', name))
    events.append(("Normal", "Created", f"Created container: {name}", name))
    events.append(("Normal", "Started", f"Started container {name}", name))
    identifier = _container_id(pod, container, restarts)
    return {
        "name": name,
        "state": {"running": {"startedAt": stamp}},
        "lastState": entry.get("lastState") or {},
        "ready": outcome.ready,
        "restartCount": restarts,
        "image": normalized_image(image),
        "imageID": image_id(image),
        "containerID": identifier,
        "started": True,
    }


def _container_id(pod: dict[str, Any], container: dict[str, Any], restarts: int) -> str:
    seed = f"{metadata_of(pod).get('uid')}/{container.get('name')}/{restarts}"
    return "containerd://" + hashlib.sha256(seed.encode()).hexdigest()


def _go_seconds(seconds: int) -> str:
    """Go's ``time.Duration.String`` of whole seconds: ``10s``, ``1m20s``, ``5m0s``."""
    minutes, rest = divmod(seconds, 60)
    return f"{minutes}m{rest}s" if minutes else f"{rest}s"


def _pod_ip(simulation: ControllerContext, pod: dict[str, Any], index: int) -> str:
    """The lowest address of the node's pod range no other live pod on it holds."""
    subnet = pod_subnet(index)
    node = (pod.get("spec") or {}).get("nodeName")
    taken = {
        (other.get("status") or {}).get("podIP")
        for other in simulation.store.items(PODS, None)
        if (other.get("spec") or {}).get("nodeName") == node and _runnable(other)
    }
    host = 2
    while f"{subnet}.{host}" in taken:
        host += 1
    return f"{subnet}.{host}"


# -- the pod's phase and conditions --------------------------------------------------------------


def _phase(spec: dict[str, Any], init: list[dict[str, Any]], containers: list[dict[str, Any]]) -> str:
    """``getPhase`` (``pkg/kubelet/kubelet_pods.go``) for regular containers and finished init containers."""
    if any("terminated" not in (s.get("state") or {}) for s in init):
        return "Pending"
    waiting = running = stopped = succeeded = 0
    for entry in containers:
        state = entry.get("state") or {}
        if "running" in state:
            running += 1
        elif "terminated" in state:
            stopped += 1
            succeeded += state["terminated"].get("exitCode") == 0
        elif (entry.get("lastState") or {}).get("terminated") is not None:
            stopped += 1
        else:
            waiting += 1
    if waiting:
        return "Pending"
    if running:
        return "Running"
    policy = spec.get("restartPolicy", "Always")
    if policy == "Always":
        return "Running"
    if stopped == succeeded:
        return "Succeeded"
    return "Failed" if policy == "Never" else "Running"


def _conditions(
    pod: dict[str, Any],
    status: dict[str, Any],
    init: list[dict[str, Any]],
    containers: list[dict[str, Any]],
    first: bool,
    stamp: str,
) -> list[dict[str, Any]]:
    phase = status["phase"]
    terminal_reason = {"Succeeded": "PodCompleted", "Failed": "PodFailed"}.get(phase)
    sandbox = not first and terminal_reason is None
    generated: list[dict[str, Any]] = [{"type": "PodReadyToStartContainers", "status": _bool(sandbox)}]
    incomplete = [s["name"] for s in init if not s.get("ready")]
    if phase == "Succeeded":
        generated.append({"type": "Initialized", "status": "True", "reason": "PodCompleted"})
    elif incomplete and not any(s.get("started") for s in containers):
        message = f"containers with incomplete status: [{' '.join(incomplete)}]"
        generated.append(
            {"type": "Initialized", "status": "False", "reason": "ContainersNotInitialized", "message": message}
        )
    else:
        generated.append({"type": "Initialized", "status": "True"})
    if terminal_reason is not None:
        ready: dict[str, Any] = {"status": "False", "reason": terminal_reason}
    else:
        unready = [s["name"] for s in containers if not s.get("ready")]
        if unready:
            message = f"containers with unready status: [{' '.join(unready)}]"
            ready = {"status": "False", "reason": "ContainersNotReady", "message": message}
        else:
            ready = {"status": "True"}
    generated.append({"type": "Ready", **ready})
    generated.append({"type": "ContainersReady", **ready})
    previous = {c.get("type"): c for c in (pod.get("status") or {}).get("conditions") or []}
    merged = []
    for condition in generated:
        before = previous.get(condition["type"])
        changed = before is None or before.get("status") != condition["status"]
        transition = stamp if changed else before.get("lastTransitionTime") if before else stamp
        merged.append({"type": condition["type"], "status": condition["status"], "lastProbeTime": None,
                       "lastTransitionTime": transition,
                       **{k: v for k, v in condition.items() if k in ("reason", "message")}})  # fmt: skip
    merged.extend(
        c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") not in KUBELET_CONDITIONS
    )
    return merged


def _bool(value: bool) -> str:
    return "True" if value else "False"
