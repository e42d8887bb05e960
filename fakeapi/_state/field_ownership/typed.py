"""Walks over an object with its schema, as structured-merge-diff v4.4.2's ``typed`` package does them.

- :func:`field_set` is ``TypedValue.ToFieldSet`` (``typed/tofieldset.go``): every scalar, every
  atomic list or map, every element of a set or map list, and every map entry that is not a
  struct field (or is null or an empty map) is a member.
- :func:`compare` is ``TypedValue.Compare`` (``typed/compare.go``): the paths the new object
  added, removed and modified; a map or list that appears or disappears is itself added or
  removed, so an owner of its fields also owns it (``".": {}`` in ``fieldsV1``).
- :func:`merge` is ``TypedValue.Merge`` (``typed/merge.go``): maps merge per field, set and map
  lists per element (in ``visitListItems``' order), everything else the applied value replaces.
- :func:`remove_items` is ``TypedValue.RemoveItems`` (``typed/remove.go``), and
  :func:`with_named_fields` ``Set.EnsureNamedFieldsAreMembers`` (``fieldpath/set.go``).

Two subtrees that are the same Python object are equal, so :func:`compare` skips them: a write
costs what it changed, not the size of the object.
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.slices import paused
from fakeapi._state.field_ownership.fieldpath import Element, FieldSet, Path, frozen, path_text
from fakeapi._state.field_ownership.schema import DEDUCED, Atom, ListType, MapType

__all__ = [
    "ABSENT",
    "TypedError",
    "compare",
    "conversion_refused",
    "field_set",
    "list_errors",
    "merge",
    "remove_items",
    "with_named_fields",
]


class _Absent:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()

# Below this many path elements a subtree is owned, compared and merged as one field: paths are
# tuples, so tracking every level of a document thousands of levels deep would cost the square of
# its depth (docs/server-side-apply.md says where this departs from the apiserver).
MAX_TRACKED_DEPTH = 128


class TypedError(Exception):
    """What structured-merge-diff refuses in an object: a list element without its key, a duplicate."""


def _shape(atom: Atom, value: Any) -> str:
    """``deduceAtom`` then ``handleAtom``: which of the atom's parts handles this value."""
    if isinstance(value, bool | int | float | str) and atom.scalar:
        return "scalar"
    if isinstance(value, list) and atom.list is not None:
        return "list"
    if isinstance(value, dict) and atom.map is not None:
        return "map"
    if atom.map is not None:
        return "map"
    if atom.scalar:
        return "scalar"
    return "list" if atom.list is not None else "scalar"


def _field_atom(map_type: MapType, key: str) -> tuple[Atom, bool]:
    found = map_type.fields.get(key)
    if found is not None:
        return found, True
    return (map_type.element or DEDUCED), False


def element_of(list_type: ListType, item: Any) -> Element:
    """``listItemToPathElement``: a map list's element by its key fields, a set's by its value."""
    if list_type.keys:
        if item is None:
            raise TypedError("associative list with keys may not have a null element")
        if not isinstance(item, dict):
            raise TypedError("associative list with keys may not have non-map elements")
        key: list[tuple[str, Any]] = []
        for name in list_type.keys:
            if name in item:
                key.append((name, frozen(item[name])))
            elif name in list_type.key_defaults:
                key.append((name, frozen(list_type.key_defaults[name])))
            else:
                raise TypedError(
                    f'associative list with keys has an element that omits key field "{name}" '
                    "(and doesn't have default value)"
                )
        return ("k", tuple(sorted(key)))
    if isinstance(item, dict):
        raise TypedError("associative list without keys has an element that's a map type")
    if isinstance(item, list):
        raise TypedError("associative list without keys has an element that's a list type")
    return ("v", frozen(item))


def _elements(list_type: ListType, items: list[Any], path: Path) -> list[tuple[Element, Any]]:
    out = []
    for index, item in enumerate(items):
        try:
            out.append((element_of(list_type, item), item))
        except TypedError as error:
            raise TypedError(f"{path_text(path)}: element {index}: {error}") from None
    return out


# -- Validate (the list rules only) -------------------------------------------------------------


def list_errors(value: Any, atom: Atom) -> list[str]:
    """``TypedValue.Validate``'s complaints about lists, each as ``ValidationError.Error`` writes it.

    ``typed/validate.go``: a set or map list element that gives no path element stops that list
    (``element <i>: ...``), a repeated key is ``duplicate entries for key [name="a"]``; the path
    is where the list is, in ``PathElement.String`` spelling (``[0]`` for an atomic list's items).
    """
    errors: list[str] = []
    _validate(value, atom, "", errors)
    return errors


def conversion_refused(value: Any, atom: Atom) -> bool:
    """Whether ``ObjectToTyped`` refuses ``value``: a list error, or a field its struct does not
    declare (``field not declared in schema``); scalar types are not checked."""
    errors: list[str] = []
    _validate(value, atom, "", errors, declared_only=True)
    return bool(errors)


def _validate(
    value: Any, atom: Atom, where: str, errors: list[str], depth: int = 0, *, declared_only: bool = False
) -> None:
    if depth >= MAX_TRACKED_DEPTH:
        return
    shape = _shape(atom, value)
    if shape == "list" and isinstance(value, list):
        list_type = atom.list
        assert list_type is not None
        child = list_type.element or DEDUCED
        seen: set[Element] = set()
        for index, item in paused(enumerate(value), len(value)):
            if list_type.atomic:
                _validate(item, child, f"{where}[{index}]", errors, depth + 1, declared_only=declared_only)
                continue
            try:
                element = element_of(list_type, item)
            except TypedError as error:
                errors.append(f"{where}: element {index}: {error}" if where else f"element {index}: {error}")
                return
            if element in seen:
                message = f"duplicate entries for key {path_text((element,))}"
                errors.append(f"{where}: {message}" if where else message)
            seen.add(element)
            _validate(item, child, where + path_text((element,)), errors, depth + 1, declared_only=declared_only)
    elif shape == "map" and isinstance(value, dict):
        map_type = atom.map
        assert map_type is not None
        for key, item in paused(value.items(), len(value)):
            child, declared = _field_atom(map_type, key)
            if declared_only and not declared and map_type.element is None:
                errors.append(f"{where}.{key}: field not declared in schema")
                return
            _validate(item, child, f"{where}.{key}", errors, depth + 1, declared_only=declared_only)


# -- ToFieldSet ----------------------------------------------------------------------------------


def field_set(value: Any, atom: Atom, path: Path = ()) -> FieldSet:
    out: FieldSet = set()
    _to_set(value, atom, path, out)
    return out


def _to_set(value: Any, atom: Atom, path: Path, out: FieldSet) -> None:
    shape = _shape(atom, value)
    if shape == "scalar" or len(path) >= MAX_TRACKED_DEPTH:
        out.add(path)
        return
    if shape == "list":
        list_type = atom.list
        assert list_type is not None
        if list_type.atomic:
            out.add(path)
            return
        if not isinstance(value, list):
            return
        elements = _elements(list_type, value, path)
        seen: set[Element] = set()
        duplicates: set[Element] = set()
        for element, _ in elements:
            if element in seen and element not in duplicates:
                out.add((*path, element))
                duplicates.add(element)
            seen.add(element)
        child = list_type.element or DEDUCED
        for element, item in paused(elements, len(elements)):
            if element not in duplicates:
                _to_set(item, child, (*path, element), out)
                out.add((*path, element))
        return
    map_type = atom.map
    assert map_type is not None
    if map_type.atomic:
        out.add(path)
        return
    if not isinstance(value, dict):
        return
    for key, item in paused(value.items(), len(value)):
        child, declared = _field_atom(map_type, key)
        below = (*path, ("f", key))
        _to_set(item, child, below, out)
        if item is None or (isinstance(item, dict) and not item) or not declared:
            out.add(below)


# -- Compare -------------------------------------------------------------------------------------


def equal(a: Any, b: Any) -> bool:
    """``value.Equals``: a boolean is never a number."""
    if a is b:
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(item, b[key]) for key, item in a.items())
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return False
    return bool(a == b) and (a is None) == (b is None)


class Comparison:
    __slots__ = ("added", "modified", "removed")

    def __init__(self) -> None:
        self.added: FieldSet = set()
        self.removed: FieldSet = set()
        self.modified: FieldSet = set()


def compare(lhs: Any, rhs: Any, atom: Atom) -> Comparison:
    result = Comparison()
    _compare(lhs, rhs, atom, (), result)
    return result


def _compare(lhs: Any, rhs: Any, atom: Atom, path: Path, out: Comparison) -> None:
    if lhs is rhs:
        return
    left = _shape(atom, lhs) if lhs is not ABSENT else ""
    right = _shape(atom, rhs) if rhs is not ABSENT else ""
    if rhs is ABSENT:
        in_leaf = _compare_shape(left, lhs, rhs, atom, path, out)
    elif lhs is ABSENT or left == right:
        in_leaf = _compare_shape(right, lhs, rhs, atom, path, out)
    else:
        _compare_shape(left, lhs, rhs, atom, path, out)
        in_leaf = _compare_shape(right, lhs, rhs, atom, path, out)
    if not in_leaf:
        if lhs is ABSENT:
            out.added.add(path)
        elif rhs is ABSENT:
            out.removed.add(path)


def _leaf(lhs: Any, rhs: Any, path: Path, out: Comparison) -> bool:
    if lhs is ABSENT:
        out.added.add(path)
    elif rhs is ABSENT:
        out.removed.add(path)
    elif not equal(lhs, rhs):
        out.modified.add(path)
    return True


def _compare_shape(shape: str, lhs: Any, rhs: Any, atom: Atom, path: Path, out: Comparison) -> bool:
    if shape == "scalar" or len(path) >= MAX_TRACKED_DEPTH:
        return _leaf(lhs, rhs, path, out)
    if shape == "list":
        list_type = atom.list
        assert list_type is not None
        left = lhs if isinstance(lhs, list) else None
        right = rhs if isinstance(rhs, list) else None
        if list_type.atomic or (not left and not right):
            return _leaf(lhs, rhs, path, out)
        _compare_items(list_type, left or [], right or [], path, out)
        return False
    map_type = atom.map
    assert map_type is not None
    left_map = lhs if isinstance(lhs, dict) else None
    right_map = rhs if isinstance(rhs, dict) else None
    if map_type.atomic or (not left_map and not right_map):
        return _leaf(lhs, rhs, path, out)
    left_map, right_map = left_map or {}, right_map or {}
    for key, item in paused(left_map.items(), len(left_map)):
        other = right_map.get(key, ABSENT)
        if item is not other:
            child, _ = _field_atom(map_type, key)
            _compare(item, other, child, (*path, ("f", key)), out)
    if right_map.keys() - left_map.keys():
        for key, item in paused(right_map.items(), len(right_map)):
            if key not in left_map:
                child, _ = _field_atom(map_type, key)
                _compare(ABSENT, item, child, (*path, ("f", key)), out)
    return False


def _compare_items(list_type: ListType, lhs: list[Any], rhs: list[Any], path: Path, out: Comparison) -> None:
    left: dict[Element, list[Any]] = {}
    for element, item in _elements(list_type, lhs, path):
        left.setdefault(element, []).append(item)
    right: dict[Element, list[Any]] = {}
    for element, item in _elements(list_type, rhs, path):
        right.setdefault(element, []).append(item)
    child = list_type.element or DEDUCED
    elements = [*left, *(element for element in right if element not in left)]
    for element in paused(elements, len(elements)):
        before, after = left.get(element, []), right.get(element, [])
        below = (*path, element)
        if len(before) <= 1 and len(after) <= 1:
            _compare(before[0] if before else ABSENT, after[0] if after else ABSENT, child, below, out)
        elif len(before) >= 2 and len(after) >= 2:
            if len(before) != len(after) or not all(equal(x, y) for x, y in zip(before, after, strict=True)):
                out.modified.add(below)
        elif len(before) >= 2:
            if after:
                _compare(ABSENT, after[0], child, below, out)
            out.removed.add(below)
        else:
            if before:
                _compare(before[0], ABSENT, child, below, out)
            out.added.add(below)


# -- Merge ---------------------------------------------------------------------------------------


def merge(lhs: Any, rhs: Any, atom: Atom, path: Path = ()) -> Any:
    """The merged value, or ABSENT where structured-merge-diff leaves none."""
    left = _shape(atom, lhs) if lhs is not ABSENT else ""
    right = _shape(atom, rhs) if rhs is not ABSENT else ""
    shape = left if rhs is ABSENT else right
    if shape == "scalar" or len(path) >= MAX_TRACKED_DEPTH:
        return rhs if rhs is not ABSENT else lhs
    if shape == "list":
        list_type = atom.list
        assert list_type is not None
        left_list = lhs if isinstance(lhs, list) else None
        right_list = rhs if isinstance(rhs, list) else None
        if list_type.atomic or (not left_list and not right_list):
            return rhs if rhs is not ABSENT else lhs
        merged_list = _merge_items(list_type, left_list or [], right_list or [], path)
        return merged_list if merged_list else ABSENT
    map_type = atom.map
    assert map_type is not None
    left_map = lhs if isinstance(lhs, dict) else None
    right_map = rhs if isinstance(rhs, dict) else None
    if map_type.atomic or (not left_map and not right_map):
        return rhs if rhs is not ABSENT else lhs
    left_map, right_map = left_map or {}, right_map or {}
    merged: dict[str, Any] = {}
    keys = [*left_map, *(key for key in right_map if key not in left_map)]
    for key in paused(keys, len(keys)):
        child, _ = _field_atom(map_type, key)
        value = merge(left_map.get(key, ABSENT), right_map.get(key, ABSENT), child, (*path, ("f", key)))
        if value is not ABSENT:
            merged[key] = value
    return merged if merged else ABSENT


def _merge_items(list_type: ListType, lhs: list[Any], rhs: list[Any], path: Path) -> list[Any]:
    """``visitListItems``: the applied order, live-only elements kept where they stood."""
    right = _elements(list_type, rhs, path)
    observed_right: dict[Element, Any] = {}
    for element, item in right:
        if element in observed_right:
            raise TypedError(f"{path_text(path)}: duplicate entries for key {path_text((element,))}")
        observed_right[element] = item
    left = _elements(list_type, lhs, path)
    observed_left: dict[Element, Any] = {}
    for element, item in left:
        observed_left[element] = None if element in observed_left else item
    shared = [element for element, _ in right if element in observed_left]
    next_shared = shared.pop(0) if shared else None
    child = list_type.element or DEDUCED
    out: list[Any] = []
    merged_right: set[Element] = set()

    def merged_item(element: Element, lhs_item: Any, rhs_item: Any) -> None:
        value = merge(lhs_item, rhs_item, child, (*path, element))
        if value is not ABSENT:
            out.append(value)

    left_index = right_index = 0
    while left_index < len(left) or right_index < len(right):
        if left_index < len(left) and right_index < len(right):
            element = left[left_index][0]
            if element == right[right_index][0]:
                merged_right.add(element)
                merged_item(element, observed_left.get(element, ABSENT), observed_right[element])
                left_index += 1
                right_index += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if element in observed_right and next_shared is not None and next_shared != element:
                left_index += 1
                continue
        if left_index < len(left):
            element, item = left[left_index]
            if element not in observed_right:
                merged_item(element, item, ABSENT)
                left_index += 1
                continue
            if element in merged_right:
                left_index += 1
        if right_index < len(right):
            element = right[right_index][0]
            merged_right.add(element)
            merged_item(element, observed_left.get(element, ABSENT), right[right_index][1])
            right_index += 1
            if next_shared is not None and next_shared == element:
                next_shared = shared.pop(0) if shared else None
    return out


# -- RemoveItems and EnsureNamedFieldsAreMembers -------------------------------------------------


def _below(paths: FieldSet, element: Element) -> FieldSet:
    return {path[1:] for path in paths if len(path) > 1 and path[0] == element}


def remove_items(value: Any, paths: FieldSet, atom: Atom) -> Any:
    """``value`` without the members of ``paths`` (relative to it); emptied containers are null."""
    shape = _shape(atom, value)
    if shape == "scalar":
        return value
    if shape == "list":
        list_type = atom.list
        assert list_type is not None
        if not isinstance(value, list) or not value or list_type.atomic:
            return None
        child = list_type.element or DEDUCED
        kept: list[Any] = []
        for element, item in _elements(list_type, value, ()):
            if (element,) in paths:
                continue
            subset = _below(paths, element)
            kept.append(remove_items(item, subset, child) if subset else item)
        return kept or None
    map_type = atom.map
    assert map_type is not None
    if not isinstance(value, dict) or not value or map_type.atomic:
        return None
    out: dict[str, Any] = {}
    for key, item in value.items():
        field: Element = ("f", key)
        if (field,) in paths:
            continue
        subset = _below(paths, field)
        if subset:
            child, _ = _field_atom(map_type, key)
            out[key] = remove_items(item, subset, child)
        else:
            out[key] = item
    return out or None


def with_named_fields(paths: FieldSet, atom: Atom) -> FieldSet:
    """The set plus every struct field that has a member below it."""
    out = set(paths)
    for path in paths:
        current: Atom | None = atom
        for depth, element in enumerate(path[:-1]):
            if current is None:
                break
            map_type = current.map
            list_type = current.list
            if element[0] == "f" and map_type is not None:
                declared = map_type.fields.get(element[1])
                if declared is not None:
                    out.add(path[: depth + 1])
                    current = declared
                else:
                    current = map_type.element
            elif element[0] in ("k", "v") and list_type is not None:
                current = list_type.element
            else:
                current = None
    return out
