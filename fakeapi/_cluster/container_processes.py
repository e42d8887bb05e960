"""The local processes that stand for containers, one per container instance (docs/process-containers.md).

When the simulated kubelet starts a container whose outcome names a
:class:`~fakeapi._cluster.local_processes.LocalProcess`, it asks this supervisor to run
it: an asyncio subprocess in a session of its own, stdin closed, stdout and stderr read line by
line into the container's log (:class:`~fakeapi._cluster.container_logs.LogBook`, each line
stamped with the server's clock as it is read). When the process exits, what else it started in
its session is killed, as a container's processes end with its first one; then the exit is
recorded (the code, or 128 plus the signal that killed it, as a container runtime reports it)
and :attr:`ContainerProcesses.on_exit` tells the server, whose kubelet writes the container
terminated. A program that cannot be started is an exit too: 128, reason ``StartError``.

The kubelet stops a process as it stops a container: SIGTERM to the process, SIGKILL to its whole
session when the grace period ends. A reset, a restore, a change of controllers and the server's
shutdown kill every process at once; :meth:`ContainerProcesses.close` waits until each is reaped.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from fakeapi._cluster.container_logs import LogBook
from fakeapi._cluster.local_processes import LocalProcess

__all__ = ["START_ERROR_EXIT_CODE", "ContainerProcesses", "LaunchedProcess", "ProcessExit"]

START_ERROR_EXIT_CODE = 128  # what the runtime reports for a container whose process never started
READ_SIZE = 64 * 1024
# Every session started and not yet reaped, whichever server started it: an interpreter that exits
# without stopping its servers (a test run interrupted) still kills them.
_UNREAPED: set[int] = set()


@atexit.register
def _kill_unreaped() -> None:
    for pid in list(_UNREAPED):
        _kill_session(pid)


@dataclass(frozen=True)
class ProcessExit:
    """How a container's process ended, and when on the server's clock."""

    time: float
    exit_code: int
    reason: str
    message: str = ""


@dataclass
class LaunchedProcess:
    """One container instance's process: what runs, where, with which environment, and its state."""

    container_id: str
    process: LocalProcess
    env: Mapping[str, str]
    working_dir: str
    pid: int | None = None
    exit: ProcessExit | None = None
    abandoned: bool = False
    reaped: bool = False
    terminate_asked: bool = False
    readers: list[asyncio.Task[None]] = field(default_factory=list)


class ContainerProcesses:
    """Every local process the simulated kubelet started, by container ID."""

    def __init__(self, logs: LogBook, clock: Callable[[], float]) -> None:
        self.logs = logs
        self.clock = clock
        self.on_exit: Callable[[], None] | None = None
        self._runs: dict[str, LaunchedProcess] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._waiting: list[LaunchedProcess] = []

    # -- what the kubelet asks -------------------------------------------------------------------

    def start(self, container_id: str, process: LocalProcess, env: Mapping[str, str]) -> None:
        """Run ``process`` for the container instance ``container_id`` (once per instance)."""
        if container_id in self._runs:
            return
        run = LaunchedProcess(container_id, process, dict(env), process.working_dir or os.getcwd())
        self._runs[container_id] = run
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a server driven before it serves: its processes start with it
            self._waiting.append(run)
            return
        self._spawn(loop, run)

    def resume(self) -> None:
        """Start what was asked before an event loop ran (called once the server serves)."""
        waiting, self._waiting = self._waiting, []
        loop = asyncio.get_running_loop()
        for run in waiting:
            if not run.abandoned:
                self._spawn(loop, run)

    def launched(self, container_id: str) -> LaunchedProcess | None:
        return self._runs.get(container_id)

    def exit_of(self, container_id: str) -> ProcessExit | None:
        run = self._runs.get(container_id)
        return None if run is None else run.exit

    def terminate(self, container_id: str) -> None:
        """SIGTERM to the process, once, as the runtime signals a container's first process."""
        run = self._runs.get(container_id)
        if run is None or run.terminate_asked or run.exit is not None:
            return
        run.terminate_asked = True
        if run.pid is not None and not run.reaped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(run.pid, signal.SIGTERM)

    def kill(self, container_id: str) -> None:
        """SIGKILL to the process and everything in its session (the grace period is over)."""
        run = self._runs.get(container_id)
        if run is not None and run.pid is not None and not run.reaped:
            _kill_session(run.pid)

    def keep_only(self, live: set[str]) -> None:
        """Kill and forget the processes of container instances no pod shows running any more."""
        for container_id in [key for key in self._runs if key not in live]:
            self._abandon(self._runs.pop(container_id))

    def kill_all(self) -> None:
        """Kill every process now and forget them (a reset, a restore, new controllers)."""
        runs, self._runs = list(self._runs.values()), {}
        for run in runs:
            self._abandon(run)

    async def close(self) -> None:
        """Kill every process and wait until each is reaped: no process outlives the server."""
        self.kill_all()
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # -- one process -------------------------------------------------------------------------------

    def _abandon(self, run: LaunchedProcess) -> None:
        run.abandoned = True
        if run.pid is not None and not run.reaped:
            _kill_session(run.pid)

    def _spawn(self, loop: asyncio.AbstractEventLoop, run: LaunchedProcess) -> None:
        task = loop.create_task(self._run(run))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, run: LaunchedProcess) -> None:
        try:
            child = await asyncio.create_subprocess_exec(
                *run.process.command,
                cwd=run.working_dir,
                env=dict(run.env),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as error:
            self._finish(run, START_ERROR_EXIT_CODE, "StartError", f"failed to start local process: {error}")
            return
        run.pid = child.pid
        _UNREAPED.add(child.pid)
        if run.abandoned:
            _kill_session(child.pid)
        elif run.terminate_asked:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid, signal.SIGTERM)
        assert child.stdout is not None and child.stderr is not None
        readers = [asyncio.ensure_future(self._read(run, stream)) for stream in (child.stdout, child.stderr)]
        returncode = await child.wait()
        # The first process is gone: the rest of its session goes too, as a container's would.
        _kill_session(child.pid)
        run.reaped = True
        _UNREAPED.discard(child.pid)
        await asyncio.gather(*readers, return_exceptions=True)
        code = returncode if returncode >= 0 else 128 - returncode
        self._finish(run, code, "Completed" if code == 0 else "Error")

    async def _read(self, run: LaunchedProcess, stream: asyncio.StreamReader) -> None:
        partial = b""
        while chunk := await stream.read(READ_SIZE):
            *lines, partial = (partial + chunk).split(b"\n")
            if lines and not run.abandoned:
                self.logs.append(run.container_id, [_text(line) for line in lines], self.clock())
        if partial and not run.abandoned:
            self.logs.append(run.container_id, [_text(partial)], self.clock())

    def _finish(self, run: LaunchedProcess, code: int, reason: str, message: str = "") -> None:
        if run.abandoned or self._runs.get(run.container_id) is not run:
            return
        run.exit = ProcessExit(self.clock(), code, reason, message)
        self.logs.wake()
        if self.on_exit is not None:
            self.on_exit()


def _text(line: bytes) -> str:
    return line.decode("utf-8", "replace")


def _kill_session(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
