"""The ``meta.k8s.io/v1`` Table itself: validation of ``includeObject``, the list metadata, and each row's object.

Reproduced from kube-apiserver 1.32 apiserver ``pkg/endpoints/handlers/response.go`` ``asTable``
and ``metav1.ValidateTableOptions``. Dicts are built in the order Go writes the typed structs
(Table, TableColumnDefinition, TableRow, PartialObjectMetadata's ObjectMeta), to be encoded
without sorting; a full row object (``Object``) keeps sorted keys like every other object fakeapi
writes. ``includeObject=None`` gives ``"object":null``: the row's RawExtension is a struct, which
``omitempty`` does not drop.
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.gostrconv import quote
from fakeapi._state.resources import ResourceType
from fakeapi._state.tables.durations import to_nanos
from fakeapi._state.tables.fields import Obj
from fakeapi._state.tables.printers import printer_for
from fakeapi.errors import APIError

__all__ = ["invalid_include_object", "table_for"]

INCLUDE_OBJECT_VALUES = ("", "Metadata", "Object", "None")
_OBJECT_META_FIELDS = (
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
    "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers",
    "managedFields",
)  # fmt: skip
_OWNER_REFERENCE_FIELDS = ("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")
_MANAGED_FIELDS_FIELDS = ("manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource")


def invalid_include_object(value: str) -> str | None:
    """The 400 message for a bad ``includeObject`` (``ValidateTableOptions``), or ``None`` when valid."""
    if value in INCLUDE_OBJECT_VALUES:
        return None
    return (
        "Unable to convert to Table as requested: includeObject: Invalid value: "
        f"{quote(value)}: must be 'Metadata', 'Object', 'None', or empty"
    )


def table_for(
    rtype: ResourceType,
    objects: list[Obj],
    *,
    list_metadata: Obj,
    include_object: str,
    now: float,
    headers: bool = True,
) -> Obj:
    """The Table for ``objects`` (one for a GET, the page for a LIST, the object of a watch event)."""
    message = invalid_include_object(include_object)
    if message is not None:
        raise APIError.bad_request(message)
    printer = printer_for(rtype)
    now_ns = to_nanos(now)
    rows: list[Obj] | None = None if printer.null_when_empty and not objects else []
    for obj in objects:
        row: Obj = {"cells": printer.cells(obj, now_ns)}
        if printer.conditions is not None and (conditions := printer.conditions(obj)):
            row["conditions"] = conditions
        row["object"] = _row_object(obj, include_object)
        assert rows is not None
        rows.append(row)
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": _list_meta(list_metadata),
        "columnDefinitions": [dict(column) for column in printer.columns] if headers else None,
        "rows": rows,
    }


def _list_meta(given: Obj) -> Obj:
    """``ListMeta``: empty strings are omitted, ``remainingItemCount`` is a pointer (0 stays)."""
    meta = {key: given[key] for key in ("selfLink", "resourceVersion", "continue") if given.get(key)}
    if given.get("remainingItemCount") is not None:
        meta["remainingItemCount"] = given["remainingItemCount"]
    return meta


def _row_object(obj: Obj, include_object: str) -> Obj | None:
    # RawExtension is a struct, so omitempty never drops it: "None" is written as null.
    if include_object == "None":
        return None
    if include_object == "Object":
        full: Obj = _sorted(obj)
        return full
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": _object_meta(obj)}


def _object_meta(obj: Obj) -> Obj:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    out: Obj = {}
    for key in _OBJECT_META_FIELDS:
        if key not in meta:
            continue
        value = meta[key]
        if key == "ownerReferences" and isinstance(value, list):
            value = [_in_order(item, _OWNER_REFERENCE_FIELDS) for item in value]
        elif key == "managedFields" and isinstance(value, list):
            value = [_in_order(item, _MANAGED_FIELDS_FIELDS) for item in value]
        else:
            value = _sorted(value)
        out[key] = value
    return out


def _in_order(item: Any, fields: tuple[str, ...]) -> Any:
    if not isinstance(item, dict):
        return item
    return {key: _sorted(item[key]) for key in fields if key in item}


def _sorted(value: Any) -> Any:
    """Map keys sorted at every level, as the rest of fakeapi writes stored objects."""
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value
