"""Go's encoding of stored objects, made once per write and shared by its answer and its watch events.

The apiserver encodes an update without its resourceVersion to decide whether anything changed
(``GuaranteedUpdate`` compares those bytes with what etcd holds), then encodes the stored object
again for the answer and for each watch event. Here one encoding serves all three: the new object
is encoded with a placeholder where its resourceVersion goes, the placeholder member is cut out for
the comparison, and the committed revision is written into it for everything else. The two are
the bytes encoding each object would give, whichever order the keys are written in: sorted for a
custom resource, the Go struct's for a built-in (``in_order``: its dicts are laid out that way,
:mod:`fakeapi._state.typed.ordering`), where the member sits after ``uid``.

Encodings of committed objects are kept for a short while, by identity (stored objects are never
mutated), for the answer and watch events that follow the write: the last 256 of at most 64 KiB.
"""

from __future__ import annotations

import contextlib
from typing import Any

from fakeapi._patching.goencode import encode
from fakeapi._state.objects import with_metadata, without_resource_version

__all__ = ["KeptByIdentity", "RevisionSlot", "encode_kept", "remember", "with_revision_slot"]

# A private-use string no object holds in practice; one that does gets encoded the plain way.
_PLACEHOLDER = "\ue000fakeapi-resource-version\ue001"
_PLACEHOLDER_BYTES = _PLACEHOLDER.encode()
_MEMBER = b'"resourceVersion":"' + _PLACEHOLDER_BYTES + b'"'


class KeptByIdentity:
    """Values made from stored objects, kept by the object's identity (and a tag), the oldest dropped first.

    Stored objects are never mutated, and a kept object cannot be collected, so its id cannot be
    reused: an entry found for an object is still right for it.
    """

    __slots__ = ("_entries", "_limit", "_max_bytes")

    def __init__(self, limit: int, max_bytes: int | None = None) -> None:
        self._entries: dict[tuple[int, Any], tuple[dict[str, Any], bytes]] = {}
        self._limit = limit
        self._max_bytes = max_bytes  # larger values are made again when needed

    def get(self, obj: dict[str, Any], tag: Any = None) -> bytes | None:
        cached = self._entries.get((id(obj), tag))
        return cached[1] if cached is not None and cached[0] is obj else None

    def put(self, obj: dict[str, Any], value: bytes, tag: Any = None) -> None:
        if self._max_bytes is not None and len(value) > self._max_bytes:
            return
        entries = self._entries
        if len(entries) >= self._limit:
            # Another server's thread may evict at the same moment.
            with contextlib.suppress(KeyError, RuntimeError, StopIteration):
                del entries[next(iter(entries))]
        entries[(id(obj), tag)] = (obj, value)


# The last 256 committed or answered objects' encodings, of at most 64 KiB each.
_recent = KeptByIdentity(256, 64 * 1024)


class RevisionSlot:
    """An object's encoding without its resourceVersion, and the parts around where one goes."""

    __slots__ = ("_around", "without_revision")

    def __init__(self, without_revision: bytes, around: tuple[bytes, bytes] | None) -> None:
        self.without_revision = without_revision
        self._around = around

    def filled(self, revision: str) -> bytes | None:
        """The encoding of the object carrying ``revision`` (None when no slot could be made)."""
        if self._around is None:
            return None
        before, after = self._around
        return before + revision.encode() + after


def with_revision_slot(obj: dict[str, Any], *, in_order: bool) -> RevisionSlot:
    """Encode ``obj`` once for the no-op comparison and for the object it becomes when stored."""
    probe = encode(with_metadata(obj, resourceVersion=_PLACEHOLDER), in_order=in_order)
    slot = probe.find(_PLACEHOLDER_BYTES)
    if slot == -1 or probe.find(_PLACEHOLDER_BYTES, slot + 1) != -1:
        return RevisionSlot(encode(without_resource_version(obj), in_order=in_order), None)
    start = slot - (len(_MEMBER) - len(_PLACEHOLDER_BYTES) - 1)
    end = start + len(_MEMBER)
    # The member sits among metadata's other keys: before others, after others, or alone.
    if probe[end : end + 1] == b",":
        without = probe[:start] + probe[end + 1 :]
    elif probe[start - 1 : start] == b",":
        without = probe[: start - 1] + probe[end:]
    else:
        without = probe[:start] + probe[end:]
    return RevisionSlot(without, (probe[:slot], probe[slot + len(_PLACEHOLDER_BYTES) :]))


def remember(obj: dict[str, Any], encoded: bytes) -> None:
    """Keep the encoding of a just-committed object for its answer and watch events."""
    _recent.put(obj, encoded)


def encode_kept(obj: dict[str, Any], *, in_order: bool) -> bytes:
    """Go's encoding of a stored object: the bytes kept for it, else encoded now and kept.

    ``in_order`` is fixed per object (its kind's), so the kept bytes are right for every caller.
    """
    encoded = _recent.get(obj)
    if encoded is None:
        encoded = encode(obj, in_order=in_order)
        _recent.put(obj, encoded)
    return encoded
