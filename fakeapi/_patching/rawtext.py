"""Spans of raw JSON text, split one level at a time, and Go's decoding of string literals.

json-patch keeps the exact bytes of every value it did not decode (``json.RawMessage``): a ``test``
compares those bytes, ``copy`` re-encodes them, ``move`` carries them along. This module finds the
byte span of each member or element of a raw object or array without decoding the values, so the
engine can keep bytes exactly as the client sent them. Input here is always valid JSON (checked
before); keys are decoded with Go's rules (``unquoteBytes``): invalid UTF-8 and unpaired surrogate
escapes become U+FFFD.
"""

from __future__ import annotations

import re
from typing import Any

_SPACE = re.compile(rb"[ \t\r\n]*")
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_SCALAR = re.compile(rb"[^ \t\r\n,\]}]+")
_TO_NEXT_BRACKET = re.compile(rb'[^"\[\]{}]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^"\[\]{}]*)*', re.S)
# One member whose value is a string or a scalar, with the separator after it: the common case.
_SIMPLE_MEMBER = re.compile(
    rb'"([^"\\]*(?:\\.[^"\\]*)*)"[ \t\r\n]*:[ \t\r\n]*("[^"\\]*(?:\\.[^"\\]*)*"|[^ \t\r\n,\]}\[{"]+)[ \t\r\n]*([,}])[ \t\r\n]*',
    re.S,
)
_ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|(.))", re.S)
_SIMPLE_ESCAPES = {b"b": "\b", b"f": "\f", b"n": "\n", b"r": "\r", b"t": "\t", b"/": "/", b"\\": "\\", b'"': '"'}


def value_end(buf: bytes, start: int) -> int:
    """The index just after the JSON value that begins at ``start``."""
    first = buf[start]
    if first == 0x22:
        return _STRING.match(buf, start).end()  # type: ignore[union-attr]
    if first == 0x7B or first == 0x5B:
        depth = 0
        i = start
        while True:
            c = buf[i]
            depth += 1 if c == 0x7B or c == 0x5B else -1
            i += 1
            if depth == 0:
                return i
            i = _TO_NEXT_BRACKET.match(buf, i).end()  # type: ignore[union-attr]
    return _SCALAR.match(buf, start).end()  # type: ignore[union-attr]


def object_members(buf: bytes, start: int) -> list[tuple[str, int, int]]:
    """``(key, value_start, value_end)`` for each member of the object at ``start``, duplicates kept."""
    members: list[tuple[str, int, int]] = []
    i = _SPACE.match(buf, start + 1).end()  # type: ignore[union-attr]
    if buf[i] == 0x7D:
        return members
    simple = _SIMPLE_MEMBER.match
    while True:
        match = simple(buf, i)
        if match is not None:
            members.append((unquote(match.group(1)), match.start(2), match.end(2)))
            if match.group(3) == b"}":
                return members
            i = match.end()
            continue
        key_end = _STRING.match(buf, i).end()  # type: ignore[union-attr]
        key = unquote(buf[i + 1 : key_end - 1])
        i = _SPACE.match(buf, key_end).end()  # type: ignore[union-attr]
        i = _SPACE.match(buf, i + 1).end()  # type: ignore[union-attr]
        end = value_end(buf, i)
        members.append((key, i, end))
        i = _SPACE.match(buf, end).end()  # type: ignore[union-attr]
        if buf[i] == 0x7D:
            return members
        i = _SPACE.match(buf, i + 1).end()  # type: ignore[union-attr]


def array_elements(buf: bytes, start: int) -> list[tuple[int, int]]:
    """``(value_start, value_end)`` for each element of the array at ``start``."""
    elements: list[tuple[int, int]] = []
    i = _SPACE.match(buf, start + 1).end()  # type: ignore[union-attr]
    if buf[i] == 0x5D:
        return elements
    while True:
        end = value_end(buf, i)
        elements.append((i, end))
        i = _SPACE.match(buf, end).end()  # type: ignore[union-attr]
        if buf[i] == 0x5D:
            return elements
        i = _SPACE.match(buf, i + 1).end()  # type: ignore[union-attr]


_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]|[^ \t\r\n\[\]{},:"]+', re.S)


class SpanIndex:
    """Every container of a valid JSON text with the spans of its children, from one pass.

    ``children[start]`` lists ``(key, value_start, value_end)`` for the container opening at
    ``start`` (key None in arrays, duplicates kept in order). One regex pass reads each string
    once, however long, which matters for values like kopf's last-handled-configuration.
    """

    __slots__ = ("buf", "children", "key_count")

    def __init__(self, buf: bytes) -> None:
        self.buf = buf
        self.children: dict[int, list[tuple[str | None, int, int]]] = {}
        self.key_count = 0
        # frame: [start, is_object, children, key, expecting_key]
        stack: list[list[Any]] = []
        for match in _TOKEN.finditer(buf):
            start = match.start()
            first = buf[start]
            if first == 0x7B or first == 0x5B:
                stack.append([start, first == 0x7B, [], None, first == 0x7B])
                continue
            if first == 0x2C:
                frame = stack[-1]
                frame[4] = frame[1]
                continue
            if first == 0x3A:
                continue
            if first == 0x7D or first == 0x5D:
                closed = stack.pop()
                self.children[closed[0]] = closed[2]
                value_start = closed[0]
            else:
                if stack and stack[-1][4]:
                    frame = stack[-1]
                    frame[3] = unquote(buf[start + 1 : match.end() - 1])
                    frame[4] = False
                    self.key_count += 1
                    continue
                value_start = start
            if stack:
                frame = stack[-1]
                frame[2].append((frame[3], value_start, match.end()))

    def span(self, start: int) -> tuple[int, int]:
        """The span of the value starting at ``start`` (a container or a scalar)."""
        return start, value_end(self.buf, start)


def first_value_start(buf: bytes) -> int:
    return _SPACE.match(buf).end()  # type: ignore[union-attr]


def decode_utf8(data: bytes) -> str:
    """UTF-8 as Go reads it: each byte that does not start a valid sequence becomes U+FFFD."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    out: list[str] = []
    i = 0
    size = len(data)
    while i < size:
        try:
            out.append(data[i:].decode("utf-8"))
            break
        except UnicodeDecodeError as error:
            out.append(data[i : i + error.start].decode("utf-8"))
            out.append("\ufffd")
            i += error.start + 1
    return "".join(out)


def unquote(body: bytes) -> str:
    """The text of a JSON string literal whose quotes are already removed, by Go's rules."""
    if b"\\" not in body:
        return decode_utf8(body)
    out: list[str] = []
    position = 0
    pending_high: int | None = None
    for match in _ESCAPE.finditer(body):
        if match.start() > position:
            if pending_high is not None:
                out.append("\ufffd")
                pending_high = None
            out.append(decode_utf8(body[position : match.start()]))
        position = match.end()
        hex_digits = match.group(1)
        if hex_digits is None:
            if pending_high is not None:
                out.append("\ufffd")
                pending_high = None
            out.append(_SIMPLE_ESCAPES[match.group(2)])
            continue
        code = int(hex_digits, 16)
        if pending_high is not None:
            if 0xDC00 <= code <= 0xDFFF:
                out.append(chr(0x10000 + ((pending_high - 0xD800) << 10) + (code - 0xDC00)))
                pending_high = None
                continue
            out.append("\ufffd")
            pending_high = None
        if 0xD800 <= code <= 0xDBFF:
            pending_high = code
        elif 0xDC00 <= code <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(chr(code))
    if pending_high is not None:
        out.append("\ufffd")
    if position < len(body):
        out.append(decode_utf8(body[position:]))
    return "".join(out)
