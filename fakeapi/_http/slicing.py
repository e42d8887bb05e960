"""Running a write's synchronous stages so that the event loop turns while a large one works.

The apiserver serves each request on its own goroutine: a 3 MB object with 200,000 keys takes its
time to decode, validate and track, and every other client is served meanwhile
(docs/http-limits.md, "One request among others"). Here the handlers run those stages (decoding
the body, planning the create or update, computing a patch, encoding the answer) through
:func:`in_slices`: the stage runs in a :class:`~fakeapi._patching.slices.SlicedRun`, and each
time it pauses the loop gets one turn (``asyncio.sleep(0)``) before it goes on.

While a run is paused its task sits in the loop's ready queue, so the loop never looks idle: the
scenarios engine, which waits for "nothing can move" to know an actor is parked, cannot mistake a
large request at work for a held one. Only planning pauses, never a commit: the store's commit
is called outside any run, and a plan that paused is checked against the stored state before it
is committed, as one that waited for a webhook is (docs/admission.md).

While any such run is under way the garbage collector's automatic passes are held off: a large
write's temporaries (sets of 200,000 field paths) would make each pass walk them, 40 to 300 ms that
cannot pause, where Go's collector runs beside the goroutines. They are freed by reference counting
as ever; only cycles wait, for the pass that follows the last run, or for
:data:`COLLECT_CEILING` (docs/http-limits.md, "One request among others").
"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from fakeapi._patching.slices import SlicedRun

__all__ = ["COLLECT_CEILING", "SLICED_FROM", "in_slices"]

P = ParamSpec("P")
T = TypeVar("T")


SLICED_FROM = 16 * 1024
"""Bytes of JSON from which a stage runs in slices: below, its work is about one slice's budget
(a few milliseconds), and it runs at once, without the cost of a greenlet."""


COLLECT_CEILING = 8_000_000
"""Objects the collector tracks (allocations less deallocations, ``gc.get_count()[0]``) past which a
full pass runs even while large runs are under way: twice what four 3 MB writes at once hold at
their peak, so only a stream of large writes that never ends waits for it, and the cycles such a
stream may leave stay bounded."""

_runs_under_way = 0
_collector_was_enabled = False
_counting = threading.Lock()  # servers on loops of their own threads (the pytest fixture's) share the count


def _hold_collector() -> None:
    global _runs_under_way, _collector_was_enabled
    with _counting:
        if _runs_under_way == 0:
            _collector_was_enabled = gc.isenabled()
            gc.disable()
        _runs_under_way += 1


def _release_collector() -> None:
    global _runs_under_way
    with _counting:
        _runs_under_way -= 1
        if _runs_under_way == 0 and _collector_was_enabled:
            gc.enable()


def _collect_past_ceiling() -> None:
    if _collector_was_enabled and gc.get_count()[0] > COLLECT_CEILING:
        gc.collect()


async def in_slices(size: int, function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``function(*args, **kwargs)``, with a turn of the event loop at each of its pauses when
    ``size`` (the bytes of the body or object it works on) is :data:`SLICED_FROM` or more."""
    if size < SLICED_FROM:
        return function(*args, **kwargs)
    run = SlicedRun(lambda: function(*args, **kwargs))
    _hold_collector()
    try:
        result: Any = run.resume()
        while not run.finished:
            await asyncio.sleep(0)
            _collect_past_ceiling()
            result = run.resume()
    finally:
        try:
            if not run.finished:
                # The request was cancelled (its client went away) while the stage was paused: end it
                # there, running its ``finally`` blocks, rather than leave it to the garbage collector.
                run.throw()
        finally:
            _release_collector()
    return result  # type: ignore[no-any-return]
