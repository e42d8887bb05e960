"""The request journal: every request the server answered, in the order it answered them.

Tests assert on it ("which patch did the operator send, with which content type, and what came
back"), and the scenarios engine checks what really happened from it rather than from what the
actors believe. Each entry records the resourceVersions its own writes took (not those of requests
that committed while it waited), so a reader can tell a write that committed from one that changed
nothing, and which request a watch event came from; and the store revision before and after.

A server that runs for hours must not grow with what it is sent, so the journal is bounded three
ways (docs/limits.md): at most ``limit`` entries; of each request and response body at most
``body_limit`` bytes are kept, with the full length in ``body_length`` and ``response_length``; and
when the bodies kept add up to more than ``max_bytes``, the oldest entries are forgotten.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DEFAULT_BODY_LIMIT", "DEFAULT_MAX_BYTES", "Journal", "JournalEntry"]


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
    body_length: int = 0
    response_length: int = 0
    user: str = ""
    groups: tuple[str, ...] = ()
    authorized: bool | None = None
    authorization_reason: str = ""
    """``user``/``groups``: whom the request acted as (after impersonation). ``authorized``: the
    authorizer's decision under RBAC authorization (None when nothing was checked), with its reason."""

    @property
    def committed(self) -> bool:
        """The request persisted at least one write (``write_revisions`` holds their resourceVersions)."""
        return bool(self.write_revisions)

    @property
    def body_truncated(self) -> bool:
        """Only the first ``body_limit`` bytes of the request body were kept."""
        return self.body_length > len(self.body)

    @property
    def response_truncated(self) -> bool:
        """Only the first ``body_limit`` bytes of the response body were kept."""
        return self.response_length > len(self.response_body)

    def json(self) -> Any:
        """The response body, decoded; a truncated one cannot be, and says so."""
        import orjson

        if self.response_truncated:
            raise ValueError(
                f"request #{self.sequence}: only {len(self.response_body)} of the response's "
                f"{self.response_length} bytes were kept (the journal's body_limit)"
            )
        return orjson.loads(self.response_body) if self.response_body else None


DEFAULT_BODY_LIMIT = 64 * 1024
DEFAULT_MAX_BYTES = 8 * 1024 * 1024


class Journal:
    """The most recent requests, oldest first, within the bounds of the module docstring."""

    def __init__(
        self, limit: int = 10000, *, body_limit: int = DEFAULT_BODY_LIMIT, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.entries: deque[JournalEntry] = deque()
        self.limit = limit
        self.body_limit = body_limit
        self.max_bytes = max_bytes
        self.bytes_kept = 0
        self._sequence = itertools.count(1)

    def begin(self, **fields: Any) -> JournalEntry:
        entry = JournalEntry(sequence=next(self._sequence), **fields)
        self.entries.append(entry)
        if len(self.entries) > self.limit:
            self._forget_oldest()
        return entry

    def keep_body(self, entry: JournalEntry, body: bytes, length: int | None = None) -> None:
        """Record the request body (its first ``body_limit`` bytes) and its length (``len(body)``
        unless the request said more)."""
        kept = body[: self.body_limit]
        self.bytes_kept += len(kept) - len(entry.body)
        entry.body, entry.body_length = kept, max(len(body), length or 0)
        self._within_budget()

    def keep_response(self, entry: JournalEntry, body: bytes) -> None:
        """Record the response body (its first ``body_limit`` bytes) and its length."""
        kept = body[: self.body_limit]
        self.bytes_kept += len(kept) - len(entry.response_body)
        entry.response_body, entry.response_length = kept, len(body)
        self._within_budget()

    def _within_budget(self) -> None:
        while self.bytes_kept > self.max_bytes and len(self.entries) > 1:
            self._forget_oldest()

    def _forget_oldest(self) -> None:
        oldest = self.entries.popleft()
        self.bytes_kept -= len(oldest.body) + len(oldest.response_body)

    def clear(self) -> None:
        """Forget every entry; the next request is number 1 again, so a replayed run numbers alike."""
        self.entries.clear()
        self.bytes_kept = 0
        self._sequence = itertools.count(1)

    def __iter__(self) -> Iterator[JournalEntry]:
        return iter(list(self.entries))

    def __len__(self) -> int:
        return len(self.entries)
