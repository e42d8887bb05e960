"""What the apiserver keeps of a converted object's metadata (``webhook_converter.go``).

``validateConvertedObject``: the converted object keeps its kind, name, namespace and uid.
``restoreObjectMeta``: its metadata is the original's, except labels and annotations, which the
webhook may change (and which are then validated as on any write). docs/conversion.md.
"""

from __future__ import annotations

import copy
from typing import Any

from fakeapi._patching.govalues import go_type as dynamic_type
from fakeapi._state.validation.objectmeta import validate_annotations, validate_labels

__all__ = ["go_type", "restore_object_meta", "validate_converted_object"]


def go_type(value: Any) -> str:
    """``%T`` of a value as unstructured JSON decoding holds it (``<nil>`` for a nil interface)."""
    return dynamic_type(value) or "<nil>"


def _nested_string(obj: dict[str, Any], *path: str) -> str:
    """``unstructured.getNestedString``: "" when absent or not a string."""
    value: Any = obj
    for key in path:
        if not isinstance(value, dict):
            return ""
        value = value.get(key)
    return value if isinstance(value, str) else ""


def validate_converted_object(original: dict[str, Any], converted: dict[str, Any]) -> str | None:
    """``validateConvertedObject``: the first identity field that changed, as its error."""
    for what, path in (
        ("kind", ("kind",)),
        ("name", ("metadata", "name")),
        ("namespace", ("metadata", "namespace")),
        ("UID", ("metadata", "uid")),
    ):
        expected, got = _nested_string(original, *path), _nested_string(converted, *path)
        if expected != got:
            return f"must have the same {what}: {expected} != {got}"
    return None


def _aggregate(messages: list[str]) -> str:
    """``ErrorList.ToAggregate().Error()``."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def restore_object_meta(original: dict[str, Any], converted: dict[str, Any]) -> str | None:
    """``restoreObjectMeta``, in place on ``converted``: None, or the error that refuses it."""
    if "metadata" not in converted:
        return "missing metadata in converted object"
    answered = converted["metadata"]
    if not isinstance(answered, dict):
        return f"invalid metadata of type {go_type(answered)} in converted object"
    restored = copy.deepcopy(original["metadata"]) if "metadata" in original else {}
    converted["metadata"] = restored
    if not isinstance(restored, dict):
        return f"invalid metadata of type {go_type(restored)} in input object"
    for name in ("labels", "annotations"):
        value = answered.get(name)
        if value is None:
            restored.pop(name, None)
            continue
        if not isinstance(value, dict):
            return f"invalid metadata.{name} of type {go_type(value)} in converted object"
        kept = restored.get(name)
        if kept is not None and not isinstance(kept, dict):
            return f"invalid metadata.{name} of type {go_type(kept)} in original object"
        kept = kept or {}
        changed = len(kept) != len(value)
        for key, item in value.items():
            if not isinstance(item, str):
                return f"metadata.{name}[{key}] must be a string, but is {go_type(item)} in converted object"
            if kept.get(key) != item:
                changed = True
        if changed:
            # Upstream names the annotations' path in the singular.
            errors = (
                validate_labels(value, "metadata.labels")
                if name == "labels"
                else validate_annotations(value, "metadata.annotation")
            )
            if errors:
                return _aggregate([error.text() for error in errors])
        restored[name] = value
    return None
