"""Decoding JSON as the apiserver decodes a custom resource (kjson ``UnmarshalCaseSensitivePreserveInts``).

An integer literal with no ``.`` that fits int64 stays an ``int``; every other number becomes a
float64 (:class:`GoFloat`), and a number beyond float64's range is an error, not infinity. Strings
follow Go's ``unquote``: invalid UTF-8 and unpaired surrogate escapes become U+FFFD. Nesting deeper
than 10,000 is Go's syntax error. orjson decodes the common case; whatever it refuses (lone
surrogates, invalid UTF-8, depth beyond its limit, huge numbers) is validated with Go's scanner and
decoded by the iterative decoder here, which follows the same rules.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from fakeapi._patching.gofloat import GoFloat
from fakeapi._patching.goscanner import GoSyntaxError, check_valid
from fakeapi._patching.rawtext import unquote
from fakeapi._patching.slices import pause_after_pass

__all__ = ["GoNumberRangeError", "GoSyntaxError", "decode", "go_number", "normalize"]

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
# Digits become "0", '.', 'e' and 'E' become '.', everything else a space: a float leaves "0." behind
# and an integer beyond int64 a run of 19 zeros.
_NUMBER_SHAPES = bytes.maketrans(b"0123456789.eE", b"0000000000...")
_NUMBER_SHAPES = bytes(c if c in b"0." else 0x20 for c in _NUMBER_SHAPES)
_TOKEN = re.compile(
    rb'[ \t\r\n]*(?:"([^"\\]*(?:\\.[^"\\]*)*)"|([\[{])|([\]}])|([,:])|(true|false|null)|([-0-9][-+.eE0-9]*))',
    re.S,
)


class GoNumberRangeError(ValueError):
    """A number literal float64 cannot hold (``*json.UnmarshalTypeError`` with ``Value: "number <s>"``)."""

    def __init__(self, literal: str) -> None:
        super().__init__(f"json: cannot unmarshal number {literal} into Go value of type float64")
        self.literal = literal


def go_number(literal: str) -> int | float:
    """kjson's ``convertNumber`` with PreserveInts."""
    if len(literal) <= 20 and "." not in literal and "e" not in literal and "E" not in literal:
        value = int(literal)
        if _INT64_MIN <= value <= _INT64_MAX:
            return value
    number = float(literal)
    if number in (float("inf"), float("-inf")):
        raise GoNumberRangeError(literal)
    return GoFloat(number)


def decode(data: bytes, *, mark_numbers: bool = True) -> Any:
    """Decode one JSON document the way the apiserver does; raise Go's error text otherwise.

    ``mark_numbers=False`` leaves floats plain and integers beyond int64 as they are, for a patch
    body whose values are mostly compared by their bytes; :func:`normalize` them before storing.
    """
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        check_valid(data)
        return _decode_slowly(data)
    pause_after_pass(len(data))
    if not mark_numbers:
        return value
    shapes = data.translate(_NUMBER_SHAPES)
    if b"0." in shapes or b"0000000000000000000" in shapes:
        return normalize(value)
    return value


def normalize(value: Any) -> Any:
    """Mark floats as :class:`GoFloat` and turn integers beyond int64 into floats, in place.

    Use it on values built in Python before they are stored or encoded.
    """
    if isinstance(value, float):
        return _as_go_float(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value if _INT64_MIN <= value <= _INT64_MAX else GoFloat(value)
    if not isinstance(value, (dict, list)):
        return value
    pending: list[Any] = [value]
    while pending:
        container = pending.pop()
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for key, item in items:
            if isinstance(item, float):
                if type(item) is not GoFloat:
                    container[key] = _as_go_float(item)
            elif isinstance(item, (dict, list)):
                pending.append(item)
            elif isinstance(item, int) and not isinstance(item, bool) and not (_INT64_MIN <= item <= _INT64_MAX):
                container[key] = GoFloat(item)
    return value


def _as_go_float(value: float) -> GoFloat:
    return value if type(value) is GoFloat else GoFloat(value)


def _decode_slowly(data: bytes) -> Any:
    """Decode valid JSON that orjson refused, iteratively (Go allows 10,000 levels)."""
    stack: list[Any] = []
    keys: list[str | None] = []
    result: Any = None
    expecting_key = False
    for match in _TOKEN.finditer(data):
        string, opening, closing, punctuation, literal, number = match.groups()
        if punctuation is not None:
            if punctuation == b",":
                expecting_key = isinstance(stack[-1], dict)
            continue
        if opening is not None:
            container: Any = {} if opening == b"{" else []
            stack.append(container)
            keys.append(None)
            expecting_key = opening == b"{"
            continue
        if closing is not None:
            value = stack.pop()
            keys.pop()
        elif string is not None:
            text = unquote(string)
            if expecting_key:
                keys[-1] = text
                expecting_key = False
                continue
            value = text
        elif literal is not None:
            value = {b"true": True, b"false": False, b"null": None}[literal]
        else:
            value = go_number(number.decode())
        if not stack:
            result = value
            continue
        parent = stack[-1]
        if isinstance(parent, dict):
            parent[keys[-1]] = value
        else:
            parent.append(value)
    return result
