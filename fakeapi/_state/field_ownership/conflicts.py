"""A server-side apply conflict as apimachinery's ``NewConflictError`` answers it (docs/writes.md).

``util/managedfields/internal/conflict.go``: one ``FieldManagerConflict`` cause per conflicting
field, the field as ``fieldpath.Path.String`` prints it (``.spec.containers[name="app"].image``),
and ``getConflictMessage``'s text with the managers as ``printManager`` names them.
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.gostrconv import quote
from fakeapi._state.field_ownership.entries import manager_identifier
from fakeapi._state.field_ownership.fieldpath import Path, path_text, set_order
from fakeapi.errors import APIError, Cause

__all__ = ["conflict_error"]


def _printed_manager(entry: dict[str, Any]) -> str:
    """``printManager``: the quoted name, its subresource, and for an updater the version it used."""
    shown = quote(str(entry.get("manager") or ""))
    if entry.get("subresource"):
        shown += f" with subresource {quote(str(entry['subresource']))}"
    if entry.get("operation") == "Update":
        shown += f" using {entry.get('apiVersion') or ''}"
    return shown


def conflict_error(conflicts: list[tuple[dict[str, Any], Path]]) -> APIError:
    """``NewConflictError``: a cause per conflict, and the message ``getConflictMessage`` writes."""
    conflicts = sorted(conflicts, key=lambda item: (manager_identifier(item[0]), set_order(item[1])))
    causes = [
        Cause("FieldManagerConflict", f"conflict with {_printed_manager(entry)}", path_text(path))
        for entry, path in conflicts
    ]
    if len(conflicts) == 1:
        entry, path = conflicts[0]
        message = f"Apply failed with 1 conflict: conflict with {_printed_manager(entry)}: {path_text(path)}"
    else:
        lines: list[str] = []
        current = None
        for entry, path in conflicts:
            identifier = manager_identifier(entry)
            if identifier != current:
                lines.append(f"conflicts with {_printed_manager(entry)}:")
                current = identifier
            lines.append(f"- {path_text(path)}")
        message = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
    return APIError(message, reason="Conflict", code=409, details={"causes": [cause.to_dict() for cause in causes]})
