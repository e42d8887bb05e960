"""Inside a replica process: executor threads that wait on the server count as waiting.

kopf runs a synchronous handler in an executor thread, and a synchronous client there (the
``kubernetes`` package, ``requests``) blocks the thread on a socket read until the server answers.
The engine holds that request at its gate, so the answer comes only when the engine releases it:
the thread is waiting on the engine exactly as a coroutine awaiting an aiohttp answer is, and the
replica is settled although a job is "running" (docs/scenarios-operators.md).

Only a thread the loop's ``run_in_executor`` runs a job on is watched, and only while that job
runs. Its blocking reads (``socket.recv``, ``recv_into``, and so the ``makefile`` readers that
``http.client`` uses) first wait for the socket to turn readable in a ``poll`` of their own, with
the thread recorded as waiting on that socket (only a socket connected to the engine's server:
the engine alone decides when its answer comes); the record is dropped, under the same lock the
loop's check takes, *before* the read consumes anything. So the loop's check (:func:`job_threads_waiting`)
sees a thread as waiting only while its socket has nothing to read: bytes that arrived and are
not read yet make it not waiting, and never the other way round. A thread that starts waiting
wakes the loop, which then checks again. A ``connect`` waits for the engine's ``go`` as the loop's
own connections do (a thread held there is waiting too), so a replica prepared ahead of its run
sends nothing before it.

``time.sleep`` in a job thread sleeps on the virtual clock: the loop sets a timer for the
thread's wake-up (so the engine sees it as the replica's next deadline and may move the clock
there), and the thread waits, on record, until that timer fires. The loop's own thread and other
threads keep the real ``time.sleep``. It is replaced in the launcher, before the operator is
loaded, so that an operator's ``from time import sleep`` gets it too.

A thread blocked anywhere else (a lock, a socket to elsewhere or over TLS) is running, not
waiting: the engine then reports the replica stuck after its settle timeout.
"""

from __future__ import annotations

import asyncio
import select
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

__all__ = ["as_job", "install", "install_sleep", "job_threads_waiting", "open_doors"]

_lock = threading.Lock()
_waiting: dict[int, socket.socket | threading.Event | None] = {}
"""Job thread ident -> the socket it waits to read, the wake-up it sleeps until (an Event the loop
sets at the virtual deadline), or None: it waits for the engine's ``go``."""
_job_threads: set[int] = set()
_doors = threading.Event()
_loop: asyncio.AbstractEventLoop | None = None
_server: tuple[str, int] = ("", 0)
"""The engine's server (address, port): only reads from it wait on the engine."""

_recv = socket.socket.recv
_recv_into = socket.socket.recv_into
_connect = socket.socket.connect
_sleep = time.sleep


def install(loop: asyncio.AbstractEventLoop, server: str) -> None:
    """Watch the job threads of ``loop`` and their reads from ``server`` (the engine's URL; once per
    replica process, before anything connects)."""
    global _loop, _server
    _loop = loop
    parts = urllib.parse.urlsplit(server)
    _server = (parts.hostname or "", parts.port or 0)
    socket.socket.recv = _watched_recv  # type: ignore[method-assign, assignment]
    socket.socket.recv_into = _watched_recv_into  # type: ignore[method-assign, assignment]
    socket.socket.connect = _watched_connect  # type: ignore[method-assign, assignment]


def install_sleep() -> None:
    """Make ``time.sleep`` in job threads sleep on the virtual clock (in the launcher, before the
    operator is loaded; real sleep everywhere else)."""
    time.sleep = _watched_sleep  # type: ignore[assignment]


def open_doors() -> None:
    """The engine's ``go``: job threads may connect from now on."""
    _doors.set()


def as_job(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` as run in an executor thread, with the thread watched while it runs."""

    def job(*args: Any) -> Any:
        ident = threading.get_ident()
        _job_threads.add(ident)
        try:
            return function(*args)
        finally:
            _job_threads.discard(ident)

    return job


def job_threads_waiting() -> int:
    """How many job threads wait on the server (their socket unreadable) or on the engine's ``go``."""
    with _lock:
        if not _waiting:
            return 0
        poller = select.poll()
        sockets = 0
        count = 0
        for waited in _waiting.values():
            if waited is None:
                count += not _doors.is_set()
            elif isinstance(waited, threading.Event):
                count += not waited.is_set()
            elif waited.fileno() >= 0:  # closed by another thread: the read fails, it does not wait
                poller.register(waited.fileno(), select.POLLIN | select.POLLPRI)
                sockets += 1
        if sockets:
            count += sockets - len(poller.poll(0))
        return count


def _blocking_read(sock: socket.socket, flags: int) -> bool:
    """Whether a read on ``sock`` from this thread would block on the engine's server, and is to be watched."""
    if (
        threading.get_ident() not in _job_threads
        or flags & socket.MSG_DONTWAIT
        or sock.gettimeout() == 0.0
        or sock.family not in (socket.AF_INET, socket.AF_INET6)
    ):
        return False
    try:
        peer = sock.getpeername()
    except OSError:  # not connected: the read fails at once
        return False
    return (peer[0], peer[1]) == _server


def _wait_readable(sock: socket.socket) -> None:
    """Block until ``sock`` has something to read (or its own timeout passes), recorded as waiting."""
    ident = threading.get_ident()
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN | select.POLLPRI)
    timeout = sock.gettimeout()
    with _lock:
        _waiting[ident] = sock
    _wake_loop()
    try:
        ready = poller.poll(None if timeout is None else timeout * 1000)
    finally:
        with _lock:
            del _waiting[ident]
    if not ready:
        raise TimeoutError("timed out")


def _watched_recv(self: socket.socket, bufsize: int, flags: int = 0) -> bytes:
    if _blocking_read(self, flags):
        _wait_readable(self)
    return _recv(self, bufsize, flags)


def _watched_recv_into(self: socket.socket, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
    if _blocking_read(self, flags):
        _wait_readable(self)
    return _recv_into(self, buffer, nbytes, flags)


def _watched_connect(self: socket.socket, address: Any) -> None:
    if threading.get_ident() in _job_threads and not _doors.is_set():
        ident = threading.get_ident()
        with _lock:
            _waiting[ident] = None
        _wake_loop()
        try:
            _doors.wait()
        finally:
            with _lock:
                del _waiting[ident]
    _connect(self, address)


def _watched_sleep(seconds: float) -> None:
    loop = _loop
    if seconds <= 0 or threading.get_ident() not in _job_threads or loop is None or loop.is_closed():
        _sleep(seconds)
        return
    ident = threading.get_ident()
    woken = threading.Event()
    with _lock:
        _waiting[ident] = woken
    # The timer is the loop's, on its virtual clock; until the loop has set it, the callback that
    # sets it is ready, so the loop cannot report the replica settled without this deadline.
    loop.call_soon_threadsafe(loop.call_later, seconds, woken.set)
    try:
        woken.wait()
    finally:
        with _lock:
            del _waiting[ident]


def _wake_loop() -> None:
    loop = _loop
    if loop is not None and not loop.is_closed():
        loop.call_soon_threadsafe(_nothing)


def _nothing() -> None:
    """A callback whose only purpose is to make the loop look again."""
