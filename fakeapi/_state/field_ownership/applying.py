"""Server-side apply's merge and field ownership: ``Updater.Apply`` of structured-merge-diff v4.4.2.

``merge/update.go`` (docs/server-side-apply.md): the applied configuration is merged into the live
object with the kind's schema (maps per field, ``listType=map`` lists per key, ``listType=set``
lists per value, everything else replaced); the applier's set becomes exactly what it applied; what
it owned before and left out now is pruned (``prune``: removed, then added back where another
manager, or the new set, still owns something at or below it, and where nobody ever owned it);
then the live and the new object are compared, and a field another manager owns that the apply
adds or changes is a conflict (409, :mod:`.conflicts`) unless ``force=true``, which takes it from
them, or the applier is ``kubectl`` and the fields are ones kubectl's last-applied annotation
still describes (:mod:`.last_applied`). Fields the apply removed leave every other manager's set.
The applier's time moves only when the object changes (``managedFieldsUpdater``).
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from fakeapi._state.field_ownership.conflicts import conflict_error
from fakeapi._state.field_ownership.entries import (
    Renaming,
    as_written,
    filtered,
    owned_at,
    sorted_entries,
    with_entries,
)
from fakeapi._state.field_ownership.fieldpath import FieldSet, Path, encode_fields
from fakeapi._state.field_ownership.last_applied import KUBECTL_MANAGER, allowed_conflicts
from fakeapi._state.field_ownership.schema import Atom
from fakeapi._state.field_ownership.typed import (
    ABSENT,
    compare,
    equal,
    field_set,
    list_errors,
    merge,
    remove_items,
    with_named_fields,
)
from fakeapi.errors import APIError

__all__ = ["applied_fields", "check_applied", "merge_applied"]


def applied_fields(applied: dict[str, Any], atom: Atom, *, status_is_subresource: bool) -> FieldSet:
    """What an applier owns after applying ``applied``: its field set, system fields stripped."""
    return filtered(field_set(applied, atom), subresource="", status_is_subresource=status_is_subresource)


def check_applied(applied: dict[str, Any], atom: Atom, *, group: str, version: str, kind: str) -> None:
    """What ``structuredMergeManager.Apply`` refuses in an applied configuration before merging it.

    A ``metadata.managedFields`` list is a 400 (``metadata.managedFields must be nil``). Then
    ``ObjectToTyped``, duplicates refused: list errors are ``failed to create typed patch object
    (<ns>/<name>; <group>/<version>, Kind=<kind>): <errors>`` (``objectGVKNN``), an error that is not
    a Status, so the client gets ``ErrorToAPIStatus``' plain 500.
    """
    found = applied.get("metadata")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    if isinstance(meta.get("managedFields"), list):
        raise APIError.bad_request("metadata.managedFields must be nil")
    errors = list_errors(applied, atom)
    if not errors:
        return
    where = f"{meta.get('namespace') or ''}/{meta.get('name') or ''}; {group}/{version}, Kind={kind}"
    text = errors[0] if len(errors) == 1 else "\n".join(["errors:", *(f"  {error}" for error in errors)])
    raise APIError.internal(f"failed to create typed patch object ({where}): {text}")


def _prune(merged: Any, atom: Atom, managed: FieldSet, last: FieldSet) -> Any:
    """``Updater.prune``: ``last`` less what someone still owns, removed from ``merged``."""
    if not last:
        return merged
    last_named = with_named_fields(last, atom)
    pruned = remove_items(merged, last_named, atom)
    merged_set = with_named_fields(field_set(merged, atom), atom)
    kept = with_named_fields(field_set(pruned, atom), atom) | with_named_fields(managed, atom)
    pruned = remove_items(merged, merged_set - kept, atom)
    dangling = merged_set - with_named_fields(field_set(pruned, atom), atom)
    return remove_items(merged, dangling & last_named, atom)


def merge_applied(
    live: dict[str, Any],
    applied: dict[str, Any],
    *,
    atom: Atom,
    manager: str,
    api_version: str,
    force: bool,
    now: str,
    status_is_subresource: bool,
    subresource: str = "",
    renaming: Renaming | None = None,
) -> dict[str, Any]:
    """The live object after ``manager`` applies ``applied`` (through ``subresource``: ``status`` or none), with
    managedFields updated; an applier's entry is its own per subresource (``BuildManagerIdentifier``).
    Entries of another apiVersion are compared named as ``api_version`` names the fields
    (``renaming``), and conflicts are reported in their own names."""
    meta = live.get("metadata") or {}
    entries = [entry for entry in meta.get("managedFields") or [] if isinstance(entry, dict)]
    bare_live = with_entries(live, [])
    merged = merge(bare_live, applied, atom)
    if merged is ABSENT:
        merged = {}
    new_set = field_set(applied, atom)
    mine: dict[str, Any] | None = None
    last: Set[Path] = frozenset()
    others: list[tuple[dict[str, Any], Set[Path]]] = []
    for entry in entries:
        owned = owned_at(entry, api_version, renaming)
        if (
            entry.get("manager") == manager
            and entry.get("operation") == "Apply"
            and (entry.get("subresource") or "") == subresource
        ):
            mine, last = entry, owned
        else:
            others.append((entry, owned))
    managed: FieldSet = set(new_set)
    for _, owned in others:
        managed |= owned
    result = _prune(merged, atom, managed, set(last))
    comparison = compare(bare_live, result, atom)
    touched = comparison.modified | comparison.added
    conflicts: list[tuple[dict[str, Any], Path]] = []
    for entry, owned in others:
        conflicts.extend((entry, path) for path in as_written(owned & touched, entry, api_version, renaming))
    if conflicts and not force:
        refused = conflicts
        if manager == KUBECTL_MANAGER:
            allowed = allowed_conflicts(bare_live, atom, api_version=api_version)
            if allowed is not None:
                refused = [(entry, path) for entry, path in conflicts if path not in allowed]
        if refused:
            raise conflict_error(refused)
    kept: list[dict[str, Any]] = []
    for entry, owned in others:
        remaining = owned - touched - comparison.removed
        if remaining == owned:
            kept.append(entry)
        elif remaining:
            kept.append({**entry, "fieldsV1": encode_fields(as_written(remaining, entry, api_version, renaming))})
    own = filtered(new_set, subresource=subresource, status_is_subresource=status_is_subresource)
    if own:
        changed = not equal(bare_live, result)
        entry = {
            "apiVersion": api_version,
            "fieldsType": "FieldsV1",
            "fieldsV1": encode_fields(own),
            "manager": manager,
            "operation": "Apply",
        }
        if subresource:
            entry["subresource"] = subresource
        entry["time"] = now if changed or mine is None else mine.get("time", now)
        kept.append(entry)
    return with_entries(result if isinstance(result, dict) else {}, sorted_entries(kept))
