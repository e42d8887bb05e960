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

__all__ = ["UNDECODED", "PatchText"]

UNDECODED: Any = object()
"""The body holds a number no float64 can hold: only its bytes are known, not its value."""

_GO_ESCAPES = (b"\\u003c", b"\\u003e", b"\\u0026", b"\\u2028", b"\\u2029")
_GO_ESCAPED_RAW = (b"<", b">", b"&", "\u2028".encode(), "\u2029".encode())


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

    __slots__ = ("_index", "buf", "go_spelled", "no_unicode_escapes", "one_spelling", "root_start", "value")

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
        escapes = buf.count(b"\\u")
        # Go's own escapes (\\u003c \\u003e \\u0026 \\u2028 \\u2029) never spell a quote or a backslash.
        go_escapes = sum(buf.count(escape) for escape in _GO_ESCAPES) if escapes else 0
        self.no_unicode_escapes = escapes == go_escapes
        plain = b"\\/" not in buf and _is_utf8(buf)
        # Valid UTF-8 (orjson refuses anything else), no \\u escape, no \\/: one spelling per string.
        self.one_spelling = escapes == 0 and plain
        # Only Go's escapes, and none of what they escape left raw: every string is spelled as Go spells it.
        self.go_spelled = (
            escapes > 0 and escapes == go_escapes and plain and not any(raw in buf for raw in _GO_ESCAPED_RAW)
        )
        self.root_start = first_value_start(buf)
        self._index: SpanIndex | None = None

    @property
    def index(self) -> SpanIndex:
        if self._index is None:
            self._index = SpanIndex(self.buf)
        return self._index

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
