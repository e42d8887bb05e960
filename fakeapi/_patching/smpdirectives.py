"""The directives of a strategic merge patch map: their keys, the map-level ones, and their removal.

From k8s.io/apimachinery ``pkg/util/strategicpatch/patch.go`` 1.32: the directive keys (``$patch``,
``$retainKeys``, ``$deleteFromPrimitiveList/<key>``, ``$setElementOrder/<key>``), ``extractKey``
for the prefixed ones, ``handleDirectiveInMergeMap`` (``$patch`` on a map), ``applyRetainKeysDirective``,
and what ``mergeMap`` does to a value it takes whole because the original has nothing to merge it
into: nulls inside objects are dropped, and maps carrying a directive go with their directives
(the fix of kubernetes#117568).
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.govalues import go_key, is_string
from fakeapi._patching.patchmeta import REPLACE
from fakeapi._patching.smperrors import (
    BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST,
    BAD_PATCH_FORMAT_FOR_RETAIN_KEYS,
    BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST,
    StrategicMergeError,
    bad_patch_type,
)

__all__ = [
    "DELETE",
    "DELETE_FROM_PRIMITIVE_LIST",
    "DIRECTIVE",
    "SET_ELEMENT_ORDER",
    "apply_retain_keys",
    "extract_key",
    "map_directive",
    "remove_directives",
    "take_whole",
]

DIRECTIVE = "$patch"
DELETE = "delete"
RETAIN_KEYS = "$retainKeys"
DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
SET_ELEMENT_ORDER = "$setElementOrder"


def map_directive(directive: Any, patch: dict[str, Any]) -> dict[str, Any]:
    """``handleDirectiveInMergeMap``: ``replace`` keeps the patch as it is, ``delete`` leaves an empty map."""
    if is_string(directive, REPLACE):
        del patch[DIRECTIVE]
        return patch
    if is_string(directive, DELETE):
        return {}
    raise bad_patch_type(directive, patch)


def apply_retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    """``$retainKeys``: the patch may only set listed keys, and the original keeps only those."""
    if RETAIN_KEYS not in patch:
        return
    retain = patch.pop(RETAIN_KEYS)
    if not isinstance(retain, list):
        raise StrategicMergeError(BAD_PATCH_FORMAT_FOR_RETAIN_KEYS)
    kept = {go_key(item) for item in retain}
    for key, value in patch.items():
        if value is None or key.startswith((DELETE_FROM_PRIMITIVE_LIST, SET_ELEMENT_ORDER)):
            continue
        if ("string", key) not in kept:
            raise StrategicMergeError(BAD_PATCH_FORMAT_FOR_RETAIN_KEYS)
    for key in [key for key in original if ("string", key) not in kept]:
        del original[key]


def extract_key(key: str, prefix: str) -> str:
    """``extractKey``: the field a ``<prefix>/<field>`` directive key names."""
    head, slash, rest = key.partition("/")
    if not slash or head != prefix:
        if prefix == DELETE_FROM_PRIMITIVE_LIST:
            raise StrategicMergeError(BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST)
        raise StrategicMergeError(BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST)
    return rest


def take_whole(original: dict[str, Any], key: str, value: Any) -> None:
    """A value with nothing to merge into: nulls inside objects and directive-bearing maps go."""
    _discard_nulls(value)
    kept, keep = remove_directives(value)
    if keep:
        original[key] = kept
    else:
        original.pop(key, None)


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


def remove_directives(value: Any) -> tuple[Any, bool]:
    """The value without the maps that carry ``$patch``; ``False`` when the value itself is one."""
    if isinstance(value, dict):
        if DIRECTIVE in value:
            return None, False
        for key in list(value):
            kept, keep = remove_directives(value[key])
            if keep:
                value[key] = kept
            else:
                del value[key]
        return value, True
    if isinstance(value, list):
        items = []
        for item in value:
            kept, keep = remove_directives(item)
            if keep:
                items.append(kept)
        return items, True
    return value, True
