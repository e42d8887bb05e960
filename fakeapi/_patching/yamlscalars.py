"""yaml.v2's scalars: the tag and value ``resolve`` gives a scalar, as ``Unmarshal`` into ``interface{}`` keeps it.

The table (``resolve.go``, docs/yaml.md): ``y``/``n``/``on``/``off`` are booleans; integers are read by
``strconv.ParseInt(s, 0, 64)`` with underscores dropped, then ``ParseUint``, then as a float if they
look like one, and a float that overflows stays the string it was; timestamps stay their text;
``!!binary`` is base64-decoded into a string, whose invalid UTF-8 ``json.Marshal`` writes as one
U+FFFD per byte (the ``go-json-replace`` error handler registered here); NaN and the infinities
decode, and ``json.Marshal`` refuses them.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import math
import re
from typing import Any

__all__ = ["MERGE", "PLAIN", "STR", "Uint64", "YAMLToJSONError", "go_special", "scalar_value"]

_TAG = "tag:yaml.org,2002:"
STR, _BINARY, MERGE = _TAG + "str", _TAG + "binary", _TAG + "merge"
_RESOLVABLE = {"", STR, _TAG + "bool", _TAG + "int", _TAG + "float", _TAG + "null", _TAG + "timestamp"}
PLAIN = ""  # an untagged plain scalar: yaml.v2 resolves it
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1
_YAML_STYLE_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_GO_FLOAT = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^[-+]?(inf|infinity|nan)$", re.IGNORECASE)
_KNOWN: dict[str, tuple[str, Any]] = {}
for _value, _kind, _spellings in (
    (True, "bool", "y Y yes Yes YES true True TRUE on On ON"),
    (False, "bool", "n N no No NO false False FALSE off Off OFF"),
    (None, "null", "~ null Null NULL"),
    (math.nan, "float", ".nan .NaN .NAN"),
    (math.inf, "float", ".inf .Inf .INF +.inf +.Inf +.INF"),
    (-math.inf, "float", "-.inf -.Inf -.INF"),
    ("<<", "merge", "<<"),
):
    for _spelling in _spellings.split():
        _KNOWN[_spelling] = (_TAG + _kind, _value)
_KNOWN[""] = (_TAG + "null", None)
_HINTED = frozenset("+-0123456789yYnNtTfFoO~.")


class YAMLToJSONError(ValueError):
    """What ``YAMLToJSON`` returns as its error; ``str()`` is Go's text (``yaml: ...``, ``json: ...``)."""


def scalar_value(tag: str, text: str) -> Any:
    """The value yaml.v2 decodes a scalar into ``interface{}`` as, or its error."""
    resolved_tag, resolved = _resolve(tag, text)
    if resolved_tag == _BINARY:
        try:
            data = base64.b64decode(re.sub(r"[\r\n]", "", resolved), validate=True)
        except (binascii.Error, ValueError):
            raise YAMLToJSONError("yaml: !!binary value contains invalid base64 data") from None
        return data.decode("utf-8", "go-json-replace")
    if resolved_tag == _TAG + "timestamp":
        return text
    if isinstance(resolved, float) and not math.isfinite(resolved):
        raise YAMLToJSONError(f"json: unsupported value: {go_special(resolved)}")
    return resolved


def _resolve(tag: str, text: str) -> tuple[str, Any]:
    """``resolve``: the tag and value yaml.v2 gives a scalar (``resolve.go``)."""
    if tag not in _RESOLVABLE:
        return tag, text
    plain_text = tag == STR or (bool(text) and text[0] not in _HINTED)
    resolved = (STR, text) if plain_text else _resolve_hinted(tag, text)
    if tag in (PLAIN, resolved[0], STR, _BINARY):
        return resolved
    if tag == _TAG + "float" and resolved[0] == _TAG + "int":
        return tag, float(resolved[1])
    raise YAMLToJSONError(f"yaml: cannot decode {_short(resolved[0])} `{text}` as a {_short(tag)}")


def _resolve_hinted(tag: str, text: str) -> tuple[str, Any]:
    if text in _KNOWN:
        return _KNOWN[text]
    hint = text[0] if text else ""
    if hint == ".":
        number = _parse_float(text)
        return (_TAG + "float", number) if number is not None else (STR, text)
    if hint in "+-0123456789" and hint:
        if tag in (PLAIN, _TAG + "timestamp") and _looks_like_timestamp(text):
            return _TAG + "timestamp", text
        plain = text.replace("_", "")
        integer = _parse_int(plain)
        if integer is not None and _INT64_MIN <= integer <= _INT64_MAX:
            return _TAG + "int", integer
        if integer is not None and 0 <= integer <= _UINT64_MAX and not plain.startswith(("+", "-")):
            return _TAG + "int", Uint64(integer)
        if _YAML_STYLE_FLOAT.match(plain):
            number = _parse_float(plain)
            if number is not None:
                return _TAG + "float", number
        if plain.startswith("0b"):
            binary = _parse_int_base(plain[2:], 2)
            if binary is not None and binary <= _UINT64_MAX:
                return _TAG + "int", binary if binary <= _INT64_MAX else Uint64(binary)
        elif plain.startswith("-0b"):
            binary = _parse_int_base(plain[3:], 2)
            if binary is not None and -binary >= _INT64_MIN:
                return _TAG + "int", -binary
    return STR, text


class Uint64(int):
    """A uint64 beyond int64: a JSON number as a value, an unsupported type as a map key."""


def _parse_int(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)``'s syntax (range checked by the caller)."""
    sign = 1
    body = text
    if body[:1] in ("+", "-"):
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    lower = body[:2].lower()
    if lower in ("0x", "0o", "0b"):
        value = _parse_int_base(body[2:], {"0x": 16, "0o": 8, "0b": 2}[lower])
    elif body[:1] == "0" and len(body) > 1:
        value = _parse_int_base(body[1:], 8)
    else:
        value = _parse_int_base(body, 10)
    return None if value is None else sign * value


def _parse_int_base(digits: str, base: int) -> int | None:
    allowed = "0123456789abcdef"[:base]
    if not digits or any(ch not in allowed for ch in digits.lower()):
        return None
    return int(digits, base)


def _parse_float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)``: None where Go errs, overflow included."""
    if not _GO_FLOAT.match(text):
        return None
    number = float(text)
    if math.isinf(number) and "inf" not in text.lower():
        return None
    return number


def _looks_like_timestamp(text: str) -> bool:
    """``parseTimestamp``'s formats: a date, optionally a time, as ``time.Parse`` reads them."""
    return bool(
        re.fullmatch(
            r"\d{4}-\d{1,2}-\d{1,2}"
            r"(([Tt]\d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?(Z|[+-]\d{2}:\d{2}))|( \d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?))?",
            text,
        )
    )


def _short(tag: str) -> str:
    return "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag


def go_special(value: float) -> str:
    """How Go prints NaN and the infinities."""
    if math.isnan(value):
        return "NaN"
    return "+Inf" if value > 0 else "-Inf"


def _go_json_replace(error: UnicodeError) -> tuple[str, int]:
    """Go writes one U+FFFD for each byte that starts no valid UTF-8 sequence."""
    assert isinstance(error, UnicodeDecodeError)
    return "\ufffd", error.start + 1


codecs.register_error("go-json-replace", _go_json_replace)
