"""A decoded JSON value as the rules see it (apiextensions-apiserver ``UnstructuredToVal``).

An object shows its declared properties under their escaped names and nothing else; a ``number`` is a
double even when it was written as ``1``; a string of format ``byte`` is its decoded bytes, ``date`` and
``date-time`` a timestamp, ``duration`` a duration (as the well-known protobuf messages, which the runtime takes
for CEL timestamps and durations); ``x-kubernetes-int-or-string`` stays as written; a null property is left out.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import re
from fractions import Fraction
from typing import Any

from google.protobuf import duration_pb2, timestamp_pb2

from fakeapi._cel.declarations import Declared

__all__ = ["to_cel"]

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNITS = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}


def to_cel(value: Any, declared: Declared) -> Any:
    """``value`` converted for evaluation under ``declared``."""
    if value is None or _as_written(declared):
        return value
    kind = declared.kind
    if kind == "object":
        if not isinstance(value, dict):
            return value
        converted = {}
        for escaped, (name, child) in declared.fields.items():
            # A null field is absent to the rules: has() is false, selecting it is ``no such key``.
            item = value.get(name)
            if item is not None:
                converted[escaped] = to_cel(item, child)
        return converted
    if kind == "map":
        assert declared.element is not None
        element = declared.element
        return {key: to_cel(item, element) for key, item in value.items()} if isinstance(value, dict) else value
    if kind == "list":
        assert declared.element is not None
        element = declared.element
        return [to_cel(item, element) for item in value] if isinstance(value, list) else value
    if kind == "double" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        if kind == "bytes":
            return _bytes(value)
        if kind == "timestamp":
            return _timestamp(value)
        if kind == "duration":
            return _duration(value)
    return value


def _as_written(declared: Declared) -> bool:
    """Whether values of ``declared`` are seen as written: no double, no format, no escaped name below it.

    Such a value is passed without a copy; the keys it has beyond the declared ones cannot be named by a rule
    that compiled against the declaration.
    """
    known = declared.as_written
    if known is None:
        known = declared.as_written = _computed_as_written(declared)
    return known


def _computed_as_written(declared: Declared) -> bool:
    if declared.kind in ("double", "bytes", "timestamp", "duration"):
        return False
    # Only a nullable field can still hold a null once the schema has pruned the object, and nulls are dropped.
    if declared.schema.get("nullable") is True:
        return False
    if declared.kind == "object":
        return all(escaped == name and _as_written(child) for escaped, (name, child) in declared.fields.items())
    if declared.element is not None:
        return _as_written(declared.element)
    return True


def _bytes(text: str) -> Any:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return text


def _timestamp(text: str) -> Any:
    try:
        parsed = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    moment = parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.UTC)
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(moment.astimezone(datetime.UTC).replace(tzinfo=None))
    return stamp


def _duration(text: str) -> Any:
    body = text.lstrip("+-")
    parts = _DURATION_PART.findall(body)
    if not parts or "".join(number + unit for number, unit in parts) != body:
        return text
    nanos = sum(Fraction(number) * _UNITS[unit] for number, unit in parts)
    total = int(-nanos if text.startswith("-") else nanos)
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(total)
    return duration
