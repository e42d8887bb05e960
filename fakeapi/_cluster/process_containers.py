"""The simulated kubelet's side of process-backed containers (docs/process-containers.md).

For a container whose outcome names a local process, the kubelet's status follows the process
rather than a timer: the container is running from the status write that starts it (the process
is started right after that write, with the pod as stored then, so its IPs are known), and
terminated once the process has exited, with its exit code, ``Completed`` for 0 and ``Error``
otherwise (``StartError`` and 128 when it could not be started), ``finishedAt`` the server's clock
when the exit was seen. Stopping a pod signals the process (:func:`signal_stops`); a process whose
container instance no pod shows running any more (its pod deleted at once, a restart) is killed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.container_env import container_environment
from fakeapi._cluster.container_processes import ProcessExit
from fakeapi._cluster.outcomes import Outcome, outcome_for
from fakeapi._state.clock import format_timestamp, parse_timestamp
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["process_exit", "process_terminated", "signal_stops", "sync_processes"]


PODS = builtin_type("", "v1", "Pod")


def _specs(pod: dict[str, Any]) -> dict[Any, dict[str, Any]]:
    return {c.get("name"): c for c in (pod.get("spec") or {}).get("containers") or [] if isinstance(c, dict)}


def _running_entries(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        entry
        for entry in (pod.get("status") or {}).get("containerStatuses") or []
        if isinstance(entry, dict) and "running" in (entry.get("state") or {}) and entry.get("containerID")
    ]


def process_exit(simulation: ControllerContext, entry: dict[str, Any], outcome: Outcome) -> ProcessExit | None:
    """How the process of a running process-backed container ended (None: it runs, or none is backed)."""
    if simulation.processes is None or outcome.local_process is None:
        return None
    return simulation.processes.exit_of(str(entry.get("containerID") or ""))


def process_terminated(entry: dict[str, Any], ended: ProcessExit) -> dict[str, Any]:
    """The terminated state of a container whose process has exited."""
    running = (entry.get("state") or {}).get("running") or {}
    terminated = {
        "exitCode": ended.exit_code,
        "reason": ended.reason,
        **({"message": ended.message} if ended.message else {}),
        "startedAt": running.get("startedAt"),
        "finishedAt": format_timestamp(ended.time),
        "containerID": entry.get("containerID"),
    }
    return {**entry, "state": {"terminated": terminated}, "ready": False, "started": False}


def sync_processes(simulation: ControllerContext, nodes: frozenset[str]) -> None:
    """After the kubelet's sync of the pods on ``nodes``: start the processes of the containers it
    started, SIGTERM those of pods being deleted, kill those of container instances no pod runs."""
    if simulation.processes is None:
        return
    now = simulation.store.clock.now()
    pods = [pod for pod in simulation.store.items(PODS, None) if (pod.get("spec") or {}).get("nodeName") in nodes]
    for pod in pods:
        meta = metadata_of(pod)
        deadline = parse_timestamp(meta.get("deletionTimestamp") or "")
        if deadline is None:
            _start_processes(simulation, pod)
        elif deadline - int(meta.get("deletionGracePeriodSeconds") or 0) <= now:  # the DELETE has come
            signal_stops(simulation, pod, kill=False)
    simulation.processes.keep_only({str(entry["containerID"]) for pod in pods for entry in _running_entries(pod)})


def _start_processes(simulation: ControllerContext, pod: dict[str, Any]) -> None:
    """Start the process of each running process-backed container of ``pod`` not started yet."""
    processes = simulation.processes
    if processes is None:
        return
    specs = _specs(pod)
    for entry in _running_entries(pod):
        container = specs.get(entry.get("name"))
        if container is None:
            continue
        process = outcome_for(pod, container, simulation.options.outcomes).local_process
        if process is not None:
            environment = container_environment(pod, container, process.env)
            processes.start(str(entry["containerID"]), process, environment)


def signal_stops(simulation: ControllerContext, pod: dict[str, Any], *, kill: bool) -> None:
    """SIGTERM to the processes of a pod being stopped (SIGKILL with ``kill``: the grace is over)."""
    processes = simulation.processes
    if processes is None:
        return
    for entry in _running_entries(pod):
        if kill:
            processes.kill(str(entry["containerID"]))
        else:
            processes.terminate(str(entry["containerID"]))
