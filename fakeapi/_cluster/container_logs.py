"""What the simulated kubelet answers for a container's log (docs/kubelet-endpoints.md).

A container instance (one ``containerID``: each restart is a new one) writes its outcome's lines to
stdout as it starts, then whatever a test appends while it runs (:meth:`LogBook.append`). The
kubelet picks the instance as ``validateContainerLogStatus`` (``pkg/kubelet/kubelet_pods.go``)
does: the last terminated one for ``previous``, else the running one, else the terminated one, and
says why there is none in the text the apiserver passes on as a 400. The lines are cut as
``pkg/kubelet/kuberuntime/logs/logs.go`` ``ReadLogs`` does: the last ``tailLines`` of the file
first, then the lines older than ``sinceSeconds``/``sinceTime`` dropped, each prefixed with its
RFC3339Nano timestamp and a space under ``timestamps``, and ``limitBytes`` of the result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fakeapi._state.clock import parse_timestamp
from fakeapi._state.pod_log_options import PodLogOptions
from fakeapi.errors import APIError

__all__ = ["ContainerInstance", "LogBook", "LogCursor", "LogLine", "instance_for", "rfc3339_nano", "still_running"]


@dataclass(frozen=True)
class LogLine:
    time: float
    text: str


@dataclass(frozen=True)
class ContainerInstance:
    """One run of a container: its runtime ID, when it started, and whether it still runs."""

    name: str
    container_id: str
    started: float
    running: bool


def _status_of(pod: dict[str, Any], name: str) -> dict[str, Any] | None:
    status = pod.get("status") or {}
    for key in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for entry in status.get(key) or []:
            if isinstance(entry, dict) and entry.get("name") == name:
                return entry
    return None


def instance_for(pod: dict[str, Any], name: str, *, previous: bool) -> ContainerInstance:
    """``validateContainerLogStatus``: the instance whose log is read, or the kubelet's 400."""
    pod_name = (pod.get("metadata") or {}).get("name", "")
    entry = _status_of(pod, name)
    if entry is None:
        raise APIError.bad_request(f'container "{name}" in pod "{pod_name}" is not available')
    state, last = entry.get("state") or {}, (entry.get("lastState") or {}).get("terminated")
    if previous:
        if not last or not last.get("containerID"):
            raise APIError.bad_request(f'previous terminated container "{name}" in pod "{pod_name}" not found')
        return _instance(name, last, last["containerID"], running=False)
    if "running" in state:
        return _instance(name, state["running"], entry.get("containerID", ""), running=True)
    for terminated in (state.get("terminated"), last):
        if terminated:
            if not terminated.get("containerID"):
                raise APIError.bad_request(f'container "{name}" in pod "{pod_name}" is terminated')
            return _instance(name, terminated, terminated["containerID"], running=False)
    waiting = state.get("waiting")
    if waiting is not None:
        reason = waiting.get("reason", "")
        shown = {
            "ErrImagePull": "image can't be pulled",
            "ImagePullBackOff": "trying and failing to pull image",
        }.get(reason, reason)
        raise APIError.bad_request(f'container "{name}" in pod "{pod_name}" is waiting to start: {shown}')
    raise APIError.bad_request(f'container "{name}" in pod "{pod_name}" is waiting to start - no logs yet')


def _instance(name: str, state: dict[str, Any], container_id: str, *, running: bool) -> ContainerInstance:
    started = parse_timestamp(state.get("startedAt") or "") or 0.0
    return ContainerInstance(name, container_id, started, running)


def still_running(pod: dict[str, Any] | None, instance: ContainerInstance) -> bool:
    """Whether ``instance`` is still the running instance of its container in ``pod``."""
    if pod is None or not instance.running:
        return False
    entry = _status_of(pod, instance.name) or {}
    return "running" in (entry.get("state") or {}) and entry.get("containerID") == instance.container_id


class LogBook:
    """The lines tests appended to running containers, by container ID, and who waits for more."""

    def __init__(self) -> None:
        self._appended: dict[str, list[LogLine]] = {}
        self._waiters: list[asyncio.Future[None]] = []

    def append(self, container_id: str, lines: Sequence[str], now: float) -> None:
        self._appended.setdefault(container_id, []).extend(LogLine(now, line) for line in lines)
        self.wake()

    def lines(self, instance: ContainerInstance, printed: Sequence[str]) -> list[LogLine]:
        """Everything ``instance`` wrote: its outcome's ``printed`` lines as it started, then the appended ones."""
        return [LogLine(instance.started, text) for text in printed] + self._appended.get(instance.container_id, [])

    def clear(self) -> None:
        self._appended.clear()
        self.wake()

    def waiter(self) -> asyncio.Future[None]:
        """A future that completes at the next :meth:`wake`."""
        future = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        return future

    def wake(self) -> None:
        """Tell every waiter that a log or a container's state may have changed."""
        waiters, self._waiters = self._waiters, []
        for future in waiters:
            if not future.done():
                future.set_result(None)


class LogCursor:
    """One log request's reading of an instance's lines: the first read applies ``tailLines`` and
    the since filter, later reads (``follow``) take the lines written since, until ``limitBytes``."""

    def __init__(self, options: PodLogOptions, now: float) -> None:
        self.options = options
        self.since = _since(options, now)
        self.left = options.limit_bytes
        self.read = 0
        self.first = True

    @property
    def exhausted(self) -> bool:
        return self.left is not None and self.left <= 0

    def take(self, lines: Sequence[LogLine]) -> bytes:
        fresh = list(lines[self.read :])
        self.read = len(lines)
        if self.first:
            self.first = False
            tail = self.options.tail_lines
            if tail is not None:
                fresh = fresh[len(fresh) - tail :] if tail else []
        chunk = b"".join(self._line(line) for line in fresh if line.time >= self.since)
        if self.left is not None:
            chunk, self.left = chunk[: self.left], self.left - min(len(chunk), self.left)
        return chunk

    def _line(self, line: LogLine) -> bytes:
        text = line.text + "\n"
        if self.options.timestamps:
            text = f"{rfc3339_nano(line.time)} {text}"
        return text.encode()


def _since(options: PodLogOptions, now: float) -> float:
    """``NewLogOptions``: ``now - sinceSeconds``, or ``sinceTime`` when that is later."""
    since = float("-inf")
    if options.since_seconds is not None:
        since = now - options.since_seconds
    if options.since_time is not None and options.since_time > since:
        since = options.since_time
    return since


def rfc3339_nano(seconds: float) -> str:
    """Go's ``time.RFC3339Nano`` in UTC: the fraction's trailing zeros dropped, and the dot with them."""
    whole = int(seconds // 1)
    nanos = round((seconds - whole) * 1_000_000_000)
    if nanos >= 1_000_000_000:
        whole, nanos = whole + 1, nanos - 1_000_000_000
    text = datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    fraction = f"{nanos:09d}".rstrip("0")
    return f"{text}.{fraction}Z" if fraction else f"{text}Z"
