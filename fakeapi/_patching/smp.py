"""Strategic merge patch as kube-apiserver applies it to built-in kinds: ``StrategicMergeMapPatch``.

A transcription of the apply half of k8s.io/apimachinery ``pkg/util/strategicpatch/patch.go`` as it
is in 1.32 (``mergeMap``, ``mergePatchIntoOriginal``, ``mergeSlice`` and their helpers, with the fixes
that drop directives from values taken whole, #117568, and that honour ``$deleteFromPrimitiveList``
whatever the field's strategy, #110472), the error texts of ``pkg/util/mergepatch/errors.go``, and the
mapping of those errors to responses in apiserver ``handlers/patch.go`` ``interpretStrategicMergePatchError``.

Go details kept on purpose, because they decide results:

- values have Go's dynamic types: an integer is an int64, any other number a float64, and the two
  never compare equal, so a merge key ``80.0`` does not match a stored ``80``;
- a merged list is ordered by ``sort.SliceStable`` with the library's comparator (which is not a
  strict order), so the sort algorithm itself is reproduced; without ``$setElementOrder`` an item
  new to the list lands before the items only the server had;
- ``deleteMatchingEntries`` shifts the live list in place and appends reuse the room it frees, which
  the later ordering step still reads through its old view of the list;
- ``==`` between two maps or two lists, and a map or list used as a map key, panic in Go: those
  raise :class:`StrategicMergePanic`.

Go visits the keys of a patch map in random order; this module visits them in the patch's order,
which picks one of the results (or errors) Go may give when a patch's keys interact.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from fakeapi._patching.lazynode import NIL_POINTER_DEREFERENCE, GoPanic, deep_recursion
from fakeapi._patching.patchmeta import MERGE, REPLACE, PatchMeta

__all__ = [
    "BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST",
    "BAD_PATCH_FORMAT_FOR_RETAIN_KEYS",
    "BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST",
    "GENERIC_UNPROCESSABLE",
    "INVALID_JSON_DOCUMENT",
    "NO_LIST_OF_LISTS",
    "PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS",
    "UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT",
    "StrategicMergeError",
    "StrategicMergePanic",
    "strategic_merge_patch",
]

INVALID_JSON_DOCUMENT = "invalid JSON document"
NO_LIST_OF_LISTS = "lists of lists are not supported"
BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST = "invalid patch format of primitive list"
BAD_PATCH_FORMAT_FOR_RETAIN_KEYS = "invalid patch format of retainKeys"
BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST = "invalid patch format of setElementOrder list"
PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS = "patch content doesn't match retainKeys list"
UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT = "strategic merge patch format is not supported"
GENERIC_UNPROCESSABLE = "the server rejected our request due to an error in our request"
"""``NewGenericServerResponse(422, ...)``'s message; the library's own text is not shown."""

_BAD_REQUEST = frozenset(
    {
        INVALID_JSON_DOCUMENT,
        BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST,
        BAD_PATCH_FORMAT_FOR_RETAIN_KEYS,
        BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST,
        UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT,
    }
)
_UNPROCESSABLE = frozenset({NO_LIST_OF_LISTS, PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS})

_DIRECTIVE = "$patch"
_DELETE = "delete"
_RETAIN_KEYS = "$retainKeys"
_DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
_SET_ELEMENT_ORDER = "$setElementOrder"

_MAP = "map[string]interface {}"
_SLICE = "[]interface {}"


class StrategicMergeError(Exception):
    """``StrategicMergeMapPatch`` failed; ``code``, ``reason`` and ``message`` are the apiserver's Status.

    400 ``BadRequest`` with the library's text for the malformed-directive sentinels, 422 ``Invalid``
    with :data:`GENERIC_UNPROCESSABLE` (details ``{}``) for lists of lists, and for anything else the
    raw error: 500 with an empty reason and the Go text as message. ``go_error`` is the Go text always.
    """

    def __init__(self, go_error: str) -> None:
        self.go_error = go_error
        if go_error in _BAD_REQUEST:
            self.code, self.reason, self.message = 400, "BadRequest", go_error
        elif go_error in _UNPROCESSABLE:
            self.code, self.reason, self.message = 422, "Invalid", GENERIC_UNPROCESSABLE
        else:
            self.code, self.reason, self.message = 500, "", go_error
        super().__init__(self.message)


class StrategicMergePanic(StrategicMergeError, GoPanic):
    """A Go runtime panic inside the library (``message`` is the panic value).

    The apiserver recovers it in its filter chain and answers 500 without a Status: the panic text
    only reaches its log.
    """


def strategic_merge_patch(original: dict[str, Any], patch: dict[str, Any], meta: PatchMeta) -> dict[str, Any]:
    """``StrategicMergeMapPatch(original, patch, &<kind>{})``; neither argument is modified."""
    with deep_recursion():
        return _merge_map(_clone(original), _clone(patch), meta)


def _clone(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clone(item) for item in value]
    return value


# Go values: dynamic types, ==, map keys, and fmt's %v / %s.


def _go_type(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return _MAP
    if isinstance(value, list):
        return _SLICE
    raise TypeError(f"not a decoded JSON value: {value!r}")


def _go_equal(left: Any, right: Any) -> bool:
    """``left == right`` on two ``interface{}`` values."""
    kind = _go_type(left)
    if kind != _go_type(right):
        return False
    if kind in (_MAP, _SLICE):
        raise StrategicMergePanic(f"runtime error: comparing uncomparable type {kind}")
    return kind is None or bool(left == right)


def _go_key(value: Any) -> tuple[str | None, Any]:
    """The value as a key of a ``map[interface{}]...``."""
    kind = _go_type(value)
    if kind in (_MAP, _SLICE):
        raise StrategicMergePanic(f"runtime error: hash of unhashable type {kind}")
    return kind, value


def _is_string(value: Any, text: str) -> bool:
    return isinstance(value, str) and value == text


def _format_float(value: float) -> str:
    """``%v`` of a float64: ``strconv.FormatFloat(f, 'g', -1, 64)``, exponent form from 1e+06 and below 1e-04."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    decimal = Decimal(repr(abs(value))).normalize()
    _, digit_tuple, exponent = decimal.as_tuple()
    digits = "".join(map(str, digit_tuple))
    point = len(digits) + int(exponent)
    if point - 1 < -4 or point - 1 >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        power = point - 1
        return f"{sign}{mantissa}e{'+' if power >= 0 else '-'}{abs(power):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _format(value: Any, verb: str = "v", nested: bool = False) -> str:
    """``fmt.Sprintf("%v")`` (or ``%s``) of a decoded JSON value: ``map[k:v]`` with sorted keys, ``[a b]``."""
    if value is None:
        return "<nil>" if verb == "v" or nested else f"%!{verb}(<nil>)"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        members = (f"{_format(key, verb, True)}:{_format(value[key], verb, True)}" for key in sorted(value))
        return "map[" + " ".join(members) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_format(item, verb, True) for item in value) + "]"
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        text = str(value)
    else:
        text = _format_float(value)
    return text if verb == "v" else f"%!{verb}({_go_type(value)}={text})"


def _type_name(value: Any) -> str:
    """``%s`` of ``reflect.TypeOf(value)``."""
    kind = _go_type(value)
    return "%!s(<nil>)" if kind is None else kind


def _no_merge_key(item: dict[str, Any], merge_key: str) -> StrategicMergeError:
    return StrategicMergeError(f"map: {_format(item)} does not contain declared merge key: {merge_key}")


def _bad_arg_type(expected: str, actual: Any) -> StrategicMergeError:
    return StrategicMergeError(f"expected a {expected}, but received a {_type_name(actual)}")


def _bad_patch_type(directive: Any, item: dict[str, Any]) -> StrategicMergeError:
    return StrategicMergeError(f"unknown patch type: {_format(directive, 's')} in map: {_format(item)}")


# mergeMap and the directives of a map.


def _merge_map(original: dict[str, Any], patch: dict[str, Any], meta: PatchMeta) -> dict[str, Any]:
    if _DIRECTIVE in patch:
        return _map_directive(patch[_DIRECTIVE], patch)
    _apply_retain_keys(original, patch)
    _merge_ordered_lists(original, patch, meta)
    for patch_key, value in list(patch.items()):
        key, is_delete_list = patch_key, False
        if patch_key.startswith(_DELETE_FROM_PRIMITIVE_LIST):
            key = _extract_key(patch_key, _DELETE_FROM_PRIMITIVE_LIST) or patch_key
            is_delete_list = True
        if value is None:
            original.pop(key, None)
            continue
        if key not in original or _go_type(original[key]) != _go_type(value):
            if not is_delete_list:
                _take_whole(original, key, value)
            continue
        current = original[key]
        if isinstance(current, dict):
            field = meta.field(key)
            if field.strategy == REPLACE:
                original[key] = value
            else:
                original[key] = _merge_map(current, value, meta.child(key))
        elif isinstance(current, list):
            field = meta.field(key)
            original[key] = _merge_list_field(
                current, value, meta.child(key), field.strategy, field.merge_key, field.item_kind, is_delete_list
            )
        else:
            original[key] = value
    return original


def _take_whole(original: dict[str, Any], key: str, value: Any) -> None:
    """A value with nothing to merge into: nulls inside objects and directive-bearing maps go."""
    _discard_nulls(value)
    kept, keep = _remove_directives(value)
    if keep:
        original[key] = kept
    else:
        original.pop(key, None)


def _map_directive(directive: Any, patch: dict[str, Any]) -> dict[str, Any]:
    """``handleDirectiveInMergeMap``: ``replace`` keeps the patch as it is, ``delete`` leaves an empty map."""
    if _is_string(directive, REPLACE):
        del patch[_DIRECTIVE]
        return patch
    if _is_string(directive, _DELETE):
        return {}
    raise _bad_patch_type(directive, patch)


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    if _RETAIN_KEYS not in patch:
        return
    retain = patch.pop(_RETAIN_KEYS)
    if not isinstance(retain, list):
        raise StrategicMergeError(BAD_PATCH_FORMAT_FOR_RETAIN_KEYS)
    kept = {_go_key(item) for item in retain}
    for key, value in patch.items():
        if value is None or key.startswith((_DELETE_FROM_PRIMITIVE_LIST, _SET_ELEMENT_ORDER)):
            continue
        if ("string", key) not in kept:
            raise StrategicMergeError(BAD_PATCH_FORMAT_FOR_RETAIN_KEYS)
    for key in [key for key in original if ("string", key) not in kept]:
        del original[key]


def _extract_key(key: str, prefix: str) -> str:
    head, slash, rest = key.partition("/")
    if not slash or head != prefix:
        if prefix == _DELETE_FROM_PRIMITIVE_LIST:
            raise StrategicMergeError(BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST)
        raise StrategicMergeError(BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST)
    return rest


def _discard_nulls(value: Any) -> None:
    if isinstance(value, dict):
        for key in list(value):
            if value[key] is None:
                del value[key]
            else:
                _discard_nulls(value[key])
    elif isinstance(value, list):
        for item in value:
            _discard_nulls(item)


def _remove_directives(value: Any) -> tuple[Any, bool]:
    if isinstance(value, dict):
        if _DIRECTIVE in value:
            return None, False
        for key in list(value):
            kept, keep = _remove_directives(value[key])
            if keep:
                value[key] = kept
            else:
                del value[key]
        return value, True
    if isinstance(value, list):
        items = []
        for item in value:
            kept, keep = _remove_directives(item)
            if keep:
                items.append(kept)
        return items, True
    return value, True


# mergePatchIntoOriginal: $setElementOrder and the list it orders.


def _merge_ordered_lists(original: dict[str, Any], patch: dict[str, Any], meta: PatchMeta) -> None:
    for directive_key in list(patch):
        if not directive_key.startswith(_SET_ELEMENT_ORDER) or directive_key not in patch:
            continue
        order = patch.pop(directive_key)
        if not isinstance(order, list):
            raise _bad_arg_type(_SLICE, order)
        key = _extract_key(directive_key, _SET_ELEMENT_ORDER)
        live = original.get(key)
        patch_list = patch.get(key)
        if key in original and not isinstance(live, list):
            raise _bad_arg_type(_SLICE, live)
        if key in patch and not isinstance(patch_list, list):
            raise _bad_arg_type(_SLICE, patch_list)
        live_items: list[Any] = live if isinstance(live, list) else []
        patch_items: list[Any] = patch_list if isinstance(patch_list, list) else []
        field = meta.field(key)
        _check_order(patch_items, order, field.merge_key)
        if key in original and key not in patch:
            merged = live_items
        elif key in patch and key not in original:
            merged = _remove_directives(patch_items)[0]
        elif key in original:
            merged = _merge_list_field(
                live_items, patch_items, meta.child(key), field.strategy, field.merge_key, field.item_kind, False
            )
        else:
            continue
        if field.merge_key:
            in_order, server_only = _partition_maps(merged, order, field.merge_key)
        else:
            in_order, server_only = _partition_primitives(merged, order)
        kind = _element_type(live_items, patch_items)
        original[key] = _normalize_order(in_order, server_only, order, live_items, field.merge_key, kind)
        patch.pop(key, None)


def _check_order(patch_items: list[Any], order: list[Any], merge_key: str) -> None:
    """``validatePatchWithSetOrderList``: the patch's items appear in the directive's order."""
    if not order or not patch_items:
        return
    items = _split_deletions(patch_items)[0] if merge_key else patch_items
    at_item = at_order = 0
    while at_item < len(items) and at_order < len(order):
        if isinstance(items[at_item], dict) and _DIRECTIVE in items[at_item]:
            at_item += 1
            continue
        if _merge_key_equal(items[at_item], order[at_order], merge_key):
            at_item += 1
        at_order += 1
    if at_item < len(items) and at_order >= len(order):
        raise StrategicMergeError(
            f"The order in patch list:\n{_format(patch_items)}\n doesn't match {_SET_ELEMENT_ORDER} list:\n"
            f"{_format(order)}\n"
        )


def _merge_key_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return _go_equal(left, right)
    if not isinstance(left, dict):
        raise _bad_arg_type(_MAP, left)
    if not isinstance(right, dict):
        raise _bad_arg_type(_MAP, right)
    if merge_key not in left:
        raise _no_merge_key(left, merge_key)
    if merge_key not in right:
        raise _no_merge_key(right, merge_key)
    return _go_equal(left[merge_key], right[merge_key])


# mergeSliceHandler, mergeSlice.


def _merge_list_field(
    live: list[Any],
    patch: list[Any],
    item_meta: PatchMeta,
    strategy: str,
    merge_key: str,
    item_kind: str,
    is_delete_list: bool,
) -> list[Any]:
    if strategy == MERGE or is_delete_list:
        return _merge_list(live, patch, item_meta, merge_key, item_kind, is_delete_list)
    return patch


def _merge_list(
    live: list[Any], patch: list[Any], item_meta: PatchMeta, merge_key: str, item_kind: str, is_delete_list: bool
) -> list[Any]:
    """``mergeSlice``. ``live`` is the document's own list: Go's backing array, which deletions shift."""
    if not live and not patch:
        return live
    kind = _element_type(live, patch)
    if kind != _MAP:
        if is_delete_list:
            return _delete_from_list(live, patch)
        base = live
        merged = _deduplicate(live + patch)
    else:
        if not merge_key:
            raise StrategicMergeError(f"cannot merge lists without merge key for {item_kind}")
        base, patch, replaced = _apply_item_directives(live, patch, merge_key)
        merged = _merge_items(base, None if replaced else live, patch, item_meta, merge_key)
    if merge_key:
        in_patch, server_only = _partition_maps(merged, patch, merge_key)
    else:
        in_patch, server_only = _partition_primitives(merged, patch)
    return _normalize_order(in_patch, server_only, patch, base, merge_key, kind)


def _element_type(*lists: list[Any]) -> str:
    """``sliceElementType``: the one Go type of every item, which must not be a list."""
    found: str | None = None
    for items in lists:
        for item in items:
            kind = _go_type(item)
            if found is None:
                if kind is None:
                    raise StrategicMergePanic(NIL_POINTER_DEREFERENCE)
                found = kind
                if kind == _SLICE:
                    raise StrategicMergeError(NO_LIST_OF_LISTS)
            elif kind != found:
                raise StrategicMergeError(f"list element types are not identical: {_format(list(lists))}")
    if found is None:
        raise StrategicMergeError("no elements in any of the given slices")
    return found


def _delete_from_list(live: list[Any], deletions: list[Any]) -> list[Any]:
    doomed = {_go_key(item) for item in deletions}
    return [item for item in live if _go_key(item) not in doomed]


def _deduplicate(items: list[Any]) -> list[Any]:
    """``deduplicateScalars``: a later duplicate is overwritten by the last item, so order changes."""
    last = len(items) - 1
    i = 0
    while i < last:
        j = i + 1
        while j <= last:
            if _go_equal(items[i], items[j]):
                items[j] = items[last]
                del items[last]
                last -= 1
                j -= 1
            j += 1
        i += 1
    return items


def _apply_item_directives(live: list[Any], patch: list[Any], merge_key: str) -> tuple[list[Any], list[Any], bool]:
    """``mergeSliceWithSpecialElements``: the live list after ``$patch`` items, the patch without them, and
    whether a ``replace`` item made the patch's other items the list."""
    length = len(live)
    plain: list[Any] = []
    replace = False
    for item in patch:
        if _DIRECTIVE not in item:
            plain.append(item)
            continue
        directive = item[_DIRECTIVE]
        if _is_string(directive, _DELETE):
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            length = _delete_matching(live, length, merge_key, item[merge_key])
        elif _is_string(directive, REPLACE):
            replace = True
        elif _is_string(directive, MERGE):
            raise StrategicMergeError("merging lists cannot yet be specified in the patch")
        else:
            raise _bad_patch_type(directive, item)
    if replace:
        return plain, [], True
    return live[:length], plain, False


def _delete_matching(backing: list[Any], length: int, merge_key: str, value: Any) -> int:
    """``deleteMatchingEntries``: ``append(s[:i], s[i+1:]...)`` shifts the array left; its tail keeps a stale copy."""
    while (index := _find_by_key(backing[:length], merge_key, value)) is not None:
        backing[index : length - 1] = backing[index + 1 : length]
        length -= 1
    return length


def _find_by_key(items: list[Any], merge_key: str, value: Any) -> int | None:
    """``findMapInSliceBasedOnKeyValue``."""
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise StrategicMergeError(f"value for key {index} is not a map")
        if merge_key in item and _go_equal(item[merge_key], value):
            return index
    return None


def _merge_items(
    base: list[Any], backing: list[Any] | None, patch: list[Any], item_meta: PatchMeta, merge_key: str
) -> list[Any]:
    """``mergeSliceWithoutSpecialElements``: each patch item merges into the item with its key, or is appended.

    Go's slice still lives in ``backing`` (the document's list, whose capacity is its length) until an
    append outgrows it, so appends first overwrite the stale tail that deletions left there.
    """
    items = list(base)
    for item in patch:
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        index = _find_by_key(items, merge_key, item[merge_key])
        if index is not None:
            items[index] = _merge_map(items[index], item, item_meta)
            continue
        if backing is not None and len(items) < len(backing):
            backing[len(items)] = item
        else:
            backing = None
        items.append(item)
    return items


def _partition_primitives(items: list[Any], by: list[Any]) -> tuple[list[Any], list[Any]]:
    wanted = {_go_key(item) for item in by}
    inside: list[Any] = []
    outside: list[Any] = []
    for item in items:
        (inside if _go_key(item) in wanted else outside).append(item)
    return inside, outside


def _partition_maps(items: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    inside: list[Any] = []
    outside: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise _bad_arg_type(_MAP, item)
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        found = _find_by_key(by, merge_key, item[merge_key]) is not None
        (inside if found else outside).append(item)
    return inside, outside


# normalizeElementOrder: the patch's items in the patch's order, the server's in the server's.


def _normalize_order(
    in_patch: list[Any],
    server_only: list[Any],
    patch_order: list[Any],
    server_order: list[Any],
    merge_key: str,
    kind: str,
) -> list[Any]:
    in_patch = _sort_by(in_patch, patch_order, merge_key, kind)
    server_only = _sort_by(server_only, server_order, merge_key, kind)
    return _merge_sorted(server_only, in_patch, server_order, merge_key, kind)


def _index(items: list[Any], wanted: Any, merge_key: str, kind: str) -> int:
    def value_of(item: Any) -> Any:
        if kind != _MAP:
            return item
        return item.get(merge_key) if isinstance(item, dict) else None

    for position, item in enumerate(items):
        if _go_equal(value_of(wanted), value_of(item)):
            return position
    return -1


def _split_deletions(items: list[Any]) -> tuple[list[Any], list[Any]]:
    """``extractToDeleteItems``."""
    keep: list[Any] = []
    delete: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise _bad_arg_type(_MAP, item)
        (delete if _is_string(item.get(_DIRECTIVE), _DELETE) else keep).append(item)
    return keep, delete


def _sort_by(items: list[Any], order: list[Any], merge_key: str, kind: str) -> list[Any]:
    """``normalizeSliceOrder``: items found in ``order`` sort by it; the comparator calls any other item smaller."""
    deletions: list[Any] = []
    if kind == _MAP:
        for item in [*items, *order]:
            if not isinstance(item, dict):
                raise _bad_arg_type(_MAP, item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
        items, deletions = _split_deletions(items)
    else:
        items = list(items)

    def less(left: Any, right: Any) -> bool:
        left_at = _index(order, left, merge_key, kind)
        if left_at >= 0:
            right_at = _index(order, right, merge_key, kind)
            if right_at >= 0:
                return left_at < right_at
        return True

    _stable_sort(items, less)
    return items + deletions


def _merge_sorted(left: list[Any], right: list[Any], server_order: list[Any], merge_key: str, kind: str) -> list[Any]:
    """``mergeSortedSlice``: a ``left`` item goes first only when both are in ``server_order`` and it comes earlier."""
    merged: list[Any] = []
    i = j = 0
    while i < len(left) and j < len(right):
        left_at = _index(server_order, left[i], merge_key, kind)
        right_at = _index(server_order, right[j], merge_key, kind)
        if left_at >= 0 and right_at >= 0 and left_at < right_at:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


def _stable_sort(items: list[Any], less: Callable[[Any, Any], bool]) -> None:
    """Go's ``sort.SliceStable`` (insertion sort in blocks of 20, then SymMerge), step for step."""

    def lt(i: int, j: int) -> bool:
        return less(items[i], items[j])

    def swap(i: int, j: int) -> None:
        items[i], items[j] = items[j], items[i]

    def insertion_sort(a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and lt(j, j - 1):
                swap(j, j - 1)
                j -= 1

    def swap_range(a: int, b: int, n: int) -> None:
        for i in range(n):
            swap(a + i, b + i)

    def rotate(a: int, m: int, b: int) -> None:
        i, j = m - a, b - m
        while i != j:
            if i > j:
                swap_range(m - i, m, j)
                i -= j
            else:
                swap_range(m - i, m + j - i, i)
                j -= i
        swap_range(m - i, m, i)

    def sym_merge(a: int, m: int, b: int) -> None:
        if m - a == 1:
            i, j = m, b
            while i < j:
                h = (i + j) // 2
                if lt(h, a):
                    i = h + 1
                else:
                    j = h
            for k in range(a, i - 1):
                swap(k, k + 1)
            return
        if b - m == 1:
            i, j = a, m
            while i < j:
                h = (i + j) // 2
                if not lt(m, h):
                    i = h + 1
                else:
                    j = h
            for k in range(m, i, -1):
                swap(k, k - 1)
            return
        mid = (a + b) // 2
        n = mid + m
        if m > mid:
            start, r = n - b, mid
        else:
            start, r = a, m
        p = n - 1
        while start < r:
            c = (start + r) // 2
            if not lt(p - c, c):
                start = c + 1
            else:
                r = c
        end = n - start
        if start < m < end:
            rotate(start, m, end)
        if a < start < mid:
            sym_merge(a, start, mid)
        if mid < end < b:
            sym_merge(mid, end, b)

    n = len(items)
    block = 20
    a, b = 0, block
    while b <= n:
        insertion_sort(a, b)
        a, b = b, b + block
    insertion_sort(a, n)
    while block < n:
        a, b = 0, 2 * block
        while b <= n:
            sym_merge(a, a + block, b)
            a, b = b, b + 2 * block
        if a + block < n:
            sym_merge(a, a + block, n)
        block *= 2
