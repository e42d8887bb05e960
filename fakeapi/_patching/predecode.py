"""The apiserver's strict pre-decode of a patch body (``kjson.UnmarshalStrict``), before it applies it.

With ``fieldValidation`` Warn (the default) or Strict, the PATCH handler decodes a JSON patch into
``[]jsonPatchOp{Op, Path, From string; Value interface{}}`` and a merge patch into
``map[string]interface{}`` first (docs/json-patch.md, docs/merge-patch.md). A syntax error or a type error
is ``400 error decoding patch: <Go's text>``; unknown and duplicate members are *strict errors*
(``unknown field "[0].foo"``, ``duplicate field "[0].op"``), returned as warnings in Warn mode.
This module reproduces those texts: Go reports the first type error in document order and collects
up to 100 distinct strict errors, field paths written as kjson's ``strictFieldStack`` writes them.

Duplicates are invisible once decoded, so the decoded body is only trusted when a cheap count shows
no object in it repeats a key; otherwise the raw text is walked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from fakeapi._patching.godecode import GoNumberRangeError, go_number
from fakeapi._patching.gostrconv import quote
from fakeapi._patching.jsonpatch import json_kind
from fakeapi._patching.patchtext import UNDECODED, PatchText
from fakeapi._patching.rawtext import array_elements, first_value_start, object_members
from fakeapi._patching.slices import pause_after_pass

__all__ = ["PreDecodeError", "PreDecoded", "predecode_json_patch", "predecode_merge_patch"]

_OP_FIELDS = ("op", "path", "from", "value")
_STRING_FIELDS = ("op", "path", "from")
_MAX_STRICT_ERRORS = 100
_PATCH_OPS_TYPE = "[]handlers.jsonPatchOp"
_PATCH_OP_TYPE = "handlers.jsonPatchOp"
_MERGE_TYPE = "map[string]interface {}"


class PreDecodeError(ValueError):
    """The decode failed: the apiserver answers ``400 error decoding patch: <message>``."""


@dataclass
class PreDecoded:
    """A body that decoded, ready for the patch engines, and its strict errors (warnings in Warn mode)."""

    text: PatchText
    strict_errors: list[str] = field(default_factory=list)


class _StrictErrors:
    def __init__(self) -> None:
        self.messages: list[str] = []
        self._seen: set[str] = set()

    def add(self, kind: str, path: str) -> None:
        message = f"{kind} {quote(path)}"
        if len(self.messages) >= _MAX_STRICT_ERRORS or message in self._seen:
            return
        self._seen.add(message)
        self.messages.append(message)


def _field_path(stack: str, key: str) -> str:
    return f"{stack}.{key}" if stack else key


def _decode_body(body: bytes) -> PatchText:
    try:
        return PatchText(body)
    except ValueError as error:  # GoSyntaxError
        raise PreDecodeError(str(error)) from None


def _count_keys(value: Any) -> int:
    count = 0
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            count += len(item)
            pending.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            pending.extend(v for v in item if isinstance(v, (dict, list)))
    return count


def _no_duplicate_keys(text: PatchText) -> bool:
    """True when no object in the body repeats a key.

    Unless the body spells a quote or a colon as a ``\\u`` escape, a quote followed by a colon inside
    a string is spelled ``\\":`` both in the body and in orjson's encoding of the decoded value, so
    '":' occurs inside strings at least as often in the body (with its whitespace dropped) as in that
    encoding, and at every key in both: equal counts mean every key survived decoding.
    """
    if text.quotes_and_colons_literal:
        try:
            encoded = orjson.dumps(text.value, default=float)
        except orjson.JSONEncodeError:
            pass  # deeper than orjson goes, or lone surrogates: count on the raw text instead
        else:
            pause_after_pass(len(encoded))
            return text.buf.translate(None, b" \t\r\n").count(b'":') == encoded.count(b'":')
    return text.index.key_count == _count_keys(text.value)


def predecode_json_patch(body: bytes) -> PreDecoded:
    """``kjson.UnmarshalStrict(body, &[]jsonPatchOp)``: the decoded body and its strict errors."""
    text = _decode_body(body)
    if text.value is not UNDECODED and _no_duplicate_keys(text):
        return PreDecoded(text, _json_patch_checks(text.value))
    walker = _RawWalker(body)
    walker.json_patch()
    return PreDecoded(text, walker.strict.messages)


def _json_patch_checks(value: Any) -> list[str]:
    """Type errors and unknown fields of a decoded body known to have no duplicate keys."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise PreDecodeError(f"json: cannot unmarshal {json_kind(value)} into Go value of type {_PATCH_OPS_TYPE}")
    strict = _StrictErrors()
    type_error: str | None = None
    for index, op in enumerate(value):
        if op is None:
            continue
        if not isinstance(op, dict):
            type_error = type_error or f"json: cannot unmarshal {json_kind(op)} into Go value of type {_PATCH_OP_TYPE}"
            continue
        for key, member in op.items():
            if key not in _OP_FIELDS:
                strict.add("unknown field", f"[{index}].{key}")
            elif key in _STRING_FIELDS and member is not None and not isinstance(member, str):
                type_error = type_error or (
                    f"json: cannot unmarshal {json_kind(member)} into Go struct field jsonPatchOp.{key} of type string"
                )
    if type_error is not None:
        raise PreDecodeError(type_error)
    return strict.messages


def predecode_merge_patch(body: bytes, decoded: Any = UNDECODED) -> PreDecoded:
    """``kjson.UnmarshalStrict(body, &map[string]interface{}{})``; ``decoded`` is the body already
    decoded by :func:`~fakeapi._patching.godecode.decode`, when the caller has it (a 3 MB body is
    50 ms of decoding that cannot pause)."""
    text = _decode_body(body) if decoded is UNDECODED else PatchText(body, decoded, decoded=True)
    if text.value is not UNDECODED and _no_duplicate_keys(text):
        if text.value is not None and not isinstance(text.value, dict):
            raise PreDecodeError(f"json: cannot unmarshal {json_kind(text.value)} into Go value of type {_MERGE_TYPE}")
        return PreDecoded(text)
    walker = _RawWalker(body)
    walker.merge_patch()
    return PreDecoded(text, walker.strict.messages)


class _RawWalker:
    """Go's decode order over the raw text, for bodies with duplicate keys or out-of-range numbers."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.strict = _StrictErrors()
        self.type_error: str | None = None

    def _fail(self, message: str) -> None:
        if self.type_error is None:
            self.type_error = message

    def _kind_at(self, start: int) -> str:
        first = self.body[start]
        if first == 0x7B:
            return "object"
        if first == 0x5B:
            return "array"
        if first == 0x22:
            return "string"
        if first in (0x74, 0x66):
            return "bool"
        return "number"

    def json_patch(self) -> None:
        body = self.body
        start = first_value_start(body)
        if body.startswith(b"null", start):
            return
        if body[start] != 0x5B:
            raise PreDecodeError(
                f"json: cannot unmarshal {self._kind_at(start)} into Go value of type {_PATCH_OPS_TYPE}"
            )
        for index, (op_start, _op_end) in enumerate(array_elements(body, start)):
            if body.startswith(b"null", op_start):
                continue
            if body[op_start] != 0x7B:
                self._fail(f"json: cannot unmarshal {self._kind_at(op_start)} into Go value of type {_PATCH_OP_TYPE}")
                continue
            seen: set[str] = set()
            for key, value_start, _value_end in object_members(body, op_start):
                stack = f"[{index}]"
                if key not in _OP_FIELDS:
                    self.strict.add("unknown field", f"{stack}.{key}")
                    continue
                if key in seen:
                    self.strict.add("duplicate field", f"{stack}.{key}")
                seen.add(key)
                if key in _STRING_FIELDS:
                    if body[value_start] not in (0x22, 0x6E):
                        kind = self._kind_at(value_start)
                        self._fail(
                            f"json: cannot unmarshal {kind} into Go struct field jsonPatchOp.{key} of type string"
                        )
                else:
                    self._interface(value_start, f"{stack}.value", "Go struct field jsonPatchOp.value")
        if self.type_error is not None:
            raise PreDecodeError(self.type_error)

    def merge_patch(self) -> None:
        body = self.body
        start = first_value_start(body)
        if body.startswith(b"null", start):
            return
        if body[start] != 0x7B:
            raise PreDecodeError(f"json: cannot unmarshal {self._kind_at(start)} into Go value of type {_MERGE_TYPE}")
        self._interface(start, "", "Go value")
        if self.type_error is not None:
            raise PreDecodeError(self.type_error)

    def _interface(self, start: int, stack: str, target: str) -> None:
        """Decode one ``interface{}`` value: duplicate keys and float64 overflow are what can fail."""
        body = self.body
        pending: list[tuple[int, str, bool]] = [(start, stack, False)]
        while pending:
            start, stack, duplicate = pending.pop()
            if duplicate:
                self.strict.add("duplicate field", stack)
                continue
            first = body[start]
            if first == 0x7B:
                seen: set[str] = set()
                steps: list[tuple[int, str, bool]] = []
                for key, value_start, _value_end in object_members(body, start):
                    path = _field_path(stack, key)
                    if key in seen:
                        steps.append((0, path, True))
                    seen.add(key)
                    steps.append((value_start, path, False))
                pending.extend(reversed(steps))
            elif first == 0x5B:
                elements = [
                    (value_start, f"{stack}[{index}]", False)
                    for index, (value_start, _) in enumerate(array_elements(body, start))
                ]
                pending.extend(reversed(elements))
            elif first == 0x2D or 0x30 <= first <= 0x39:
                end = start + 1
                while end < len(body) and body[end] in b"0123456789.eE+-":
                    end += 1
                literal = body[start:end].decode()
                try:
                    go_number(literal)
                except GoNumberRangeError:
                    self._fail(f"json: cannot unmarshal number {literal} into {target} of type float64")
