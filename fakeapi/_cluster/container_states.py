"""The kubelet's next status of one container, and when it falls due.

A container goes through the states of ``pkg/kubelet/kuberuntime/kuberuntime_manager.go``
(``computePodActions``, ``doBackOff``) as ``pkg/kubelet/kubelet_pods.go``
(``convertToAPIContainerStatuses``) reports them: waiting ``ContainerCreating`` (``PodInitializing``
behind init containers) until its outcome's start delay is over, then running, or waiting
``InvalidImageName``, ``ErrImageNeverPull`` or ``ErrImagePull`` then ``ImagePullBackOff``; running
until its outcome (or its local process) ends it; terminated, then restarted by the pod's restart
policy at once the first time and after ``CrashLoopBackOff`` 10s, 20s, 40s ... up to 5m. Each step
brings the kubelet's Events (``Pulling``, ``Pulled``, ``Created``, ``Started``, ``Failed``,
``BackOff``), which :mod:`.kubelet` records with the pod's status write.
"""

from __future__ import annotations

import hashlib
from typing import Any

from fakeapi._cluster.container_processes import ProcessExit
from fakeapi._cluster.images import image_id, invalid_image_message, never_pull_message, normalized_image, pull_error
from fakeapi._cluster.outcomes import Outcome
from fakeapi._cluster.process_containers import process_terminated
from fakeapi._state.clock import format_timestamp, parse_timestamp
from fakeapi._state.objects import metadata_of

__all__ = ["Event", "container_due", "init_container_done", "next_container_status", "waiting_container"]

IMAGE_PULL_BACKOFF_AFTER = 10.0
BACKOFF_INITIAL, BACKOFF_MAX = 10, 300

Event = tuple[str, str, str, str | None]  # type, reason, message, container


def container_due(
    pod: dict[str, Any], entry: dict[str, Any], outcome: Outcome, started: float, ended: ProcessExit | None = None
) -> float | None:
    """When the container's next step falls due (None: it has none coming)."""
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


def next_container_status(
    pod: dict[str, Any],
    container: dict[str, Any],
    entry: dict[str, Any],
    outcome: Outcome,
    now: float,
    stamp: str,
    events: list[Event],
    ended: ProcessExit | None = None,
) -> dict[str, Any]:
    """The container's next status, if its step is due; the Events it takes go to ``events``."""
    state = entry.get("state") or {}
    name = container.get("name")
    image = container.get("image", "")
    started = parse_timestamp((pod.get("status") or {}).get("startTime") or "") or now
    due = container_due(pod, entry, outcome, started, ended)
    if due is None or due > now:
        return entry
    restarts = int(entry.get("restartCount", 0))
    if "waiting" in state and state["waiting"].get("reason") in ("ContainerCreating", "PodInitializing"):
        invalid = invalid_image_message(image)
        if invalid is not None:
            return _left_waiting(
                entry, "InvalidImageName", invalid, events, name, ("Warning", "InspectFailed", invalid)
            )
        if outcome.image_pull_failure and container.get("imagePullPolicy") == "Never":
            absent = never_pull_message(image)
            return _left_waiting(
                entry, "ErrImageNeverPull", absent, events, name, ("Warning", "ErrImageNeverPull", absent)
            )
        if outcome.image_pull_failure:
            error = pull_error(image)
            pulling = ("Normal", "Pulling", f'Pulling image "{image}"')
            failed = ("Warning", "Failed", f'Failed to pull image "{image}": {error}')
            return _left_waiting(entry, "ErrImagePull", error, events, name, pulling, failed)
        return _running(pod, container, entry, outcome, restarts, stamp, events)
    if "waiting" in state and state["waiting"].get("reason") == "ErrImagePull":
        message = f'Back-off pulling image "{image}"'
        return _left_waiting(entry, "ImagePullBackOff", message, events, name, ("Normal", "BackOff", message))
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


def _left_waiting(
    entry: dict[str, Any],
    reason: str,
    message: str,
    events: list[Event],
    name: str | None,
    *before: tuple[str, str, str],
) -> dict[str, Any]:
    """A container that could not start, waiting ``reason``: the Events that led there (type, reason,
    message), then the kubelet's ``Failed`` with ``Error: <reason>``."""
    events.extend((event_type, event_reason, text, name) for event_type, event_reason, text in before)
    events.append(("Warning", "Failed", f"Error: {reason}", name))
    return {**entry, "state": {"waiting": {"reason": reason, "message": message}}}


def waiting_container(container: dict[str, Any], reason: str) -> dict[str, Any]:
    """The status of a container not created yet, waiting ``reason``."""
    return _container_status(container, {"waiting": {"reason": reason}})


def init_container_done(pod: dict[str, Any], container: dict[str, Any], stamp: str) -> dict[str, Any]:
    """An init container's status once it has run: it completes at once, and stays as it completed."""
    previous = next(
        (s for s in (pod.get("status") or {}).get("initContainerStatuses") or [] if s.get("name") == container["name"]),
        None,
    )
    if previous is not None and "terminated" in (previous.get("state") or {}):
        return dict(previous)
    identifier = _container_id(pod, container, 0)
    terminated = {
        "exitCode": 0,
        "reason": "Completed",
        "startedAt": stamp,
        "finishedAt": stamp,
        "containerID": identifier,
    }
    return _container_status(container, {"terminated": terminated}, ready=True, identifier=identifier)


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
    return _container_status(
        container,
        {"running": {"startedAt": stamp}},
        last_state=entry.get("lastState") or {},
        ready=outcome.ready,
        restarts=restarts,
        identifier=_container_id(pod, container, restarts),
        started=True,
    )


def _container_status(
    container: dict[str, Any],
    state: dict[str, Any],
    *,
    last_state: dict[str, Any] | None = None,
    ready: bool = False,
    restarts: int = 0,
    identifier: str | None = None,
    started: bool = False,
) -> dict[str, Any]:
    """One ``containerStatuses`` entry: a container the runtime created (one with an ID) shows the
    runtime's image reference and ID, one not created yet the spec's image and no ID."""
    image = container.get("image", "")
    status: dict[str, Any] = {
        "name": container.get("name"),
        "state": state,
        "lastState": last_state or {},
        "ready": ready,
        "restartCount": restarts,
        "image": image if identifier is None else normalized_image(image),
        "imageID": "" if identifier is None else image_id(image),
    }
    if identifier is not None:
        status["containerID"] = identifier
    status["started"] = started
    return status


def _container_id(pod: dict[str, Any], container: dict[str, Any], restarts: int) -> str:
    seed = f"{metadata_of(pod).get('uid')}/{container.get('name')}/{restarts}"
    return "containerd://" + hashlib.sha256(seed.encode()).hexdigest()


def _go_seconds(seconds: int) -> str:
    """Go's ``time.Duration.String`` of whole seconds: ``10s``, ``1m20s``, ``5m0s``."""
    minutes, rest = divmod(seconds, 60)
    return f"{minutes}m{rest}s" if minutes else f"{rest}s"
