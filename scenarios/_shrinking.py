"""Shrinking a violating schedule to a minimal one that still shows the same kind of violation.

Minimal means, in this order: fewer faults, fewer context switches (choices other than the default
"keep running the same actor"), fewer steps, a shorter id. Candidates are replays of edited
schedules: cut after a prefix (the rest runs by default), a fault removed, one choice lowered.
Greedy, bounded by a number of replays; every candidate is a full run, so the result replays.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

from scenarios._model import RunRecord
from scenarios._schedules import Replay, decode_schedule

__all__ = ["cost", "shrink"]

Runner = Callable[[Replay], Awaitable[RunRecord]]


def cost(run: RunRecord) -> tuple[int, int, int, int, list[int]]:
    faults = sum(1 for choice in run.choices if choice.fault is not None)
    switches = sum(1 for choice in run.choices if choice.index != choice.default)
    schedule_id = run.schedule_id
    return (faults, switches, len(run.steps), len(schedule_id), [choice.index for choice in run.choices])


def _candidates(run: RunRecord) -> Iterator[list[int]]:
    indices = decode_schedule(run.schedule_id)
    for length in range(len(indices)):
        yield indices[:length]
    for position, choice in enumerate(run.choices[: len(indices)]):
        if choice.fault is not None:
            yield [*indices[:position], choice.plain, *indices[position + 1 :]]
    for position, index in enumerate(indices):
        for lower in range(index):
            yield [*indices[:position], lower, *indices[position + 1 :]]


def _same_kind(run: RunRecord, kinds: set[str]) -> bool:
    return bool(kinds & {violation.kind for violation in run.violations})


async def shrink(run: RunRecord, replay: Runner, *, budget: int = 200) -> tuple[RunRecord, int]:
    """The smallest run found that still violates one of ``run``'s violation kinds, and the replays spent."""
    kinds = {violation.kind for violation in run.violations}
    best, spent = run, 0
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
            if result.outcome != "pruned" and _same_kind(result, kinds) and cost(result) < cost(best):
                best, improved = result, True
                break
    return best, spent
