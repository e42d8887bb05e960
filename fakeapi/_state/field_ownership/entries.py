"""``metadata.managedFields`` entries: their decoded sets, identities, order, and the fields never owned.

What apimachinery's field manager (``util/managedfields/internal``) keeps around the sets:
``stripmeta.go`` takes apiVersion, kind and the system metadata out of every set; a resource with
a status subresource owns ``status`` only through it (the strategies' ``GetResetFields``);
``managedfields.go`` ``encodeManagedFields`` sorts the entries by operation, time, manager,
apiVersion and subresource; ``BuildManagerIdentifier`` names a manager by its entry without the
time (and, for an applier, without the apiVersion).
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.goencode import encode
from fakeapi._state.field_ownership.fieldpath import FieldSet, Path, decode_fields

__all__ = ["decoded", "filtered", "manager_identifier", "sorted_entries", "with_entries"]

_STRIPPED: frozenset[Path] = frozenset(
    {(("f", "apiVersion"),), (("f", "kind"),), (("f", "metadata"),)}
    | {
        (("f", "metadata"), ("f", name))
        for name in (
            "name",
            "namespace",
            "creationTimestamp",
            "selfLink",
            "uid",
            "clusterName",
            "generation",
            "managedFields",
            "resourceVersion",
        )
    }
)
_STATUS = ("f", "status")


def filtered(paths: FieldSet, *, subresource: str, status_is_subresource: bool) -> FieldSet:
    """The paths a write through ``subresource`` may own: stripped of system fields and reset fields."""
    kept = paths - _STRIPPED
    if subresource == "status":
        return {path for path in kept if path[:1] == (_STATUS,)}
    if status_is_subresource:
        return {path for path in kept if path[:1] != (_STATUS,)}
    return kept


_decoded: dict[int, tuple[Any, frozenset[Path]]] = {}
_DECODED_LIMIT = 4096


def decoded(fields: Any) -> frozenset[Path]:
    """A stored entry's set; stored entries never change, so the decoding is kept by identity."""
    cached = _decoded.get(id(fields))
    if cached is not None and cached[0] is fields:
        return cached[1]
    paths = decode_fields(fields)
    if len(_decoded) >= _DECODED_LIMIT:
        _decoded.clear()
    _decoded[id(fields)] = (fields, paths)
    return paths


def manager_identifier(entry: dict[str, Any]) -> str:
    """``BuildManagerIdentifier``: the entry's JSON without time and fields (and apiVersion for appliers)."""
    operation = str(entry.get("operation") or "")
    parts = [f'"manager":{encode(str(entry.get("manager") or "")).decode()}']
    if operation:
        parts.append(f'"operation":{encode(operation).decode()}')
    if entry.get("apiVersion") and operation != "Apply":
        parts.append(f'"apiVersion":{encode(str(entry["apiVersion"])).decode()}')
    if entry.get("subresource"):
        parts.append(f'"subresource":{encode(str(entry["subresource"])).decode()}')
    return "{" + ",".join(parts) + "}"


def sorted_entries(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``encodeManagedFields``' order: operation, time, manager, apiVersion, subresource."""
    return sorted(
        entries,
        key=lambda entry: (
            str(entry.get("operation") or ""),
            str(entry.get("time") or ""),
            str(entry.get("manager") or ""),
            str(entry.get("apiVersion") or ""),
            str(entry.get("subresource") or ""),
        ),
    )


def with_entries(obj: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any]:
    metadata = dict(obj.get("metadata") or {})
    if entries:
        metadata["managedFields"] = entries
    else:
        metadata.pop("managedFields", None)
    return {**obj, "metadata": metadata}
