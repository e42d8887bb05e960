"""JSON text with exact spelling control, for building adversarial inputs.

Values are plain Python JSON values plus two wrappers: `Raw` (verbatim JSON text, for spellings
Python cannot produce: `1e400`, `01`, `"\\u003C"`, invalid UTF-8) and `Obj` (an object with an
explicit member list, for duplicate keys and member order). `dump` writes a value in the style of
a particular client; `go_dump` is Go's encoding/json as kube-apiserver (Go >= 1.22) writes a
stored object (docs/json-encoding.md), used to craft `test` values that should match.
"""

from __future__ import annotations

import decimal
import json
import math
from collections.abc import Iterable
from typing import Any

GO_HTML = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
GO_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
INT64 = range(-(2**63), 2**63)


class Raw:
    """Verbatim JSON text (bytes, possibly invalid UTF-8)."""

    __slots__ = ("text",)

    def __init__(self, text: bytes | str) -> None:
        self.text = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text

    def __repr__(self) -> str:
        return f"Raw({self.text!r})"


class Obj:
    """An object written with exactly these members, in this order (keys may repeat)."""

    __slots__ = ("members",)

    def __init__(self, members: Iterable[tuple[str | Raw, Any]]) -> None:
        self.members = list(members)


def go_like_str(s: str) -> str:
    """The string Go holds after decoding `s` from JSON: lone surrogates become U+FFFD."""
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def go_string(s: str, escape_html: bool = True) -> str:
    out = ['"']
    for ch in go_like_str(s):
        if ch in GO_SHORT:
            out.append(GO_SHORT[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        elif ch in GO_HTML and (escape_html or ch in "\u2028\u2029"):
            out.append(GO_HTML[ch])
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def go_float(f: float) -> str:
    """strconv.AppendFloat as encoding/json's floatEncoder uses it (docs/json-encoding.md)."""
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    if 1e-6 <= abs(f) < 1e21:
        return format(decimal.Decimal(repr(f)).normalize(), "f")
    mantissa, exp = repr(f).split("e")
    return f"{mantissa}e{exp[0]}{exp[1:].lstrip('0') or '0'}"


def go_number(n: int | float) -> str:
    """What kjson PreserveInts + Go's encoder store for a Python int or float."""
    if isinstance(n, int) and n in INT64:
        return str(n)
    return go_float(float(n))


def spell_string(s: str, mode: str) -> bytes:
    """One JSON spelling of the string `s`.

    go: Go's stored spelling; gohtml: Go with SetEscapeHTML(false); ascii: Python json.dumps;
    raw: json.dumps(ensure_ascii=False); upper: ascii with upper-case hex; allu: every character
    but letters and digits as \\uXXXX; slash: go with `/` written `\\/`.
    """
    if mode == "go":
        text = go_string(s)
    elif mode == "gohtml":
        text = go_string(s, escape_html=False)
    elif mode == "ascii":
        text = json.dumps(s)
    elif mode == "raw":
        text = json.dumps(s, ensure_ascii=False)
    elif mode == "upper":
        text = _upper_hex(json.dumps(s))
    elif mode == "allu":
        units = s.encode("utf-16-be", "surrogatepass")
        codes = [int.from_bytes(units[i : i + 2], "big") for i in range(0, len(units), 2)]
        text = '"' + "".join(chr(c) if chr(c).isascii() and chr(c).isalnum() else f"\\u{c:04x}" for c in codes) + '"'
    elif mode == "slash":
        text = go_string(s).replace("/", "\\/")
    else:
        raise ValueError(mode)
    return text.encode("utf-8", "surrogatepass")


def _upper_hex(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            if text[i + 1] == "u":
                out.append("\\u" + text[i + 2 : i + 6].upper())
                i += 6
                continue
            out.append(text[i : i + 2])
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


STYLES = ("go", "py", "pyc", "utf8", "pretty", "spaced")
_STRING_MODE = {"go": "go", "py": "ascii", "pyc": "ascii", "utf8": "raw", "pretty": "raw", "spaced": "raw"}


def dump(value: Any, style: str = "pyc") -> bytes:
    """Write `value` as a given client would.

    go: Go's stored encoding (sorted keys); py: Python json.dumps defaults (ASCII, ", " and ": ");
    pyc: the same, compact; utf8: compact raw UTF-8 (orjson-like, but Python floats);
    pretty: two-space indent, raw UTF-8; spaced: whitespace of every kind between tokens.
    """
    out = bytearray()
    _write(value, style, out, 0)
    return bytes(out)


def go_dump(value: Any) -> bytes:
    return dump(value, "go")


def _write(v: Any, style: str, out: bytearray, depth: int) -> None:
    comma, colon = {"py": (b", ", b": "), "pretty": (b",", b": "), "spaced": (b" ,\n\t", b" \r: ")}.get(
        style, (b",", b":")
    )
    if isinstance(v, Raw):
        out += v.text
    elif v is None or isinstance(v, bool):
        out += json.dumps(v).encode()
    elif isinstance(v, int):
        out += str(v).encode()
    elif isinstance(v, float):
        out += (go_float(v) if style == "go" else json.dumps(v)).encode()
    elif isinstance(v, str):
        out += spell_string(v, _STRING_MODE[style])
    elif isinstance(v, (list, tuple)):
        _write_container(b"[", b"]", [(None, x) for x in v], style, out, depth, comma, colon)
    elif isinstance(v, dict):
        items = sorted(v.items(), key=lambda kv: go_like_str(kv[0]).encode()) if style == "go" else v.items()
        _write_container(b"{", b"}", list(items), style, out, depth, comma, colon)
    elif isinstance(v, Obj):
        _write_container(b"{", b"}", v.members, style, out, depth, comma, colon)
    else:
        raise TypeError(type(v))


def _write_container(
    open_: bytes,
    close: bytes,
    items: list[tuple[Any, Any]],
    style: str,
    out: bytearray,
    depth: int,
    comma: bytes,
    colon: bytes,
) -> None:
    out += open_
    if not items:
        out += close
        return
    pad = b"\n" + b"  " * (depth + 1) if style == "pretty" else b""
    for i, (key, value) in enumerate(items):
        if i:
            out += comma
        out += pad
        if key is not None:
            _write(key, style, out, depth + 1)
            out += colon
        _write(value, style, out, depth + 1)
    out += (b"\n" + b"  " * depth) if style == "pretty" else b""
    out += close


def pointer(*tokens: str | int) -> str:
    """An RFC 6901 pointer from unescaped tokens."""
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)
