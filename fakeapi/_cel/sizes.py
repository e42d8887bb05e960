"""The size bounds Kubernetes gives each schema node for cost estimation (k8s.io/apiserver
``pkg/cel/common/schemas.go``, ``SchemaDeclType``; ``pkg/cel/types.go``; ``pkg/cel/limits.go``).

Each type has a smallest serialized size and a largest number of elements (characters, items, properties):

- a list: ``maxItems``, else as many of its smallest items as a 3 MiB request holds: ``(3 MiB - 2) / (min + 1)``;
- a map: ``maxProperties``, else ``(3 MiB - 2) / (min + 6)``;
- a string: ``maxLength`` x 4 (bytes per rune), else the longest ``enum`` value, else ``3 MiB - 2``; a ``byte``
  string ``maxLength`` itself; ``duration`` and ``date-time`` 32, ``date`` 12 (their longest JSON);
- ``x-kubernetes-int-or-string``: ``3 MiB - 2``; objects, numbers and booleans: 0.

Smallest sizes: an object 2 plus ``len(name) + min + 4`` per required property without a default, a list or
a map 2, a string 2, a bool 4, a number 1, a duration 3, a date 12, a date-time 21, int-or-string 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakeapi._cel.declarations import Declared

__all__ = ["MAX_REQUEST_SIZE", "max_elements", "min_size"]

MAX_REQUEST_SIZE = 3 * 1024 * 1024
_MIN_SIZES = {"bool": 4, "int": 1, "double": 1, "string": 2, "bytes": 2, "dyn": 1, "list": 2, "map": 2}
_FORMAT_MIN = {"duration": 3, "date": 12, "date-time": 21}
_FORMAT_MAX = {"duration": 32, "date": 12, "date-time": 32}


def _limit(schema: Mapping[str, Any], key: str) -> int | None:
    value = schema.get(key)
    return max(value, 0) if isinstance(value, int) and not isinstance(value, bool) else None


def min_size(declared: Declared) -> int:
    """``MinSerializedSize``."""
    if declared.kind in ("timestamp", "duration"):
        return _FORMAT_MIN.get(declared.string_format, 12)
    if declared.kind != "object":
        return _MIN_SIZES.get(declared.kind, 1)
    required = declared.schema.get("required")
    names = set(required) if isinstance(required, list) else set()
    size = 2
    seen: set[str] = set()
    for name, child in declared.fields.values():
        if name in names and name not in seen and child.schema.get("default") is None:
            size += len(name) + min_size(child) + 4
        seen.add(name)
    return size


def max_elements(declared: Declared) -> int:
    """``MaxElements``."""
    schema = declared.schema
    kind = declared.kind
    if kind == "list":
        assert declared.element is not None
        limit = _limit(schema, "maxItems")
        return limit if limit is not None else (MAX_REQUEST_SIZE - 2) // (min_size(declared.element) + 1)
    if kind == "map":
        assert declared.element is not None
        limit = _limit(schema, "maxProperties")
        return limit if limit is not None else (MAX_REQUEST_SIZE - 2) // (min_size(declared.element) + 6)
    if kind == "string":
        limit = _limit(schema, "maxLength")
        if limit is not None:
            return limit * 4
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            return max((len(value) for value in enum if isinstance(value, str)), default=0)
        return MAX_REQUEST_SIZE - 2
    if kind == "bytes":
        limit = _limit(schema, "maxLength")
        return limit if limit is not None else MAX_REQUEST_SIZE - 2
    if kind in ("timestamp", "duration"):
        return _FORMAT_MAX.get(declared.string_format, MAX_REQUEST_SIZE - 2)
    if kind == "dyn":
        return MAX_REQUEST_SIZE - 2
    return 0
