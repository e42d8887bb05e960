"""The engine's side of replica processes: the launcher, one control link per running replica, and the
moment a replica waits.

The launcher (:mod:`scenarios._replica_process`) is started once per exploration and forks a
replica on demand. Each replica connects back over a Unix socket (:class:`ReplicaLink`): the engine
asks it to ``settle`` (answer once nothing in it can move without an input from outside) and to
``advance`` its virtual clock; it reports the effects of wrapped functions on the same stream, so
every effect it declared before it last waited is known once that wait is.

A replica's request reaches the server on a socket of its own, and the server's answer goes back
the same way: the engine runs its own loop until quiet (the server has parsed what arrived, and
written what it had to answer) before asking a replica whether it waits, and again after, so that
a request the replica sent before waiting is held at the gate by then (docs/scenarios-operators.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenarios._gating import EngineStuck
from scenarios._operators import Operator

__all__ = ["Idle", "ReplicaGone", "ReplicaLink", "ReplicaPool", "loop_quiet"]

EffectSink = Callable[[str, str, str, int], None]
"""Called with (effect name, key, replica, incarnation) as a replica reports a wrapped call."""


class ReplicaGone(RuntimeError):
    """The replica's process ended (killed by a crash fault, or it exited on its own)."""


@dataclass(frozen=True)
class Idle:
    """A replica waiting: on its sockets, with its earliest timer at ``deadline`` (virtual loop time),
    having used ``cpu`` seconds of CPU since it started."""

    deadline: float | None
    cpu: float = 0.0


@dataclass(eq=False)
class ReplicaLink:
    """One running replica process (one incarnation), seen through its control socket."""

    name: str
    incarnation: int
    pid: int
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    sink: EffectSink
    log: Path
    imported: set[str] = field(default_factory=set)
    """Shared with the pool: modules replicas imported that the launcher is to import."""
    waiting: Idle | None = None
    cpu: float = 0.0
    gone: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    _settles: dict[int, asyncio.Future[Idle]] = field(default_factory=dict)
    _number: int = 0
    _task: asyncio.Task[None] | None = None

    def listen(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            while line := await self.reader.readline():
                message = json.loads(line)
                if "effect" in message:
                    self.sink(str(message["effect"]), str(message.get("key", "")), self.name, self.incarnation)
                elif "idle" in message:
                    self.imported.update(str(name) for name in message.get("imported", ()))
                    waiter = self._settles.pop(int(message["idle"]), None)
                    deadline = message.get("next")
                    idle = Idle(float(deadline) if deadline is not None else None, float(message.get("cpu", 0.0)))
                    self.cpu = idle.cpu
                    if waiter is not None and not waiter.done():
                        waiter.set_result(idle)
        except (ConnectionError, ValueError):
            pass
        finally:
            for waiter in self._settles.values():
                if not waiter.done():
                    waiter.set_exception(ReplicaGone(self.name))
            self._settles.clear()
            if not self.gone.done():
                self.gone.set_result(None)

    async def settle(self) -> Idle:
        """Until the replica waits on something from outside; what it waits with."""
        if self.gone.done():
            raise ReplicaGone(self.name)
        self._number += 1
        waiter: asyncio.Future[Idle] = asyncio.get_running_loop().create_future()
        self._settles[self._number] = waiter
        self._send({"settle": self._number})
        self.waiting = await waiter
        return self.waiting

    def go(self) -> None:
        self._send({"go": 1})

    def advance(self, when: float) -> None:
        self.waiting = None
        self._send({"advance": when})

    def _send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            self.writer.write(json.dumps(message).encode() + b"\n")

    def kill(self) -> None:
        """SIGKILL: the process dies where it stands, as an OOM kill or a lost node does."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)

    async def closed(self) -> None:
        await self.gone
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)


class ReplicaPool:
    """The launcher process and the control socket every replica of one exploration connects to."""

    def __init__(
        self,
        operator: Operator,
        workdir: Path,
        *,
        epoch: float,
        origin: float,
        sink: EffectSink,
        timeout: float,
        server: str,
    ) -> None:
        self.operator = operator
        self.server = server
        self.timeout = timeout
        self.workdir = workdir
        self.epoch = epoch
        self.origin = origin
        self.sink = sink
        self._server: asyncio.AbstractServer | None = None
        self._launcher: asyncio.subprocess.Process | None = None
        self._hellos: dict[int, asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]]] = {}
        self._orders = 0
        self._ordering = asyncio.Lock()  # one fork order and its answer at a time on the launcher's pipes
        self._prepared: dict[str, asyncio.Task[ReplicaLink]] = {}
        self.live: dict[str, ReplicaLink] = {}
        self.cpu = 0.0
        """CPU seconds the replicas that are gone used (as they last reported it), for the benchmarks."""
        self.imported: set[str] = set()
        """Modules replicas imported lazily (scenarios._replica_clock.LazyImports)."""
        self.preloaded: set[str] = set()
        """Of those, the ones the launcher was told to import before its next forks."""

    async def open(self) -> None:
        control = self.workdir / "control.sock"
        self._server = await asyncio.start_unix_server(self._connected, path=str(control))
        spec = {
            "control": str(control),
            "server": self.server,
            "epoch": self.epoch,
            "origin": self.origin,
            "paths": list(self.operator.paths),
            "modules": list(self.operator.modules),
            "options": list(self.operator.options),
            "start_timeout": self.timeout,
            "effects": [
                {"name": effect.name, "function": effect.function, "key": effect.key}
                for effect in self.operator.call_effects
            ],
        }
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [*sys.path]))}
        environment.pop("KUBECONFIG", None)
        environment.update(self.operator.environment)
        with open(self.workdir / "launcher.log", "ab") as log:
            self._launcher = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "scenarios._replica_process",
                json.dumps(spec),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                env=environment,
            )
        line = await self._launcher_line()
        if "ready" not in line:
            raise RuntimeError(f"the operator did not load: see {self.workdir / 'launcher.log'}")

    async def _launcher_line(self) -> dict[str, Any]:
        assert self._launcher is not None and self._launcher.stdout is not None
        line = await self._launcher.stdout.readline()
        if not line:
            log = (self.workdir / "launcher.log").read_text(errors="replace")
            raise RuntimeError(f"the operator could not be loaded by kopf's preloader:\n{log[-4000:]}")
        parsed: dict[str, Any] = json.loads(line)
        return parsed

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line = await reader.readline()
        if not line:
            writer.close()
            return
        hello = json.loads(line)
        waiter = self._hellos.pop(int(hello["hello"]), None)
        if waiter is None or waiter.done():
            writer.close()
            return
        waiter.set_result((reader, writer))

    def prepare(self, name: str, kubeconfig: Path) -> None:
        """Start the next run's first incarnation of ``name`` now: it does its start-up meanwhile."""
        if name not in self._prepared:
            self._prepared[name] = asyncio.get_running_loop().create_task(self._ready(name, 0, kubeconfig, 0.0))

    async def launch(self, name: str, incarnation: int, kubeconfig: Path, elapsed: float) -> ReplicaLink:
        """A replica that has done its start-up and may now reach the server: prepared ahead for a
        run's first incarnation at time 0, else started on the spot (a restart)."""
        prepared = self._prepared.pop(name, None) if incarnation == 0 and elapsed == 0.0 else None
        link = await prepared if prepared is not None else await self._ready(name, incarnation, kubeconfig, elapsed)
        self.live[name] = link
        link.go()
        return link

    async def _ready(self, name: str, incarnation: int, kubeconfig: Path, elapsed: float) -> ReplicaLink:
        """Fork a replica and wait until its start-up waits on the engine's ``go``."""
        link = await self._fork(name, incarnation, kubeconfig, elapsed)
        try:
            await asyncio.wait_for(link.settle(), self.timeout)
        except TimeoutError:
            link.kill()
            raise EngineStuck(
                f"replica {name} did not finish its start-up within {self.timeout:g} s; its log ends:\n{_tail(link.log)}"
            ) from None
        except ReplicaGone:
            raise EngineStuck(f"replica {name} exited during its start-up; its log ends:\n{_tail(link.log)}") from None
        return link

    async def _fork(self, name: str, incarnation: int, kubeconfig: Path, elapsed: float) -> ReplicaLink:
        assert self._launcher is not None and self._launcher.stdin is not None
        self._orders += 1
        hello: asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]]
        hello = asyncio.get_running_loop().create_future()
        self._hellos[self._orders] = hello
        log = self.workdir / f"{name}.{self._orders}.log"
        order = {
            "order": self._orders,
            "name": name,
            "kubeconfig": str(kubeconfig),
            "log": str(log),
            "elapsed": elapsed,
        }
        preload = sorted(self.imported - self.preloaded)
        if preload:
            order["preload"] = preload
            self.preloaded.update(preload)
        async with self._ordering:
            self._launcher.stdin.write(json.dumps(order).encode() + b"\n")
            pid = int((await self._launcher_line())["pid"])
        try:
            reader, writer = await asyncio.wait_for(hello, self.timeout)
        except TimeoutError:
            raise EngineStuck(f"replica {name} (pid {pid}) never connected back; its log ends:\n{_tail(log)}") from None
        link = ReplicaLink(name, incarnation, pid, reader, writer, self.sink, log, self.imported)
        link.listen()
        return link

    async def kill(self, name: str) -> None:
        link = self.live.pop(name, None)
        if link is not None:
            link.kill()
            await link.closed()
            self.cpu += link.cpu

    async def kill_all(self) -> None:
        for name in sorted(self.live):
            await self.kill(name)

    async def stop(self) -> None:
        await self.kill_all()
        for task in self._prepared.values():
            link = await asyncio.gather(task, return_exceptions=True)
            if isinstance(link[0], ReplicaLink):
                link[0].kill()
                await link[0].closed()
        self._prepared.clear()
        if self._launcher is not None:
            if self._launcher.stdin is not None:
                self._launcher.stdin.close()
            with contextlib.suppress(ProcessLookupError):
                self._launcher.kill()
            await self._launcher.wait()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


def _tail(log: Path, lines: int = 20) -> str:
    """The end of a replica's log, for an error that outlives the exploration's files."""
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) or "(empty)"
    except OSError as error:
        return f"(unreadable: {error})"


async def loop_quiet() -> None:
    """Until nothing on this loop can move: no callback ready, no timer due, no socket readable or
    writable. The server has then parsed every request that arrived and written every answer."""
    loop = asyncio.get_running_loop()
    ready = getattr(loop, "_ready", None)
    selector = getattr(loop, "_selector", None)
    scheduled = getattr(loop, "_scheduled", None)
    if ready is None or selector is None or scheduled is None:
        raise RuntimeError("replica processes need the standard asyncio event loop")
    while True:
        await asyncio.sleep(0)
        if ready:
            continue
        if scheduled and scheduled[0].when() <= loop.time():
            continue
        if selector.select(0):
            continue
        return
