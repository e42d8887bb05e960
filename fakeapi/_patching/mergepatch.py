"""RFC 7386 JSON merge patch as evanphx/json-patch v4.12.0 ``MergePatch`` applies it.

``null`` deletes a key (a missing key is fine); a key missing or null in the document takes the
patch value with the nulls inside its objects pruned, while nulls inside arrays are kept (v4.12.0's
``pruneAryNulls``); an object merges into an object; anything else, arrays included, replaces
wholesale. A ``null`` patch, a syntax error, or a patch that is neither an object nor an array is
``Invalid JSON Patch`` (the apiserver's 400); a top-level array patch replaces the whole document
with itself, which the apiserver then fails to decode as an object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakeapi._patching.goscanner import GoSyntaxError
from fakeapi._patching.lazynode import GoPanic, Node, deep_recursion, marshal, result_value
from fakeapi._patching.patchtext import UNDECODED, PatchText

__all__ = ["INVALID_JSON_PATCH", "MergeOutcome", "merge_patch"]

INVALID_JSON_PATCH = "Invalid JSON Patch"
"""``jsonpatch.ErrBadJSONPatch``: the apiserver answers it with 400 and this text."""

_UNDECODED: Any = object()


@dataclass
class MergeOutcome:
    root: Node | None = None
    error: str | None = None
    panic: str | None = None

    @property
    def ok(self) -> bool:
        return self.root is not None

    def value(self, document_encoding: bytes | None = None) -> Any:
        with deep_recursion():
            return result_value(self.root, document_encoding)

    def marshal(self) -> bytes:
        with deep_recursion():
            return marshal(self.root)


def merge_patch(document: dict[str, Any], body: bytes | PatchText) -> MergeOutcome:
    """``jsonpatch.MergePatch(json(document), body)``; ``document`` is read, never modified.

    A number beyond float64 is no error here (json-patch keeps raw bytes); it fails later, when the
    result is decoded.
    """
    if isinstance(body, PatchText):
        text = body
    else:
        try:
            text = PatchText(body)
        except GoSyntaxError:
            return MergeOutcome(error=INVALID_JSON_PATCH)
    raw = text.buf.strip(b" \t\r\n")
    if text.value is UNDECODED:
        patch = Node.from_text(raw)
        shape: Any = {} if raw.startswith(b"{") else [] if raw.startswith(b"[") else None
    else:
        patch = Node.from_patch(text.value, text, lambda: (text.root_start, text.root_start + len(raw)))
        shape = text.value
    if not isinstance(shape, (dict, list)):
        return MergeOutcome(error=INVALID_JSON_PATCH)
    try:
        with deep_recursion():
            if isinstance(shape, dict):
                root = Node.from_container(document)
                _merge_docs(root, patch.into_doc())  # type: ignore[arg-type]
                return MergeOutcome(root=root)
            patch.into_ary()
            _prune_array_nulls(patch)
            return MergeOutcome(root=patch)
    except GoPanic as failure:
        return MergeOutcome(panic=str(failure))


def _merge(current: Node, patch: Node) -> Node:
    current_doc = current.into_doc()
    if current_doc is None:
        _prune_nulls(patch)
        return patch
    patch_doc = patch.into_doc()
    if patch_doc is None:
        return patch
    _merge_docs(current_doc, patch_doc)
    return current


def _merge_docs(doc: Node, patch: Node) -> None:
    for key, value in patch.members():
        if value is None:
            if doc.doc is not None:
                doc.doc.pop(key, None)
            continue
        current = doc.get(key)
        if current is None:
            _prune_nulls(value)
            doc.set(key, value)
        else:
            doc.set(key, _merge(current, value))


def _prune_nulls(node: Node) -> None:
    if node.into_doc() is not None:
        _prune_doc_nulls(node)
    elif node.into_ary() is not None:
        _prune_array_nulls(node)


def _prune_doc_nulls(node: Node) -> None:
    for key, value in node.members():
        if value is not None:
            _prune_nulls(value)
        elif node.doc is not None:
            del node.doc[key]


def _prune_array_nulls(node: Node) -> None:
    for value in node.elements():
        if value is not None:
            _prune_nulls(value)
