"""``metadata.managedFields`` after a write that is not an apply: ``Updater.Update``.

structured-merge-diff ``merge/update.go``: the write is compared with the object before it (on
create, with the kind's empty object: the zero Go struct of a built-in, nothing for a custom
resource); every other manager loses the fields the write added, changed or removed, and the
writer's entry (one per manager, operation, apiVersion and subresource) becomes its old set less
what was removed, plus what was added and changed, stamped with the time. Map and set lists are
compared per element, so an Update owns ``k:{"name":"app"}`` entries, not whole lists. A write that
changes nothing leaves the entries alone; a manager left with nothing disappears.
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from fakeapi._patching.slices import release_in_slices
from fakeapi._state.field_ownership.entries import (
    Renaming,
    as_written,
    decoded,
    filtered,
    renamed,
    sorted_entries,
    with_entries,
)
from fakeapi._state.field_ownership.fieldpath import Path, encode_fields
from fakeapi._state.field_ownership.schema import Atom
from fakeapi._state.field_ownership.typed import compare

__all__ = ["track"]


def track(
    new: dict[str, Any],
    old: dict[str, Any] | None,
    *,
    atom: Atom,
    empty: dict[str, Any],
    manager: str,
    api_version: str,
    subresource: str,
    now: str,
    status_is_subresource: bool,
    renaming: Renaming | None = None,
) -> dict[str, Any]:
    """``new`` with its managedFields updated for this write by ``manager``; ``renaming`` names the
    fields of entries written at another apiVersion as this write's version does."""
    old_meta = (old or {}).get("metadata") or {}
    new_meta = new.get("metadata") or {}
    entries = new_meta.get("managedFields")
    if old is not None and entries == old_meta.get("managedFields"):
        entries = old_meta.get("managedFields")
    entries = [dict(entry) for entry in entries or [] if isinstance(entry, dict) and entry]
    comparison = compare(old if old is not None else empty, new, atom)

    def allowed(paths: set[Path]) -> set[Path]:
        return filtered(paths, subresource=subresource, status_is_subresource=status_is_subresource)

    added, modified, removed = allowed(comparison.added), allowed(comparison.modified), allowed(comparison.removed)
    if not added and not modified and not removed:
        return new if entries == new_meta.get("managedFields", []) or not entries else with_entries(new, entries)
    changed = added | modified
    identity = (manager, "Update", api_version, subresource)
    kept: list[dict[str, Any]] = []
    mine: Set[Path] = changed
    previous: Set[Path] | None = None
    my_fields: Any = None
    decodings: list[Set[Path]] = []
    # The set operations below run in C over whole sets, each a pause-less pass: when the write
    # touches little of a large entry, the disjointness checks (over the smaller set) skip them.
    for entry in entries:
        owned = decoded(entry.get("fieldsV1"))
        decodings.append(owned)
        if _identity(entry) == identity:
            previous = owned
            my_fields = entry.get("fieldsV1")
            # Owned already, and nothing of it removed: the entry's set stays as it is.
            mine = owned if changed <= owned and removed.isdisjoint(owned) else changed | (owned - removed)
            continue
        owned = renamed(owned, entry, api_version, renaming)
        if changed.isdisjoint(owned) and removed.isdisjoint(owned):
            kept.append(entry)  # untouched by this write: the stored entry stays as it is
            continue
        remaining = owned - changed - removed
        if remaining:
            kept.append({**entry, "fieldsV1": encode_fields(as_written(remaining, entry, api_version, renaming))})
    if mine:
        unchanged = previous is not None and (mine is previous or mine == previous)
        entry = {
            "apiVersion": api_version,
            "fieldsType": "FieldsV1",
            "fieldsV1": my_fields if unchanged else encode_fields(mine),
            "manager": manager,
            "operation": "Update",
            "time": now,
        }
        if subresource:
            entry["subresource"] = subresource
        kept.append(entry)
    temporaries = (comparison.added, comparison.modified, comparison.removed, added, modified, removed, changed, mine)
    # Decoded sets are this write's own unless they were kept (frozen, for the next write).
    release_in_slices(*(paths for paths in (*temporaries, *decodings) if isinstance(paths, set)))
    return with_entries(new, sorted_entries(kept))


def _identity(entry: dict[str, Any]) -> tuple[str, str, str, str]:
    return (
        entry.get("manager", ""),
        entry.get("operation", ""),
        entry.get("apiVersion", ""),
        entry.get("subresource", ""),
    )
