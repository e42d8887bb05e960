"""How strategic merge patch fails: the library's error texts and the Status the apiserver answers.

The texts are k8s.io/apimachinery ``pkg/util/mergepatch/errors.go`` (the sentinel errors, and
``ErrNoMergeKey``, ``ErrBadArgType``, ``ErrBadPatchType``, which print values with ``%v``); the
mapping of an error to a response is apiserver ``endpoints/handlers/patch.go``
``interpretStrategicMergePatchError``. A Go runtime panic inside the library is recovered by the
apiserver's filter chain, which answers 500 and logs the panic text.
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.govalues import format_value, type_name
from fakeapi._patching.lazynode import GoPanic

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
    "bad_arg_type",
    "bad_patch_type",
    "no_merge_key",
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


def no_merge_key(item: dict[str, Any], merge_key: str) -> StrategicMergeError:
    """``ErrNoMergeKey``."""
    return StrategicMergeError(f"map: {format_value(item)} does not contain declared merge key: {merge_key}")


def bad_arg_type(expected: str, actual: Any) -> StrategicMergeError:
    """``ErrBadArgType``."""
    return StrategicMergeError(f"expected a {expected}, but received a {type_name(actual)}")


def bad_patch_type(directive: Any, item: dict[str, Any]) -> StrategicMergeError:
    """``ErrBadPatchType``."""
    return StrategicMergeError(f"unknown patch type: {format_value(directive, 's')} in map: {format_value(item)}")
