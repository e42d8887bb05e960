"""A patch request body: its bytes, its decoded value, and where each value sits in the bytes.

json-patch compares the bytes a client sent, so the engine must know them; decoding is done by
orjson and the bytes are looked up only when a ``test`` or ``copy`` needs them. In most bodies
there is no ``\\u`` escape and no ``\\/``: then a string has exactly one possible spelling, the one
``json.dumps(s, ensure_ascii=False)`` writes, and every integer but zero has one too, so those bytes
follow from the decoded value without reading the body again. Otherwise one pass
(:class:`~fakeapi._patching.rawtext.SpanIndex`) finds every span.
"""

from __future__ import annotations

import json
from typing import Any

from fakeapi._patching.godecode import GoNumberRangeError, decode
from fakeapi._patching.goencode import encode_string
from fakeapi._patching.rawtext import SpanIndex, first_value_start
from fakeapi._patching.slices import pause_after_pass

__all__ = ["UNDECODED", "PatchText"]

UNDECODED: Any = object()
"""The body holds a number no float64 can hold: only its bytes are known, not its value."""

_GO_ESCAPES = frozenset({b"003c", b"003e", b"0026", b"2028", b"2029"})
_QUOTE_OR_COLON_ESCAPES = frozenset({b"0022", b"003a", b"003A"})
_GO_ESCAPED_CHARACTERS = ("<", ">", "&", "\u2028", "\u2029")
_LINE_AND_PARAGRAPH_SEPARATORS = ("\u2028".encode(), "\u2029".encode())


def _holds_go_escaped_raw(buf: bytes) -> bool:
    """Whether the text holds, unescaped, a character Go's encoder escapes."""
    # One-byte searches are memchr; the three-byte ones only where their lead byte occurs.
    if b"<" in buf or b">" in buf or b"&" in buf:
        return True
    return b"\xe2" in buf and any(separator in buf for separator in _LINE_AND_PARAGRAPH_SEPARATORS)


def _is_utf8(buf: bytes) -> bool:
    if buf.isascii():
        return True
    try:
        buf.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class PatchText:
    """One request body, decoded once, indexed on demand."""

    __slots__ = ("_index", "buf", "go_spelled", "one_spelling", "quotes_and_colons_literal", "root_start", "value")

    def __init__(self, buf: bytes, value: Any = UNDECODED, *, decoded: bool = False) -> None:
        """``value`` is the decoded body when the caller has it; ``decoded=True`` says it is final."""
        self.buf = buf
        if not decoded:
            try:
                # Numbers are marked as Go reads them only for the values that get stored.
                value = decode(buf, mark_numbers=False)
            except GoNumberRangeError:
                value = UNDECODED
        self.value = value
        pause_after_pass(len(buf))
        # Escaped backslashes gone (pairs, left to right, as a decoder reads them), every backslash
        # left starts an escape; the four hex digits after each \\u name what it escapes.
        escape_text = buf.replace(b"\\\\", b"") if b"\\\\" in buf else buf
        escaped = [piece[:4] for piece in escape_text.split(b"\\u")[1:]] if b"\\u" in escape_text else []
        self.quotes_and_colons_literal = not any(name in _QUOTE_OR_COLON_ESCAPES for name in escaped)
        plain = b"\\/" not in escape_text and _is_utf8(buf)
        # Valid UTF-8 (orjson refuses anything else), no \\u escape, no \\/: one spelling per string.
        self.one_spelling = not escaped and plain
        # Only Go's escapes, and none of what they escape left raw: every string is spelled as Go spells it.
        # (Go's escapes never spell a quote or a backslash.)
        self.go_spelled = (
            bool(escaped) and plain and all(name in _GO_ESCAPES for name in escaped) and not _holds_go_escaped_raw(buf)
        )
        pause_after_pass(len(buf))
        self.root_start = first_value_start(buf)
        self._index: SpanIndex | None = None

    @property
    def index(self) -> SpanIndex:
        if self._index is None:
            self._index = SpanIndex(self.buf)
        return self._index

    def spells_as_go(self, value: str) -> bool:
        """Whether a string of this body is spelled exactly as Go's encoder spells it."""
        if self.go_spelled:
            return True
        return self.one_spelling and not any(raw in value for raw in _GO_ESCAPED_CHARACTERS)

    def literal_spelling(self, value: Any) -> bytes | None:
        """The bytes of a scalar when the decoded value alone determines them, else None."""
        if not (self.one_spelling or self.go_spelled):
            return None
        if isinstance(value, str):
            if self.go_spelled:
                return encode_string(value)
            return json.dumps(value, ensure_ascii=False).encode("utf-8")
        if value is True:
            return b"true"
        if value is False:
            return b"false"
        if type(value) is int and value != 0:
            return str(value).encode()
        return None

    def members(self, start: int) -> dict[str | None, tuple[int, int]]:
        """The spans of a container's children by key (index for arrays); a repeated key keeps its last."""
        children = self.index.children[start]
        if children and children[0][0] is None:
            return {index: (child_start, child_end) for index, (_, child_start, child_end) in enumerate(children)}  # type: ignore[misc]
        return {key: (child_start, child_end) for key, child_start, child_end in children}

    def elements(self, start: int) -> list[tuple[int, int]]:
        return [(child_start, child_end) for _, child_start, child_end in self.index.children.get(start, [])]
