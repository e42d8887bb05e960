"""Server-side apply (``application/apply-patch+yaml``), as far as field ownership goes.

What a client observes of ``kubectl apply --server-side``: the applied configuration is merged
into the live object (maps merge, lists are replaced whole), fields this manager applied before
and left out now are removed unless another manager also owns them, the object is created when
missing (201), and a field another manager set to a different value is a 409 conflict unless
``force=true``. The conflict is apimachinery's ``NewConflictError``
(``util/managedfields/internal/conflict.go``): one ``FieldManagerConflict`` cause per field, and
``getConflictMessage``'s text, the managers as ``printManager`` names them (docs/writes.md). The
manager's ``Apply`` entry in managedFields lists exactly the applied fields.

Simplification, on purpose: lists are atomic (owned whole), as for a custom resource's lists
without ``x-kubernetes-list-type``; built-ins' keyed lists are not merged per element.
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.godecode import normalize
from fakeapi._patching.goencode import encode
from fakeapi._patching.gostrconv import quote
from fakeapi._patching.jsonpatch import json_kind
from fakeapi._patching.yamltojson import YAMLToJSONError, yaml_to_value
from fakeapi._state.managedfields import Path, decode_fields, encode_fields, leaf_paths
from fakeapi._state.resources import ResourceType
from fakeapi.errors import APIError, Cause, GroupResource

__all__ = ["conflict_error", "decode_apply_body", "merge_applied"]


def decode_apply_body(body: bytes) -> dict[str, Any]:
    """The applied configuration as ``yaml.Unmarshal`` into a map gives it, or the apply patcher's 400."""
    try:
        value = yaml_to_value(body)
    except YAMLToJSONError as error:
        raise APIError.bad_request(f"error decoding YAML: error converting YAML to JSON: {error}") from None
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise APIError.bad_request(
            "error decoding YAML: error unmarshaling JSON: while decoding JSON: "
            f"json: cannot unmarshal {json_kind(value)} into Go value of type map[string]interface {{}}"
        )
    applied: dict[str, Any] = normalize(value)
    return applied


def require_manager(manager: str | None) -> str:
    if not manager:
        raise APIError.invalid(
            GroupResource("meta.k8s.io", "PatchOptions"),
            "",
            [Cause("FieldValueRequired", "Required value: is required for apply patch", "fieldManager")],
        )
    return manager


def _get(obj: Any, path: Path) -> Any:
    for part in path:
        if not isinstance(obj, dict) or part not in obj:
            return _MISSING
        obj = obj[part]
    return obj


_MISSING: Any = object()


def _remove(obj: dict[str, Any], path: Path) -> dict[str, Any]:
    head, rest = path[0], path[1:]
    if head not in obj:
        return obj
    if not rest:
        return {key: value for key, value in obj.items() if key != head}
    child = obj[head]
    if not isinstance(child, dict):
        return obj
    return {**obj, head: _remove(child, rest)}


def _merge(live: Any, applied: Any) -> Any:
    if isinstance(live, dict) and isinstance(applied, dict):
        merged = dict(live)
        for key, value in applied.items():
            merged[key] = _merge(live.get(key), value)
        return merged
    return applied


def _manager_identifier(entry: dict[str, Any]) -> str:
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


def _printed_manager(entry: dict[str, Any]) -> str:
    """``printManager``: the quoted name, its subresource, and for an updater the version it used."""
    shown = quote(str(entry.get("manager") or ""))
    if entry.get("subresource"):
        shown += f" with subresource {quote(str(entry['subresource']))}"
    if entry.get("operation") == "Update":
        shown += f" using {entry.get('apiVersion') or ''}"
    return shown


def _path_text(path: Path) -> str:
    """``fieldpath.Path.String`` of a path of field names."""
    return "".join(f".{part}" for part in path)


def _set_order(path: Path) -> tuple[tuple[int, str], ...]:
    """``fieldpath.Set.Iterate``'s order: at each level its members, sorted, before its children, sorted."""
    return tuple((0 if position == len(path) - 1 else 1, part) for position, part in enumerate(path))


def conflict_error(conflicts: list[tuple[dict[str, Any], Path]]) -> APIError:
    """``NewConflictError``: a cause per conflict, and the message ``getConflictMessage`` writes."""
    conflicts = sorted(conflicts, key=lambda item: (_manager_identifier(item[0]), _set_order(item[1])))
    causes = [
        Cause("FieldManagerConflict", f"conflict with {_printed_manager(entry)}", _path_text(path))
        for entry, path in conflicts
    ]
    if len(conflicts) == 1:
        entry, path = conflicts[0]
        message = f"Apply failed with 1 conflict: conflict with {_printed_manager(entry)}: {_path_text(path)}"
    else:
        lines: list[str] = []
        current = None
        for entry, path in conflicts:
            identifier = _manager_identifier(entry)
            if identifier != current:
                lines.append(f"conflicts with {_printed_manager(entry)}:")
                current = identifier
            lines.append(f"- {_path_text(path)}")
        message = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
    return APIError(message, reason="Conflict", code=409, details={"causes": [cause.to_dict() for cause in causes]})


def merge_applied(
    rtype: ResourceType,
    live: dict[str, Any],
    applied: dict[str, Any],
    *,
    manager: str,
    force: bool,
    now: str,
) -> dict[str, Any]:
    """The live object after ``manager`` applies ``applied``, with managedFields updated."""
    meta = live.get("metadata") or {}
    entries = [entry for entry in meta.get("managedFields") or [] if isinstance(entry, dict)]
    applied_paths = leaf_paths(applied)
    previous: set[Path] = set()
    others: list[tuple[dict[str, Any], set[Path]]] = []
    for entry in entries:
        fields = set(decode_fields(entry.get("fieldsV1")))
        if entry.get("manager") == manager and entry.get("operation") == "Apply":
            previous = fields
        else:
            others.append((entry, fields))
    conflicts = []
    for entry, fields in others:
        for path in sorted(fields & applied_paths):
            if _get(live, path) != _get(applied, path):
                conflicts.append((entry, path))
    if conflicts and not force:
        raise conflict_error(conflicts)
    owned_by_others = set().union(*(fields for _, fields in others)) if others else set()
    result = live
    for path in sorted(previous - applied_paths - owned_by_others):
        result = _remove(result, path)
    result = _merge(result, {key: value for key, value in applied.items() if key != "metadata"})
    applied_meta = applied.get("metadata") or {}
    for field in ("labels", "annotations"):
        if isinstance(applied_meta.get(field), dict):
            result_meta = dict(result.get("metadata") or {})
            result_meta[field] = {**(result_meta.get(field) or {}), **applied_meta[field]}
            result = {**result, "metadata": result_meta}
    kept = []
    for entry, fields in others:
        remaining = fields - {path for path in applied_paths if force or _get(live, path) != _get(applied, path)}
        if remaining:
            kept.append({**entry, "fieldsV1": encode_fields(remaining)})
    mine = {
        "apiVersion": rtype.api_version,
        "fieldsType": "FieldsV1",
        "fieldsV1": encode_fields(applied_paths),
        "manager": manager,
        "operation": "Apply",
        "time": now,
    }
    result_meta = dict(result.get("metadata") or {})
    result_meta["managedFields"] = [mine, *kept]
    return {**result, "metadata": result_meta}
