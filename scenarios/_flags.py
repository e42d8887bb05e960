"""Fragile preconditions, flagged from the journal as they happen, whether they pass today or not.

kube-apiserver compares a JSON patch ``test`` value byte by byte with Go's encoding of the stored
object: ``<`` ``>`` ``&`` are stored as ``\\u003c`` ``\\u003e`` ``\\u0026``, non-ASCII raw, U+2028 escaped,
``1.0`` as ``1``, while Python clients send ``>`` raw and ``é`` as ``\\u00e9``. So a ``test`` of a
string a user controls, or of a whole map holding such strings, passes only until a user types
the wrong character. A ``test`` of ``/metadata/resourceVersion`` or ``/metadata/uid`` never breaks.
"""

from __future__ import annotations

import json
from typing import Any

from scenarios._model import Flag, RunRecord

__all__ = ["flags_for", "spelling_sensitive"]

_SERVER_FIELDS = frozenset(
    {
        "/metadata/resourceVersion",
        "/metadata/uid",
        "/metadata/generation",
        "/metadata/name",
        "/metadata/namespace",
        "/metadata/creationTimestamp",
        "/metadata/deletionTimestamp",
    }
)


def spelling_sensitive(value: Any) -> bool:
    """Whether Go and Python spell this value differently (so a byte-wise test of it fails)."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, float):
        return value.is_integer() or not 1e-4 <= abs(value) < 1e16
    if isinstance(value, int):
        return abs(value) >= 2**53
    if isinstance(value, str):
        return any(char in "<>&\u2028\u2029" or ord(char) > 127 for char in value)
    if isinstance(value, dict):
        return any(spelling_sensitive(item) for item in value.values())
    if isinstance(value, list):
        return any(spelling_sensitive(item) for item in value)
    return False


def _reason(value: Any) -> str | None:
    if isinstance(value, dict):
        what = "a whole map"
    elif isinstance(value, list):
        what = "a whole list"
    elif isinstance(value, str):
        what = "a user-derived string"
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        what = "a number"
    else:
        return None
    text = f"compares {what} byte-wise"
    if spelling_sensitive(value):
        text += " and the value holds characters Go spells differently (<, >, &, non-ASCII, U+2028, 1.0)"
    return text


def flags_for(run: RunRecord) -> list[Flag]:
    flags = []
    for step in run.steps:
        entry = step.entry
        if entry is None or "json-patch" not in entry.content_type or not entry.body:
            continue
        try:
            operations = json.loads(entry.body)
        except ValueError:
            continue
        if not isinstance(operations, list):
            continue
        for operation in operations:
            if not isinstance(operation, dict) or operation.get("op") != "test":
                continue
            path = str(operation.get("path", ""))
            if path in _SERVER_FIELDS:
                continue
            reason = _reason(operation.get("value"))
            if reason is not None:
                flags.append(Flag(step.actor, path, reason, 200 <= entry.status < 300, step.number))
    return flags
