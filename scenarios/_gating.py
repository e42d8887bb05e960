"""The conductor: holds every actor's request at fakeapi's gate and lets one through at a time.

It is the gate hook installed with :meth:`FakeAPIServer.set_gate`. A request from an actor of the
running scenario (its bearer token names it) waits on a future until the engine releases it with a
:class:`GateDecision`; anything else (setup, the engine's own reads) passes at once. The engine
learns, through ``expect``, the moment an actor it let run is blocked again at the gate or has
finished: that is what makes a run a function of its schedule, without sleeps or polling.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from fakeapi import GateDecision, GateRequest

__all__ = ["Conductor", "Held"]


@dataclass
class Held:
    request: GateRequest
    future: asyncio.Future[GateDecision | None]


class Conductor:
    def __init__(self, actors: set[str]) -> None:
        self.actors = actors
        self.active = False
        self.hold_watches = False
        self.held: dict[str, list[Held]] = {}
        self._waiters: dict[str, asyncio.Future[None]] = {}

    async def gate(self, request: GateRequest) -> GateDecision | None:
        actor = request.actor
        if not self.active or actor is None or actor not in self.actors:
            return None
        if request.verb == "watch" and not self.hold_watches:
            return None
        held = Held(request, asyncio.get_running_loop().create_future())
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

    def take(self, actor: str, request: GateRequest) -> Held:
        queue = self.held[actor]
        held = next(item for item in queue if item.request is request)
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
        self._waiters.clear()
