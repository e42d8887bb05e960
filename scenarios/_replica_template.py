"""A replica's start-up done once: a template process forks every run's replica where its start-up ends.

A replica at time 0 starts the same way in every run: kopf's start-up (its settings, start-up
handlers, logins, the tasks it spawns) runs until everything waits on the engine's ``go``, which
nothing before it can reach (docs/scenarios-operators.md). Its state at that point is a function of
the operator, its options, the replica's name, kubeconfig and environment, and the virtual clock's
start, none of which changes between runs of one exploration. So the launcher
(:mod:`scenarios._replica_process`) starts one template process per replica name, which runs that
start-up once, and then forks it at that point for each run instead of forking a fresh replica
that runs it again: what ``kopf run`` costs before its first request (about half of what plain kopf
uses in a run of the seed operator, a third or more of the replicas' CPU per schedule,
BENCHMARKS.md) is paid once per exploration instead of once per run.

The fork point is where the loop's selector would first block with no executor job in flight.
There the template makes itself fork-safe once: executor threads (kopf runs its sync start-up
handlers and logins in them) are shut down and their pools emptied, so the process has one thread
and the pools start new threads on demand; its heap is frozen for the collector as the launcher's
is. The template says it cannot serve, and exits, if a thread is still alive then, if a job waits
on the server (a start-up handler that calls the API waits for ``go`` inside its thread, which a
fork would lose), if a socket is connected or bound, or if the operator declared an effect during
start-up (no child could report it); the launcher also drops a template whose start-up has not
ended within the settle timeout. That name's replicas are then forked fresh, as before.

A child of the template takes what a process cannot share with its parent: a new epoll selector
with the same registrations, a new self-pipe for the loop (and the signal wake-up fd on it), its
own log (the template's start-up lines copied in first) and its own control socket, whose hello
names its order. A socket made and not yet connected at the fork point (aiohttp makes its socket,
then connects it, and the connect waits for ``go``) is the same kernel object in the template and
all its children, so each child puts a fresh one of the same kind on the same descriptor. From
there it is any replica: it answers the engine's first ``settle`` at once. Its CPU clock starts at
the fork, so the CPU a replica reports leaves out the start-up the template ran.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import gc
import importlib
import json
import os
import queue
import select
import selectors
import signal
import socket
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from scenarios._replica_clock import VirtualClockLoop

__all__ = ["TemplateChannel", "copy_log", "preload", "read_answer", "renew_after_fork"]


class TemplateChannel:
    """The template's pipes to the launcher: fork orders in, forked pids (or a refusal) out."""

    def __init__(self, orders: int, answers: int, log: str) -> None:
        self._orders_fd = orders
        self._orders = os.fdopen(orders, "r", buffering=1)
        self._answers = answers
        self.log = log

    def owns(self, fd: int) -> bool:
        return fd in (self._orders_fd, self._answers)

    def refuse(self, reason: str) -> None:
        """Say why this template cannot serve, and end it."""
        self._answer({"refused": reason})
        os._exit(0)

    def serve(self, loop: VirtualClockLoop) -> dict[str, Any]:
        """In the template: fork on every order; returns only in a child, with its order.

        Every refusal ends the process: the launcher falls back to fresh forks for this name."""
        refusal = _make_fork_safe(loop)
        if refusal is not None:
            self.refuse(refusal)
        self._answer({"ready": os.getpid()})
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
        for line in self._orders:
            order: dict[str, Any] = json.loads(line)
            if order.get("preload"):
                preload(order["preload"])
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                self._orders.close()
                os.close(self._answers)
                return order
            self._answer({"pid": pid})
        os._exit(0)  # the launcher is gone

    def _answer(self, message: dict[str, Any]) -> None:
        try:
            os.write(self._answers, json.dumps(message).encode() + b"\n")
        except OSError:  # the launcher is gone
            os._exit(0)


def read_answer(answers: int, timeout: float | None = None) -> dict[str, Any]:
    """The template's next answer line ({} if it ended, or said nothing within ``timeout``
    seconds): read byte by byte up to the newline, so nothing of a later answer is taken."""
    line = b""
    deadline = None if timeout is None else time.monotonic() + timeout
    while not line.endswith(b"\n"):
        if deadline is not None:
            ready, _, _ = select.select([answers], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return {}
        chunk = os.read(answers, 1)
        if not chunk:
            return {}
        line += chunk
    parsed: dict[str, Any] = json.loads(line)
    return parsed


def _make_fork_safe(loop: VirtualClockLoop) -> str | None:
    """Leave the template with its main thread only, or say why it cannot be forked."""
    if loop.threads_busy:
        return "an executor job waits on the server or the clock at the end of start-up"
    for found in gc.get_objects():
        if isinstance(found, concurrent.futures.ThreadPoolExecutor):
            _empty_pool(found)
    if threading.active_count() > 1:
        names = sorted(thread.name for thread in threading.enumerate() if thread is not threading.main_thread())
        return f"threads still run after start-up: {', '.join(names)}"
    self_pipe = {loop._ssock.fileno(), loop._csock.fileno()}  # type: ignore[attr-defined]
    in_use = []
    for fd in sorted(_open_sockets() - self_pipe):
        if _unconnected(fd):
            _Unconnected.fds.append(fd)
        else:
            in_use.append(fd)
    if in_use:
        # Every child would share the connection, and read what its siblings were sent.
        return f"sockets are in use at the end of start-up: {', '.join(_describe(fd) for fd in in_use)}"
    gc.collect()
    gc.freeze()
    return None


class _Unconnected:
    """Sockets made and not yet connected at the fork point (aiohttp makes its socket before the
    connect that waits for ``go``): each child replaces them with its own, on the same descriptors."""

    fds: ClassVar[list[int]] = []


def _unconnected(fd: int) -> bool:
    """Whether socket ``fd`` is neither connected nor bound to a port (nothing of it is shared yet)."""
    sock = socket.socket(fileno=fd)
    try:
        try:
            sock.getpeername()
            return False
        except OSError:
            pass
        address = sock.getsockname()
        return sock.family in (socket.AF_INET, socket.AF_INET6) and address[1] == 0
    finally:
        sock.detach()


def _replace_unconnected() -> None:
    """A fresh socket of the same kind, with the same blocking mode, on each unconnected descriptor."""
    for fd in _Unconnected.fds:
        inherited = socket.socket(fileno=fd)
        try:
            fresh = socket.socket(inherited.family, inherited.type, inherited.proto)
            fresh.setblocking(inherited.getblocking())
            os.dup2(fresh.fileno(), fd)
            fresh.close()
        finally:
            inherited.detach()


def _open_sockets() -> set[int]:
    """The process's file descriptors that are sockets (Linux's /proc)."""
    found = set()
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{name}").startswith("socket:"):
                found.add(int(name))
    return found


def _describe(fd: int) -> str:
    try:
        sock = socket.socket(fileno=fd)
    except OSError:
        return f"fd {fd}"
    try:
        try:
            peer = sock.getpeername()
        except OSError:
            peer = None
        return f"fd {fd} ({sock.family.name}, {sock.getsockname()!r} to {peer!r})"
    finally:
        sock.detach()


def _empty_pool(executor: concurrent.futures.ThreadPoolExecutor) -> None:
    """Join the pool's idle threads and make it as new, so that it starts threads again when used."""
    if not executor._threads:
        return
    executor.shutdown(wait=True)
    executor._threads.clear()  # type: ignore[attr-defined]
    executor._work_queue = queue.SimpleQueue()
    executor._idle_semaphore = threading.Semaphore(0)
    executor._shutdown = False


def preload(names: list[str]) -> None:
    """Import what earlier replicas imported lazily (scenarios._replica_clock.LazyImports), so the
    next forks start with it (the launcher's and the templates'), and keep the new objects out of
    the collector's sight too."""
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # a replica imported it; if this process cannot, the replicas still can
            continue
    gc.collect()
    gc.freeze()


def renew_after_fork(loop: VirtualClockLoop, inner: selectors.BaseSelector, skip: object) -> selectors.BaseSelector:
    """In a child of the template: its own epoll with the template's registrations (but ``skip``'s),
    and its own self-pipe. The inherited epoll and self-pipe are the template's too, so they are
    closed here without being touched."""
    _replace_unconnected()
    renewed = selectors.DefaultSelector()
    self_pipe = loop._ssock.fileno()  # type: ignore[attr-defined]
    for key in list(inner.get_map().values()):
        if key.data is not skip and key.fd != self_pipe:
            renewed.register(key.fileobj, key.events, key.data)
    inner.close()  # the child's copy of the epoll fd only: the kernel object stays the template's
    loop._ssock.close()  # type: ignore[attr-defined]
    loop._csock.close()  # type: ignore[attr-defined]
    loop._ssock = loop._csock = None  # type: ignore[attr-defined]
    loop._internal_fds -= 1  # type: ignore[attr-defined]
    return renewed


def copy_log(template_log: str, log: str) -> None:
    """The child's log starts with the template's start-up lines, as a fresh replica's would."""
    try:
        with open(template_log, "rb") as source:
            started = source.read()
    except OSError:
        started = b""
    with open(log, "ab") as target:
        target.write(started)
