"""The parts of a structural schema the algorithms read, resolved once per schema.

apiextensions-apiserver converts a CRD's ``openAPIV3Schema`` into a ``structuralschema.Structural`` when the
CRD is stored (``apiextensions-apiserver/pkg/apiserver/schema/convert.go``) and every request reuses it. The
same happens here: :func:`compiled` turns a schema into a tree of :class:`Node` the first time it is seen, and
each node carries facts about its subtree that let the algorithms skip what cannot change. A subtree with no
``default`` is never walked by defaulting, one without ``x-kubernetes-embedded-resource`` never by the
ObjectMeta coercion, a ``x-kubernetes-preserve-unknown-fields`` subtree with nothing declared below it never
by pruning, one without a ``set`` or ``map`` list never by the list-type checks.

A schema is known by the identity of its mapping, so it must not be changed in place once it has been used: a
changed copy is a new schema, a changed original goes unnoticed. The cache holds the schemas it has seen, so an
``id`` in it never names another one.

Also here, the copy-on-write helpers the algorithms share: :func:`replaced_items`, :func:`fresh`.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["Node", "Schema", "compiled", "fresh", "key_path", "replaced_items", "status_only"]

Schema = Mapping[str, Any]

# Enough for every CRD version a test session or a standalone server serves at once.
_CACHE_SIZE = 256
_cache: OrderedDict[int, tuple[Schema, Node]] = OrderedDict()


class Node:
    """One schema node: the keywords the algorithms read, its resolved children, and facts about its subtree."""

    __slots__ = (
        "additional",
        "default",
        "defaulted_properties",
        "defaults",
        "drops_nulls",
        "embedded",
        "embeds",
        "extra",
        "items",
        "list_typed",
        "nullable",
        "preserve",
        "properties",
        "prune_inert",
        "raw",
        "skip_inert",
        "validation",
    )

    raw: Schema
    properties: dict[str, Node | None]
    additional: bool
    extra: Node | None
    items: Node | None
    preserve: bool
    embedded: bool
    nullable: bool
    default: Any
    defaulted_properties: tuple[tuple[str, Node], ...]
    skip_inert: bool
    prune_inert: bool
    drops_nulls: bool
    defaults: bool
    embeds: bool
    list_typed: bool
    validation: Any

    def __init__(self, raw: Schema, memo: dict[int, Node]) -> None:
        self.raw = raw
        properties = raw.get("properties")
        self.properties = {
            name: _child(prop, memo) for name, prop in (properties.items() if isinstance(properties, Mapping) else ())
        }
        extra = raw.get("additionalProperties")
        self.additional = isinstance(extra, Mapping) or extra is True
        self.extra = _child(extra, memo)
        self.items = _child(raw.get("items"), memo)
        self.preserve = raw.get("x-kubernetes-preserve-unknown-fields") is True
        self.embedded = raw.get("x-kubernetes-embedded-resource") is True
        self.nullable = raw.get("nullable") is True
        self.default = raw.get("default")
        self.defaulted_properties = tuple(
            (name, prop) for name, prop in self.properties.items() if prop is not None and prop.default is not None
        )
        self._decide()
        # What validating.py reads from this node, looked up on its first validation.
        self.validation = None

    def _decide(self) -> None:
        named = [prop for prop in self.properties.values() if prop is not None]
        children = [*named, *(node for node in (self.extra, self.items) if node is not None)]
        # pruning.py walks a preserve-unknown-fields node with _skip_pruned: only declared children are pruned,
        # and a declared child with no schema (`null`, or `additionalProperties: true`) loses every key.
        declared_inert = all(prop is not None and prop.prune_inert for prop in self.properties.values())
        extra_inert = not self.additional or (self.extra is not None and self.extra.prune_inert)
        self.skip_inert = declared_inert and extra_inert and (self.items is None or self.items.skip_inert)
        self.prune_inert = self.preserve and self.skip_inert
        mapped = [*named, *(node for node in (self.extra,) if node is not None)]
        self.drops_nulls = any((not node.nullable and node.default is None) or node.drops_nulls for node in mapped) or (
            self.items is not None and self.items.drops_nulls
        )
        self.defaults = any(node.default is not None or node.defaults for node in children)
        self.embeds = self.embedded or any(node.embeds for node in children)
        self.list_typed = self.raw.get("x-kubernetes-list-type") in ("set", "map") or any(
            node.list_typed for node in children
        )


def _child(value: Any, memo: dict[int, Node]) -> Node | None:
    if not isinstance(value, Mapping):
        return None
    node = memo.get(id(value))
    if node is None:
        node = memo[id(value)] = Node(value, memo)
    return node


def compiled(schema: Schema) -> Node:
    """The node tree of ``schema``, computed on first use and kept for the next requests."""
    key = id(schema)
    hit = _cache.get(key)
    if hit is not None and hit[0] is schema:
        _cache.move_to_end(key)
        return hit[1]
    node = Node(schema, {})
    _cache[key] = (schema, node)
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return node


_status_schemas: dict[int, tuple[Schema, Schema]] = {}


def status_only(schema: Schema) -> Schema:
    """The schema with only its ``status`` property, kept per schema so that it compiles once."""
    hit = _status_schemas.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    properties = schema.get("properties")
    status = properties.get("status") if isinstance(properties, Mapping) else None
    narrowed: Schema = {"type": "object", "properties": {"status": status}} if isinstance(status, Mapping) else {}
    if len(_status_schemas) > _CACHE_SIZE:
        _status_schemas.clear()
    _status_schemas[id(schema)] = (schema, narrowed)
    return narrowed


def fresh(default: Any) -> Any:
    """A schema ``default`` to put into an object: a copy, so that objects never share the schema's containers."""
    return default if isinstance(default, (str, int, float)) else copy.deepcopy(default)


def key_path(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def replaced_items(values: list[Any], change: Callable[[int, Any], Any]) -> list[Any]:
    """``values`` with each item replaced by ``change(index, item)``: a new list only if one of them changes."""
    result: list[Any] | None = None
    for index, item in enumerate(values):
        changed = change(index, item)
        if changed is not item:
            if result is None:
                result = list(values)
            result[index] = changed
    return values if result is None else result
