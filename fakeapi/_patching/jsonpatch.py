"""RFC 6902 JSON Patch exactly as kube-apiserver applies it: evanphx/json-patch v4.12.0 ``Patch.Apply``.

One function per operation behind a dispatch table, each a transcription of the Go function of the
same name (docs/json-patch.md), with its deviations from the RFC kept on purpose: ``replace`` of a
missing object key adds it, ``copy`` from a missing key writes null, a missing ``value`` writes null,
``test`` treats missing as null, text before the first ``/`` is ignored, ``-1`` ``+1`` ``01`` are
indices, ``replace ""`` with a scalar changes nothing, and the nil dereferences that panic in Go
raise :class:`GoPanic`. Errors carry the library's exact text; the apiserver hides it behind a
generic 422, but the spelling diagnosis and the conformance corpus read it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fakeapi._patching.godecode import GoNumberRangeError, decode
from fakeapi._patching.lazynode import (
    MISSING_VALUE,
    NIL_POINTER_DEREFERENCE,
    RAW,
    TEST_FAILED,
    GoError,
    GoPanic,
    Node,
    deep_copy,
    deep_recursion,
    equal,
    marshal,
    result_value,
    wrap,
)
from fakeapi._patching.patchtext import UNDECODED, PatchText
from fakeapi._patching.rawtext import array_elements, first_value_start, object_members
from fakeapi._patching.slices import pause

__all__ = [
    "GoError",
    "GoPanic",
    "JSONPatch",
    "Operation",
    "PatchOutcome",
    "apply_patch",
    "decode_patch",
]


def json_kind(value: Any) -> str:
    """The word Go's ``UnmarshalTypeError`` uses for a decoded JSON value of this type."""
    if isinstance(value, TextOnly):
        return {0x7B: "object", 0x5B: "array"}.get(value.raw[0], "number")
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    return "number"


@dataclass
class Operation:
    """One ``Operation`` (``map[string]*json.RawMessage``): member name to decoded value, None for null.

    The exact bytes of ``value`` are looked up in the body only when ``test`` or ``copy`` needs them.
    """

    members: dict[str, Any]
    text: PatchText | None = None
    index: int = 0

    def _string(self, name: str) -> tuple[str, str | None]:
        value = self.members[name]
        if isinstance(value, str):
            return value, None
        return "unknown", f"json: cannot unmarshal {json_kind(value)} into Go value of type string"

    def kind(self) -> str:
        if self.members.get("op") is None:
            return "unknown"
        return self._string("op")[0]

    def path(self) -> tuple[str, str | None]:
        if self.members.get("path") is None:
            return "unknown", "operation missing path field: missing value"
        return self._string("path")

    def from_path(self) -> tuple[str, str | None]:
        if self.members.get("from") is None:
            return "unknown", "operation, missing from field: missing value"
        return self._string("from")

    def value(self) -> Node | None:
        if "value" not in self.members:
            return None
        decoded = self.members["value"]
        if decoded is None:
            return Node.nil_raw()
        if isinstance(decoded, TextOnly):
            return Node.from_text(decoded.raw)
        assert self.text is not None
        return Node.from_patch(decoded, self.text, self._value_span)

    def _value_span(self) -> tuple[int, int]:
        text = self.text
        assert text is not None
        op_start = text.elements(text.root_start)[self.index][0]
        return text.members(op_start)["value"]


@dataclass
class JSONPatch:
    """A decoded patch body: ``jsonpatch.DecodePatch``'s result, with the body kept for raw spans."""

    body: bytes
    operations: list[Operation | None]

    def __len__(self) -> int:
        return len(self.operations)


@dataclass
class PatchOutcome:
    """What ``Apply`` returned: the patched root container (or the error/panic text)."""

    root: Node | None = None
    error: str | None = None
    panic: str | None = None
    failed_tests: list[tuple[str, Node | None, Node | None]] = field(default_factory=list)
    empty_document: bool = False
    document: Any = None

    @property
    def ok(self) -> bool:
        return self.root is not None

    def value(self, document_encoding: bytes | None = None) -> Any:
        """The object the apiserver decodes from the result (see :func:`result_value`)."""
        with deep_recursion():
            return result_value(self.root, document_encoding, self.document)

    def marshal(self) -> bytes:
        """The exact bytes ``Apply`` returns."""
        if self.empty_document:
            return b""
        with deep_recursion():
            return marshal(self.root)


def decode_patch(body: bytes | PatchText) -> JSONPatch:
    """``jsonpatch.DecodePatch``; raises :class:`GoError` with Go's text on a body of the wrong shape.

    Syntax errors raise :class:`fakeapi._patching.goscanner.GoSyntaxError`.
    """
    text = body if isinstance(body, PatchText) else PatchText(body)
    decoded = text.value
    if decoded is UNDECODED:
        decoded = _decode_members_separately(text.buf)
    if decoded is None:
        return JSONPatch(text.buf, [])
    if not isinstance(decoded, list):
        raise GoError(f"json: cannot unmarshal {json_kind(decoded)} into Go value of type jsonpatch.Patch")
    operations: list[Operation | None] = []
    for index, item in enumerate(decoded):
        if item is None:
            operations.append(None)
        elif isinstance(item, dict):
            operations.append(Operation(item, text, index))
        else:
            raise GoError(f"json: cannot unmarshal {json_kind(item)} into Go value of type jsonpatch.Operation")
    return JSONPatch(text.buf, operations)


@dataclass(frozen=True)
class TextOnly:
    """A member whose number no float64 holds: json-patch keeps its bytes, decoding it fails later."""

    raw: bytes


def _decode_members_separately(body: bytes) -> Any:
    """Decode a patch whose only flaw is a huge number: each op member on its own."""
    start = first_value_start(body)
    if body[start] != 0x5B:
        return TextOnly(body[start:].strip())
    operations: list[Any] = []
    for element_start, element_end in array_elements(body, start):
        if body[element_start] != 0x7B:
            raw = body[element_start:element_end]
            operations.append(None if raw == b"null" else TextOnly(raw))
            continue
        members: dict[str, Any] = {}
        for key, value_start, value_end in object_members(body, element_start):
            raw = body[value_start:value_end]
            try:
                members[key] = decode(raw)
            except GoNumberRangeError:
                members[key] = TextOnly(raw)
        operations.append(members)
    return operations


def _find_object(root: Node, path: str) -> tuple[Node | None, str]:
    """``findObject``: the container holding the last token of ``path``, and that token."""
    split = path.split("/")
    if len(split) < 2:
        return None, ""
    doc = root
    for part in split[1:-1]:
        try:
            following = doc.get(_decode_key(part) if "~" in part else part)
        except GoError:
            return None, ""
        if following is None:
            return None, ""
        if following.which != RAW:
            # Already a container: Go's isArray on its raw text picks the same kind again.
            doc = following
            continue
        container = following.into_ary() if following.is_array() else following.into_doc()
        if container is None:
            return None, ""
        doc = container
    last = split[-1]
    return doc, _decode_key(last) if "~" in last else last


def _decode_key(token: str) -> str:
    if "~" not in token:
        return token
    # strings.NewReplacer("~1", "/", "~0", "~"): one left-to-right pass, so "~01" becomes "~1".
    out: list[str] = []
    i = 0
    while i < len(token):
        pair = token[i : i + 2]
        if pair == "~1":
            out.append("/")
            i += 2
        elif pair == "~0":
            out.append("~")
            i += 2
        else:
            out.append(token[i])
            i += 1
    return "".join(out)


class _Applier:
    def __init__(self, root: Node, copy_limit: int) -> None:
        self.root = root
        self.copy_limit = copy_limit
        self.copied = 0
        self.failed_tests: list[tuple[str, Node | None, Node | None]] = []

    def add(self, op: Operation) -> None:
        path, error = op.path()
        if error is not None:
            raise wrap(MISSING_VALUE, "add operation failed to decode path")
        container, key = _find_object(self.root, path)
        if container is None:
            raise wrap(MISSING_VALUE, f'add operation does not apply: doc is missing path: "{path}"')
        try:
            container.add(key, op.value())
        except GoError as failure:
            raise wrap(str(failure), f"error in add for path: '{path}'") from None

    def remove(self, op: Operation) -> None:
        path, error = op.path()
        if error is not None:
            raise wrap(MISSING_VALUE, "remove operation failed to decode path")
        container, key = _find_object(self.root, path)
        if container is None:
            raise wrap(MISSING_VALUE, f'remove operation does not apply: doc is missing path: "{path}"')
        try:
            container.remove(key)
        except GoError as failure:
            raise wrap(str(failure), f"error in remove for path: '{path}'") from None

    def replace(self, op: Operation) -> None:
        path, error = op.path()
        if error is not None:
            raise wrap(error, "replace operation failed to decode path")
        if path == "":
            value = op.value()
            if value is None:
                raise GoPanic(NIL_POINTER_DEREFERENCE)
            if value.which == RAW and not value.try_doc() and not value.try_ary():
                # errors.Wrapf(nil, ...) is nil: v4.12.0 reports success and changes nothing.
                return
            self.root = value
            return
        container, key = _find_object(self.root, path)
        if container is None:
            raise wrap(MISSING_VALUE, f"replace operation does not apply: doc is missing path: {path}")
        try:
            container.get(key)
        except GoError:
            raise wrap(MISSING_VALUE, f"replace operation does not apply: doc is missing key: {path}") from None
        try:
            container.set(key, op.value())
        except GoError as failure:
            raise wrap(str(failure), f"error in remove for path: '{path}'") from None

    def move(self, op: Operation) -> None:
        source, error = op.from_path()
        if error is not None:
            raise wrap(error, "move operation failed to decode from")
        container, key = _find_object(self.root, source)
        if container is None:
            raise wrap(MISSING_VALUE, f"move operation does not apply: doc is missing from path: {source}")
        try:
            value = container.get(key)
            container.remove(key)
        except GoError as failure:
            raise wrap(str(failure), f"error in move for path: '{key}'") from None
        path, error = op.path()
        if error is not None:
            raise wrap(error, "move operation failed to decode path")
        container, key = _find_object(self.root, path)
        if container is None:
            raise wrap(MISSING_VALUE, f"move operation does not apply: doc is missing destination path: {path}")
        try:
            container.add(key, value)
        except GoError as failure:
            raise wrap(str(failure), f"error in move for path: '{path}'") from None

    def test(self, op: Operation) -> None:
        path, error = op.path()
        if error is not None:
            raise wrap(error, "test operation failed to decode path")
        if path == "":
            expected = op.value()
            if equal(self.root, expected):
                return
            self.failed_tests.append((path, self.root, expected))
            raise wrap(TEST_FAILED, f"testing value {path} failed")
        container, key = _find_object(self.root, path)
        if container is None:
            raise wrap(MISSING_VALUE, f"test operation does not apply: is missing path: {path}")
        try:
            actual = container.get(key)
        except GoError as failure:
            raise wrap(str(failure), f"error in test for path: '{path}'") from None
        expected = op.value()
        if actual is None:
            if expected is None:
                raise GoPanic(NIL_POINTER_DEREFERENCE)
            if expected.nil:
                return
        elif expected is not None and equal(actual, expected):
            return
        self.failed_tests.append((path, actual, expected))
        raise wrap(TEST_FAILED, f"testing value {path} failed")

    def copy(self, op: Operation) -> None:
        source, error = op.from_path()
        if error is not None:
            raise wrap(error, "copy operation failed to decode from")
        container, key = _find_object(self.root, source)
        if container is None:
            raise wrap(MISSING_VALUE, f"copy operation does not apply: doc is missing from path: {source}")
        try:
            value = container.get(key)
        except GoError as failure:
            raise wrap(str(failure), f"error in copy for from: '{source}'") from None
        path, error = op.path()
        if error is not None:
            raise wrap(MISSING_VALUE, "copy operation failed to decode path")
        container, key = _find_object(self.root, path)
        if container is None:
            raise wrap(MISSING_VALUE, f"copy operation does not apply: doc is missing destination path: {path}")
        copied, size = deep_copy(value)
        self.copied += size
        if self.copy_limit > 0 and self.copied > self.copy_limit:
            raise GoError(
                "Unable to complete the copy, the accumulated size increase of copy is "
                f"{self.copied}, exceeding the limit {self.copy_limit}"
            )
        try:
            container.add(key, copied)
        except GoError as failure:
            raise wrap(str(failure), "error while adding value during copy") from None


_OPERATIONS: dict[str, Callable[[_Applier, Operation], None]] = {
    "add": _Applier.add,
    "remove": _Applier.remove,
    "replace": _Applier.replace,
    "move": _Applier.move,
    "test": _Applier.test,
    "copy": _Applier.copy,
}

_NO_MEMBERS = Operation({})


_OPERATION_UNITS = 8
"""What applying one operation costs in a slice's elements (fakeapi/_patching/slices.py)."""


def apply_patch(document: Any, patch: JSONPatch | Sequence[Operation | None], copy_limit: int = 0) -> PatchOutcome:
    """``patch.Apply(json(document))``: the stored ``document`` is read, never modified.

    ``document`` is a decoded object (what the store holds) or JSON text.

    ``copy_limit`` is ``AccumulatedCopySizeLimit``: the apiserver sets 3 MiB, the library default is 0
    (no limit).
    """
    operations = patch.operations if isinstance(patch, JSONPatch) else patch
    if isinstance(document, bytes):
        if not document:
            # ApplyIndent returns an empty document unchanged, whatever the patch holds.
            return PatchOutcome(root=Node.from_text(b"", None), empty_document=True)
        document = decode(document)
    if not isinstance(document, (dict, list)):
        raise TypeError("the document must be a JSON object or array")
    applier = _Applier(Node.from_container(document), copy_limit)
    outcome = PatchOutcome(failed_tests=applier.failed_tests, document=document)
    try:
        with deep_recursion():
            for op in operations:
                pause(_OPERATION_UNITS)
                op = op or _NO_MEMBERS
                handler = _OPERATIONS.get(op.kind())
                if handler is None:
                    raise GoError(f"Unexpected kind: {op.kind()}")
                handler(applier, op)
    except GoError as failure:
        outcome.error = str(failure)
        return outcome
    except GoPanic as failure:
        outcome.panic = str(failure)
        return outcome
    outcome.root = applier.root
    return outcome
