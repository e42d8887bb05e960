"""Shrinking a violating schedule to a cheaper one that still shows the same kind of violation.

Cheaper means, in this order: fewer faults, then fewer actors taking part up to the violation, then
fewer steps up to it, then fewer context switches up to it (then a shorter run, then lower indices,
so that the order is total). Candidates are replays of edited schedules: cut after a prefix (the
rest runs by default), a fault taken out (the same request released plainly, with and without the
rest of the schedule), one choice lowered. Greedy, bounded by a number of replays; every candidate
is a full run, so the result replays exactly, and it never costs more than the run it started from.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Iterator

from scenarios._model import RunRecord
from scenarios._schedules import Replay, decode_schedule

__all__ = ["Cost", "cost", "shrink", "violation_horizon"]

Runner = Callable[[Replay], Awaitable[RunRecord]]
Cost = tuple[int, int, int, int, int, list[int]]


def violation_horizon(run: RunRecord) -> int:
    """The number of steps a reader must follow to see the violation: up to the last step a violation
    names, or the whole run when one names none (liveness is judged at the end)."""
    horizon = 0
    for violation in run.violations:
        if not violation.steps:
            return len(run.steps)
        horizon = max(horizon, *violation.steps)
    return min(horizon, len(run.steps)) if run.violations else len(run.steps)


def cost(run: RunRecord) -> Cost:
    shown = run.steps[: violation_horizon(run)]
    faults = sum(1 for choice in run.choices if choice.fault is not None)
    actors = len({step.actor for step in shown})
    switches = sum(1 for before, after in itertools.pairwise(shown) if before.actor != after.actor)
    return (faults, actors, len(shown), switches, len(run.steps), [choice.index for choice in run.choices])


def _candidates(run: RunRecord) -> Iterator[list[int]]:
    indices = decode_schedule(run.schedule_id)
    for position, choice in enumerate(run.choices[: len(indices)]):
        if choice.fault is not None:
            yield [*indices[:position], choice.plain]
            yield [*indices[:position], choice.plain, *indices[position + 1 :]]
    for length in range(len(indices)):
        yield indices[:length]
    for position, index in enumerate(indices):
        for lower in range(index):
            yield [*indices[:position], lower, *indices[position + 1 :]]


def _same_kind(run: RunRecord, kinds: set[str]) -> bool:
    return bool(kinds & {violation.kind for violation in run.violations})


async def shrink(run: RunRecord, replay: Runner, *, budget: int = 200) -> tuple[RunRecord, int]:
    """The cheapest run found that still violates one of ``run``'s violation kinds, and the replays spent."""
    kinds = {violation.kind for violation in run.violations}
    best, spent = run, 0
    best_cost = cost(run)
    improved = True
    tried: set[tuple[int, ...]] = set()
    while improved and spent < budget:
        improved = False
        for candidate in _candidates(best):
            key = tuple(candidate)
            if key in tried:
                continue
            tried.add(key)
            if spent >= budget:
                break
            spent += 1
            result = await replay(Replay(candidate, lenient=True))
            if result.outcome == "pruned" or not _same_kind(result, kinds):
                continue
            candidate_cost = cost(result)
            if candidate_cost < best_cost:
                best, best_cost, improved = result, candidate_cost, True
                break
    return best, spent
