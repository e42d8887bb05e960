"""Small operations on stored object dicts, which are never mutated: every change is a copy.

Stored objects are shared (the store, history, watch events, responses all hold the same dict),
so changing one means copying the path to the change and nothing else. A field added to
``metadata`` goes where ``ObjectMeta`` declares it, so a built-in object keeps its Go field order
(docs/go-structs.md); a custom resource's keys are sorted when written, whatever their order here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OBJECT_META_FIELDS", "metadata_of", "with_metadata", "without_resource_version"]

# ObjectMeta's fields in declaration order (k8s.io/apimachinery pkg/apis/meta/v1/types.go).
OBJECT_META_FIELDS = (
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
    "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers",
    "managedFields",
)  # fmt: skip
_POSITION = {name: index for index, name in enumerate(OBJECT_META_FIELDS)}


def metadata_of(obj: dict[str, Any]) -> dict[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def with_metadata(obj: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy of ``obj`` with metadata fields set (None removes a field)."""
    metadata = dict(metadata_of(obj))
    for field, value in changes.items():
        if value is None:
            metadata.pop(field, None)
        elif field in metadata:
            metadata[field] = value
        else:
            metadata = _inserted(metadata, field, value)
    return {**obj, "metadata": metadata}


def _inserted(metadata: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
    """``metadata`` with a new field before the first one ObjectMeta declares after it; the other
    fields keep their order."""
    position = _POSITION.get(field)
    if position is None:
        return {**metadata, field: value}
    out: dict[str, Any] = {}
    placed = False
    for key, item in metadata.items():
        if not placed and _POSITION.get(key, len(_POSITION)) > position:
            out[field] = value
            placed = True
        out[key] = item
    if not placed:
        out[field] = value
    return out


def without_resource_version(obj: dict[str, Any]) -> dict[str, Any]:
    return with_metadata(obj, resourceVersion=None)
