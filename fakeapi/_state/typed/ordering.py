"""A built-in object laid out as Go writes its struct: the shape stored objects keep (docs/go-structs.md).

The apiserver holds a built-in object as a value of its Go type, so what it stores and answers is
what ``encoding/json`` writes for that value (``encode.go`` ``structEncoder``, ``mapEncoder``):

* struct fields in declaration order, embedded inline structs in place;
* ``omitempty`` fields left out when empty (:mod:`.zeros`), absent fields without it written at
  their zero value (``"selector": null``, ``"status": {}``), keys the struct lacks gone;
* map keys sorted; ``FieldsV1`` (managed fields) sorted too, as its sets are written in order;
  ``RawExtension`` as it came.

:func:`in_go_order` takes a decoded object that strategy hooks, defaulting and allocation have
since changed (each adds its fields where a dict puts them: last) and gives it that layout again,
so the encoder can write it without sorting. Subtrees that are the very objects of the stored
version are already laid out and are taken as they are; a dict already in order is returned itself.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

from fakeapi._patching.slices import paused, sorted_in_slices
from fakeapi._state.typed.structs import GoField, GoStructs, go_structs
from fakeapi._state.typed.zeros import SELF_ENCODING, is_struct, zero

__all__ = ["in_go_order", "partial_object_metadata", "sorted_deeply"]

# How a field's value is laid out.
_AS_IS, _STRUCT, _LIST, _MAP, _SORTED = range(5)


def in_go_order(structs: GoStructs, struct: str, obj: dict[str, Any], previous: Any = None) -> dict[str, Any]:
    """``obj`` as Go writes a value of ``struct``; ``previous`` is the stored version it replaces."""
    laid_out: dict[str, Any] = _layout(structs).struct(struct, obj, previous)
    return laid_out


def partial_object_metadata(obj: dict[str, Any], api_version: str) -> dict[str, Any]:
    """``PartialObjectMetadata`` of any object, a typed struct even for a custom resource."""
    meta = obj.get("metadata")
    laid_out = in_go_order(go_structs(), "meta/v1.ObjectMeta", meta if isinstance(meta, dict) else {})
    return {"kind": "PartialObjectMetadata", "apiVersion": api_version, "metadata": laid_out}


def sorted_deeply(value: Any) -> Any:
    """Map keys sorted at every level (``json.Marshal`` of ``map[string]interface{}``); the same
    objects where they are sorted already."""
    if isinstance(value, dict):
        if not value:
            return value
        keys = list(value)
        changed: dict[str, Any] | None = None
        for key in paused(keys, len(keys)):
            child = value[key]
            if child and isinstance(child, (dict, list)):
                sorted_child = sorted_deeply(child)
                if sorted_child is not child:
                    if changed is None:
                        changed = {}
                    changed[key] = sorted_child
        ordered = sorted_in_slices(keys)
        if changed is None and ordered == keys:
            return value
        found = changed or {}
        return {key: found.get(key, value[key]) for key in paused(ordered, len(ordered))}
    if isinstance(value, list):
        out = [sorted_deeply(item) for item in paused(value, len(value))]
        return value if all(a is b for a, b in paused(zip(out, value, strict=True), len(out))) else out
    return value


# A field's plan: its JSON name, Go type, position, how its value is laid out, the struct or element
# type that layout recurses into, and which emptiness omitempty drops: none, a nil pointer, or a
# falsy value (``""``, ``0``, ``false``, ``null``, ``[]``, ``{}``: Go's isEmptyValue for JSON values).
_Field = tuple[str, str, int, int, str, int]
_KEPT, _NIL, _FALSY = range(3)


class _Plan:
    """A struct's fields in order, by name, and those that are written even when absent."""

    __slots__ = ("by_name", "fields", "required")

    def __init__(self, fields: tuple[_Field, ...]) -> None:
        self.fields = fields
        self.by_name = {field[0]: field for field in fields}
        self.required = frozenset(field[0] for field in fields if field[5] == _KEPT)


class _Layout:
    def __init__(self, structs: GoStructs) -> None:
        self.structs = structs
        self._plans: dict[str, _Plan] = {}
        self._shapes: dict[str, tuple[int, str]] = {}

    def _shape(self, go_type: str) -> tuple[int, str]:
        """How a value of ``go_type`` is laid out, and the type inside that the layout recurses into."""
        found = self._shapes.get(go_type)
        if found is None:
            found = self._shapes[go_type] = self._find_shape(go_type)
        return found

    def _find_shape(self, go_type: str) -> tuple[int, str]:
        target = go_type.removeprefix("*")
        if target == "meta/v1.FieldsV1":
            return _SORTED, ""
        if target in SELF_ENCODING:
            return _AS_IS, ""
        shape = self.structs.underlying(target)
        if shape in self.structs.structs:
            return _STRUCT, shape
        if shape == "[]byte":
            return _AS_IS, ""
        if shape.startswith("[]"):
            return (_LIST, shape[2:]) if self._shape(shape[2:])[0] != _AS_IS else (_AS_IS, "")
        if shape.startswith("map["):
            return _MAP, shape[shape.index("]") + 1 :]
        if shape == "interface{}":
            return _SORTED, ""
        return _AS_IS, ""

    def _plan(self, struct: str) -> _Plan:
        plan = self._plans.get(struct)
        if plan is None:
            fields = self.structs.fields_in_order(struct)
            plan = self._plans[struct] = _Plan(
                tuple(self._field(position, entry) for position, entry in enumerate(fields))
            )
        return plan

    def _field(self, position: int, entry: GoField) -> _Field:
        layout, inner = self._shape(entry.go_type)
        if not entry.omitempty or is_struct(self.structs, entry.go_type):
            empty = _KEPT
        else:
            empty = _NIL if entry.pointer else _FALSY
        return (entry.json_name, entry.go_type, position, layout, inner, empty)

    def struct(self, struct: str, obj: Any, previous: Any) -> Any:
        """A struct's value: the same dict when it is laid out already, which costs a look at each of
        its keys (not at each field the struct declares)."""
        if not isinstance(obj, dict):
            return obj
        plan = self._plans.get(struct) or self._plan(struct)
        by_name = plan.by_name
        old = previous if isinstance(previous, dict) else None
        changed: dict[str, Any] | None = None
        last = -1
        for key, value in obj.items():
            field = by_name.get(key)
            if field is None:
                return self._rebuilt(plan, obj, old)
            _, _, position, layout, inner, empty = field
            if position < last or (empty == _FALSY and not value) or (empty == _NIL and value is None):
                return self._rebuilt(plan, obj, old)
            last = position
            if layout == _AS_IS:
                continue
            before = old.get(key) if old is not None else None
            if value is before:
                continue
            laid_out = self.value(layout, inner, value, before)
            if laid_out is not value:
                if changed is None:
                    changed = {}
                changed[key] = laid_out
        if not plan.required <= obj.keys():
            return self._rebuilt(plan, obj, old)
        if changed is None:
            return obj
        return {key: changed.get(key, value) for key, value in obj.items()}

    def _rebuilt(self, plan: _Plan, obj: dict[str, Any], old: dict[str, Any] | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, go_type, _, layout, inner, empty in plan.fields:
            if key not in obj:
                if empty == _KEPT:
                    out[key] = zero(self.structs, go_type)
                continue
            value = obj[key]
            if layout != _AS_IS and (old is None or value is not old.get(key)):
                value = self.value(layout, inner, value, old.get(key) if old is not None else None)
            if (empty == _FALSY and not value) or (empty == _NIL and value is None):
                continue
            out[key] = value
        return out

    def value(self, layout: int, inner: str, value: Any, previous: Any) -> Any:
        if layout == _STRUCT:
            return self.struct(inner, value, previous)
        if layout == _SORTED:
            return sorted_deeply(value)
        if layout == _LIST:
            if not isinstance(value, list):
                return value
            element_layout, element_inner = self._shape(inner)
            old = previous if isinstance(previous, list) and len(previous) == len(value) else None
            out = [
                item
                if old is not None and item is old[index]
                else self.value(element_layout, element_inner, item, old[index] if old is not None else None)
                for index, item in paused(enumerate(value), len(value))
            ]
            return value if all(a is b for a, b in paused(zip(out, value, strict=True), len(out))) else out
        if layout == _MAP:
            if not isinstance(value, dict):
                return value
            element_layout, element_inner = self._shape(inner)
            keys = list(value)
            in_order = all(a <= b for a, b in paused(itertools.pairwise(keys), len(keys)))
            ordered = keys if in_order else sorted_in_slices(keys)
            stored: dict[str, Any] = previous if isinstance(previous, dict) else {}
            items = {
                key: value[key]
                if element_layout == _AS_IS or value[key] is stored.get(key)
                else self.value(element_layout, element_inner, value[key], stored.get(key))
                for key in paused(ordered, len(ordered))
            }
            same = ordered is keys and all(items[key] is value[key] for key in paused(keys, len(keys)))
            return value if same else items
        return value


@functools.cache
def _layout(structs: GoStructs) -> _Layout:
    return _Layout(structs)
