"""The fake clock following the wall clock, for a test whose operator runs in the background.

With simulated controllers a test's clock stands still until the test advances it, which suits a
test that drives every step itself. An operator started in the background (kopf in a thread, a
controller binary in a subprocess) instead waits on real time: for a Job to finish, for a retry
timer. Rather than a loop of ``advance()`` calls beside it, the test lets the fake clock follow the
wall clock, optionally faster: every poll moves the fake clock by the wall time elapsed times the
speed, and the controllers act after every write and whenever a step falls due, as ``fakeapi
serve`` runs them on the wall clock (docs/cluster-defaults.md). Timestamps still read the fake
clock, so they go on from the instant it stood at.

What happens at which fake instant then depends on how fast the machine answers, as it does on a
cluster; a test that needs exact instants moves the clock itself.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fakeapi._cluster.manager import FakeTime, Simulation

__all__ = ["POLL_SECONDS", "WallClockFollower"]

POLL_SECONDS = 0.05
"""How often (in wall seconds) the follower moves the clock and looks for new writes."""


class WallClockFollower:
    """Moves ``fake_time`` with the wall clock, ``speed`` times as fast, running ``simulation``'s
    steps as they fall due; a failure inside a controller goes to ``errors`` and the loop goes on."""

    def __init__(
        self,
        simulation: Simulation,
        fake_time: FakeTime,
        errors: list[str],
        speed: float = 1.0,
        wall: Callable[[], float] = time.monotonic,
    ) -> None:
        if not speed > 0:
            raise ValueError(f"the clock follows the wall clock at a speed above 0, not {speed}")
        self.simulation = simulation
        self.fake_time = fake_time
        self.errors = errors
        self.speed = speed
        self._wall = wall
        self._task: asyncio.Task[None] | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._task = loop.create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _run(self) -> None:
        last, seen = self._wall(), -1
        while True:
            await asyncio.sleep(POLL_SECONDS)
            now = self._wall()
            elapsed, last = (now - last) * self.speed, now
            try:
                self._move(elapsed, seen)
            except Exception:  # a fakeapi bug: reported like a failing request, the clock goes on
                self.errors.append("simulated controllers:\n" + traceback.format_exc())
            seen = self.simulation.store.revision

    def _move(self, elapsed: float, seen: int) -> None:
        target = self.fake_time.now + elapsed
        if self.simulation.store.revision == seen:
            due = self.simulation.next_due()
            if due is None or due > target:
                self.fake_time.now = target  # nothing written and nothing due: no round to run
                return
        self.simulation.advance(self.fake_time, elapsed)
