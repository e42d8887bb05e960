"""Go's ``encoding/json`` validity scan, with its exact error messages.

The apiserver answers a malformed patch with ``400 error decoding patch: <Go's text>``, so the text
matters: ``invalid character 'o' in literal null (expecting 'u')``, ``unexpected end of JSON input``,
``invalid character '[' exceeded max depth`` and so on. This module reproduces ``checkValid`` from
``encoding/json/scanner.go`` (the copy in sigs.k8s.io/json is the same): the first invalid byte and the
scanner state at that byte decide the message, and the end of input is fed as a space, as ``eof()``
does. It only validates; decoding lives in :mod:`fakeapi._patching.godecode`.
"""

from __future__ import annotations

import re

from fakeapi._patching.gostrconv import quote

MAX_NESTING_DEPTH = 10000
"""``maxNestingDepth`` in Go's scanner: the 10,001st open bracket is an error."""

_WHITESPACE = b" \t\r\n"
_PLAIN_STRING_RUN = re.compile(rb'[^"\\\x00-\x1f]*')
_HEX = b"0123456789abcdefABCDEF"
_DIGITS = b"0123456789"

_OBJECT_KEY = 0
_OBJECT_VALUE = 1
_ARRAY_VALUE = 2


class GoSyntaxError(ValueError):
    """A ``*json.SyntaxError``: ``str()`` is Go's ``err.Error()``."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def quote_char(byte: int) -> str:
    """Go's ``quoteChar``: a byte shown as the rune of the same number, quoted with single quotes."""
    if byte == 0x27:
        return "'\\''"
    if byte == 0x22:
        return "'\"'"
    return "'" + quote(chr(byte))[1:-1] + "'"


def _invalid(byte: int, context: str, offset: int) -> GoSyntaxError:
    return GoSyntaxError(f"invalid character {quote_char(byte)} {context}", offset)


def _end_of_input(offset: int) -> GoSyntaxError:
    return GoSyntaxError("unexpected end of JSON input", offset)


class _Scan:
    """One pass over ``data`` in the order Go's state machine visits it."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.size = len(data)
        self.stack: list[int] = []

    def byte_at(self, i: int) -> int:
        """The byte at ``i``, or a space at the end, as ``eof()`` feeds one."""
        return self.data[i] if i < self.size else 0x20

    def skip_space(self, i: int) -> int:
        data, size = self.data, self.size
        while i < size and data[i] in _WHITESPACE:
            i += 1
        return i

    def push(self, kind: int, byte: int, i: int) -> None:
        self.stack.append(kind)
        if len(self.stack) > MAX_NESTING_DEPTH:
            raise _invalid(byte, "exceeded max depth", i)

    def string(self, i: int) -> int:
        """Scan a string whose opening quote is at ``i``; return the index after the closing quote."""
        data, size = self.data, self.size
        i += 1
        while True:
            i = _PLAIN_STRING_RUN.match(data, i).end()  # type: ignore[union-attr]
            if i >= size:
                raise _end_of_input(i)
            c = data[i]
            if c == 0x22:
                return i + 1
            if c != 0x5C:
                raise _invalid(c, "in string literal", i)
            i += 1
            c = self.byte_at(i)
            if c in b'bfnrt\\/"':
                i += 1
                continue
            if c != 0x75:
                raise _invalid(c, "in string escape code", i)
            for k in range(1, 5):
                c = self.byte_at(i + k)
                if c not in _HEX:
                    raise _invalid(c, "in \\u hexadecimal character escape", i + k)
            i += 5

    def number(self, i: int) -> int:
        """Scan a number starting at ``i``; return the index of the first byte after it."""
        at = self.byte_at
        if at(i) == 0x2D:
            i += 1
            c = at(i)
            if c not in _DIGITS:
                raise _invalid(c, "in numeric literal", i)
        if at(i) == 0x30:
            i += 1
        else:
            while at(i) in _DIGITS:
                i += 1
        if at(i) == 0x2E:
            i += 1
            c = at(i)
            if c not in _DIGITS:
                raise _invalid(c, "after decimal point in numeric literal", i)
            while at(i) in _DIGITS:
                i += 1
        if at(i) in b"eE":
            i += 1
            if at(i) in b"+-":
                i += 1
            c = at(i)
            if c not in _DIGITS:
                raise _invalid(c, "in exponent of numeric literal", i)
            while at(i) in _DIGITS:
                i += 1
        return i

    def literal(self, i: int, word: bytes) -> int:
        for k in range(1, len(word)):
            c = self.byte_at(i + k)
            if c != word[k]:
                name = word.decode()
                raise _invalid(c, f"in literal {name} (expecting {quote_char(word[k])})", i + k)
        return i + len(word)

    def value(self, i: int) -> int:
        """Scan from a point where a value may begin; return the index after the value it ends in."""
        data = self.data
        while True:
            i = self.skip_space(i)
            if i >= self.size:
                raise _end_of_input(i)
            c = data[i]
            if c == 0x7B:
                self.push(_OBJECT_KEY, c, i)
                i = self.skip_space(i + 1)
                if i >= self.size:
                    raise _end_of_input(i)
                if data[i] == 0x7D:
                    self.stack.pop()
                    return i + 1
                if data[i] != 0x22:
                    raise _invalid(data[i], "looking for beginning of object key string", i)
                return self.string(i)
            if c == 0x5B:
                self.push(_ARRAY_VALUE, c, i)
                i = self.skip_space(i + 1)
                if i >= self.size:
                    raise _end_of_input(i)
                if data[i] == 0x5D:
                    self.stack.pop()
                    return i + 1
                continue
            if c == 0x22:
                return self.string(i)
            if c == 0x2D or c in _DIGITS:
                return self.number(i)
            if c == 0x74:
                return self.literal(i, b"true")
            if c == 0x66:
                return self.literal(i, b"false")
            if c == 0x6E:
                return self.literal(i, b"null")
            raise _invalid(c, "looking for beginning of value", i)

    def run(self) -> None:
        data, stack = self.data, self.stack
        i = self.value(0)
        while True:
            i = self.skip_space(i)
            if not stack:
                if i < self.size:
                    raise _invalid(data[i], "after top-level value", i)
                return
            if i >= self.size:
                raise _end_of_input(i)
            c = data[i]
            top = stack[-1]
            if top == _OBJECT_KEY:
                if c != 0x3A:
                    raise _invalid(c, "after object key", i)
                stack[-1] = _OBJECT_VALUE
                i = self.value(i + 1)
            elif top == _OBJECT_VALUE:
                if c == 0x2C:
                    stack[-1] = _OBJECT_KEY
                    i = self.skip_space(i + 1)
                    if i >= self.size:
                        raise _end_of_input(i)
                    if data[i] != 0x22:
                        raise _invalid(data[i], "looking for beginning of object key string", i)
                    i = self.string(i)
                elif c == 0x7D:
                    stack.pop()
                    i += 1
                else:
                    raise _invalid(c, "after object key:value pair", i)
            else:
                if c == 0x2C:
                    i = self.value(i + 1)
                elif c == 0x5D:
                    stack.pop()
                    i += 1
                else:
                    raise _invalid(c, "after array element", i)


def check_valid(data: bytes) -> None:
    """Raise :class:`GoSyntaxError` with Go's message if ``data`` is not one valid JSON value."""
    _Scan(data).run()
