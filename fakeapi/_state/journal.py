"""The request journal: every request the server answered, in the order it answered them.

Tests assert on it ("which patch did the operator send, with which content type, and what came
back"), and the scenarios engine checks what really happened from it rather than from what the
actors believe. Each entry records the resourceVersions its own writes took (not those of requests
that committed while it waited), so a reader can tell a write that committed from one that changed
nothing, and which request a watch event came from; and the store revision before and after.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Journal", "JournalEntry"]


@dataclass
class JournalEntry:
    """One request and its answer."""

    sequence: int
    method: str
    path: str
    query: str
    actor: str | None
    user_agent: str
    content_type: str
    body: bytes
    verb: str = ""
    group: str = ""
    version: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    status: int = 0
    response_body: bytes = b""
    warnings: list[str] = field(default_factory=list)
    revision_before: int = 0
    revision_after: int = 0
    write_revisions: list[int] = field(default_factory=list)
    diagnoses: list[str] = field(default_factory=list)
    fault: str = ""

    @property
    def committed(self) -> bool:
        """The request persisted at least one write (``write_revisions`` holds their resourceVersions)."""
        return bool(self.write_revisions)

    def json(self) -> Any:
        import orjson

        return orjson.loads(self.response_body) if self.response_body else None


class Journal:
    """The most recent requests, oldest first; ``limit`` bounds memory on a long-running server."""

    def __init__(self, limit: int = 10000) -> None:
        self.entries: deque[JournalEntry] = deque(maxlen=limit)
        self._sequence = itertools.count(1)

    def begin(self, **fields: Any) -> JournalEntry:
        entry = JournalEntry(sequence=next(self._sequence), **fields)
        self.entries.append(entry)
        return entry

    def clear(self) -> None:
        """Forget every entry; the next request is number 1 again, so a replayed run numbers alike."""
        self.entries.clear()
        self._sequence = itertools.count(1)

    def __iter__(self) -> Iterator[JournalEntry]:
        return iter(list(self.entries))

    def __len__(self) -> int:
        return len(self.entries)
