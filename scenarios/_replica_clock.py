"""Inside a replica process: an asyncio loop whose time only the engine moves, and that says when it waits.

A replica's only inputs from outside are its requests' answers (the gate), its watch events (the
valves) and time (docs/scenarios-operators.md). The first two the engine already controls; this
module controls the third and reports the one thing the engine cannot see from the server: that
the process has nothing left to do until one of those inputs arrives.

:class:`VirtualClockLoop` is the standard selector loop with ``time()`` replaced by a virtual clock
that stands still until the engine advances it, so a sleep, a timeout or ``call_later`` fires only
when the engine moves time to it. The loop's selector is wrapped (:class:`_WaitingSelector`): when
the loop would block (no callback ready, no timer due, no socket readable, no executor job
running but those waiting on the server), it answers the engine's pending ``settle`` with its next
timer's deadline, then blocks until a socket, a finished executor job, a job thread that starts
waiting or an engine message wakes it. The wall clock the
operator reads (``datetime.datetime.now``, ``time.time``) follows the same virtual time from the
engine's fixed epoch, so what kopf computes from "now" (retry delays, progress timestamps) is a
function of the schedule too.

A replica opens no connection before the engine's ``go``: it is started, runs its start-up until it
waits (a settle), and only then may reach the server, whether it was started ahead of its run or
on the spot, so both starts are the same from its first request on.

The control channel is one Unix stream socket to the engine carrying JSON lines: the engine sends
``{"settle": n}``, ``{"advance": t}`` and ``{"go": 1}``; the replica answers ``{"idle": n, "next": t | null,
"cpu": seconds}`` (its CPU time so far, for the benchmarks; ``"imported": [...]`` when it imported
modules of a client library's API package, see :class:`LazyImports`) and reports declared effects as ``{"effect": name, "key": key}``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import json
import selectors
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from scenarios import _replica_threads as replica_threads
from scenarios._replica_template import renew_after_fork

__all__ = ["ControlChannel", "VirtualClockLoop", "install_wall_clock"]

_CONTROL = object()


class ControlChannel:
    """The replica's end of its control socket (blocking sends from any thread, reads from the loop)."""

    def __init__(self, path: str, hello: Mapping[str, Any]) -> None:
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(path)
        self._lock = threading.Lock()
        self._buffer = b""
        self.send(hello)

    def send(self, message: Mapping[str, Any]) -> None:
        """A blocking send, from any thread (a wrapped function may run in an executor thread); the
        socket stays blocking, since switching it would switch it for the loop's reads too."""
        data = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        with self._lock:
            self.socket.sendall(data)

    def receive(self) -> list[dict[str, Any]]:
        """Every complete message that has arrived (an engine gone away ends the process)."""
        while True:
            try:
                chunk = self.socket.recv(65536, socket.MSG_DONTWAIT)
            except BlockingIOError:
                break
            if not chunk:
                raise SystemExit("the engine went away")
            self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        return [json.loads(line) for line in lines if line]


class LazyImports:
    """Modules of client libraries' API packages this replica imported since its fork: the launcher
    imports them before its next forks (:mod:`scenarios._replica_process`), so that later replicas
    do not import them again. Only API packages, whose modules define classes and read nothing of
    the process at import; a module that read the environment at import would see the launcher's,
    not the replica's."""

    PACKAGES = ("kubernetes.client.api.",)

    def __init__(self) -> None:
        self._known = len(sys.modules)
        self._reported = {name for name in sys.modules if name.startswith(self.PACKAGES)}

    def new(self) -> list[str]:
        if len(sys.modules) == self._known:
            return []
        self._known = len(sys.modules)
        found = [name for name in list(sys.modules) if name.startswith(self.PACKAGES) and name not in self._reported]
        self._reported.update(found)
        return sorted(found)


class Template(Protocol):
    """A template process's part (:mod:`scenarios._replica_template`): where its start-up ends."""

    def serve(self, loop: VirtualClockLoop) -> dict[str, Any]:
        """Fork on every order; returns only in a child, with its order."""

    def child(self, order: dict[str, Any]) -> ControlChannel:
        """In the child: its own log and control channel."""


class _WaitingSelector(selectors.BaseSelector):
    """The loop's selector, which never lets real time pass: it blocks only when the loop waits on
    the outside world, and then first tells the engine so (or, in a template, forks there)."""

    def __init__(
        self,
        loop: VirtualClockLoop,
        inner: selectors.BaseSelector,
        channel: ControlChannel | None,
        template: Template | None,
    ) -> None:
        self._loop = loop
        self._inner = inner
        self._settles: list[int] = []
        self._advanced = False
        self._imports = LazyImports()
        self._template = template
        if channel is not None:
            self._attach(channel)

    def _attach(self, channel: ControlChannel) -> None:
        self._channel = channel
        self._inner.register(channel.socket, selectors.EVENT_READ, _CONTROL)

    def _fork_here(self, template: Template) -> None:
        """The template's start-up ends here: from now on this is a child, with a run's order."""
        order = template.serve(self._loop)
        loop = self._loop
        asyncio.events._set_running_loop(loop)  # asyncio takes a loop as running in the process that ran it only
        self._inner = renew_after_fork(loop, self._inner, _CONTROL)
        loop._make_self_pipe()  # type: ignore[attr-defined]
        if getattr(loop, "_signal_handlers", None):
            signal.set_wakeup_fd(loop._csock.fileno())  # type: ignore[attr-defined]
        self._attach(template.child(order))

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._inner.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._inner.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._inner.modify(fileobj, events, data)

    def get_map(self) -> Mapping[Any, selectors.SelectorKey]:
        return self._inner.get_map()

    def close(self) -> None:
        self._inner.close()

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        events = self._poll(0)
        if events or timeout == 0 or self._take_advance():
            return events
        while True:
            if self._loop.threads_busy <= replica_threads.job_threads_waiting():
                if self._template is not None:
                    template, self._template = self._template, None
                    self._fork_here(template)
                self._answer_settles()
            events = self._poll(None)
            if events or self._take_advance():
                return events

    def _take_advance(self) -> bool:
        advanced, self._advanced = self._advanced, False
        return advanced

    def _poll(self, timeout: float | None) -> list[tuple[selectors.SelectorKey, int]]:
        events = self._inner.select(timeout)
        mine = [event for event in events if event[0].data is not _CONTROL]
        if len(mine) != len(events):
            self._read_control()
        return mine

    def _read_control(self) -> None:
        for message in self._channel.receive():
            if "settle" in message:
                self._settles.append(int(message["settle"]))
            elif "advance" in message:
                self._loop.advance_to(float(message["advance"]))
                self._advanced = True
            elif "go" in message:
                self._loop.open_doors()
                self._advanced = True

    def _answer_settles(self) -> None:
        if not self._settles:
            return
        deadline = self._loop.next_deadline()
        message: dict[str, Any] = {"next": deadline, "cpu": time.process_time()}
        imported = self._imports.new()
        if imported:
            message["imported"] = imported
        for number in self._settles:
            self._channel.send({"idle": number, **message})
        self._settles.clear()


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """The standard loop on a virtual clock that the engine advances; it also counts executor jobs in
    flight, since a loop whose thread is at work is not waiting, unless the thread waits on the
    server (:mod:`scenarios._replica_threads`)."""

    def __init__(self, channel: ControlChannel | None, start: float, template: Template | None = None) -> None:
        inner = selectors.DefaultSelector()
        self._now = start
        self.threads_busy = 0
        self._doors = asyncio.Event()
        super().__init__(_WaitingSelector(self, inner, channel, template))

    def open_doors(self) -> None:
        """From now on connections may be opened (the engine's ``go``), by executor threads too."""
        self._doors.set()
        replica_threads.open_doors()

    async def create_connection(self, *args: Any, **kwargs: Any) -> Any:
        """Connections wait for the engine's ``go``: a replica prepared ahead of its run does all its
        start-up that needs no server, and then waits, so that a prepared start and one made on the
        spot are the same from the first request on."""
        await self._doors.wait()
        return await super().create_connection(*args, **kwargs)

    async def sock_connect(self, sock: socket.socket, address: Any) -> None:
        """aiohttp connects its socket itself (``aiohappyeyeballs``) before it hands it to
        ``create_connection``: that connect waits for ``go`` too, so no connection exists before it."""
        await self._doors.wait()
        await super().sock_connect(sock, address)

    def time(self) -> float:
        return self._now

    def advance_to(self, when: float) -> None:
        self._now = max(self._now, when)
        _WallClock.seconds = self._now

    def next_deadline(self) -> float | None:
        """When the earliest live timer falls due (None: no timer)."""
        scheduled: list[asyncio.TimerHandle] = getattr(self, "_scheduled", [])
        live = [handle.when() for handle in scheduled if not handle.cancelled()]
        return min(live) if live else None

    def run_in_executor(  # type: ignore[override]
        self, executor: concurrent.futures.Executor | None, func: Callable[..., Any], *args: Any
    ) -> asyncio.Future[Any]:
        future = super().run_in_executor(executor, replica_threads.as_job(func), *args)
        self.threads_busy += 1
        future.add_done_callback(self._job_done)
        return future

    def _job_done(self, _: asyncio.Future[Any]) -> None:
        self.threads_busy -= 1


class _WallClock:
    """The virtual time the wall clock adds to the engine's epoch (set by the loop as it advances)."""

    epoch = 0.0
    origin = 0.0
    seconds = 0.0

    @classmethod
    def now(cls) -> float:
        return cls.epoch + (cls.seconds - cls.origin)


_REAL_DATETIME = datetime.datetime


class _RealInstances(type):
    """Instances made before the switch, or by C code, are still datetimes."""

    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, _REAL_DATETIME)


class _VirtualDatetime(datetime.datetime, metaclass=_RealInstances):
    @classmethod
    def now(cls, tz: datetime.tzinfo | None = None) -> Any:
        return _REAL_DATETIME.fromtimestamp(_WallClock.now(), tz)

    @classmethod
    def utcnow(cls) -> Any:
        return _REAL_DATETIME.fromtimestamp(_WallClock.now(), datetime.UTC).replace(tzinfo=None)


def install_wall_clock(epoch: float, origin: float) -> None:
    """Make ``datetime.datetime.now``/``utcnow`` and ``time.time`` read ``epoch`` plus the virtual
    time elapsed since ``origin`` (code that imported the names before this call keeps real time;
    kopf looks them up through their modules)."""
    _WallClock.epoch, _WallClock.origin, _WallClock.seconds = epoch, origin, origin
    datetime.datetime = _VirtualDatetime  # type: ignore[misc]
    time.time = _WallClock.now
