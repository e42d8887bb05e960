"""Replicas that are any process (a Go, Java or JavaScript operator): started as plain subprocesses,
seen only through the requests they send.

A kopf replica runs the engine's agent (:mod:`scenarios._replica_process`): the engine knows the
moment it waits and moves its clock. A foreign process has no agent, so the engine has only the gate
to go by: it takes a process as waiting once a *quiet period* (``Operator.quiet`` seconds of real
time) went by without a request from any replica reaching the server, nor a held request or watch
event appearing. That is a guess about real time: a process slower than the quiet period (a garbage
collection, a loaded machine) is taken as waiting while it is not, and its next request arrives
during a later step. Its timers run on real time, which the engine does not move. Runs of such
replicas are therefore not functions of their schedules: they are sampled, and a violation counts
only once a replay of its schedule reproduced it (docs/scenarios-operators.md, "Any operator process").

:class:`ForeignPool` has the interface of :class:`scenarios._replicas.ReplicaPool` that the engine's
replica steps use, and :class:`ForeignLink` that of :class:`scenarios._replicas.ReplicaLink`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path

from scenarios._gating import EngineStuck
from scenarios._operators import Operator
from scenarios._replicas import Idle, ReplicaGone

__all__ = ["ForeignLink", "ForeignPool"]

Activity = Callable[[], Hashable]
"""What the server saw of the replicas so far (last request number, held requests, waiting events):
a change means some replica is at work."""
Started = Callable[[str, int], bool]
"""Whether replica ``name`` sent a request numbered above ``mark`` (its first since it started)."""


@dataclass(eq=False)
class ForeignLink:
    """One running foreign process (one incarnation), seen through the server only."""

    name: str
    incarnation: int
    process: asyncio.subprocess.Process
    log: Path
    quiet: float
    timeout: float
    activity: Activity
    started: Started
    mark: int
    waiting: Idle | None = None
    cpu: float = 0.0
    gone: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    _first: bool = True
    _task: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    def listen(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._wait())

    async def _wait(self) -> None:
        await self.process.wait()
        if not self.gone.done():
            self.gone.set_result(None)

    async def settle(self) -> Idle:
        """Until a quiet period passes without anything reaching the server; at its start, until the
        process's first request arrived (its start-up is not bounded by the quiet period)."""
        if self._first:
            await self._first_request()
            self._first = False
        step = max(self.quiet / 5, 0.005)
        seen = self.activity()
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < self.quiet:
            if self.gone.done():
                raise ReplicaGone(self.name)
            await asyncio.sleep(step)
            now = self.activity()
            if now != seen:
                seen, quiet_since = now, time.monotonic()
        if self.gone.done():
            raise ReplicaGone(self.name)
        self.waiting = Idle(None)
        return self.waiting

    async def _first_request(self) -> None:
        deadline = time.monotonic() + self.timeout
        while not self.started(self.name, self.mark):
            if self.gone.done():
                raise ReplicaGone(self.name)
            if time.monotonic() > deadline:
                self.kill()
                raise EngineStuck(
                    f"replica {self.name} sent no request within {self.timeout:g} s of its start; its log: {self.log}"
                )
            await asyncio.sleep(0.01)

    def go(self) -> None:
        """A foreign process starts at once: nothing to say."""

    def advance(self, when: float) -> None:
        """A foreign process's time is real: the engine cannot move it."""

    def kill(self) -> None:
        """SIGKILL: the process dies where it stands."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, signal.SIGKILL)

    async def closed(self) -> None:
        await self.gone
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)


class ForeignPool:
    """Starts the replicas of a foreign operator, each a subprocess with its own kubeconfig."""

    def __init__(
        self,
        operator: Operator,
        workdir: Path,
        *,
        activity: Activity,
        started: Started,
        mark: Callable[[], int],
        timeout: float,
    ) -> None:
        self.operator = operator
        self.workdir = workdir
        self.timeout = timeout
        self._activity = activity
        self._started = started
        self._mark = mark
        self._starts = 0
        self.live: dict[str, ForeignLink] = {}
        self.cpu = 0.0

    async def open(self) -> None:
        """Nothing to load ahead: each replica starts on the spot."""

    def prepare(self, name: str, kubeconfig: Path) -> None:
        """A foreign process cannot be held before its first request, so none is started ahead."""

    async def launch(self, name: str, incarnation: int, kubeconfig: Path, elapsed: float) -> ForeignLink:
        self._starts += 1
        log = self.workdir / f"{name}.{self._starts}.log"
        environment = {**os.environ, **self.operator.environment}
        environment.update({"KUBECONFIG": str(kubeconfig), "POD_NAME": name, "HOSTNAME": name})
        mark = self._mark()
        with open(log, "ab") as output:
            try:
                process = await asyncio.create_subprocess_exec(
                    *self.operator.command,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=output,
                    stderr=output,
                    env=environment,
                    start_new_session=True,
                )
            except OSError as error:
                raise EngineStuck(f"cannot start replica {name} ({' '.join(self.operator.command)}): {error}") from None
        link = ForeignLink(
            name,
            incarnation,
            process,
            log,
            self.operator.quiet,
            self.timeout,
            self._activity,
            self._started,
            mark,
        )
        link.listen()
        self.live[name] = link
        return link

    async def kill(self, name: str) -> None:
        link = self.live.pop(name, None)
        if link is not None:
            link.kill()
            await link.closed()

    async def kill_all(self) -> None:
        for name in sorted(self.live):
            await self.kill(name)

    async def stop(self) -> None:
        await self.kill_all()
