"""A decoded JSON value as the rules see it (apiextensions-apiserver ``UnstructuredToVal``).

An object shows its declared properties under their escaped names and nothing else; a ``number`` is a
double even when it was written as ``1``; a string of format ``byte`` is its decoded bytes, ``date`` and
``date-time`` a timestamp, ``duration`` a duration; ``x-kubernetes-int-or-string`` stays as written.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import re
from typing import Any

from fakeapi._cel.declarations import Declared

__all__ = ["to_cel"]

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


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
            if name in value:
                converted[escaped] = to_cel(value[name], child)
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
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.UTC)


def _duration(text: str) -> Any:
    body = text.lstrip("+-")
    parts = _DURATION_PART.findall(body)
    if not parts or "".join(number + unit for number, unit in parts) != body:
        return text
    seconds = sum(float(number) * _UNITS[unit] for number, unit in parts)
    return datetime.timedelta(seconds=-seconds if text.startswith("-") else seconds)
