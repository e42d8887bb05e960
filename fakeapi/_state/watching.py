"""Watch fan-out: every committed change, delivered to every matching watcher in commit order.

Reproduces the watch cache (``pkg/storage/cacher``, docs/watch.md): a watcher sees only
changes after its starting resourceVersion; when an object starts matching its selectors it sees
ADDED, when it stops matching DELETED (carrying the previous content with the new revision), else
MODIFIED; a write that changes nothing is no event at all. A window of past events (at most ``window`` of
them, and at most ``max_bytes`` of their encoded objects) serves resumption from an old
resourceVersion; older than the window is 410 Expired, as after etcd's compaction.

A watcher whose client reads slower than changes come holds at most ``queue_limit`` live events and
``max_bytes`` of them; past either it is terminated as the cacher terminates a watcher whose buffer
stays full (``cacheWatcher.add``, ``forget``): its queue is dropped and its stream ends, so the
client watches or lists again (docs/limits.md).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_HISTORY_BYTES", "Change", "WatchHub", "Watcher"]

DEFAULT_HISTORY_BYTES = 16 * 1024 * 1024

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
    size: int = 0  # bytes of the object's encoding


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
        self.terminated = False
        self.live = 0  # events queued by publish and not taken yet
        self.live_bytes = 0
        self._waiter: asyncio.Future[None] | None = None

    def offer(self, change: Change) -> bool:
        """Queue what this watcher sees of ``change``, if anything; True if it queued an event."""
        if change.storage_key != self.storage_key:
            return False
        if self.namespace is not None and change.namespace != self.namespace:
            return False
        event = translate(change, self.matches)
        if event is None:
            return False
        self.events.append(event)
        if self.on_queued is not None:
            self.on_queued()
        self._wake()
        return True

    def terminate(self) -> None:
        """Drop what is queued and end the stream: the client did not keep up."""
        self.terminated = True
        self.events = []
        self.live = self.live_bytes = 0
        self.close()

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
        else:
            events, self.events = self.events[: self.allowance], self.events[self.allowance :]
            self.allowance -= len(events)
        queued = len(self.events) + len(events)
        self.live_bytes = self.live_bytes * len(self.events) // queued if queued else 0
        self.live = max(0, self.live - len(events))
        return events

    def put_back(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        """Return taken events that were not sent, ahead of those queued since."""
        if self.terminated:
            return
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

    def __init__(self, window: int, queue_limit: int = 10000, max_bytes: int = DEFAULT_HISTORY_BYTES) -> None:
        self.history: deque[Change] = deque()
        self.window = window
        self.max_bytes = max_bytes
        self.history_bytes = 0
        self.watchers: set[Watcher] = set()
        self.compacted_through = 0
        self.queue_limit = queue_limit

    def publish(self, change: Change) -> None:
        self.history.append(change)
        self.history_bytes += change.size
        while len(self.history) > self.window or (self.history_bytes > self.max_bytes and len(self.history) > 1):
            forgotten = self.history.popleft()
            self.history_bytes -= forgotten.size
            self.compacted_through = forgotten.revision
        for watcher in list(self.watchers):
            if watcher.offer(change):
                watcher.live += 1
                watcher.live_bytes += change.size
                if watcher.live > self.queue_limit or watcher.live_bytes > self.max_bytes:
                    watcher.terminate()
                    self.watchers.discard(watcher)

    def compact(self, through: int) -> None:
        """Forget every change up to ``through``, as etcd's compaction does."""
        self.history.clear()
        self.history_bytes = 0
        self.compacted_through = through

    def restore_history(self, changes: Iterable[Change], compacted_through: int, size: int = -1) -> None:
        """Remember ``changes`` (which weigh ``size`` bytes, or what they add up to when not given)."""
        self.history = deque(changes)
        self.history_bytes = size if size >= 0 else sum(change.size for change in self.history)
        self.compacted_through = compacted_through

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
