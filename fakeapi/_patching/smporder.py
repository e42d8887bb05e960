"""The order of a merged list: the patch's items in the patch's order, the server's in the server's.

From k8s.io/apimachinery ``pkg/util/strategicpatch/patch.go`` 1.32: ``normalizeElementOrder`` with
``normalizeSliceOrder``, ``mergeSortedSlice``, ``index`` and ``extractToDeleteItems``, and
``validatePatchWithSetOrderList`` with ``mergeKeyValueEqual``, which checks a ``$setElementOrder``
list against its patch. The comparator calls any item it cannot place smaller than the other, so
the result is only Go's if the sort is Go's: see :mod:`fakeapi._patching.gosort`. Without
``$setElementOrder`` that puts an item new to the list before the items only the server had.
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.gosort import stable_sort
from fakeapi._patching.govalues import MAP, format_value, go_equal, is_string
from fakeapi._patching.smpdirectives import DELETE, DIRECTIVE, SET_ELEMENT_ORDER
from fakeapi._patching.smperrors import StrategicMergeError, bad_arg_type, no_merge_key

__all__ = ["check_order", "normalize_order"]


def check_order(patch_items: list[Any], order: list[Any], merge_key: str) -> None:
    """``validatePatchWithSetOrderList``: the patch's items appear in the directive's order."""
    if not order or not patch_items:
        return
    items = _split_deletions(patch_items)[0] if merge_key else patch_items
    at_item = at_order = 0
    while at_item < len(items) and at_order < len(order):
        if isinstance(items[at_item], dict) and DIRECTIVE in items[at_item]:
            at_item += 1
            continue
        if _merge_key_equal(items[at_item], order[at_order], merge_key):
            at_item += 1
        at_order += 1
    if at_item < len(items) and at_order >= len(order):
        raise StrategicMergeError(
            f"The order in patch list:\n{format_value(patch_items)}\n doesn't match {SET_ELEMENT_ORDER} list:\n"
            f"{format_value(order)}\n"
        )


def _merge_key_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return go_equal(left, right)
    if not isinstance(left, dict):
        raise bad_arg_type(MAP, left)
    if not isinstance(right, dict):
        raise bad_arg_type(MAP, right)
    if merge_key not in left:
        raise no_merge_key(left, merge_key)
    if merge_key not in right:
        raise no_merge_key(right, merge_key)
    return go_equal(left[merge_key], right[merge_key])


def normalize_order(
    in_patch: list[Any],
    server_only: list[Any],
    patch_order: list[Any],
    server_order: list[Any],
    merge_key: str,
    kind: str,
) -> list[Any]:
    """``normalizeElementOrder``: each part sorted by its own order, then the two interleaved."""
    in_patch = _sort_by(in_patch, patch_order, merge_key, kind)
    server_only = _sort_by(server_only, server_order, merge_key, kind)
    return _merge_sorted(server_only, in_patch, server_order, merge_key, kind)


def _index(items: list[Any], wanted: Any, merge_key: str, kind: str) -> int:
    def value_of(item: Any) -> Any:
        if kind != MAP:
            return item
        return item.get(merge_key) if isinstance(item, dict) else None

    for position, item in enumerate(items):
        if go_equal(value_of(wanted), value_of(item)):
            return position
    return -1


def _split_deletions(items: list[Any]) -> tuple[list[Any], list[Any]]:
    """``extractToDeleteItems``."""
    keep: list[Any] = []
    delete: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise bad_arg_type(MAP, item)
        (delete if is_string(item.get(DIRECTIVE), DELETE) else keep).append(item)
    return keep, delete


def _sort_by(items: list[Any], order: list[Any], merge_key: str, kind: str) -> list[Any]:
    """``normalizeSliceOrder``: items found in ``order`` sort by it; the comparator calls any other item smaller."""
    deletions: list[Any] = []
    if kind == MAP:
        for item in [*items, *order]:
            if not isinstance(item, dict):
                raise bad_arg_type(MAP, item)
            if merge_key not in item:
                raise no_merge_key(item, merge_key)
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

    stable_sort(items, less)
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
