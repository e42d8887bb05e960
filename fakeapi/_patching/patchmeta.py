"""What strategic merge patch asks of a type: ``LookupPatchMeta``, the interface, and the plain type.

The library finds a field's merge strategy and merge key by asking the schema of the map being
merged (k8s.io/apimachinery ``pkg/util/strategicpatch/meta.go``): ``LookupPatchMetadataForStruct``
when the original and the patch both hold a map under the key, ``LookupPatchMetadataForSlice`` when
they both hold a list (or a ``$setElementOrder`` directive names it), and ``Name`` for the message
of a list of maps without a merge key. Each answer is the field's :class:`FieldMeta` (its
``patchStrategy`` tag split at commas and its ``patchMergeKey``) and the schema of its value or of
its list items. A lookup that fails is the library's error, which the apiserver answers with 500.

The built-in kinds answer from their Go structs (``fakeapi._state.typed.patchmeta``); this module
holds only the interface and :data:`PLAIN`, a type every lookup succeeds on with no tags (what a
kind without Go struct data gets: maps merge key by key, lists are replaced whole).
"""

from __future__ import annotations

from dataclasses import dataclass

from fakeapi._patching.smperrors import StrategicMergeError

__all__ = ["MERGE", "PLAIN", "REPLACE", "RETAIN_KEYS", "FieldMeta", "PatchMeta", "split_strategies"]

MERGE = "merge"
REPLACE = "replace"
RETAIN_KEYS = "retainKeys"


@dataclass(frozen=True, slots=True)
class FieldMeta:
    """One struct field's tags: ``patchStrategy`` split at commas, and ``patchMergeKey``."""

    strategies: tuple[str, ...] = ()
    merge_key: str = ""

    def strategy(self) -> str:
        """``extractRetainKeysPatchStrategy``: the strategy besides ``retainKeys``; a pair without it fails."""
        strategies = self.strategies
        if len(strategies) == 1:
            return "" if strategies[0] == RETAIN_KEYS else strategies[0]
        if len(strategies) == 2 and RETAIN_KEYS in strategies:
            return strategies[1] if strategies[0] == RETAIN_KEYS else strategies[0]
        if not strategies:
            return ""
        raise StrategicMergeError(f"unexpected patch strategy: [{' '.join(strategies)}]")


def split_strategies(tag: str) -> tuple[str, ...]:
    """``strings.Split(patchStrategy, ",")``: an empty tag is one empty strategy, as in Go."""
    return tuple(tag.split(","))


NO_TAGS = FieldMeta(("",))


class PatchMeta:
    """A schema: the type of the map being merged, answering for its fields."""

    __slots__ = ()

    def name(self) -> str:
        """``Name()``: the Go kind of the type (``struct``, ``string``, ``ptr``, ...)."""
        raise NotImplementedError

    def lookup_struct(self, key: str) -> tuple[PatchMeta, FieldMeta]:
        """``LookupPatchMetadataForStruct``: the field's value type and tags."""
        raise NotImplementedError

    def lookup_slice(self, key: str) -> tuple[PatchMeta, FieldMeta]:
        """``LookupPatchMetadataForSlice``: the field's item type and tags."""
        raise NotImplementedError


class _Plain(PatchMeta):
    __slots__ = ()

    def name(self) -> str:
        return "struct"

    def lookup_struct(self, key: str) -> tuple[PatchMeta, FieldMeta]:
        return self, NO_TAGS

    def lookup_slice(self, key: str) -> tuple[PatchMeta, FieldMeta]:
        return self, NO_TAGS


PLAIN: PatchMeta = _Plain()
"""A type with no tagged field anywhere below it, that knows every field."""
