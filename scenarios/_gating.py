"""The conductor: holds every actor at its next observable action and lets one through at a time.

Its ``gate`` is the hook installed with :meth:`FakeAPIServer.set_gate`. A request from an actor of
the running scenario (its bearer token names it) waits on a future until the engine releases it with
a :class:`GateDecision`; anything else (setup, the engine's own reads) passes at once. Points that
are not requests (the end of a tick, where a process can die after its last side effect) are held
the same way with :meth:`hold_point`, and so is an admission webhook call of a write the engine
let run, with :meth:`hold` (:mod:`scenarios._webhooks`). The engine learns, through ``expect``, the
moment an actor it let run is held again or has finished: that is what makes a run a function of
its schedule, without sleeps or polling.

Every watch an actor opens gets a :class:`WatchValve`: its stream's later events wait there until
the engine lets one through, so when a watcher sees another actor's write is a choice too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import parse_qs

from fakeapi import GateDecision, GateRequest, WatchValve, WebhookCall

__all__ = ["Conductor", "EngineStuck", "Held"]


class EngineStuck(RuntimeError):
    """An actor neither reached the gate nor finished: it waits on something the engine does not control."""


@dataclass(eq=False)
class Held:
    """An actor waiting: at a request (``request``) or at another point of its code (``point``).

    A write in flight that calls an admission webhook waits too: ``call`` is the call, ``request``
    the write, and the engine sets ``fault`` to fail the call rather than answer it.
    """

    request: GateRequest | None
    future: asyncio.Future[GateDecision | None]
    point: str = ""
    call: WebhookCall | None = None
    fault: str | None = None


def _starts_from_history(request: GateRequest) -> bool:
    """A watch from a resourceVersion (not 0, without initial events) reads nothing of the store as it
    stands: every event after that version reaches the watcher through its valve, one step each,
    whenever the watch starts. Its start then commutes with every write, and need not be a step;
    only compaction (the watch-expire fault) could make its start's moment matter."""
    query = parse_qs(request.query)
    version = query.get("resourceVersion", [""])[0]
    initial = query.get("sendInitialEvents", ["false"])[0] == "true"
    return version not in ("", "0") and not initial


class Conductor:
    def __init__(self, actors: set[str]) -> None:
        self.actors = actors
        self.active = False
        self.hold_watches = False
        self.free_watches: set[str] = set()
        """Actors whose watches from a given resourceVersion start at once (see :func:`_starts_from_history`)."""
        self.held: dict[str, list[Held]] = {}
        self.valves: dict[str, list[WatchValve]] = {}
        self.on_watch: Callable[[str], None] | None = None
        self._waiters: dict[str, asyncio.Future[None]] = {}

    async def gate(self, request: GateRequest) -> GateDecision | None:
        actor = request.actor
        if not self.active or actor is None or actor not in self.actors:
            return None
        if request.verb != "watch":
            return await self._hold(actor, Held(request, asyncio.get_running_loop().create_future()))
        decision = None
        if self.hold_watches and not (actor in self.free_watches and _starts_from_history(request)):
            decision = await self._hold(actor, Held(request, asyncio.get_running_loop().create_future()))
        if decision is not None and (decision.drop_before or decision.fail_before is not None):
            return decision
        if not self.active:
            return decision
        valve = WatchValve(request)
        self.valves.setdefault(actor, []).append(valve)
        if self.on_watch is not None:
            self.on_watch(actor)
        return replace(decision or GateDecision(), valve=valve)

    def waiting_valves(self, actor: str) -> list[WatchValve]:
        """The actor's open watches that hold an event back."""
        return [valve for valve in self.valves.get(actor, []) if valve.waiting]

    def watching(self, actor: str) -> bool:
        valves = self.valves.get(actor)
        return valves is not None and any(not valve.closed for valve in valves)

    async def hold_point(self, actor: str, point: str) -> GateDecision | None:
        """Hold ``actor`` at a point of its code that is not a request, until the engine releases it."""
        if not self.active:
            return None
        return await self._hold(actor, Held(None, asyncio.get_running_loop().create_future(), point))

    async def hold(self, actor: str, held: Held) -> GateDecision | None:
        """Hold ``actor`` at ``held`` (a webhook call of its write) until the engine releases it."""
        return await self._hold(actor, held)

    async def _hold(self, actor: str, held: Held) -> GateDecision | None:
        self.held.setdefault(actor, []).append(held)
        self.wake(actor)
        try:
            return await held.future
        finally:
            queue = self.held.get(actor, [])
            if held in queue:
                queue.remove(held)
                if not queue:
                    del self.held[actor]

    def expect(self, actor: str) -> asyncio.Future[None]:
        """A future set when ``actor`` next reaches the gate or finishes."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters[actor] = waiter
        return waiter

    def wake(self, actor: str) -> None:
        waiter = self._waiters.pop(actor, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def take(self, actor: str, held: Held) -> Held:
        queue = self.held[actor]
        queue.remove(held)
        if not queue:
            del self.held[actor]
        return held

    def release(self, held: Held, decision: GateDecision | None) -> None:
        if not held.future.done():
            held.future.set_result(decision)

    def release_all(self, decision: GateDecision) -> None:
        """Cut every held request (a run being abandoned or ended)."""
        for queue in list(self.held.values()):
            for held in list(queue):
                self.release(held, decision)
        self.held.clear()
        self.valves.clear()
        self._waiters.clear()
