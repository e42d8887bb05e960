"""Go's ``strconv.Quote``, ``strconv.Atoi`` and ``strconv.ParseUint``, as the apiserver's parsers use them.

json-patch parses array indices with ``strconv.Atoi``, which accepts ``+1``, ``-1`` and ``01`` and
reports failures as ``strconv.Atoi: parsing "<quoted>": invalid syntax`` (or ``value out of range``);
the scanner names a bad byte with ``strconv.Quote``; resourceVersions are read with ``ParseUint``.
These texts reach users, so they are exact here.
"""

from __future__ import annotations

_INT64_MAX = (1 << 63) - 1
_INT64_MIN = -(1 << 63)
_UINT64_MAX = (1 << 64) - 1
_UINT64_CUTOFF = _UINT64_MAX // 10 + 1
_SHORT_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def _is_go_printable(ch: str) -> bool:
    # Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space;
    # Python's isprintable() excludes the same categories (C*, Z* but the space).
    return ch == " " or ch.isprintable()


def quote(text: str) -> str:
    """``strconv.Quote``: a double-quoted Go string literal; lone surrogates count as invalid bytes."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return '"' + text + '"'
    out = ['"']
    for ch in text:
        escaped = _SHORT_ESCAPES.get(ch)
        if escaped is not None:
            out.append(escaped)
            continue
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF:
            out.append("\\ufffd")
        elif code < 0x80:
            out.append(ch if 0x20 <= code < 0x7F else f"\\x{code:02x}")
        elif _is_go_printable(ch):
            out.append(ch)
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _syntax_error(text: str) -> str:
    return f"strconv.Atoi: parsing {quote(text)}: invalid syntax"


def _range_error(text: str) -> str:
    return f"strconv.Atoi: parsing {quote(text)}: value out of range"


def atoi(text: str) -> tuple[int, str | None]:
    """``strconv.Atoi`` on a 64-bit platform: ``(value, None)`` or ``(0, error text)``."""
    if text.isdigit() and text.isascii() and len(text) < 19:
        return int(text), None
    size = len(text.encode("utf-8", "surrogatepass"))
    if 0 < size < 19:
        digits = text[1:] if text[0] in "+-" else text
        if not digits or not (digits.isascii() and digits.isdigit()):
            return 0, _syntax_error(text)
        value = int(digits)
        return (-value if text[0] == "-" else value), None
    if size == 0:
        return 0, _syntax_error(text)
    digits = text[1:] if text[0] in "+-" else text
    if not digits:
        return 0, _syntax_error(text)
    # ParseUint reports an overflow as soon as it happens, before it sees a later bad character.
    value = 0
    for ch in digits:
        if not ("0" <= ch <= "9"):
            return 0, _syntax_error(text)
        if value >= _UINT64_CUTOFF:
            return 0, _range_error(text)
        value = value * 10 + (ord(ch) - 48)
        if value > _UINT64_MAX:
            return 0, _range_error(text)
    if text[0] == "-":
        value = -value
    if not (_INT64_MIN <= value <= _INT64_MAX):
        return 0, _range_error(text)
    return value, None


def parse_uint(text: str) -> tuple[int, str | None]:
    """``strconv.ParseUint(text, 10, 64)``: ASCII digits only, no sign: ``(value, None)`` or ``(0, error text)``.

    Python's ``str.isdigit`` and ``int`` accept other scripts' digits (``١٢``, ``²``, ``𝟙``); Go does not.
    """
    if not text or not (text.isascii() and text.isdigit()):
        return 0, f"strconv.ParseUint: parsing {quote(text)}: invalid syntax"
    if len(text.lstrip("0")) > 20:  # past uint64 for certain, and past what int() converts in bounded time
        return 0, f"strconv.ParseUint: parsing {quote(text)}: value out of range"
    value = int(text)
    if value > _UINT64_MAX:
        return 0, f"strconv.ParseUint: parsing {quote(text)}: value out of range"
    return value, None
