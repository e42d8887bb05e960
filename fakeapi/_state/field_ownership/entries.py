"""``metadata.managedFields`` entries: their decoded sets, identities, order, and the fields never owned.

What apimachinery's field manager (``util/managedfields/internal``) keeps around the sets:
``stripmeta.go`` takes apiVersion, kind and the system metadata out of every set; a resource with
a status subresource owns ``status`` only through it (the strategies' ``GetResetFields``);
``managedfields.go`` ``encodeManagedFields`` sorts the entries by operation, time, manager,
apiVersion and subresource; ``BuildManagerIdentifier`` names a manager by its entry without the
time (and, for an applier, without the apiVersion).

An entry's set names the fields as its apiVersion does. A write at another version compares what it
changes with the set converted to that version (structured-merge-diff converts the objects to each
manager's version, ``merge/update.go``); a resource whose versions differ by a renaming of fields
(:mod:`fakeapi._state.conversion.events`) gives that :data:`Renaming`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Set
from typing import Any

from fakeapi._patching.goencode import encode
from fakeapi._patching.slices import SLICE_UNITS, paused
from fakeapi._state.field_ownership.fieldpath import FieldSet, Path, decode_fields

__all__ = [
    "Renaming",
    "as_written",
    "decoded",
    "filtered",
    "manager_identifier",
    "owned_at",
    "renamed",
    "sorted_entries",
    "with_entries",
]

# Field paths of one apiVersion named as another names them: (paths, from, to).
Renaming = Callable[[Iterable[Path], str, str], frozenset[Path]]

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
    kept = paths if paths.isdisjoint(_STRIPPED) else paths - _STRIPPED
    if subresource == "status":
        return {path for path in paused(kept, len(kept)) if path[:1] == (_STATUS,)}
    if status_is_subresource:
        return {path for path in paused(kept, len(kept)) if path[:1] != (_STATUS,)}
    return kept


_decoded: dict[int, tuple[Any, frozenset[Path]]] = {}
_DECODED_LIMIT = 4096
_CACHED_UP_TO = 16 * SLICE_UNITS
"""Paths of the largest set kept: a larger one (a 200,000-key map's entry) is decoded again by each
write, in slices, rather than kept, since its hundreds of thousands of tuples would make the
collector's first pass over them one long pause (docs/http-limits.md, "One request among others")."""


def decoded(fields: Any) -> Set[Path]:
    """A stored entry's set; stored entries never change, so the decoding is kept by identity.

    A set larger than :data:`_CACHED_UP_TO` comes back as a new ``set`` that the caller owns (and
    may release in slices)."""
    cached = _decoded.get(id(fields))
    if cached is not None and cached[0] is fields:
        return cached[1]
    paths = decode_fields(fields)
    if len(paths) > _CACHED_UP_TO:
        return paths
    frozen_paths = frozenset(paths)
    if len(_decoded) >= _DECODED_LIMIT:
        _decoded.clear()
    _decoded[id(fields)] = (fields, frozen_paths)
    return frozen_paths


def owned_at(entry: dict[str, Any], api_version: str, renaming: Renaming | None) -> Set[Path]:
    """An entry's set, named as ``api_version`` names the fields."""
    return renamed(decoded(entry.get("fieldsV1")), entry, api_version, renaming)


def renamed(owned: Set[Path], entry: dict[str, Any], api_version: str, renaming: Renaming | None) -> Set[Path]:
    """``owned``, the set of ``entry``, named as ``api_version`` names the fields."""
    written = str(entry.get("apiVersion") or "")
    if renaming is None or written == api_version:
        return owned
    return renaming(owned, written, api_version)


def as_written(paths: Iterable[Path], entry: dict[str, Any], api_version: str, renaming: Renaming | None) -> FieldSet:
    """Paths named as ``api_version`` names them, back in the entry's own apiVersion."""
    written = str(entry.get("apiVersion") or "")
    if renaming is None or written == api_version:
        return set(paths)
    return set(renaming(paths, api_version, written))


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
