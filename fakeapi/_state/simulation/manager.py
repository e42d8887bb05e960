"""The simulated controllers' loop: every controller acts on what is due, until nothing changes.

Real controllers react to watch events a moment after each write and to timers on the wall clock.
Here each controller is level-triggered: it reads the store, writes what is due at the clock's
current instant, and says when its next step falls due. :meth:`Simulation.settle` runs the
controllers in the fixed order of their steps (nodes, scheduler, kubelet, job, ...) until a whole
round writes nothing; :meth:`Simulation.advance` moves the fake clock forward one due instant at a
time, settling at each, so a 30-second advance sees every step in between in the order it would have
happened. Nothing runs between advances on the fake clock: a test that has written something calls
``advance(0)`` to let the controllers act. Every write goes through the store as a client's would
(resourceVersions, watch events, managedFields under the component's manager name).

The fake clock is a :class:`FakeTime`: it starts at a whole second and moves only when advanced.
``fakeapi serve`` runs the same loop against real time instead (:meth:`Simulation.due_in`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from fakeapi._state.simulation.cronjobs import cronjob_due, sync_cronjobs
from fakeapi._state.simulation.endpoints import sync_endpoints
from fakeapi._state.simulation.endpointslices import sync_endpoint_slices
from fakeapi._state.simulation.jobs import job_due, sync_jobs
from fakeapi._state.simulation.kubelet import kubelet_due, run_pods
from fakeapi._state.simulation.nodes import register_nodes
from fakeapi._state.simulation.options import ControllerOptions
from fakeapi._state.simulation.recording import EventRecorder
from fakeapi._state.simulation.scheduling import schedule_pods

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = ["FakeTime", "Simulation"]

MAX_ROUNDS = 1000  # a round that keeps writing after this many is a loop between controllers

Step = Callable[["Simulation"], None]
Due = Callable[["Simulation"], "float | None"]


class FakeTime:
    """A clock source that stands still until advanced."""

    def __init__(self, start: float) -> None:
        self.start = float(int(start))
        self.now = self.start

    def __call__(self) -> float:
        return self.now

    def rewind(self) -> None:
        self.now = self.start


class Simulation:
    """The enabled controllers of one store, and the loop that runs them."""

    def __init__(self, store: Store, options: ControllerOptions) -> None:
        self.store = store
        self.options = options
        self.recorder = EventRecorder(store)
        steps: list[tuple[str, Step, Due | None]] = [
            ("nodes", register_nodes, None),
            ("scheduler", schedule_pods, None),
            ("kubelet", run_pods, kubelet_due),
            ("job", sync_jobs, job_due),
            ("cronjob", sync_cronjobs, cronjob_due),
            ("endpointslice", sync_endpoint_slices, None),
            ("endpoints", sync_endpoints, None),
        ]
        self._steps = [(step, due) for name, step, due in steps if options.runs(name)]

    def reset(self) -> None:
        """Forget what was recorded since the store was last restored (the Event name sequence)."""
        self.recorder.reset()

    def settle(self) -> None:
        """Run every controller until a whole round writes nothing."""
        for _ in range(MAX_ROUNDS):
            before = self.store.revision
            for step, _due in self._steps:
                step(self)
            if self.store.revision == before:
                return
        raise RuntimeError(f"the simulated controllers kept writing for {MAX_ROUNDS} rounds")

    def next_due(self) -> float | None:
        times = [when for _, due in self._steps if due is not None and (when := due(self)) is not None]
        return min(times, default=None)

    def advance(self, time: FakeTime, seconds: float) -> None:
        """Move ``time`` forward by ``seconds``, running each step at the instant it falls due."""
        if seconds < 0:
            raise ValueError(f"cannot advance the clock by a negative time ({seconds})")
        target = time.now + seconds
        self.settle()
        while True:
            due = self.next_due()
            if due is None or due > target:
                break
            if due <= time.now:
                raise RuntimeError(f"a simulated controller's step due at {due} did not run")
            time.now = max(time.now, due)
            self.settle()
        time.now = target
        self.settle()

    def due_in(self) -> float | None:
        """Seconds of real time until the next step, after settling what is due now."""
        self.settle()
        due = self.next_due()
        return None if due is None else max(0.0, due - self.store.clock.now())
