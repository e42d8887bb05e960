"""Strategic merge patch as kube-apiserver applies it to built-in kinds: ``StrategicMergeMapPatch``.

A transcription of the apply half of k8s.io/apimachinery ``pkg/util/strategicpatch/patch.go`` as it
is in 1.32: ``mergeMap``, ``mergePatchIntoOriginal`` and ``mergeSlice`` with their helpers, and the
fix that honours ``$deleteFromPrimitiveList`` whatever the field's strategy (#110472). The rest of
the library lives beside this module: the directives of a map (:mod:`~fakeapi._patching.smpdirectives`),
the order of a merged list (:mod:`~fakeapi._patching.smporder`), the error texts and their Status
(:mod:`~fakeapi._patching.smperrors`), and Go's view of the values (:mod:`~fakeapi._patching.govalues`).

Go details kept on purpose, because they decide results:

- values have Go's dynamic types: an integer is an int64, any other number a float64, and the two
  never compare equal, so a merge key ``80.0`` does not match a stored ``80``;
- ``deleteMatchingEntries`` shifts the live list in place and appends reuse the room it frees, which
  the later ordering step still reads through its old view of the list;
- a Go runtime panic (``==`` between two maps or two lists, a map or list used as a map key, a nil
  first item) raises :class:`StrategicMergePanic`.

Go visits the keys of a patch map in random order; this module visits them in the patch's order,
which picks one of the results (or errors) Go may give when a patch's keys interact.
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.govalues import MAP, SLICE, format_value, go_equal, go_key, go_type, is_string
from fakeapi._patching.lazynode import NIL_POINTER_DEREFERENCE, GoPanic, deep_recursion
from fakeapi._patching.patchmeta import MERGE, REPLACE, PatchMeta
from fakeapi._patching.smpdirectives import (
    DELETE,
    DELETE_FROM_PRIMITIVE_LIST,
    DIRECTIVE,
    SET_ELEMENT_ORDER,
    apply_retain_keys,
    extract_key,
    map_directive,
    remove_directives,
    take_whole,
)
from fakeapi._patching.smperrors import (
    BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST,
    BAD_PATCH_FORMAT_FOR_RETAIN_KEYS,
    BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST,
    GENERIC_UNPROCESSABLE,
    INVALID_JSON_DOCUMENT,
    NO_LIST_OF_LISTS,
    PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS,
    UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT,
    StrategicMergeError,
    StrategicMergePanic,
    bad_arg_type,
    bad_patch_type,
    no_merge_key,
)
from fakeapi._patching.smporder import check_order, normalize_order

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


def strategic_merge_patch(
    original: dict[str, Any], patch: dict[str, Any], meta: PatchMeta, *, consume_patch: bool = False
) -> dict[str, Any]:
    """``StrategicMergeMapPatch(original, patch, &<kind>{})``; ``original`` is not modified.

    ``patch`` is copied first unless ``consume_patch``: then it is left as Go leaves it (directives
    and merged lists taken out, nulls discarded from values taken whole), which is what the
    apiserver prints when the result does not convert.
    """
    try:
        with deep_recursion():
            return _merge_map(_clone(original), patch if consume_patch else _clone(patch), meta)
    except GoPanic as panic:
        raise StrategicMergePanic(str(panic)) from None


def _clone(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clone(item) for item in value]
    return value


# mergeMap and mergePatchIntoOriginal.


def _merge_map(original: dict[str, Any], patch: dict[str, Any], meta: PatchMeta) -> dict[str, Any]:
    if DIRECTIVE in patch:
        return map_directive(patch[DIRECTIVE], patch)
    apply_retain_keys(original, patch)
    _merge_ordered_lists(original, patch, meta)
    for patch_key, value in list(patch.items()):
        key, is_delete_list = patch_key, False
        if patch_key.startswith(DELETE_FROM_PRIMITIVE_LIST):
            key = extract_key(patch_key, DELETE_FROM_PRIMITIVE_LIST) or patch_key
            is_delete_list = True
        if value is None:
            original.pop(key, None)
            continue
        if key not in original or go_type(original[key]) != go_type(value):
            if not is_delete_list:
                take_whole(original, key, value)
            continue
        current = original[key]
        if isinstance(current, dict):
            child, field = meta.lookup_struct(key)
            if field.strategy() == REPLACE:
                original[key] = value
            else:
                original[key] = _merge_map(current, value, child)
        elif isinstance(current, list):
            items, field = meta.lookup_slice(key)
            original[key] = _merge_list_field(current, value, items, field.strategy(), field.merge_key, is_delete_list)
        else:
            original[key] = value
    return original


def _merge_ordered_lists(original: dict[str, Any], patch: dict[str, Any], meta: PatchMeta) -> None:
    """``mergePatchIntoOriginal``: each ``$setElementOrder`` directive and the list it orders."""
    for directive_key in list(patch):
        if not directive_key.startswith(SET_ELEMENT_ORDER) or directive_key not in patch:
            continue
        order = patch.pop(directive_key)
        if not isinstance(order, list):
            raise bad_arg_type(SLICE, order)
        key = extract_key(directive_key, SET_ELEMENT_ORDER)
        live = original.get(key)
        patch_list = patch.get(key)
        if key in original and not isinstance(live, list):
            raise bad_arg_type(SLICE, live)
        if key in patch and not isinstance(patch_list, list):
            raise bad_arg_type(SLICE, patch_list)
        live_items: list[Any] = live if isinstance(live, list) else []
        patch_items: list[Any] = patch_list if isinstance(patch_list, list) else []
        items, field = meta.lookup_slice(key)
        strategy = field.strategy()
        check_order(patch_items, order, field.merge_key)
        if key in original and key not in patch:
            merged = live_items
        elif key in patch and key not in original:
            merged = remove_directives(patch_items)[0]
        elif key in original:
            merged = _merge_list_field(live_items, patch_items, items, strategy, field.merge_key, False)
        else:
            continue
        if field.merge_key:
            in_order, server_only = _partition_maps(merged, order, field.merge_key)
        else:
            in_order, server_only = _partition_primitives(merged, order)
        kind = _element_type(live_items, patch_items)
        original[key] = normalize_order(in_order, server_only, order, live_items, field.merge_key, kind)
        patch.pop(key, None)


# mergeSliceHandler, mergeSlice.


def _merge_list_field(
    live: list[Any],
    patch: list[Any],
    item_meta: PatchMeta,
    strategy: str,
    merge_key: str,
    is_delete_list: bool,
) -> list[Any]:
    if strategy == MERGE or is_delete_list:
        return _merge_list(live, patch, item_meta, merge_key, is_delete_list)
    return patch


def _merge_list(
    live: list[Any], patch: list[Any], item_meta: PatchMeta, merge_key: str, is_delete_list: bool
) -> list[Any]:
    """``mergeSlice``. ``live`` is the document's own list: Go's backing array, which deletions shift."""
    if not live and not patch:
        return live
    kind = _element_type(live, patch)
    if kind != MAP:
        if is_delete_list:
            return _delete_from_list(live, patch)
        base = live
        merged = _deduplicate(live + patch)
    else:
        if not merge_key:
            raise StrategicMergeError(f"cannot merge lists without merge key for {item_meta.name()}")
        base, patch, replaced = _apply_item_directives(live, patch, merge_key)
        merged = _merge_items(base, None if replaced else live, patch, item_meta, merge_key)
    if merge_key:
        in_patch, server_only = _partition_maps(merged, patch, merge_key)
    else:
        in_patch, server_only = _partition_primitives(merged, patch)
    return normalize_order(in_patch, server_only, patch, base, merge_key, kind)


def _element_type(*lists: list[Any]) -> str:
    """``sliceElementType``: the one Go type of every item, which must not be a list."""
    found: str | None = None
    for items in lists:
        for item in items:
            kind = go_type(item)
            if found is None:
                if kind is None:
                    raise GoPanic(NIL_POINTER_DEREFERENCE)
                found = kind
                if kind == SLICE:
                    raise StrategicMergeError(NO_LIST_OF_LISTS)
            elif kind != found:
                raise StrategicMergeError(f"list element types are not identical: {format_value(list(lists))}")
    if found is None:
        raise StrategicMergeError("no elements in any of the given slices")
    return found


def _delete_from_list(live: list[Any], deletions: list[Any]) -> list[Any]:
    doomed = {go_key(item) for item in deletions}
    return [item for item in live if go_key(item) not in doomed]


def _deduplicate(items: list[Any]) -> list[Any]:
    """``deduplicateScalars``: a later duplicate is overwritten by the last item, so order changes."""
    last = len(items) - 1
    i = 0
    while i < last:
        j = i + 1
        while j <= last:
            if go_equal(items[i], items[j]):
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
        if DIRECTIVE not in item:
            plain.append(item)
            continue
        directive = item[DIRECTIVE]
        if is_string(directive, DELETE):
            if merge_key not in item:
                raise no_merge_key(item, merge_key)
            length = _delete_matching(live, length, merge_key, item[merge_key])
        elif is_string(directive, REPLACE):
            replace = True
        elif is_string(directive, MERGE):
            raise StrategicMergeError("merging lists cannot yet be specified in the patch")
        else:
            raise bad_patch_type(directive, item)
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
        if merge_key in item and go_equal(item[merge_key], value):
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
            raise no_merge_key(item, merge_key)
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
    wanted = {go_key(item) for item in by}
    inside: list[Any] = []
    outside: list[Any] = []
    for item in items:
        (inside if go_key(item) in wanted else outside).append(item)
    return inside, outside


def _partition_maps(items: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    inside: list[Any] = []
    outside: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise bad_arg_type(MAP, item)
        if merge_key not in item:
            raise no_merge_key(item, merge_key)
        found = _find_by_key(by, merge_key, item[merge_key]) is not None
        (inside if found else outside).append(item)
    return inside, outside
