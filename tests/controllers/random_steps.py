"""The random walk the stepped-controller tests share (docs/controllers.md, "In scenarios"): the
controllers' announced writes made one at a time in a seeded random order, the clock moved to the
next timed step whenever none is pending."""

from __future__ import annotations

import random

from fakeapi import ControllerWrite, FakeAPIServer


def step_at_random(server: FakeAPIServer, seed: int, seconds: float | None) -> list[ControllerWrite]:
    """The writes of ``server``'s stepped controllers, each chosen at random among those pending, until
    none is pending and no timed step falls due within ``seconds`` (None: the clock stays still).

    Each step must write what was announced, and asking what is pending must write nothing."""
    choose, elapsed = random.Random(seed), 0.0
    writes: list[ControllerWrite] = []
    while True:
        pending = server.controller_writes()
        if not pending:
            due = None if seconds is None else server.next_controller_due()
            if due is None or seconds is None or elapsed + due > seconds:
                return writes
            server.advance_clock(due)
            elapsed += due
            continue
        assert server.controller_writes() == pending  # asking wrote nothing
        chosen = choose.choice(pending)
        revision = server.revision
        written = server.step_controller(chosen.controller, chosen.worker)
        assert written is not None and written.target == chosen.target and not written.refused
        assert server.revision > revision
        writes.append(written)
