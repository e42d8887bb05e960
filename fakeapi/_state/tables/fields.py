"""Fields of a decoded object read as the printers' typed Go structs see them.

``pkg/printers/internalversion/printers.go`` reads typed objects, where an absent or mistyped field
is Go's zero value: ``""``, ``0``, an empty map or slice. These readers give the same zero values
from decoded JSON, so a row never fails on an odd object.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Obj", "as_int", "as_list", "as_obj", "as_str", "dicts", "metadata", "nested"]

Obj = dict[str, Any]


def metadata(obj: Obj) -> Obj:
    """The object's ``metadata``, or an empty map."""
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def nested(obj: Any, *path: str) -> Any:
    """The value at ``path``; ``None`` where a step is missing or not an object."""
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def as_obj(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def dicts(value: Any) -> list[Obj]:
    return [item for item in as_list(value) if isinstance(item, dict)]


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def as_int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
