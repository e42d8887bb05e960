"""Small operations on stored object dicts, which are never mutated: every change is a copy.

Stored objects are shared (the store, history, watch events, responses all hold the same dict),
so changing one means copying the path to the change and nothing else.
"""

from __future__ import annotations

from typing import Any

__all__ = ["metadata_of", "with_metadata", "without_resource_version"]


def metadata_of(obj: dict[str, Any]) -> dict[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def with_metadata(obj: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy of ``obj`` with metadata fields set (None removes a field)."""
    metadata = dict(metadata_of(obj))
    for field, value in changes.items():
        if value is None:
            metadata.pop(field, None)
        else:
            metadata[field] = value
    return {**obj, "metadata": metadata}


def without_resource_version(obj: dict[str, Any]) -> dict[str, Any]:
    return with_metadata(obj, resourceVersion=None)
