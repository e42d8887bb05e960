"""Watch fan-out: every committed change, delivered to every matching watcher in commit order.

Reproduces the watch cache (``pkg/storage/cacher``, docs/watch.md): a watcher sees only
changes after its starting resourceVersion; when an object starts matching its selectors it sees
ADDED, when it stops matching DELETED (carrying the previous content with the new revision), else
MODIFIED; a write that changes nothing is no event at all. A bounded window of past events serves
resumption from an old resourceVersion; older than the window is 410 Expired.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["Change", "WatchHub", "Watcher"]

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"


@dataclass(frozen=True)
class Change:
    """One committed write: the object after it (or, for a delete, as it was) and before it."""

    revision: int
    storage_key: tuple[str, str]
    namespace: str
    name: str
    type: str
    object: dict[str, Any]
    previous: dict[str, Any] | None


Filter = Callable[[dict[str, Any]], bool]


class Watcher:
    """One watch stream's pending ``(type, object)`` events, in commit order, until it is closed.

    ``matches`` None is a watch without selectors: every object matches. ``allowance`` None lets
    every queued event go out; a number lets only that many more go out (a metered stream, whose
    events someone outside lets through one by one), and ``on_queued`` hears of each new one.
    """

    def __init__(self, storage_key: tuple[str, str], namespace: str | None, matches: Filter | None) -> None:
        self.storage_key = storage_key
        self.namespace = namespace
        self.matches = matches
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.closed = False
        self.allowance: int | None = None
        self.on_queued: Callable[[], None] | None = None
        self._waiter: asyncio.Future[None] | None = None

    def offer(self, change: Change) -> None:
        """Queue what this watcher sees of ``change``, if anything."""
        if change.storage_key != self.storage_key:
            return
        if self.namespace is not None and change.namespace != self.namespace:
            return
        event = translate(change, self.matches)
        if event is not None:
            self.events.append(event)
            if self.on_queued is not None:
                self.on_queued()
            self._wake()

    def close(self) -> None:
        """End the stream once the events queued so far are taken."""
        if not self.closed:
            self.closed = True
            self._wake()

    def allow(self, count: int) -> None:
        """Let ``count`` more queued events go out (a metered stream)."""
        self.allowance = (self.allowance or 0) + count
        self._wake()

    @property
    def held(self) -> list[tuple[str, dict[str, Any]]]:
        """The queued events a metered stream may not send yet."""
        if self.allowance is None:
            return []
        return self.events[self.allowance :]

    def take(self) -> list[tuple[str, dict[str, Any]]]:
        """All the events queued so far (as many as the allowance lets, on a metered stream)."""
        if self.allowance is None:
            events, self.events = self.events, []
            return events
        events, self.events = self.events[: self.allowance], self.events[self.allowance :]
        self.allowance -= len(events)
        return events

    def put_back(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        """Return taken events that were not sent, ahead of those queued since."""
        self.events[:0] = events
        if self.allowance is not None:
            self.allowance += len(events)

    async def wait(self) -> None:
        """Until an event may be sent or the watcher is closed."""
        if (self.events and self.allowance != 0) or self.closed:
            return
        waiter = self._waiter = asyncio.get_running_loop().create_future()
        try:
            await waiter
        finally:
            self._waiter = None

    def _wake(self) -> None:
        # One wakeup for a run of events: the reader takes them all at once.
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)


def translate(change: Change, matches: Filter | None) -> tuple[str, dict[str, Any]] | None:
    """The event a watcher with this filter sees for a change (selector transitions included)."""
    if matches is None:
        if change.type == DELETED:
            return DELETED, change.object
        return (ADDED if change.previous is None else MODIFIED), change.object
    now_matches = change.type != DELETED and matches(change.object)
    before_matched = change.previous is not None and matches(change.previous)
    if change.type == DELETED:
        if not matches(change.object):
            return None
        return DELETED, change.object
    if now_matches and before_matched:
        return MODIFIED, change.object
    if now_matches:
        return ADDED, change.object
    if before_matched:
        return DELETED, _with_revision(change.previous, change.revision)  # type: ignore[arg-type]
    return None


def _with_revision(obj: dict[str, Any], revision: int) -> dict[str, Any]:
    metadata = dict(obj.get("metadata") or {})
    metadata["resourceVersion"] = str(revision)
    return {**obj, "metadata": metadata}


class WatchHub:
    """The recent history of changes and the live watchers."""

    def __init__(self, window: int) -> None:
        self.history: deque[Change] = deque(maxlen=window)
        self.watchers: set[Watcher] = set()
        self.compacted_through = 0

    def publish(self, change: Change) -> None:
        if len(self.history) == self.history.maxlen:
            self.compacted_through = self.history[0].revision
        self.history.append(change)
        for watcher in list(self.watchers):
            watcher.offer(change)

    def oldest_available(self) -> int:
        """The oldest revision a watch can start after."""
        return self.compacted_through

    def changes_since(self, revision: int, storage_key: tuple[str, str]) -> Iterable[Change]:
        return (change for change in self.history if change.revision > revision and change.storage_key == storage_key)

    def subscribe(self, watcher: Watcher) -> None:
        self.watchers.add(watcher)

    def unsubscribe(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)

    def close_all(self, storage_key: tuple[str, str] | None = None) -> None:
        for watcher in list(self.watchers):
            if storage_key is None or watcher.storage_key == storage_key:
                watcher.close()
                self.watchers.discard(watcher)
