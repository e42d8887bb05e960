"""Go's ``encoding/json`` encoder, byte for byte, as the apiserver writes stored objects.

A JSON patch ``test`` compares scalars by their bytes in this spelling, so it has to be exact
(docs/json-encoding.md): compact, map keys sorted, ``<`` ``>`` ``&`` written ``\\u003c`` ``\\u003e``
``\\u0026``, U+2028/U+2029 escaped, other non-ASCII raw, ``\\b`` ``\\f`` short (Go >= 1.22), other
control bytes ``\\u00xx``; int64 in decimal; float64 in the shortest form, ``'f'`` notation between
1e-6 and 1e21 and ``'e'`` outside it with ``e-07`` cleaned to ``e-7`` (``floatEncoder.encode``).

orjson does the heavy lifting; floats are the one thing it spells differently, so decoded floats are
:class:`GoFloat` and reach :func:`_default`, which returns Go's spelling as an ``orjson.Fragment``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

from fakeapi._patching.gofloat import GoFloat

__all__ = [
    "GoFloat",
    "UnsupportedValueError",
    "compact",
    "compact_escape",
    "encode",
    "encode_in_order",
    "encode_string",
    "indent",
]

_HTML_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"))
_LINE_SEPARATOR = "\u2028".encode()
_PARAGRAPH_SEPARATOR = "\u2029".encode()
_OUTSIDE_STRING_SPACE = re.compile(rb'("[^"\\]*(?:\\.[^"\\]*)*")|[ \t\r\n]+', re.S)
_SURROGATE = re.compile("[\ud800-\udfff]")
_INDENT_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|[^"{}\[\],:]+', re.S)
_EXACT_INTEGERS = 2.0**53


class UnsupportedValueError(ValueError):
    """``json.UnsupportedValueError``: NaN and infinities have no JSON spelling."""


def format_float(value: float) -> str:
    """Go's spelling of a float64 (``floatEncoder.encode`` with bits=64)."""
    if math.isnan(value) or math.isinf(value):
        raise UnsupportedValueError(f"json: unsupported value: {_go_special(value)}")
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    magnitude = abs(value)
    if magnitude < _EXACT_INTEGERS and value.is_integer():
        return str(int(value))
    text = repr(float(value))
    if 1e-4 <= magnitude < 1e16:
        # repr writes the shortest digits without an exponent here, as Go's 'f' does, but for ".0".
        return text[:-2] if text.endswith(".0") else text
    if magnitude < 1e-6 or magnitude >= 1e21:
        # repr uses exponent notation throughout this range, with Go's digits and exponent sign.
        mantissa, _, exponent = text.partition("e")
        sign = exponent[0]
        digits = exponent[1:].lstrip("0") or "0"
        if sign == "-" and len(digits) == 1:
            return f"{mantissa}e-{digits}"
        return f"{mantissa}e{sign}{digits.zfill(2)}"
    return _fixed_notation(text)


def _go_special(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return "+Inf" if value > 0 else "-Inf"


def _fixed_notation(shortest: str) -> str:
    """Write repr's shortest digits without an exponent and without a trailing ``.0``."""
    negative = shortest.startswith("-")
    body = shortest[1:] if negative else shortest
    mantissa, _, exponent = body.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) + (int(exponent) if exponent else 0)
    if not digits:
        return "-0" if negative else "0"
    leading_zeros = len(whole + fraction) - len((whole + fraction).lstrip("0"))
    point -= leading_zeros
    digits = digits.rstrip("0") or "0"
    if point <= 0:
        out = "0." + "0" * (-point) + digits
    elif point >= len(digits):
        out = digits + "0" * (point - len(digits))
    else:
        out = digits[:point] + "." + digits[point:]
    return ("-" + out) if negative else out


# Go's spelling of the floats seen lately: a stored object is encoded on every write and read.
# Zero is never kept (0.0 and -0.0 are equal keys with different spellings), nor NaN (never equal).
_fragments: dict[float, orjson.Fragment] = {}
_FRAGMENTS_KEPT = 4096


def _default(value: Any) -> Any:
    if isinstance(value, float):
        fragment = _fragments.get(value)
        if fragment is None:
            fragment = orjson.Fragment(format_float(value))
            if value != 0:
                if len(_fragments) >= _FRAGMENTS_KEPT:
                    _fragments.clear()
                _fragments[value] = fragment
        return fragment
    raise TypeError(f"json: unsupported type: {type(value).__name__}")


def _escape_html(encoded: bytes) -> bytes:
    # These bytes occur only inside strings: JSON punctuation, numbers and literals never hold them.
    for raw, escaped in _HTML_ESCAPES:
        if raw in encoded:
            encoded = encoded.replace(raw, escaped)
    # One byte first: CPython searches for one byte with memchr, for two bytes ten times slower.
    if b"\xe2" in encoded and b"\xe2\x80" in encoded:
        encoded = encoded.replace(_LINE_SEPARATOR, b"\\u2028").replace(_PARAGRAPH_SEPARATOR, b"\\u2029")
    return encoded


def encode(value: Any, *, in_order: bool = False) -> bytes:
    """The bytes Go's ``json.Marshal`` writes for a decoded value (no trailing newline).

    Map keys are sorted, as Go sorts a map's; ``in_order`` keeps every dict's own order instead,
    for values laid out as a Go struct (fields in declaration order, its maps already sorted).
    Floats must be :class:`GoFloat` (everything :mod:`fakeapi._patching.godecode` returns is);
    :func:`fakeapi._patching.godecode.normalize` converts plain Python values.
    """
    try:
        encoded = orjson.dumps(value, default=_default, option=0 if in_order else orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError as error:
        if isinstance(error.__cause__, UnsupportedValueError):
            raise error.__cause__ from None
        # Deeper than orjson's limit, or strings holding lone surrogates: Go has no limit there.
        return b"".join(_encode_slowly(value, in_order))
    return _escape_html(encoded)


def encode_in_order(value: Any) -> bytes:
    """:func:`encode` keeping every dict's order: a typed Go struct's field order."""
    return encode(value, in_order=True)


def encode_string(text: str) -> bytes:
    """Go's spelling of one string, quotes included."""
    if _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    return _escape_html(json.dumps(text, ensure_ascii=False).encode("utf-8"))


def _encode_slowly(value: Any, in_order: bool) -> list[bytes]:
    """An iterative encoder for what orjson refuses; the output is the same as :func:`encode`'s."""
    out: list[bytes] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bytes):
            out.append(item)
        elif item is None:
            out.append(b"null")
        elif item is True:
            out.append(b"true")
        elif item is False:
            out.append(b"false")
        elif isinstance(item, str):
            out.append(encode_string(item))
        elif isinstance(item, int):
            out.append(str(item).encode())
        elif isinstance(item, float):
            out.append(format_float(item).encode())
        elif isinstance(item, dict):
            sequence: list[Any] = [b"{"]
            for index, key in enumerate(item if in_order else sorted(item)):
                if index:
                    sequence.append(b",")
                sequence.append(encode_string(key) + b":")
                sequence.append(item[key])
            sequence.append(b"}")
            stack.extend(reversed(sequence))
        elif isinstance(item, list):
            sequence = [b"["]
            for index, element in enumerate(item):
                if index:
                    sequence.append(b",")
                sequence.append(element)
            sequence.append(b"]")
            stack.extend(reversed(sequence))
        else:
            raise TypeError(f"json: unsupported type: {type(item).__name__}")
    return out


def compact(raw: bytes) -> bytes:
    """``json.Compact``: drop insignificant whitespace, change nothing else."""
    if raw[:1] not in (b"{", b"["):
        return raw  # a scalar, and a string keeps every byte
    if b" " in raw or b"\n" in raw or b"\t" in raw or b"\r" in raw:
        return _OUTSIDE_STRING_SPACE.sub(lambda match: match.group(1) or b"", raw)
    return raw


def compact_escape(raw: bytes) -> bytes:
    """What ``json.Marshal`` makes of a ``json.RawMessage``: compacted, then HTML-escaped."""
    return _escape_html(compact(raw))


def indent(compact_json: bytes, step: bytes = b"  ") -> bytes:
    """``json.Indent`` of compact JSON (what ``json.MarshalIndent`` does after marshalling).

    Iterative, so it serves documents deeper than orjson's own indenting allows: an element per
    line, ``": "`` after a key, and empty objects and arrays left as ``{}`` and ``[]``.
    """
    out: list[bytes] = []
    depth = 0
    pending_open = False  # an opening bracket whose first element has not been seen yet
    for match in _INDENT_TOKEN.finditer(compact_json):
        token = match.group()
        if pending_open:
            pending_open = False
            if token in (b"}", b"]"):
                depth -= 1
                out.append(token)
                continue
            out.append(b"\n" + step * depth)
        if token in (b"{", b"["):
            out.append(token)
            depth += 1
            pending_open = True
        elif token in (b"}", b"]"):
            depth -= 1
            out.append(b"\n" + step * depth + token)
        elif token == b",":
            out.append(b",\n" + step * depth)
        elif token == b":":
            out.append(b": ")
        else:
            out.append(token)
    return b"".join(out)
