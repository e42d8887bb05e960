"""``metadata.managedFields`` for Update operations: who last set which fields, and when.

Reproduces the field manager's bookkeeping for non-apply writes
(``apimachinery/pkg/util/managedfields/internal``): one entry per manager, operation, apiVersion
and subresource; a write that changes fields unions them into the writer's set, takes them away
from every other manager and stamps the writer's entry with the time; a write that changes
nothing leaves the entries alone (so it stays a no-op); a manager left with no fields disappears.
The manager is ``fieldManager`` or the User-Agent up to its first ``/``.

Simplification, on purpose: lists are owned whole (``"f:items":{}``), as for a custom resource's
lists without ``x-kubernetes-list-type``; built-ins' keyed lists (``k:{"name":...}``) are not
broken down per element.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Path", "decode_fields", "encode_fields", "leaf_paths", "manager_from_user_agent", "track"]

_NEVER_TRACKED_METADATA = {
    "name",
    "namespace",
    "creationTimestamp",
    "selfLink",
    "uid",
    "generation",
    "managedFields",
    "resourceVersion",
}
_NEVER_TRACKED_ROOT = {"apiVersion", "kind"}
_OPERATION_ORDER = {"Apply": 0, "Update": 1}
MAX_MANAGER_LENGTH = 128


def manager_from_user_agent(user_agent: str) -> str:
    """``prefixFromUserAgent``: up to the first ``/``, non-printable runes dropped, 128 bytes."""
    prefix = user_agent.split("/", 1)[0]
    printable = "".join(ch for ch in prefix if ch.isprintable())
    return printable.encode()[:MAX_MANAGER_LENGTH].decode(errors="ignore")


Path = tuple[str, ...]


def _leaves(value: Any, prefix: Path, out: dict[Path, Any], *, root: bool = False) -> None:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            if root and key in _NEVER_TRACKED_ROOT:
                continue
            if root and key == "metadata" and isinstance(item, dict):
                for meta_key, meta_item in item.items():
                    if meta_key not in _NEVER_TRACKED_METADATA:
                        _leaves(meta_item, (*prefix, "metadata", meta_key), out)
                continue
            _leaves(item, (*prefix, key), out)
        return
    out[prefix] = value


def leaf_paths(obj: dict[str, Any]) -> set[Path]:
    """The tracked leaf paths of an object (apiVersion, kind and system metadata left out)."""
    leaves: dict[Path, Any] = {}
    _leaves(obj, (), leaves, root=True)
    return set(leaves)


def decode_fields(fields: Any) -> frozenset[Path]:
    """A ``fieldsV1`` tree as a set of leaf paths."""
    return _owned(fields).paths


def encode_fields(paths: set[Path]) -> dict[str, Any]:
    """A set of leaf paths as a ``fieldsV1`` tree."""
    return _encode_set(paths)


def _diff(old: Any, new: Any, prefix: Path, changed: set[Path], removed: set[Path], *, root: bool = False) -> None:
    """The leaf paths a write set or changed, and those it removed; shared subtrees are skipped."""
    if old is new:
        return
    if isinstance(old, dict) and old and isinstance(new, dict) and new:
        for key, value in new.items():
            if root and key in _NEVER_TRACKED_ROOT:
                continue
            if root and key == "metadata":
                previous = old.get("metadata")
                old_meta: dict[str, Any] = previous if isinstance(previous, dict) else {}
                new_meta: dict[str, Any] = value if isinstance(value, dict) else {}
                for meta_key, item in new_meta.items():
                    if meta_key in _NEVER_TRACKED_METADATA:
                        continue
                    if meta_key not in old_meta:
                        _collect(item, (*prefix, "metadata", meta_key), changed)
                    elif old_meta[meta_key] is not item:
                        _diff(old_meta[meta_key], item, (*prefix, "metadata", meta_key), changed, removed)
                for meta_key, item in old_meta.items():
                    if meta_key not in new_meta and meta_key not in _NEVER_TRACKED_METADATA:
                        _collect(item, (*prefix, "metadata", meta_key), removed)
                continue
            if key in old:
                previous = old[key]
                if previous is not value:  # a shared subtree changed nothing: no call, no path
                    _diff(previous, value, (*prefix, key), changed, removed)
            else:
                _collect(value, (*prefix, key), changed)
        for key, value in old.items():
            if key not in new and not (root and (key in _NEVER_TRACKED_ROOT or key == "metadata")):
                _collect(value, (*prefix, key), removed)
        return
    if _same(old, new):
        return
    before: set[Path] = set()
    _collect(old, prefix, before)
    _collect(new, prefix, changed)
    removed.update(before - changed)


def _collect(value: Any, prefix: Path, out: set[Path]) -> None:
    leaves: dict[Path, Any] = {}
    _leaves(value, prefix, leaves)
    out.update(leaves)


class _Owned:
    """One stored entry's leaf paths, and (built on first need) every prefix mapped to the paths under it."""

    __slots__ = ("_under", "paths")

    def __init__(self, paths: frozenset[Path]) -> None:
        self.paths = paths
        self._under: dict[Path, list[Path]] | None = None

    def overlapping(self, touched: set[Path]) -> set[Path]:
        """The paths a write's ``touched`` paths overlap: one is a prefix of the other.

        Looked up from the touched side, so a write costs what it touched, not what the entry owns.
        """
        under = self._under
        if under is None:
            under = self._under = {}
            for path in self.paths:
                for length in range(1, len(path) + 1):
                    under.setdefault(path[:length], []).append(path)
        found: set[Path] = set()
        for path in touched:
            found.update(under.get(path, ()))
            found.update(path[:length] for length in range(1, len(path)) if path[:length] in self.paths)
        return found


_decoded: dict[int, tuple[Any, _Owned]] = {}
_DECODED_LIMIT = 4096


def _owned(fields: Any) -> _Owned:
    """Stored entries never change, so their decoded sets are kept by identity."""
    cached = _decoded.get(id(fields))
    if cached is not None and cached[0] is fields:
        return cached[1]
    owned = _Owned(frozenset(_decode_set(fields)))
    if len(_decoded) >= _DECODED_LIMIT:
        _decoded.clear()
    _decoded[id(fields)] = (fields, owned)
    return owned


def _decode_set(fields: Any, prefix: Path = ()) -> set[Path]:
    paths: set[Path] = set()
    if not isinstance(fields, dict):
        return paths
    for key, child in fields.items():
        if key == "." or not isinstance(key, str) or not key.startswith("f:"):
            continue
        path = (*prefix, key[2:])
        if isinstance(child, dict) and any(k != "." for k in child):
            paths |= _decode_set(child, path)
        else:
            paths.add(path)
    return paths


def _encode_set(paths: set[Path]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for path in sorted(paths):
        node = tree
        for depth, part in enumerate(path):
            child = node.setdefault(f"f:{part}", {})
            # An owned map marks itself with "."; metadata itself is never owned.
            if depth < len(path) - 1 and not (depth == 0 and part == "metadata"):
                child.setdefault(".", {})
            node = child
    return tree


def track(
    new: dict[str, Any],
    old: dict[str, Any] | None,
    *,
    manager: str,
    api_version: str,
    subresource: str,
    now: str,
    status_is_subresource: bool,
    operation: str = "Update",
) -> dict[str, Any]:
    """``new`` with its managedFields updated for this write by ``manager``."""
    old_meta = (old or {}).get("metadata") or {}
    new_meta = new.get("metadata") or {}
    entries = new_meta.get("managedFields")
    if old is not None and entries == old_meta.get("managedFields"):
        entries = old_meta.get("managedFields")
    entries = [dict(entry) for entry in entries or [] if isinstance(entry, dict) and entry]
    changed: set[Path] = set()
    removed: set[Path] = set()
    if old is None:
        leaves: dict[Path, Any] = {}
        _leaves(new, (), leaves, root=True)
        changed = set(leaves)
    else:
        _diff(old, new, (), changed, removed, root=True)
    if subresource == "status":
        changed = {path for path in changed if path[:1] == ("status",)}
        removed = {path for path in removed if path[:1] == ("status",)}
    elif status_is_subresource:
        changed = {path for path in changed if path[:1] != ("status",)}
        removed = {path for path in removed if path[:1] != ("status",)}
    if not changed and not removed:
        return new if entries == new_meta.get("managedFields", []) or not entries else _with_entries(new, entries)
    identity = (manager, operation, api_version, subresource)
    kept: list[dict[str, Any]] = []
    previous_mine: frozenset[Path] = frozenset()
    mine: set[Path] = set(changed)
    my_fields: Any = None
    touched = changed | removed
    for entry in entries:
        owned = _owned(entry.get("fieldsV1"))
        overlapping = owned.overlapping(touched)
        if _identity(entry) == identity:
            previous_mine = owned.paths
            mine |= owned.paths - overlapping
            my_fields = entry.get("fieldsV1")
        elif not overlapping:
            kept.append(entry)  # untouched by this write: the stored entry stays as it is
        elif remaining := owned.paths - overlapping:
            kept.append({**entry, "fieldsV1": _encode_set(set(remaining))})
    if mine:
        entry = {
            "apiVersion": api_version,
            "fieldsType": "FieldsV1",
            "fieldsV1": my_fields if mine == previous_mine and my_fields is not None else _encode_set(mine),
            "manager": manager,
            "operation": operation,
            "time": now,
        }
        if subresource:
            entry["subresource"] = subresource
        kept.append(entry)
    kept.sort(key=lambda e: (_OPERATION_ORDER.get(e.get("operation", ""), 2), e.get("time", ""), e.get("manager", "")))
    return _with_entries(new, kept)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and bool(a == b)


def _identity(entry: dict[str, Any]) -> tuple[str, str, str, str]:
    return (
        entry.get("manager", ""),
        entry.get("operation", ""),
        entry.get("apiVersion", ""),
        entry.get("subresource", ""),
    )


def _with_entries(obj: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any]:
    metadata = dict(obj.get("metadata") or {})
    if entries:
        metadata["managedFields"] = entries
    else:
        metadata.pop("managedFields", None)
    return {**obj, "metadata": metadata}
