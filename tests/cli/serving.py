"""``fakeapi serve`` as a user runs it: a subprocess whose ready line says where it listens.

Shared by the CLI tests and the kubectl session. Readiness is the ready line on stdout, never a
sleep: a thread per pipe turns the output into lines, and every read waits at most
``READ_TIMEOUT`` seconds, a safety net against a hung process rather than a way to order events.
Log lines of ``--log-requests`` are printed before the response is sent, so once a request has
been answered its line is already on the way.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import pytest

__all__ = ["READY_LINE", "READ_TIMEOUT", "Background", "ServeProcess", "console_script", "home_env", "require_tool"]

READ_TIMEOUT = 60.0
READY_LINE = re.compile(r"fakeapi serving on (https?://[^\s]+)")


def console_script() -> list[str]:
    """The installed ``fakeapi`` console script (next to the interpreter in a venv, else on PATH)."""
    beside = Path(sys.executable).with_name("fakeapi")
    found = str(beside) if beside.exists() else shutil.which("fakeapi")
    if found is None:
        pytest.fail("the fakeapi console script is not installed: run pip install -e '.[test]'")
    return [found]


def require_tool(name: str, purpose: str) -> str:
    """The path of an external program; skips without it, except in CI (CI=true), where it fails."""
    found = shutil.which(name)
    if found is not None:
        return found
    message = f"{name} is not on PATH; it is needed for {purpose}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message}, and CI=true requires these tests to run")
    pytest.skip(f"{message} (these tests run, and fail without it, when CI=true)")


def home_env(home: Path) -> dict[str, str]:
    """This environment with HOME in a temp dir and no KUBECONFIG: nothing of the user's leaks in."""
    env = {key: value for key, value in os.environ.items() if key != "KUBECONFIG"}
    env["HOME"] = str(home)
    return env


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line.rstrip("\n"))
    lines.put(None)


def _collect(stream: IO[str], lines: list[str], closed: threading.Event) -> None:
    for line in stream:
        lines.append(line.rstrip("\n"))
    closed.set()


class Background:
    """A subprocess whose stdout is read line by line as it comes; ``with`` kills it if it is still running."""

    def __init__(self, argv: Sequence[str], *, env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.env = env
        self._stdout: queue.Queue[str | None] = queue.Queue()
        self._stderr: list[str] = []
        self._stderr_closed = threading.Event()
        self._process: subprocess.Popen[str] | None = None

    @property
    def process(self) -> subprocess.Popen[str]:
        assert self._process is not None, "the process was not started"
        return self._process

    def start(self) -> Background:
        process = subprocess.Popen(
            self.argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=self.env,
        )
        self._process = process
        assert process.stdout is not None and process.stderr is not None
        threading.Thread(target=_pump, args=(process.stdout, self._stdout), daemon=True).start()
        threading.Thread(target=_collect, args=(process.stderr, self._stderr, self._stderr_closed), daemon=True).start()
        return self

    def next_line(self) -> str | None:
        """The next line on stdout, waiting for it; ``None`` once stdout is closed."""
        try:
            line = self._stdout.get(timeout=READ_TIMEOUT)
        except queue.Empty:
            pytest.fail(f"no output from {' '.join(self.argv)} within {READ_TIMEOUT}s:\n{self.stderr_text()}")
        if line is None:
            self._stdout.put(None)
        return line

    def pending_lines(self) -> list[str]:
        """The stdout lines printed so far and not read yet, without waiting."""
        lines: list[str] = []
        while True:
            try:
                line = self._stdout.get_nowait()
            except queue.Empty:
                return lines
            if line is None:
                self._stdout.put(None)
                return lines
            lines.append(line)

    def rest_of_stdout(self) -> list[str]:
        """Every stdout line not read yet, up to the end of the stream (waits for the process to close it)."""
        lines: list[str] = []
        while (line := self.next_line()) is not None:
            lines.append(line)
        return lines

    def stderr_text(self) -> str:
        """stderr so far; all of it once the process has exited."""
        if self._process is not None and self._process.poll() is not None:
            self._stderr_closed.wait(timeout=READ_TIMEOUT)
        return "\n".join(self._stderr)

    def stop(self, signum: int = signal.SIGTERM) -> int:
        """Send ``signum`` unless the process has ended, and wait for its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signum)
        return self.process.wait(timeout=READ_TIMEOUT)

    def wait(self) -> int:
        """Wait for the process to end by itself; its exit code."""
        return self.process.wait(timeout=READ_TIMEOUT)

    def __enter__(self) -> Background:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait(timeout=READ_TIMEOUT)


class ServeProcess(Background):
    """``fakeapi serve ARGS`` in a subprocess; starting it reads its ready line and learns its URL."""

    def __init__(self, *args: str, command: Sequence[str] | None = None, env: dict[str, str] | None = None) -> None:
        super().__init__([*(command or console_script()), "serve", *args], env=env)
        self.url = ""
        self.ready_line = ""

    def start(self) -> ServeProcess:
        super().start()
        first = self.next_line()
        if first is None:
            code = self.wait()
            pytest.fail(f"{' '.join(self.argv)} exited with {code} before its ready line:\n{self.stderr_text()}")
        match = READY_LINE.fullmatch(first)
        assert match, f"expected the ready line first, got {first!r}"
        self.ready_line, self.url = first, match.group(1)
        return self

    def __enter__(self) -> ServeProcess:
        return self.start()
