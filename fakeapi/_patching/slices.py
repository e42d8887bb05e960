"""Long synchronous work in slices: a large request's decoding, validation and managedFields pause now and then.

kube-apiserver serves every request on its own goroutine, so a 3 MB write with 200,000 keys takes
its time without holding up anyone else (docs/http-limits.md, "One request among others"). fakeapi
serves every request on one event loop, and the pure stages of a write (typed decoding, the
registry's validation, managedFields, Go field order, YAML) are synchronous code that would hold
the loop for seconds. Here such a stage runs in a :class:`SlicedRun`, a greenlet: the loops of those
stages charge what they visit to the run's budget, and when it is spent the run switches back to
its caller, which lets the event loop turn once (``fakeapi/_http/slicing.py``) and resumes it.

The budget counts elements, not time, so where a run pauses depends only on its data: a small
object never pauses, and a large one pauses at the same places every time. Outside a sliced run
(the store's commit, the controllers, a test calling a function directly) :func:`pause` and
:func:`paused` do nothing, so a commit stays one step that nothing interleaves with.
"""

from __future__ import annotations

import heapq
import itertools
import operator
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any, TypeVar

from greenlet import getcurrent, greenlet

__all__ = ["SLICE_UNITS", "SlicedRun", "pause", "pause_after_pass", "paused", "release_in_slices", "sorted_in_slices"]

T = TypeVar("T")

SLICE_UNITS = 1024
"""Elements a run visits between two pauses: a few milliseconds of the stages above on a 2-core
machine, so four large requests at once leave the loop free every few tens of milliseconds."""

BYTES_PER_UNIT = 64
"""A pass of C code over a body (orjson, ``bytes.translate``) costs about one element per 64 bytes."""


class SlicedRun(greenlet):  # type: ignore[misc]  # greenlet ships no type information
    """A synchronous function run so that it can pause; :meth:`resume` runs it until its next pause."""

    def __init__(self, function: Callable[[], Any]) -> None:
        super().__init__(function, getcurrent())
        self.gr_context = getcurrent().gr_context  # the request's context variables, shared both ways
        self.left = SLICE_UNITS

    def resume(self) -> Any:
        """Run until the next pause (the result is then meaningless) or the end (its result)."""
        global _working
        _working += 1
        try:
            return self.switch()
        finally:
            _working -= 1

    @property
    def finished(self) -> bool:
        return bool(self.dead)


_working = 0
"""Runs under way in any thread, not paused: while there are none (nearly always, outside a large
write), :func:`pause` and :func:`paused` return without asking greenlet which one runs here. Threads
may miscount it by a race; that costs a pause or the fast path, never a wrong result."""


def _running() -> SlicedRun | None:
    if not _working:
        return None
    current = getcurrent()
    return current if type(current) is SlicedRun else None


def pause(units: int = 1) -> None:
    """Charge ``units`` to the running slice, and give the loop a turn when its budget is spent."""
    run = _running()
    if run is None:
        return
    run.left -= units
    if run.left <= 0:
        run.left = SLICE_UNITS
        run.parent.switch()


def pause_after_pass(size: int) -> None:
    """Charge a pass of C code over ``size`` bytes: a large body's passes each end a slice."""
    pause(size // BYTES_PER_UNIT)


def paused(items: Iterable[T], size: int) -> Iterable[T]:
    """``items`` (``size`` of them), with a pause wherever the running slice's budget runs out.

    Outside a run, or when they fit in what is left of the budget, they come back as they are: the
    cost for a small object is one call per container.
    """
    run = _running()
    if run is None:
        return items
    if size < run.left:
        run.left -= size
        return items
    return _pausing(items, size, run)


def sorted_in_slices(items: Collection[T], key: Callable[[T], Any] | None = None) -> list[T]:
    """``sorted(items, key=key)``, pausing inside a run: the keys are computed, and the items checked
    for being in order already, one by one; only items out of order are sorted, in runs of
    :data:`SLICE_UNITS` merged by ``heapq.merge`` (which keeps a stable sort's order of equal keys).

    One ``sorted`` of 200,000 keys in no order is a few hundred milliseconds that cannot pause.
    """
    run = _running()
    if run is None or len(items) <= SLICE_UNITS:
        return sorted(paused(items, len(items)), key=key)  # type: ignore[type-var, arg-type]
    whole = list(items)
    keys: list[Any] = whole if key is None else list(map(key, paused(whole, len(whole))))
    if all(map(operator.le, keys, itertools.islice(keys, 1, None))):  # one C pass: often in order already
        return whole
    decorated = list(zip(keys, range(len(whole)), strict=True))  # the index settles equal keys, as a stable sort
    runs = []
    for start in range(0, len(decorated), SLICE_UNITS):
        runs.append(sorted(decorated[start : start + SLICE_UNITS]))
        pause(SLICE_UNITS)
    ordered = [whole[index] for _, index in paused(heapq.merge(*runs), len(whole))]
    release_in_slices(*runs, decorated, keys)
    return ordered


def release_in_slices(*containers: list[Any] | set[Any] | dict[Any, Any]) -> None:
    """Empty large temporaries a few elements at a time inside a run, pausing between.

    Freeing 200,000 tuples when the last reference to their set goes is tens of milliseconds that
    cannot pause; emptied here, each piece frees what it held last. The containers must be the
    caller's own and not used again. Outside a run they are left as they are, for reference
    counting to free as ever.
    """
    run = _running()
    if run is None:
        return
    for container in containers:  # small ones too: what they share with a large one is freed with the last
        while container:
            piece = min(len(container), max(run.left, 1))
            if isinstance(container, list):
                del container[-piece:]
            else:
                take = container.pop if isinstance(container, set) else container.popitem
                for _ in range(piece):
                    take()
            pause(piece)


def _pausing(items: Iterable[T], size: int, run: SlicedRun) -> Iterator[T]:
    # The items themselves go through C iterators (chain, islice): only each chunk costs Python code.
    return itertools.chain.from_iterable(_chunks(iter(items), size, run))


def _chunks(iterator: Iterator[T], size: int, run: SlicedRun) -> Iterator[Iterator[T]]:
    """Chunks that fill what is left of the budget; the next is asked for once the last was used,
    and the run pauses there if what it visited meanwhile (nested containers too) spent the budget."""
    left = size
    while left > 0:
        step = min(run.left, left)
        yield itertools.islice(iterator, step)
        left -= step
        run.left -= step
        if run.left <= 0:
            run.left = SLICE_UNITS
            run.parent.switch()
