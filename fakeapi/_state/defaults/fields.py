"""Go's defaulting idioms on decoded JSON: a nil struct becomes ``{}``, a zero field takes its default.

The generated defaulters of ``pkg/apis/*/v1/zz_generated.defaults.go`` and the ``SetDefaults_*``
functions they call work on typed structs, where an absent field is Go's zero value. These helpers
read the decoded JSON the same way: an absent or null key is nil, and ``if x == ""`` or
``if x == 0`` (value fields) differs from ``if x == nil`` (pointer fields, where an explicit zero
stays).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["Obj", "default", "default_if_absent", "items", "sub"]

Obj = dict[str, Any]


def sub(parent: Obj, key: str) -> Obj | None:
    """The struct at ``key``, created when absent or null; ``None`` when it is not an object at all."""
    value = parent.get(key)
    if value is None:
        value = parent[key] = {}
    return value if isinstance(value, dict) else None


def items(parent: Obj | None, key: str) -> Iterator[Obj]:
    values = parent.get(key) if parent is not None else None
    if isinstance(values, list):
        yield from (item for item in values if isinstance(item, dict))


def default(parent: Obj, key: str, value: Any) -> None:
    """Go's ``if x == nil`` / ``if x == ""`` / ``if x == 0``: absent, null and zero values take the default."""
    if parent.get(key) in (None, "", 0) and parent.get(key) is not False:
        parent[key] = value


def default_if_absent(parent: Obj, key: str, value: Any) -> None:
    """Pointer fields: only nil takes the default, an explicit zero stays."""
    if parent.get(key) is None:
        parent[key] = value
