"""The uniqueness of ``x-kubernetes-list-type: set`` and ``map`` lists in a custom resource.

apiextensions-apiserver ``pkg/apiserver/schema/listtype/validation.go`` (``ValidateListSetsAndMaps``), run by
the CR strategy after the schema's and the embedded resources' checks and before the CEL rules:

- a ``set`` list reports the second occurrence of each repeated item as ``field.Duplicate`` at
  ``<path>[i]`` with the item as its value (a third occurrence is not reported again);
- a ``map`` list first requires every item to be an object or null (the first other item is
  ``Invalid value: ...: must be an object for an array of list-type map``, and nothing else of that list is
  checked), then compares the items' keys: with one key field the duplicate's value is
  ``map[string]interface {}{"<key>":<value>}``, with several the map of the key fields present; an item
  without the key (or a null item) has the empty key ``map[string]interface {}{}``, so two such items are
  duplicates;
- scalars are compared as Go compares ``interface{}`` map keys (an int64 ``1`` is not the float64 ``1.5``,
  nor ``1.0``, which decodes as float64), objects and lists by their ``encoding/json`` bytes (where ``1`` and
  ``1.0`` both print ``1``);
- items of every list are walked again for lists nested in them, whatever their list type; object
  properties and ``additionalProperties`` values likewise.

Go walks maps in random order; here keys are walked as the document has them, ``additionalProperties``
values before declared properties as upstream does. docs/validation.md, "List types".
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.goencode import encode
from fakeapi._patching.slices import paused
from fakeapi._state.schema.structural import Node, Schema, compiled
from fakeapi._state.validation import field as field_errors

__all__ = ["list_type_errors"]

_NOT_AN_OBJECT = "must be an object for an array of list-type map"
# ``unspecifiedKeyValue{}``: the key of a map-list item that lacks the key field, or is null.
_UNSPECIFIED = ("unspecified",)


def list_type_errors(obj: dict[str, Any], schema: Schema | None) -> list[field_errors.FieldError]:
    """``ValidateListSetsAndMaps(nil, schema, obj)``: the duplicate items and keys of the object's lists."""
    if schema is None:
        return []
    node = compiled(schema)
    errors: list[field_errors.FieldError] = []
    if node.list_typed:  # a schema without set or map lists has nothing to report
        _walk_object(obj, node, "", errors)
    return errors


def _walk_object(obj: dict[str, Any], node: Node, path: str, errors: list[field_errors.FieldError]) -> None:
    if node.extra is not None and node.extra.list_typed:
        for key, value in paused(obj.items(), len(obj)):
            _walk(value, node.extra, field_errors.key(path, key), errors)
    if node.properties:
        for key, value in paused(obj.items(), len(obj)):
            prop = node.properties.get(key)
            if prop is not None and prop.list_typed:
                _walk(value, prop, field_errors.child(path, key), errors)


def _walk(value: Any, node: Node, path: str, errors: list[field_errors.FieldError]) -> None:
    if isinstance(value, list):
        _walk_list(value, node, path, errors)
    elif isinstance(value, dict):
        _walk_object(value, node, path, errors)


def _walk_list(items: list[Any], node: Node, path: str, errors: list[field_errors.FieldError]) -> None:
    list_type = node.raw.get("x-kubernetes-list-type")
    if list_type == "set":
        errors.extend(field_errors.duplicate(field_errors.index(path, i), items[i]) for i in _repeated(items))
    elif list_type == "map":
        errors.extend(_map_errors(items, node.raw, path))
    if node.items is not None and node.items.list_typed:
        for position, item in paused(enumerate(items), len(items)):
            _walk(item, node.items, field_errors.index(path, position), errors)


def _identity(value: Any) -> tuple[Any, ...]:
    """What Go's map lookup compares: the dynamic type and value of a scalar, the JSON of a compound."""
    if value is _UNSPECIFIED:
        return ("unspecified",)
    if isinstance(value, (dict, list)):
        return ("json", encode(value))
    if isinstance(value, float):
        return ("float", float(value))
    return ("scalar", type(value), value)


def _repeated(items: list[Any]) -> list[int]:
    """``validateListSet``: the index of each value's second occurrence, in list order."""
    if len(items) <= 1:
        return []
    seen: dict[tuple[Any, ...], int] = {}
    repeated = []
    for position, item in enumerate(items):
        identity = _identity(item)
        times = seen.get(identity, 0)
        seen[identity] = times + 1
        if times == 1:
            repeated.append(position)
    return repeated


def _map_errors(items: list[Any], schema: Schema, path: str) -> list[field_errors.FieldError]:
    """``validateListMap``."""
    for position, item in enumerate(items):
        if item is not None and not isinstance(item, dict):
            return [field_errors.invalid(field_errors.index(path, position), item, _NOT_AN_OBJECT)]
    if len(items) <= 1:
        return []
    found = schema.get("x-kubernetes-list-map-keys")
    names = [name for name in found if isinstance(name, str)] if isinstance(found, list) else []
    if len(names) == 1:
        name = names[0]
        keys = [item.get(name, _UNSPECIFIED) if isinstance(item, dict) else _UNSPECIFIED for item in items]
        return [
            field_errors.duplicate(field_errors.index(path, i), {} if keys[i] is _UNSPECIFIED else {name: keys[i]})
            for i in _repeated(keys)
        ]
    key_maps = [
        {name: item[name] for name in names if name in item} if isinstance(item, dict) else {} for item in items
    ]
    return [field_errors.duplicate(field_errors.index(path, i), key_maps[i]) for i in _repeated(key_maps)]
