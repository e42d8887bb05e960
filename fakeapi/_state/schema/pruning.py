"""Unknown fields removed from a custom resource, as ``unstructuredSchemaCoercer.apply`` removes them.

Three passes, reported in this order (the order of the ``unknown field "<path>"`` warnings and strict-decoding
errors): unknown keys of the root ``metadata`` (``objectmeta.GetObjectMetaWithOptions``, kjson strict paths),
then ``pruning.PruneWithOptions`` (apiextensions-apiserver ``pkg/apiserver/schema/pruning/algorithm.go``, its
paths sorted), then the ObjectMeta round trip of embedded resources (:mod:`.embedded`, its paths sorted).

Copy on write: the input is never changed, a container is copied only when something inside it goes, and an
object with nothing to prune comes back as the same object.
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.slices import paused
from fakeapi._state.schema.embedded import coerce_embedded, known_object_meta
from fakeapi._state.schema.structural import Node, Schema, compiled, key_path

__all__ = ["prune"]

_TYPE_META_AND_METADATA = frozenset({"apiVersion", "kind", "metadata"})
_NO_SCHEMA = Node({}, {})


def prune(obj: dict[str, Any], schema: Schema | None, *, root: bool = True) -> tuple[dict[str, Any], list[str]]:
    """The object with unknown fields removed, and their paths in the order the apiserver reports them."""
    result = obj
    unknown: list[str] = []
    if root:
        meta = obj.get("metadata")
        if isinstance(meta, dict):
            known = known_object_meta(meta, "metadata", unknown)
            if known is not meta:
                result = {**obj, "metadata": known}
    node = compiled(schema) if schema is not None else None
    by_schema: list[str] = []
    result = _pruned_root(result, node, by_schema) if root else _pruned(result, node, "", by_schema)
    unknown.extend(sorted(by_schema))
    embedded: list[str] = []
    result = coerce_embedded(result, node, "", embedded)
    unknown.extend(sorted(embedded))
    return result, unknown


def _pruned_root(obj: dict[str, Any], node: Node | None, out: list[str]) -> dict[str, Any]:
    """The root is pruned as an embedded resource: its apiVersion, kind and metadata stay."""
    if node is None:
        return _pruned_dict(obj, _NO_SCHEMA, "", out, embedded=True)
    if node.preserve:
        result: dict[str, Any] = _skip_pruned(obj, node, "", out, embedded=True)
        return result
    return _pruned_dict(obj, node, "", out, embedded=True)


def _pruned(value: Any, node: Node | None, path: str, out: list[str]) -> Any:
    if node is None:
        if isinstance(value, dict):
            if not value:
                return value
            out.extend(key_path(path, key) for key in value)
            return {}
        return _pruned_list(value, None, path, out) if isinstance(value, list) else value
    if node.prune_inert:
        return value
    if node.preserve:
        return _skip_pruned(value, node, path, out, embedded=node.embedded)
    if isinstance(value, dict):
        return _pruned_dict(value, node, path, out, embedded=node.embedded)
    if isinstance(value, list):
        return _pruned_list(value, node.items, path, out)
    return value


def _pruned_dict(value: dict[str, Any], node: Node, path: str, out: list[str], *, embedded: bool) -> dict[str, Any]:
    result: dict[str, Any] | None = None
    properties = node.properties
    for key, item in paused(value.items(), len(value)):
        if embedded and key in _TYPE_META_AND_METADATA:
            continue
        if key in properties:
            child = properties[key]
        elif node.additional:
            child = node.extra
        else:
            # Root type meta is restored after pruning, so dropping it is not worth a warning.
            if path or key not in _TYPE_META_AND_METADATA:
                out.append(key_path(path, key))
            if result is None:
                result = dict(value)
            del result[key]
            continue
        if isinstance(item, (dict, list)):
            pruned = _pruned(item, child, key_path(path, key), out)
            if pruned is not item:
                if result is None:
                    result = dict(value)
                result[key] = pruned
    return value if result is None else result


def _pruned_list(value: list[Any], items: Node | None, path: str, out: list[str]) -> list[Any]:
    if items is not None and items.prune_inert:
        return value
    result: list[Any] | None = None
    for index, item in paused(enumerate(value), len(value)):
        if isinstance(item, (dict, list)):
            pruned = _pruned(item, items, f"{path}[{index}]", out)
            if pruned is not item:
                if result is None:
                    result = list(value)
                result[index] = pruned
    return value if result is None else result


def _skip_pruned(value: Any, node: Node, path: str, out: list[str], *, embedded: bool) -> Any:
    """Below ``x-kubernetes-preserve-unknown-fields``: unknown keys stay, known ones are still pruned inside."""
    if node.skip_inert:
        return value
    if isinstance(value, dict):
        result: dict[str, Any] | None = None
        properties = node.properties
        for key, item in value.items():
            if (embedded and key in _TYPE_META_AND_METADATA) or not isinstance(item, (dict, list)):
                continue
            if key in properties:
                child = properties[key]
            elif node.additional:
                child = node.extra
            else:
                continue
            pruned = _pruned(item, child, key_path(path, key), out)
            if pruned is not item:
                if result is None:
                    result = dict(value)
                result[key] = pruned
        return value if result is None else result
    items = node.items
    if not isinstance(value, list) or items is None:
        return value
    listed: list[Any] | None = None
    for index, item in enumerate(value):
        if isinstance(item, (dict, list)):
            pruned = _skip_pruned(item, items, f"{path}[{index}]", out, embedded=items.embedded)
            if pruned is not item:
                if listed is None:
                    listed = list(value)
                listed[index] = pruned
    return value if listed is None else listed
