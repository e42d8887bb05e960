"""The engine's steps for an operator's replicas: start, wait, move time, crash, end (mixed into the
engine, whose run loop offers a replica's held requests and watch events like any actor's).

A replica is a process (docs/scenarios-operators.md). After anything the engine lets through to it
(a request's answer, a watch event, a move of the clock) the engine waits until the replica waits
again (:func:`scenarios._replicas.loop_quiet` on both sides of the replica's own report), so the
next choice sees every request it sent since. Time is one virtual clock for every replica and the
simulated controllers: a move of the clock goes to the earliest instant a replica's timer (or a
controller's timed step) falls due, within the scenario's horizon, and every replica's loop sees it.

Crashes follow docs/scenarios-crash-model.md, with a real death: SIGKILL before a held request
leaves, or from the server's callback once a write has run and before its answer is sent; the
restart is a fresh process from the launcher that lists and watches again. A replica whose process
ends on its own (kopf stops on a fatal error) is recorded as an actor error and stays down.

A replica may also be any process without the engine's agent (:mod:`scenarios._foreign`): the same
steps, with its waiting judged by a quiet period of real time and its clock never moved.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fakeapi import GateDecision
from scenarios._actors import Actor, ActorRuntime, TickContext
from scenarios._foreign import ForeignLink, ForeignPool
from scenarios._gating import EngineStuck, Held
from scenarios._model import ActorError, Effect, ObjectKey, Option, Step
from scenarios._operators import ANY_VALUE, json_pointer_get
from scenarios._replicas import ReplicaGone, ReplicaLink, ReplicaPool, loop_quiet

if TYPE_CHECKING:
    from fakeapi import FakeAPIServer
    from scenarios._gating import Conductor
    from scenarios._model import RunRecord, Scenario

__all__ = ["VIRTUAL_ORIGIN", "ReplicaSteps"]

VIRTUAL_ORIGIN = 1000.0
"""What a replica's ``loop.time()`` reads at the start of a run (any positive value would do)."""
_DIE = GateDecision(drop_before=True)
_EPOCH = 1_700_000_000.0


def _no_tick(context: TickContext) -> None:
    raise RuntimeError("a replica runs its operator, not ticks")


class ReplicaSteps:
    scenario: Scenario
    server: FakeAPIServer
    conductor: Conductor
    settle_timeout: float
    _runtimes: dict[str, ActorRuntime]
    _record: RunRecord
    _elapsed: float

    def init_replicas(self) -> None:
        operator = self.scenario.operator
        self.replica_names: tuple[str, ...] = operator.replica_names if operator is not None else ()
        self.links: dict[str, ReplicaLink | ForeignLink] = {}
        self.pool: ReplicaPool | ForeignPool | None = None
        self._replica_kubeconfigs: dict[str, Path] = {}

    async def start_replicas(self, workdir: Path) -> None:
        operator = self.scenario.operator
        if operator is None:
            return
        account = operator.service_account or None
        for name in self.replica_names:
            self.server.token_for(name, service_account=account)
            self._replica_kubeconfigs[name] = self.server.kubeconfig(
                workdir / f"{name}.kubeconfig", token=name, service_account=account
            )
        if not operator.agent:
            for path in self._replica_kubeconfigs.values():
                _skip_tls_verify_over_http(path)
            self.pool = ForeignPool(
                operator,
                workdir,
                activity=self._activity,
                started=self._sent_since,
                mark=self._last_sequence,
                timeout=self.settle_timeout,
            )
            return
        self.pool = ReplicaPool(
            operator,
            workdir,
            epoch=_EPOCH,
            origin=VIRTUAL_ORIGIN,
            sink=self._replica_effect,
            timeout=self.settle_timeout,
            server=self.server.url,
        )
        await self.pool.open()

    async def stop_replicas(self) -> None:
        if self.pool is not None:
            await self.pool.stop()

    def replica_runtimes(self) -> dict[str, ActorRuntime]:
        operator = self.scenario.operator
        if operator is None:
            return {}
        return {
            name: ActorRuntime(
                Actor(name, _no_tick, restarts=operator.restarts, service_account=operator.service_account),
                restarts_left=operator.restarts,
            )
            for name in self.replica_names
        }

    async def start_replicas_of_run(self) -> None:
        """A run's first incarnations: a foreign operator's processes are all started at once (each
        request they send waits at the gate, so their start-ups may overlap), then each is settled."""
        if isinstance(self.pool, ForeignPool):
            names = self.replica_names
            launched = await asyncio.gather(
                *(self.pool.launch(name, 0, self._replica_kubeconfigs[name], self._elapsed) for name in names)
            )
            self.links.update(zip(names, launched, strict=True))
            for name in names:
                await self.settle_replica(name)
            return
        for name in self.replica_names:
            await self.start_replica(self._runtimes[name])

    async def start_replica(self, runtime: ActorRuntime) -> None:
        assert self.pool is not None
        name = runtime.actor.name
        self.links[name] = await self.pool.launch(
            name, runtime.incarnation, self._replica_kubeconfigs[name], self._elapsed
        )
        await self.settle_replica(name)

    async def settle_replica(self, name: str) -> None:
        """Until the replica waits again (on a held request, a watch, a timer, or nothing)."""
        link = self.links.get(name)
        if link is None:
            return
        try:
            await asyncio.wait_for(self._settle_link(link), self.settle_timeout)
        except TimeoutError:
            if isinstance(link, ForeignLink):
                raise EngineStuck(
                    f"replica {name} kept sending requests for {self.settle_timeout:g} s without a quiet period "
                    f"of {link.quiet:g} s; its log: {link.log}"
                ) from None
            raise EngineStuck(
                f"replica {name} did not come to wait within {self.settle_timeout:g} s: an executor thread "
                "of it may be blocked on something other than the server (a lock, time.sleep, a TLS "
                f"socket, another host), or it computes without end; its log: {self._replica_log(name)}"
            ) from None
        except ReplicaGone:
            await self._replica_exited(name)

    async def _settle_link(self, link: ReplicaLink | ForeignLink) -> None:
        """Rounds of: the server quiet, the replica waiting, the server quiet again; another round when
        the server answered a request of the replica meanwhile without holding it (discovery and other
        non-resource paths pass the gate), since the replica then has an input to act on."""
        while True:
            mark = self._last_sequence()
            await loop_quiet()
            await link.settle()
            await loop_quiet()
            if not self._answered_since(link.name, mark):
                return

    def _activity(self) -> tuple[int, int, int]:
        """What a foreign replica's work would change: the last request's number, the requests held,
        the watch events held back."""
        held = sum(len(queue) for queue in self.conductor.held.values())
        events = sum(len(valve.waiting) for valves in self.conductor.valves.values() for valve in valves)
        return self._last_sequence(), held, events

    def _sent_since(self, name: str, mark: int) -> bool:
        """Whether ``name`` sent a request numbered above ``mark``."""
        for entry in reversed(self.server.journal.entries):
            if entry.sequence <= mark:
                return False
            if entry.actor == name:
                return True
        return False

    def _last_sequence(self) -> int:
        entries = self.server.journal.entries
        return entries[-1].sequence if entries else 0

    def _answered_since(self, name: str, mark: int) -> bool:
        held = {held.request.sequence for held in self.conductor.held.get(name, []) if held.request is not None}
        for entry in reversed(self.server.journal.entries):
            if entry.sequence <= mark:
                return False
            if entry.actor == name and entry.sequence not in held:
                return True
        return False

    async def _replica_exited(self, name: str) -> None:
        """The process ended without the engine killing it: an error of the replica, which stays down."""
        runtime = self._runtimes[name]
        log = self._replica_log(name)
        self._bury(name)
        if self.pool is not None:
            await self.pool.kill(name)
        last = log.read_text(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
        self._record.errors.append(
            ActorError(name, runtime.incarnation, 0, runtime.last_step, f"the process exited: {last[0][:200]}")
        )

    def _replica_log(self, name: str) -> Path:
        link = self.links.get(name)
        assert self.pool is not None
        return link.log if link is not None else self.pool.workdir / f"{name}.log"

    def _bury(self, name: str) -> None:
        """Forget a dead replica's link, answer its other held requests with a cut, drop its watches."""
        self.links.pop(name, None)
        for held in list(self.conductor.held.get(name, [])):
            self.conductor.take(name, held)
            self.conductor.release(held, _DIE)
        self.conductor.valves.pop(name, None)

    def held_in_order(self, actor: str) -> list[Held]:
        """An actor's held actions; a replica's sorted by what they are, since its concurrent tasks'
        requests reach the server in an order the kernel decides."""
        held = self.conductor.held.get(actor, [])
        if actor not in self.links:
            return held
        return sorted(held, key=_held_order)

    def replica_due(self, elapsed: float) -> float | None:
        """Seconds from ``elapsed`` until the earliest timer of a waiting replica."""
        now = VIRTUAL_ORIGIN + elapsed
        deadlines = [
            link.waiting.deadline
            for link in self.links.values()
            if link.waiting is not None and link.waiting.deadline is not None
        ]
        return max(0.0, min(deadlines) - now) if deadlines else None

    async def advance_replicas(self, elapsed: float) -> None:
        """Every replica's clock moves to ``elapsed``; each then runs what fell due until it waits."""
        names = sorted(self.links)
        for name in names:
            self.links[name].advance(VIRTUAL_ORIGIN + elapsed)
        for name in names:
            await self.settle_replica(name)

    async def crash_replica(self, runtime: ActorRuntime, held: Held, *, after: bool) -> None:
        """SIGKILL at ``held`` (before it leaves, or once the server ran it), then a fresh process."""
        name = runtime.actor.name
        link = self.links[name]
        runtime.dying = True
        if after:
            ran: asyncio.Future[None] = asyncio.get_running_loop().create_future()

            def die_now() -> None:
                link.kill()
                if not ran.done():
                    ran.set_result(None)

            self.conductor.release(held, GateDecision(drop_response=True, after_run=die_now))
            try:
                await asyncio.wait_for(ran, self.settle_timeout)
            except TimeoutError:
                raise EngineStuck(f"the write of {name} never ran (within {self.settle_timeout:g} s)") from None
        else:
            link.kill()
            self.conductor.release(held, _DIE)
        self._bury(name)
        assert self.pool is not None
        await self.pool.kill(name)
        runtime.incarnation += 1
        runtime.restarts_left -= 1
        runtime.requests = 0
        runtime.effects_since_request = 0
        runtime.dying = False
        await self.start_replica(runtime)

    async def halt_replicas(self) -> None:
        """End of a run: every replica process dies where it stands, and the next run's are started."""
        for name in sorted(self.links):
            self._runtimes[name].dying = True
            self._bury(name)
            if self.pool is not None:
                await self.pool.kill(name)
        if self.pool is not None:
            for name in self.replica_names:
                self.pool.prepare(name, self._replica_kubeconfigs[name])

    def _replica_effect(self, name: str, key: str, replica: str, incarnation: int) -> None:
        runtime = self._runtimes.get(replica)
        if runtime is None or runtime.dying or runtime.incarnation != incarnation:
            return
        runtime.effects_since_request += 1
        self._record.effects.append(Effect(name, key, replica, incarnation, 0, runtime.last_step))

    # -- effects declared as writes -------------------------------------------------------------

    def before_write(self, option: Option) -> dict[str, Any] | None:
        """The object a write is about to change, when a declared write effect might match it."""
        operator = self.scenario.operator
        if operator is None or option.is_read or not option.is_request or not option.target[3]:
            return None
        if not any(effect.resource == option.target[1] for effect in operator.write_effects):
            return None
        return self._fetch(option.target)

    def _fetch(self, key: ObjectKey) -> dict[str, Any] | None:
        raise NotImplementedError  # the engine's

    def note_write_effects(self, step: Step, before: dict[str, Any] | None) -> None:
        """A committed write that matches a declared write effect counts as that effect."""
        operator = self.scenario.operator
        if operator is None or not operator.write_effects:
            return
        entry = next(
            (entry for entry in reversed(self.server.journal.entries) if entry.sequence == step.sequence), None
        )
        if entry is None or not entry.committed:
            return
        after = step.state_after
        if after is None and entry.response_body:
            with contextlib.suppress(ValueError):
                after = json.loads(entry.response_body)
        runtime = self._runtimes[step.actor]
        for effect in operator.write_effects:
            if effect.resource != entry.resource or entry.subresource not in ("", "status"):
                continue
            if effect.verb and effect.verb != entry.verb:
                continue
            if effect.object_name and effect.object_name != entry.name:
                continue
            if effect.pointer and not _sets(before, after, effect.pointer, effect.value):
                continue
            try:
                key = effect.key.format(namespace=entry.namespace, name=entry.name or _name_of(after), object=after)
            except (KeyError, IndexError, TypeError):
                key = f"(key {effect.key!r} not found in the object written)"
            self._record.effects.append(
                Effect(effect.name, key, step.actor, step.incarnation, runtime.ticks_done, step.number)
            )


def _skip_tls_verify_over_http(path: Path) -> None:
    """A foreign process's kubeconfig for a plain-http server says ``insecure-skip-tls-verify``:
    @kubernetes/client-node refuses an http server without it (there is no TLS to verify either way)."""
    import yaml

    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    for cluster in config.get("clusters") or []:
        if str(cluster.get("cluster", {}).get("server", "")).startswith("http:"):
            cluster["cluster"]["insecure-skip-tls-verify"] = True
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def _held_order(held: Held) -> tuple[str, str, str, str]:
    request = held.request
    if request is None:
        return ("~", held.point, "", "")
    return (request.method, request.path, request.query, held.call.webhook if held.call is not None else "")


def _sets(before: dict[str, Any] | None, after: dict[str, Any] | None, pointer: str, value: Any) -> bool:
    there, now = json_pointer_get(after, pointer) if after is not None else (False, None)
    if not there or (value is not ANY_VALUE and now != value):
        return False
    was_there, was = json_pointer_get(before, pointer) if before is not None else (False, None)
    return not (was_there and was == now)


def _name_of(obj: dict[str, Any] | None) -> str:
    return str(((obj or {}).get("metadata") or {}).get("name", ""))
