"""ObjectMeta coercion: the root ``metadata`` and embedded resources decoded as ``metav1.ObjectMeta``.

apiextensions-apiserver ``pkg/apiserver/schema/objectmeta``: ``GetObjectMetaWithOptions`` (``coerce.go``) drops
the keys ``ObjectMeta`` lacks from the root ``metadata`` and names them; ``CoerceWithOptions``
(``algorithm.go``) does the same at every ``x-kubernetes-embedded-resource`` node, writes the metadata back as
``SetObjectMeta`` would (``omitempty`` fields vanish), and fails with a decode error when an embedded
resource's ``apiVersion``/``kind`` is not a string or its ``metadata`` not an object.

Copy on write, like pruning: inputs are never changed, and what needs no change comes back as the same object.
"""

from __future__ import annotations

import itertools
from typing import Any

from fakeapi._state.schema.messages import invalid
from fakeapi._state.schema.structural import Node, Schema, compiled, key_path, replaced_items
from fakeapi.errors import Cause

__all__ = ["coerce_embedded", "embedded_coercion_error", "known_object_meta"]

_OBJECT_META_FIELDS = frozenset(
    {
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "ownerReferences",
        "finalizers",
        "managedFields",
    }
)
_OWNER_REFERENCE_FIELDS = ("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")
_OWNER_REFERENCE_REQUIRED = _OWNER_REFERENCE_FIELDS[:4]
_MANAGED_FIELDS_ENTRY_FIELDS = ("manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource")
_META_ENTRY_FIELDS = {"ownerReferences": _OWNER_REFERENCE_FIELDS, "managedFields": _MANAGED_FIELDS_ENTRY_FIELDS}


_META_ENTRY_FIELD_SETS = {key: frozenset(fields) for key, fields in _META_ENTRY_FIELDS.items()}


def _all_known(meta: dict[str, Any]) -> bool:
    """Whether ObjectMeta knows every key, in the owner references and managed fields entries too."""
    if not meta.keys() <= _OBJECT_META_FIELDS:
        return False
    for key, fields in _META_ENTRY_FIELD_SETS.items():
        entries = meta.get(key)
        if isinstance(entries, list):
            for entry in entries:
                if isinstance(entry, dict) and not entry.keys() <= fields:
                    return False
    return True


def known_object_meta(meta: dict[str, Any], prefix: str, out: list[str]) -> dict[str, Any]:
    """Decode into ``metav1.ObjectMeta``: keys it lacks are dropped; kjson names them in sorted-key order."""
    if _all_known(meta):
        return meta  # the usual case, checked without sorting anything
    reported = len(out)
    for key in sorted(meta):
        if key not in _OBJECT_META_FIELDS:
            out.append(f"{prefix}.{key}")
            continue
        fields = _META_ENTRY_FIELDS.get(key)
        entries = meta[key]
        if fields is None or not isinstance(entries, list):
            continue
        for index, entry in enumerate(entries):
            if isinstance(entry, dict):
                out.extend(f"{prefix}.{key}[{index}].{name}" for name in sorted(entry) if name not in fields)
    if len(out) == reported:
        return meta
    known: dict[str, Any] = {}
    for key, value in meta.items():
        if key not in _OBJECT_META_FIELDS:
            continue
        fields = _META_ENTRY_FIELDS.get(key)
        if fields is not None and isinstance(value, list):
            value = [
                {name: item for name, item in entry.items() if name in fields} if isinstance(entry, dict) else entry
                for entry in value
            ]
        known[key] = value
    return known


def coerce_embedded(value: Any, node: Node | None, path: str, out: list[str]) -> Any:
    """``value`` with the metadata of every embedded resource in it round-tripped through ``ObjectMeta``."""
    if node is None or not node.embeds:
        return value
    if isinstance(value, list):
        items = node.items
        return replaced_items(value, lambda index, item: _coerced_item(item, items, f"{path}[{index}]", out))
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] | None = None
    if node.embedded and "metadata" in value:
        meta = value["metadata"]
        if isinstance(meta, dict) or meta is None:
            known = known_object_meta(meta if meta is not None else {}, key_path(path, "metadata"), out)
            coerced = _object_meta_round_trip(known)
            if coerced is not meta:
                result = {**value, "metadata": coerced}
    properties = node.properties
    for key, item in (value if result is None else result).items():
        if key in properties:
            coerced = _coerced_item(item, properties[key], key_path(path, key), out)
        elif node.additional:
            coerced = _coerced_item(item, node.extra, f"{path}[{key}]", out)
        else:
            continue
        if coerced is not item:
            if result is None:
                result = dict(value)
            # Replacing the value of a key the loop is walking leaves the dict's size, and the walk, intact.
            result[key] = coerced
    return value if result is None else result


def _coerced_item(item: Any, node: Node | None, path: str, out: list[str]) -> Any:
    if node is None or not node.embeds or not isinstance(item, (dict, list)):
        return item
    return coerce_embedded(item, node, path, out)


def _object_meta_round_trip(meta: dict[str, Any]) -> dict[str, Any]:
    """``SetObjectMeta`` (``ToUnstructured`` honours ``omitempty``) minus a zero ``creationTimestamp``."""
    kept: list[tuple[str, Any]] = []
    changed = False
    for key, value in meta.items():
        if (
            value is None
            or value == ""
            or value == {}
            or value == []
            or (key == "generation" and value == 0 and not isinstance(value, bool))
        ):
            changed = True
            continue
        if key == "ownerReferences" and isinstance(value, list):
            coerced = replaced_items(value, lambda _, entry: _owner_reference_round_trip(entry))
        elif key == "managedFields" and isinstance(value, list):
            coerced = replaced_items(value, lambda _, entry: _managed_fields_entry_round_trip(entry))
        else:
            coerced = value
        changed = changed or coerced is not value
        kept.append((key, coerced))
    return dict(kept) if changed else meta


def _owner_reference_round_trip(entry: Any) -> Any:
    if not isinstance(entry, dict):
        return entry
    leading = tuple(itertools.islice(entry, len(_OWNER_REFERENCE_REQUIRED)))
    if leading == _OWNER_REFERENCE_REQUIRED and all(item is not None for item in entry.values()):
        return entry
    # apiVersion, kind, name and uid have no omitempty: they come back even when empty.
    result: dict[str, Any] = {"apiVersion": "", "kind": "", "name": "", "uid": ""}
    result.update({name: item for name, item in entry.items() if item is not None})
    return result


def _managed_fields_entry_round_trip(entry: Any) -> Any:
    if not isinstance(entry, dict) or all(item is not None and item != "" for item in entry.values()):
        return entry
    return {name: item for name, item in entry.items() if item is not None and item != ""}


def embedded_coercion_error(obj: dict[str, Any], schema: Schema | None) -> Cause | None:
    """The first field error ``CoerceWithOptions`` stops at, on the pruned object; ``None`` if it passes.

    The apiserver returns it as a decode error: 400 ``<Kind> in version "<v>" cannot be handled as a <Kind>:
    <field>: <message>``.
    """
    return None if schema is None else _first_coercion_error(obj, compiled(schema), "")


def _first_coercion_error(value: Any, node: Node | None, path: str) -> Cause | None:
    if node is None or not node.embeds:
        return None
    if isinstance(value, dict):
        properties = node.properties
        for key, item in value.items():
            if node.embedded:
                problem = _type_meta_coercion_error(key, item, key_path(path, key))
                if problem is not None:
                    return problem
            if not isinstance(item, (dict, list)):
                continue
            if key in properties:
                problem = _first_coercion_error(item, properties[key], key_path(path, key))
            elif node.additional:
                problem = _first_coercion_error(item, node.extra, f"{path}[{key}]")
            else:
                continue
            if problem is not None:
                return problem
    elif isinstance(value, list):
        for index, item in enumerate(value):
            problem = _first_coercion_error(item, node.items, f"{path}[{index}]")
            if problem is not None:
                return problem
    return None


def _type_meta_coercion_error(key: str, value: Any, path: str) -> Cause | None:
    if key in ("apiVersion", "kind") and not isinstance(value, str):
        return invalid(path, value, "must be a string")
    if key == "metadata" and not isinstance(value, dict) and value is not None:
        detail = f"json: cannot unmarshal {_json_kind(value)} into Go value of type v1.ObjectMeta"
        return invalid(path, value, detail)
    return None


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "string" if isinstance(value, str) else "array"
