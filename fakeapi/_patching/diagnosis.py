"""Explaining a JSON patch ``test`` that failed only because of how a value was spelled.

The apiserver compares ``test`` scalars byte by byte against Go's encoding of the stored object,
so ``"a>b"`` sent by a Python client never matches the stored ``"a\\u003eb"``, ``"\\u00e9"`` never
matches a raw ``é``, ``1.0`` never matches ``1``. The apiserver only ever says 422. This module finds
the first scalar whose bytes differ while the decoded values are equal, so the server can add a
``Warning`` header and reports can say what to send instead. It never changes a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakeapi._patching.lazynode import ARY, DOC, RAW, Node, materialize

__all__ = ["SpellingDiagnosis", "diagnose_failed_test", "same_after_decoding"]

_EXCERPT = 48


@dataclass(frozen=True)
class SpellingDiagnosis:
    """A failed ``test`` whose value equals the stored one once decoded."""

    test_path: str
    value_path: str
    stored: bytes
    sent: bytes

    def summary(self) -> str:
        """One ASCII line, fit for a ``Warning`` header and a log line; non-ASCII and control characters show as <U+XXXX>."""
        where = self.test_path or '""'
        inner = "" if self.value_path == self.test_path else f" at {self.value_path}"
        return (
            f"JSON patch test of {where} failed only because of spelling{inner}: "
            f"stored {_excerpt(self.stored, self.sent)}, sent {_excerpt(self.sent, self.stored)}. "
            "The apiserver compares test values byte by byte in Go's JSON encoding "
            "(<, >, & as \\u003c \\u003e \\u0026, non-ASCII raw, 1.0 as 1): send that spelling, "
            "or test /metadata/resourceVersion instead"
        )


def _excerpt(spelling: bytes, other: bytes) -> str:
    """Show the spelling around its first difference from ``other``, in printable ASCII."""
    first = next(
        (i for i, (a, b) in enumerate(zip(spelling, other, strict=False)) if a != b), min(len(spelling), len(other))
    )
    start = max(0, first - _EXCERPT // 2)
    piece = spelling[start : start + _EXCERPT]
    text = "".join(
        ch if ch.isascii() and ch.isprintable() else f"<U+{ord(ch):04X}>" for ch in piece.decode("utf-8", "replace")
    )
    prefix = "..." if start > 0 else ""
    suffix = "..." if start + _EXCERPT < len(spelling) else ""
    return f"{prefix}{text}{suffix}"


def same_after_decoding(stored: Any, sent: Any) -> bool:
    """True when two decoded values are the same JSON value (numbers compared by value)."""
    if isinstance(stored, bool) or isinstance(sent, bool):
        return type(stored) is type(sent) and stored == sent
    if isinstance(stored, (int, float)) and isinstance(sent, (int, float)):
        return bool(stored == sent)
    if isinstance(stored, dict) and isinstance(sent, dict):
        return stored.keys() == sent.keys() and all(same_after_decoding(stored[k], sent[k]) for k in stored)
    if isinstance(stored, list) and isinstance(sent, list):
        return len(stored) == len(sent) and all(same_after_decoding(a, b) for a, b in zip(stored, sent, strict=True))
    return type(stored) is type(sent) and bool(stored == sent)


def diagnose_failed_test(path: str, actual: Node | None, expected: Node | None) -> SpellingDiagnosis | None:
    """The diagnosis for a failed ``test``, or None when the values really differ."""
    if actual is None or expected is None or expected.nil:
        return None
    try:
        stored_value = materialize(actual)
        sent_value = expected.decoded()
    except ValueError:
        return None
    if not same_after_decoding(stored_value, sent_value):
        return None
    found = _first_differing_scalar(path, actual, expected)
    if found is None:
        return None
    value_path, stored, sent = found
    return SpellingDiagnosis(path, value_path, stored, sent)


def _first_differing_scalar(path: str, actual: Node, expected: Node) -> tuple[str, bytes, bytes] | None:
    pending: list[tuple[str, Node, Node]] = [(path, actual, expected)]
    while pending:
        here, mine, theirs = pending.pop()
        if mine.which == RAW and not mine.try_doc() and not mine.try_ary():
            stored, sent = mine.compact() or b"null", theirs.compact() or b"null"
            if stored != sent:
                return here, stored, sent
            continue
        if mine.which == DOC:
            theirs.try_doc()
            their_members = dict(theirs.members()) if theirs.which == DOC else {}
            children = [
                (f"{here}/{_escape(key)}", child, their_members.get(key))
                for key, child in sorted(mine.members(), key=lambda member: member[0])
            ]
        else:
            theirs.try_ary()
            their_items = theirs.elements() if theirs.which == ARY else []
            children = [
                (f"{here}/{index}", child, other)
                for index, (child, other) in enumerate(zip(mine.elements(), their_items, strict=False))
            ]
        pending.extend((p, a, b) for p, a, b in reversed(children) if a is not None and b is not None)
    return None


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
