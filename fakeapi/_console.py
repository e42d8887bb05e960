"""Lines on stdout that never hold up the server, however slowly stdout is read.

``fakeapi serve`` prints its ready line, the tokens it issued and, with ``--log-requests``, a line
per request. Written from the serving loop, a line blocks the loop as soon as nobody reads stdout
(a pipe holds 64 KiB): every request then waits, and so does the SIGTERM handler. Here the loop
only queues a line; one thread writes them to the file descriptor. When more than
:data:`PENDING_LIMIT` bytes wait, further lines are dropped and counted, and the count is written
once the reader catches up (docs/http-limits.md, "The request log"). A reader that went away
(``| head``) ends the writing, never the server.

The thread writes with ``os.write`` on the descriptor, not through ``sys.stdout``: a write blocked
at exit then holds no lock of the interpreter's, so the process can still end.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import deque

__all__ = ["PENDING_LIMIT", "ConsoleLines"]

PENDING_LIMIT = 4 * 1024 * 1024


class ConsoleLines:
    """A writer of lines to one file descriptor, on a thread of its own, dropping what would pile up."""

    def __init__(self, fd: int | None = None, pending_limit: int = PENDING_LIMIT) -> None:
        self._fd = sys.stdout.fileno() if fd is None else fd
        self._pending_limit = pending_limit
        self._lines: deque[bytes] = deque()
        self._pending = 0
        self._dropped = 0
        self._writing = False
        self._closed = False
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._write_lines, name="fakeapi-stdout", daemon=True)
        self._thread.start()

    def __call__(self, line: str) -> None:
        """Queue ``line`` (a newline is added); never waits for the reader."""
        data = (line + "\n").encode("utf-8", "replace")
        with self._ready:
            if self._closed:
                return
            if self._pending + len(data) > self._pending_limit:
                self._dropped += 1
                return
            self._lines.append(data)
            self._pending += len(data)
            self._ready.notify()

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for what is queued to be written; whether it was."""
        with self._ready:
            return self._ready.wait_for(
                lambda: not (self._lines or self._writing or self._dropped) or self._closed, timeout
            )

    def _next(self) -> bytes:
        with self._ready:
            self._ready.wait_for(lambda: bool(self._lines) or self._dropped > 0)
            if not self._lines:
                dropped, self._dropped = self._dropped, 0
                return f"fakeapi: {dropped} lines were dropped: stdout was not read fast enough\n".encode()
            data = self._lines.popleft()
            self._pending -= len(data)
            self._writing = True
            return data

    def _written(self) -> None:
        with self._ready:
            self._writing = False
            self._ready.notify_all()

    def _write_lines(self) -> None:
        while True:
            data = self._next()
            try:
                while data:
                    data = data[os.write(self._fd, data) :]
                self._written()
            except OSError:  # the reader went away (EPIPE) or the descriptor was closed
                with self._ready:
                    self._closed = True
                    self._writing = False
                    self._lines.clear()
                    self._ready.notify_all()
                return
