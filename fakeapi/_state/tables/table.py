"""The ``meta.k8s.io/v1`` Table itself: validation of ``includeObject``, the list metadata, and each row's object.

Reproduced from kube-apiserver 1.32 apiserver ``pkg/endpoints/handlers/response.go`` ``asTable``
and ``metav1.ValidateTableOptions``. Dicts are built in the order Go writes the typed structs
(Table, TableColumnDefinition, TableRow, PartialObjectMetadata's ObjectMeta), to be encoded
without sorting; a full row object (``Object``) is written as its kind is: a built-in in its
struct's order, a custom resource with sorted keys. ``includeObject=None`` gives ``"object":null``:
the row's RawExtension is a struct, which ``omitempty`` does not drop.
"""

from __future__ import annotations

from fakeapi._patching.gostrconv import quote
from fakeapi._state.resources import ResourceType
from fakeapi._state.tables.durations import to_nanos
from fakeapi._state.tables.fields import Obj
from fakeapi._state.tables.printers import printer_for
from fakeapi._state.typed.ordering import partial_object_metadata, sorted_deeply
from fakeapi.errors import APIError

__all__ = ["invalid_include_object", "table_for"]

INCLUDE_OBJECT_VALUES = ("", "Metadata", "Object", "None")


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
        row["object"] = _row_object(rtype, obj, include_object)
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


def _row_object(rtype: ResourceType, obj: Obj, include_object: str) -> Obj | None:
    # RawExtension is a struct, so omitempty never drops it: "None" is written as null.
    if include_object == "None":
        return None
    if include_object == "Object":
        # A built-in object is already in its struct's order; any other is written with sorted keys.
        full: Obj = obj if rtype.struct_order else sorted_deeply(obj)
        return full
    return partial_object_metadata(obj, "meta.k8s.io/v1")
