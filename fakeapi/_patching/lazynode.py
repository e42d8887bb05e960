"""json-patch v4's ``lazyNode``: a JSON value kept as raw bytes until an operation needs its insides.

The apiserver's result for a ``test`` op depends on where the compared bytes came from
(docs/json-patch.md): the stored object as Go encodes it, the patch text exactly as sent,
``copy`` output re-encoded, ``move`` carried unchanged. This module reproduces evanphx/json-patch v4.12.0
(``patch.go``: ``lazyNode``, ``partialDoc``, ``partialArray``, ``equal``, ``deepCopy``) including
its quirks:

* Go has two kinds of null: a JSON ``null`` inside a decoded object or array is a nil pointer
  (``None`` here), while an op's ``"value": null`` is a node whose raw pointer is nil (``nil=True``).
  They behave differently: the first reads as missing, the second panics when a path goes through it.
* Raw text ``null`` (what ``copy`` makes of a nil-raw node) decodes into a nil map, so writing into
  it panics with ``assignment to entry in nil map``.
* ``equal`` dereferences nil pointers when it compares arrays holding null: Go panics there.

A node's bytes are resolved lazily: a stored value is encoded with Go's encoder when a comparison
needs it, a patch value is located in the request body only when compared or copied. Nothing here
mutates a stored value: converting a node builds new containers of child nodes.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Callable
from typing import Any

from fakeapi._patching.godecode import decode, normalize
from fakeapi._patching.goencode import compact, compact_escape, encode, encode_string
from fakeapi._patching.gostrconv import atoi
from fakeapi._patching.patchtext import PatchText
from fakeapi._patching.rawtext import array_elements, object_members
from fakeapi._patching.slices import paused

RAW = 0
DOC = 1
ARY = 2

NIL_POINTER_DEREFERENCE = "runtime error: invalid memory address or nil pointer dereference"
NIL_MAP_ASSIGNMENT = "assignment to entry in nil map"

_UNSET: Any = object()


_DEEP_RECURSION_LIMIT = 60000
_deep_recursion_lock = threading.Lock()
_deep_recursion_users = 0
_saved_recursion_limit = 0


class _DeepRecursion:
    """Allow recursion as deep as a 10,000-level document needs, for the duration of one call.

    Go's decoder accepts 10,000 levels of nesting, and the engine walks documents recursively.
    Python 3.11 runs Python-to-Python calls without C stack, so a higher limit is safe for the
    engine's own functions, which never recurse through C code. A class, not a generator-based
    context manager: every patch enters it several times.
    """

    __slots__ = ()

    def __enter__(self) -> None:
        global _deep_recursion_users, _saved_recursion_limit
        with _deep_recursion_lock:
            if _deep_recursion_users == 0:
                _saved_recursion_limit = sys.getrecursionlimit()
                sys.setrecursionlimit(max(_saved_recursion_limit, _DEEP_RECURSION_LIMIT))
            _deep_recursion_users += 1

    def __exit__(self, *exc_info: object) -> None:
        global _deep_recursion_users
        with _deep_recursion_lock:
            _deep_recursion_users -= 1
            if _deep_recursion_users == 0:
                sys.setrecursionlimit(_saved_recursion_limit)


_DEEP_RECURSION = _DeepRecursion()


def deep_recursion() -> _DeepRecursion:
    """The deep-recursion context (see :class:`_DeepRecursion`)."""
    return _DEEP_RECURSION


class GoPanic(Exception):
    """A runtime panic inside json-patch; the apiserver's panic recovery answers 500."""


class GoError(Exception):
    """An error json-patch returns; ``str()`` is its ``err.Error()`` text."""


def wrap(error: str, message: str) -> GoError:
    """``errors.Wrapf(err, message)`` from github.com/pkg/errors."""
    return GoError(f"{message}: {error}")


MISSING_VALUE = "missing value"
INVALID_INDEX = "invalid index referenced"
TEST_FAILED = "test failed"


class Node:
    """One ``*lazyNode``. ``None`` stands for Go's nil pointer wherever a node may appear."""

    __slots__ = ("_locate", "_raw", "_span", "_text", "ary", "doc", "nil", "stored", "value", "which")

    def __init__(self) -> None:
        self.which = RAW
        self.value: Any = _UNSET
        self.stored = False
        self.nil = False
        self._raw: bytes | None = None
        # A patch value: the body it came from, and how to find its span there when needed.
        self._text: PatchText | None = None
        self._locate: Callable[[], tuple[int, int]] | None = None
        self._span: tuple[int, int] | None = None
        # Children are nodes, None (Go's nil pointer), or plain values of the stored object that no
        # operation has touched yet (wrapped on first touch, see _wrapped).
        self.doc: dict[str, Any] | None = None
        self.ary: list[Any] | None = None

    @classmethod
    def from_stored(cls, value: Any) -> Node | None:
        """A value of the stored object; its bytes are Go's encoding of it."""
        if value is None:
            return None
        node = cls()
        node.value = value
        node.stored = True
        return node

    @classmethod
    def from_text(cls, raw: bytes, value: Any = _UNSET) -> Node:
        node = cls()
        node._raw = raw
        node.value = value
        return node

    @classmethod
    def from_patch(cls, value: Any, text: PatchText, locate: Callable[[], tuple[int, int]]) -> Node:
        """A value of the patch body: decoded already, its exact bytes found when first needed."""
        node = cls()
        node.value = value
        node._text = text
        node._locate = locate
        return node

    @classmethod
    def nil_raw(cls) -> Node:
        """The node an op's ``"value": null`` becomes: present, but its raw pointer is nil."""
        node = cls()
        node.nil = True
        return node

    @classmethod
    def from_container(cls, value: dict[str, Any] | list[Any]) -> Node:
        """The root container of the stored object (``json.Unmarshal`` into a partialDoc)."""
        node = cls()
        node.value = value
        node.stored = True
        if isinstance(value, dict):
            node._convert_to_doc()
        else:
            node._convert_to_array()
        return node

    def raw(self) -> bytes | None:
        """The node's raw bytes (``*n.raw``), or None when the raw pointer is nil."""
        if self._raw is None:
            if self.nil:
                return None
            if self.stored:
                self._raw = encode(self.value)
            elif self._text is not None:
                self._raw = self._text.literal_spelling(self.value)
                if self._raw is None:
                    start, end = self.span()
                    self._raw = self._text.buf[start:end]
        return self._raw

    def go_spelled_string(self) -> str | None:
        """The string this node holds when its bytes are known to be Go's spelling of it, else None.

        Go's spelling of a surrogate-free string (all decoded strings are) is one-to-one, so two
        such nodes have equal bytes exactly when their strings are equal: no bytes needed.
        """
        value = self.value
        if value.__class__ is not str:
            return None
        if self.stored:
            return value
        if self._text is not None and self._raw is None and self._text.spells_as_go(value):
            return value
        return None

    def span(self) -> tuple[int, int]:
        """Where a patch value sits in its body."""
        if self._span is None:
            assert self._locate is not None
            self._span = self._locate()
        return self._span

    def decoded(self) -> Any:
        """The value the apiserver decodes from this node's bytes (floats as GoFloat)."""
        if self.value is _UNSET:
            raw = self.raw()
            self.value = None if raw is None else decode(raw)
        elif self._text is not None:
            return normalize(self.value)
        return self.value

    def is_array(self) -> bool:
        """``isArray(*next.raw)`` in findObject: dereferences the raw pointer."""
        if self.nil:
            raise GoPanic(NIL_POINTER_DEREFERENCE)
        if self.value is not _UNSET:
            return isinstance(self.value, list)
        return self.raw().startswith(b"[")  # type: ignore[union-attr]

    def _child(self, value: Any, key: str | int) -> Node | None:
        if value is None:
            return None
        if self.stored:
            return Node.from_stored(value)
        assert self._text is not None
        text = self._text
        return Node.from_patch(value, text, lambda: text.members(self.span()[0])[key])  # type: ignore[index]

    def _convert_to_doc(self) -> bool:
        value = self.value
        if value is _UNSET:
            raw = self.raw()
            if raw is None:
                return False
            if raw.startswith(b"{"):
                self.doc = {key: _text_child(raw, start, end) for key, start, end in object_members(raw, 0)}
            elif raw == b"null":
                self.doc = None
            else:
                return False
        elif isinstance(value, dict):
            # A stored object's children stay plain values until an operation touches them.
            self.doc = dict(value) if self.stored else {key: self._child(item, key) for key, item in value.items()}
        elif value is None and not self.nil:
            self.doc = None
        else:
            return False
        self.which = DOC
        return True

    def _convert_to_array(self) -> bool:
        value = self.value
        if value is _UNSET:
            raw = self.raw()
            if raw is None:
                return False
            if raw.startswith(b"["):
                self.ary = [_text_child(raw, start, end) for start, end in array_elements(raw, 0)]
            elif raw == b"null":
                self.ary = None
            else:
                return False
        elif isinstance(value, list):
            self.ary = list(value) if self.stored else [self._child(item, index) for index, item in enumerate(value)]
        elif value is None and not self.nil:
            self.ary = None
        else:
            return False
        self.which = ARY
        return True

    def members(self) -> list[tuple[str, Node | None]]:
        """The members of an object node, each as a node (or None for a null)."""
        doc = self.doc or {}
        return [(key, _wrapped(doc, key)) for key in list(doc)]

    def elements(self) -> list[Node | None]:
        """The elements of an array node, each as a node (or None for a null)."""
        items = self.ary or []
        return [_wrapped(items, index) for index in range(len(items))]

    def try_doc(self) -> bool:
        return self._convert_to_doc()

    def try_ary(self) -> bool:
        return self._convert_to_array()

    def into_doc(self) -> Node | None:
        """``intoDoc``: this node as an object container, or None when it is not one."""
        if self.which == DOC:
            return self
        return self if self._convert_to_doc() else None

    def into_ary(self) -> Node | None:
        if self.which == ARY:
            return self
        return self if self._convert_to_array() else None

    def compact(self) -> bytes | None:
        raw = self.raw()
        return None if raw is None else compact(raw)

    # -- the container interface of partialDoc / partialArray -------------------------------------

    def get(self, key: str) -> Node | None:
        """``container.get``; raises :class:`GoError` for a bad array index."""
        if self.which == DOC:
            return None if self.doc is None or key not in self.doc else _wrapped(self.doc, key)
        items = self.ary or []
        index, error = atoi(key)
        if error is not None:
            raise GoError(error)
        if index < 0:
            if index < -len(items):
                raise wrap(INVALID_INDEX, f"Unable to access invalid index: {index}")
            index += len(items)
        if index >= len(items):
            raise wrap(INVALID_INDEX, f"Unable to access invalid index: {index}")
        return _wrapped(items, index)

    def set(self, key: str, value: Node | None) -> None:
        if self.which == DOC:
            if self.doc is None:
                raise GoPanic(NIL_MAP_ASSIGNMENT)
            self.doc[key] = value
            return
        items = self.ary if self.ary is not None else []
        index, error = atoi(key)
        if error is not None:
            raise GoError(error)
        if index < 0:
            if index < -len(items):
                raise wrap(INVALID_INDEX, f"Unable to access invalid index: {index}")
            index += len(items)
        items[index] = value

    def add(self, key: str, value: Node | None) -> None:
        if self.which == DOC:
            self.set(key, value)
            return
        items = self.ary if self.ary is not None else []
        if key == "-":
            self.ary = [*items, value]
            return
        index, error = atoi(key)
        if error is not None:
            raise wrap(error, f"value was not a proper array index: '{key}'")
        size = len(items) + 1
        if index >= size:
            raise wrap(INVALID_INDEX, f"Unable to access invalid index: {index}")
        if index < 0:
            if index < -size:
                raise wrap(INVALID_INDEX, f"Unable to access invalid index: {index}")
            index += size
        self.ary = [*items[:index], value, *items[index:]]

    def remove(self, key: str) -> None:
        if self.which == DOC:
            if self.doc is None or key not in self.doc:
                raise wrap(MISSING_VALUE, f"Unable to remove nonexistent key: {key}")
            del self.doc[key]
            return
        items = self.ary if self.ary is not None else []
        index, error = atoi(key)
        if error is not None:
            raise GoError(error)
        if index >= len(items):
            raise wrap(INVALID_INDEX, f"Unable to access invalid index: {index}")
        if index < 0:
            if index < -len(items):
                raise wrap(INVALID_INDEX, f"Unable to access invalid index: {index}")
            index += len(items)
        self.ary = [*items[:index], *items[index + 1 :]]


def _wrapped(container: Any, key: Any) -> Node | None:
    """The child at ``key`` as a node: a plain stored value is wrapped on first touch."""
    item = container[key]
    if item is None or item.__class__ is Node:
        return item
    node = Node.from_container(item) if isinstance(item, (dict, list)) else Node.from_stored(item)
    container[key] = node
    return node


def _text_child(raw: bytes, start: int, end: int) -> Node | None:
    if raw.startswith(b"null", start) and end - start == 4:
        return None
    return Node.from_text(raw[start:end])


def equal(node: Node | None, other: Node | None) -> bool:
    """``lazyNode.equal``: scalars by compacted bytes, objects and arrays by structure.

    Go iterates an object's keys in random order, so when one key would panic and another compares
    unequal the outcome varies from run to run; here the unequal key wins, the likelier outcome.
    """
    if node is None:
        raise GoPanic(NIL_POINTER_DEREFERENCE)
    if node.which == RAW and not node.try_doc() and not node.try_ary():
        if other is None:
            raise GoPanic(NIL_POINTER_DEREFERENCE)
        if other.which != RAW:
            return False
        string = node.go_spelled_string()
        if string is not None:
            other_string = other.go_spelled_string()
            if other_string is not None:
                return string == other_string
        return (node.compact() or b"") == (other.compact() or b"")
    if node.which == DOC:
        if other is None:
            raise GoPanic(NIL_POINTER_DEREFERENCE)
        if other.which == RAW and not other.try_doc():
            return False
        if other.which != DOC:
            return False
        mine = node.doc or {}
        theirs = other.doc or {}
        if len(mine) != len(theirs):
            return False
        panic: GoPanic | None = None
        for key in list(mine):
            if key not in theirs:
                return False
            value, their_value = _wrapped(mine, key), _wrapped(theirs, key)
            if (value is None) != (their_value is None):
                return False
            if value is None:
                continue
            try:
                if not equal(value, their_value):
                    return False
            except GoPanic as error:
                panic = error
        if panic is not None:
            raise panic
        return True
    if other is None:
        raise GoPanic(NIL_POINTER_DEREFERENCE)
    if other.which != ARY and not other.try_ary():
        return False
    mine_items = node.ary or []
    their_items = other.ary or []
    if len(mine_items) != len(their_items):
        return False
    # A loop, not all(generator): the recursion must stay Python-to-Python (see deep_recursion).
    for index in range(len(mine_items)):  # noqa: SIM110
        if not equal(_wrapped(mine_items, index), _wrapped(their_items, index)):
            return False
    return True


def marshal(node: Any) -> bytes:
    """``json.Marshal`` of a node: what json-patch returns and what ``copy`` writes."""
    if node is None:
        return b"null"
    if not isinstance(node, Node):
        return encode(node)
    if node.nil:
        return b"null"
    if node.which == RAW:
        if node.stored:
            return node.raw()  # type: ignore[return-value]
        return compact_escape(node.raw())  # type: ignore[arg-type]
    if node.which == DOC:
        if node.doc is None:
            return b"null"
        doc = node.doc
        # List comprehensions, not generators fed to join: Python-to-Python calls only, so a deep
        # document needs a high recursion limit (see deep_recursion) but no C stack.
        return b"{" + b",".join([encode_string(key) + b":" + marshal(doc[key]) for key in sorted(doc)]) + b"}"
    if node.ary is None:
        return b"null"
    return b"[" + b",".join([marshal(item) for item in node.ary]) + b"]"


def materialize(node: Any) -> Any:
    """The value the apiserver decodes from :func:`marshal`'s bytes, without writing them."""
    if node is None or not isinstance(node, Node):
        return node
    if node.nil:
        return None
    if node.which == RAW:
        return node.decoded()
    if node.which == DOC:
        if node.doc is None:
            return None
        # Children no operation touched are the stored values themselves: no call for them.
        doc = node.doc
        return {
            key: materialize(child) if child.__class__ is Node else child
            for key, child in paused(doc.items(), len(doc))
        }
    if node.ary is None:
        return None
    return [materialize(child) if child.__class__ is Node else child for child in paused(node.ary, len(node.ary))]


_stored_negative_zero: dict[int, tuple[Any, bool]] = {}


def document_holds_negative_zero(document: Any) -> bool:
    """Whether a stored document holds a float -0; kept by identity, as stored documents never change."""
    cached = _stored_negative_zero.get(id(document))
    if cached is not None and cached[0] is document:
        return cached[1]
    try:
        holds = holds_negative_zero(encode(document))
    except ValueError:
        holds = True
    if len(_stored_negative_zero) >= 1024:
        _stored_negative_zero.clear()
    _stored_negative_zero[id(document)] = (document, holds)
    return holds


def result_value(root: Node | None, document_encoding: bytes | None = None, document: Any = None) -> Any:
    """What the apiserver decodes from ``marshal(root)``, mostly without writing those bytes.

    The shortcut (:func:`materialize`) differs from a real decode in one case: a stored float
    ``-0`` is written ``-0``, which reads back as the integer 0, while a patch's own ``-0.0`` keeps
    its bytes and stays a float. When the value holds anything spelled ``-0``, decode for real.
    ``document_encoding``, the patched document as stored, settles it at once when it has no ``-0``.
    """
    value = materialize(root)
    if document_encoding is not None and not holds_negative_zero(document_encoding):
        return value
    if document_encoding is None and document is not None and not document_holds_negative_zero(document):
        return value
    try:
        encoded = encode(value)
    except ValueError:
        return value
    return decode(marshal(root)) if holds_negative_zero(encoded) else value


# ``-0`` followed by what ends a number: names and dates ("job-00001", "2026-01-02") do not match.
_NEGATIVE_ZERO = re.compile(rb"-0(?=[,\]}]|\Z)")


def holds_negative_zero(encoded: bytes) -> bool:
    """Whether Go's encoding holds the number ``-0`` (a float negative zero), not just the text ``-0``."""
    for match in _NEGATIVE_ZERO.finditer(encoded):
        start = match.start()
        if start == 0 or encoded[start - 1] in b":,[":
            return True
    return False


def deep_copy(node: Node | None) -> tuple[Node | None, int]:
    """``deepCopy``: the node re-encoded (compacted, HTML-escaped), and the size of that encoding."""
    if node is None:
        return None, 0
    raw = marshal(node)
    copied = Node.from_text(raw, node.value if node.stored and node.which == RAW else _UNSET)
    return copied, len(raw)
