"""Nulls dropped and defaults applied, as the CR decoder's defaulter does after pruning.

apiextensions-apiserver ``pkg/apiserver/schema/defaulting``: :func:`drop_nulls_without_defaults` is
``PruneNonNullableNullsWithoutDefaults`` (``prunenulls.go``), :func:`apply_defaults` is ``Default``
(``algorithm.go``).

Copy on write: the input is never changed, only the containers on the way to a change are copied, and an object
that needs nothing comes back as the same object. A schema without a ``default`` anywhere makes
:func:`apply_defaults` return at once, one whose every property is nullable or defaulted does the same for
:func:`drop_nulls_without_defaults` (both decided once per schema, see :mod:`.structural`).
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.slices import paused
from fakeapi._state.schema.structural import Node, Schema, compiled, fresh, replaced_items

__all__ = ["apply_defaults", "drop_nulls_without_defaults"]


def drop_nulls_without_defaults(obj: dict[str, Any], schema: Schema | None) -> dict[str, Any]:
    """Map values that are ``null`` where the schema is neither nullable nor defaulted are removed."""
    if schema is None:
        return obj
    result: dict[str, Any] = _nulls_dropped(obj, compiled(schema))
    return result


def _nulls_dropped(value: Any, node: Node) -> Any:
    if not node.drops_nulls:
        return value
    if isinstance(value, list):
        items = node.items
        return value if items is None else replaced_items(value, lambda _, item: _nulls_dropped(item, items))
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] | None = None
    properties = node.properties
    for key, item in paused(value.items(), len(value)):
        if item is None:
            child = properties.get(key, node.extra)
            if child is None or child.nullable or child.default is not None:
                continue
            if result is None:
                result = dict(value)
            del result[key]
        elif isinstance(item, (dict, list)):
            child = properties.get(key, node.extra)
            dropped = item if child is None else _nulls_dropped(item, child)
            if dropped is not item:
                if result is None:
                    result = dict(value)
                result[key] = dropped
    return value if result is None else result


def apply_defaults(obj: dict[str, Any], schema: Schema | None) -> dict[str, Any]:
    """Absent fields, and ``null`` in non-nullable ones, take the schema's ``default``, top down."""
    if schema is None:
        return obj
    result: dict[str, Any] = _defaulted(obj, compiled(schema))
    return result


def _defaulted(value: Any, node: Node) -> Any:
    if not node.defaults:
        return value
    if isinstance(value, list):
        items = node.items
        return value if items is None else replaced_items(value, lambda _, item: _defaulted_item(item, items))
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] | None = None
    for key, prop in node.defaulted_properties:
        if key not in value or (value[key] is None and not prop.nullable):
            if result is None:
                result = dict(value)
            result[key] = fresh(prop.default)
    properties = node.properties
    extra = node.extra
    # Defaults set above are walked too: a defaulted object takes the defaults of its own properties.
    for key, item in (value if result is None else result).items():
        if key in properties:
            child = properties[key]
            if child is None or not isinstance(item, (dict, list)):
                continue
            defaulted = _defaulted(item, child)
        elif node.additional and extra is not None:
            defaulted = _defaulted_item(item, extra)
        else:
            continue
        if defaulted is not item:
            if result is None:
                result = dict(value)
            # Replacing the value of a key the loop is walking leaves the dict's size, and the walk, intact.
            result[key] = defaulted
    return value if result is None else result


def _defaulted_item(item: Any, node: Node) -> Any:
    """An ``additionalProperties`` value or an array item: a non-nullable ``null`` takes the default."""
    if item is None and not node.nullable:
        item = fresh(node.default)
    return _defaulted(item, node) if isinstance(item, (dict, list)) else item
