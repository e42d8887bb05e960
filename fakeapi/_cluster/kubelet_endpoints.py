"""What the simulated kubelet serves besides pod status: logs, exec, attach (docs/kubelet-endpoints.md).

The apiserver reaches a pod's containers through the kubelet of its node. For a pod on a node the
simulated kubelet runs, this object holds what a test said its containers do beyond their outcome:
the lines appended to a running container's log (:class:`LogBook`), the scripted answers of
commands run in it, and the local addresses its ports stand for. A command no test scripted exits 127 with a line on stderr naming the command,
as a shell does for a command it cannot find: the fake has no image to run it from. Everything here
is forgotten when the server is reset or restored, as a new cluster's containers would have.

A container backed by a local process (docs/process-containers.md) has its process here
(:class:`ContainerProcesses`): exec runs a command beside it, a port-forward reaches its ports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from fakeapi._cluster.container_logs import LogBook, instance_for
from fakeapi._cluster.container_processes import ContainerProcesses, LaunchedProcess
from fakeapi._cluster.outcomes import OutcomeRule, outcome_for
from fakeapi.errors import APIError

__all__ = ["UNSCRIPTED_EXIT_CODE", "ExecResult", "KubeletEndpoints"]

UNSCRIPTED_EXIT_CODE = 127


@dataclass(frozen=True)
class ExecResult:
    """What a command run in a container does: its output, then its exit code."""

    exit_code: int = 0
    stdout: bytes = b""
    stderr: bytes = b""


class KubeletEndpoints:
    """The kubelet's streaming endpoints for the pods on the simulated nodes."""

    def __init__(self, nodes: Iterable[str], outcomes: Sequence[OutcomeRule], clock: Callable[[], float]) -> None:
        self.nodes = frozenset(nodes)
        self.outcomes = tuple(outcomes)
        self.logs = LogBook()
        self.processes = ContainerProcesses(self.logs, clock)
        self._scripts: dict[tuple[str, str, str, tuple[str, ...]], ExecResult] = {}
        self._ports: dict[tuple[str, str, int], tuple[str, int]] = {}

    def runs(self, pod: dict[str, Any]) -> bool:
        """Whether the pod is on a node this kubelet runs."""
        return (pod.get("spec") or {}).get("nodeName") in self.nodes

    def printed(self, pod: dict[str, Any], container: str) -> tuple[str, ...]:
        """The lines the container's outcome writes as each instance starts."""
        for key in ("containers", "initContainers", "ephemeralContainers"):
            for spec in (pod.get("spec") or {}).get(key) or []:
                if isinstance(spec, dict) and spec.get("name") == container:
                    return outcome_for(pod, spec, self.outcomes).logs
        return ()

    def append_log(self, pod: dict[str, Any], container: str, lines: Sequence[str], now: float) -> None:
        """Lines the running instance of ``container`` (the pod's only container when empty) writes now."""
        meta = pod.get("metadata") or {}
        where = f"pod {meta.get('namespace')}/{meta.get('name')}"
        if not self.runs(pod):
            raise ValueError(f"{where} is not on a node the simulated kubelet runs")
        names = [c.get("name", "") for c in (pod.get("spec") or {}).get("containers") or [] if isinstance(c, dict)]
        if not container:
            if len(names) != 1:
                raise ValueError(f"{where} has containers {names}: name the one whose log to append to")
            container = names[0]
        try:
            instance = instance_for(pod, container, previous=False)
        except APIError as error:
            raise ValueError(f"{where}: {error.message}") from None
        if not instance.running:
            raise ValueError(f"{where}: container {container} is not running")
        split = [part for line in lines for part in line.removesuffix("\n").split("\n")]
        self.logs.append(instance.container_id, split, now)

    def script(self, namespace: str, pod: str, container: str, command: Sequence[str], result: ExecResult) -> None:
        """``command`` run in ``container`` of the pod (any of its containers when ``container`` is empty)."""
        self._scripts[(namespace, pod, container, tuple(command))] = result

    def scripted(self, namespace: str, pod: str, container: str, command: Sequence[str]) -> bool:
        """Whether a test scripted ``command`` for this container (a script wins over a process)."""
        keys = ((namespace, pod, container, tuple(command)), (namespace, pod, "", tuple(command)))
        return any(key in self._scripts for key in keys)

    def result_of(self, namespace: str, pod: str, container: str, command: Sequence[str]) -> ExecResult:
        """The scripted answer of ``command``, or the unscripted one."""
        for key in ((namespace, pod, container, tuple(command)), (namespace, pod, "", tuple(command))):
            if key in self._scripts:
                return self._scripts[key]
        shown = " ".join(command) if command else "(no command)"
        text = f"fakeapi: no exec script for {shown!r} in container {container} of pod {namespace}/{pod}\n"
        return ExecResult(UNSCRIPTED_EXIT_CODE, b"", text.encode())

    def forward(self, namespace: str, pod: str, port: int, address: tuple[str, int]) -> None:
        """The pod's ``port`` is the local ``address``: a port-forward to it connects there."""
        self._ports[(namespace, pod, port)] = address

    def target_of(self, pod: dict[str, Any], port: int) -> tuple[str, int] | None:
        """Where a port-forward to the pod's ``port`` connects: the address a test named, else the
        local port a process of the pod stands for (its containers share the pod's ports)."""
        meta = pod.get("metadata") or {}
        named = self._ports.get((str(meta.get("namespace", "")), str(meta.get("name", "")), port))
        if named is not None:
            return named
        for entry in (pod.get("status") or {}).get("containerStatuses") or []:
            running = isinstance(entry, dict) and "running" in (entry.get("state") or {})
            launched = self.processes.launched(str(entry.get("containerID") or "")) if running else None
            if launched is not None:
                return ("127.0.0.1", launched.process.local_port(port))
        return None

    def process_of(self, container_id: str) -> LaunchedProcess | None:
        """The local process of a container instance, if a process backs it."""
        return self.processes.launched(container_id)

    def clear(self) -> None:
        """Forget appended log lines, scripts and forwarded ports, and kill every process (a reset
        or restored server)."""
        self.processes.kill_all()
        self.logs.clear()
        self._scripts.clear()
        self._ports.clear()
