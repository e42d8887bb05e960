"""Strategic merge patch metadata of every built-in kind, read from its Go struct (docs/strategic-merge-patch.md).

The apiserver patches a built-in object with ``StrategicMergeMapPatch(original, patch, &<Kind>{})``,
whose schema is ``PatchMetaFromStruct``: each lookup goes to the forked ``encoding/json``'s
``LookupPatchMetadataForStruct`` (k8s.io/apimachinery ``third_party/forked/golang/json/fields.go``),
which finds the field the JSON library would decode the key into (exact name first, else the
first case-insensitive match, embedded structs flattened) and reads its ``patchStrategy`` and
``patchMergeKey`` tags. The tags and types come from the struct data (:mod:`.structs`), so every
kind of ``k8s.io/api`` is patchable with its own merge keys and nothing is typed in by hand.

The lookups fail as Go's do, with Go's texts (the apiserver answers them with 500):
``unable to find api field in struct <Name> for the json field "<key>"``, ``merging an object in
json but data type is not struct, instead is: <kind>``, and for a list ``expected slice or array
type, but got: <kind>`` (the kind of the struct being looked in, as Go prints it).
"""

from __future__ import annotations

import functools

from fakeapi._patching.gostrconv import quote
from fakeapi._patching.patchmeta import FieldMeta, PatchMeta, split_strategies
from fakeapi._patching.smperrors import StrategicMergeError
from fakeapi._state.typed.structs import GoStructs

__all__ = ["kind_patch_meta", "struct_patch_meta"]

_SCALAR_KINDS = {
    "string",
    "bool",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
}
_FOLD_TO_ASCII = str.maketrans({"\u212a": "k", "\u017f": "s"})


def _fold(name: str) -> str:
    """The key ``bytes.EqualFold`` compares: ASCII case, the Kelvin sign as k, the long s as s."""
    return "".join(ch.lower() if ch.isascii() else ch for ch in name.translate(_FOLD_TO_ASCII))


class _GoType(PatchMeta):
    """``PatchMetaFromStruct{T}`` for one Go type, written as in the struct data (``*core/v1.PodSpec``)."""

    __slots__ = ("_fields", "_go_type", "_structs")

    def __init__(self, structs: GoStructs, go_type: str) -> None:
        self._structs = structs
        self._go_type = go_type
        self._fields: tuple[tuple[str, str, FieldMeta], ...] | None = None

    def name(self) -> str:
        return _kind(self._structs, self._go_type)

    def lookup_struct(self, key: str) -> tuple[PatchMeta, FieldMeta]:
        struct = self._go_type.removeprefix("*")
        kind = _kind(self._structs, struct)
        if kind != "struct":
            raise StrategicMergeError(f"merging an object in json but data type is not struct, instead is: {kind}")
        fields = self._fields
        if fields is None:
            fields = self._fields = _json_fields(self._structs, self._structs.underlying(struct))
        found: tuple[str, FieldMeta] | None = None
        folded: str | None = None
        for name, go_type, meta in fields:
            if name == key:
                found = (go_type, meta)
                break
            if found is None:
                folded = _fold(key) if folded is None else folded
                if len(name) == len(key) and _fold(name) == folded:
                    found = (go_type, meta)
        if found is None:
            raise StrategicMergeError(
                f"unable to find api field in struct {struct.rsplit('.', 1)[-1]} for the json field {quote(key)}"
            )
        return _meta(self._structs, found[0]), found[1]

    def lookup_slice(self, key: str) -> tuple[PatchMeta, FieldMeta]:
        value, meta = self.lookup_struct(key)
        assert isinstance(value, _GoType)
        shape = self._structs.underlying(value._go_type)
        if shape.startswith("[]"):
            element = shape[2:]
            if self._structs.underlying(element).startswith("[]"):
                raise StrategicMergeError("unexpected slice of slice")
            return _meta(self._structs, element), meta
        if shape.startswith("*"):
            inner = self._structs.underlying(shape[1:])
            return _meta(self._structs, inner[2:] if inner.startswith("[]") else shape[1:]), meta
        raise StrategicMergeError(f"expected slice or array type, but got: {self.name()}")


def _kind(structs: GoStructs, go_type: str) -> str:
    """``reflect.Kind.String()`` of a Go type."""
    shape = structs.underlying(go_type)
    if shape.startswith("*"):
        return "ptr"
    if shape.startswith("[]"):
        return "slice"
    if shape.startswith("map["):
        return "map"
    if shape == "byte":
        return "uint8"
    if shape in _SCALAR_KINDS:
        return shape
    if shape in ("interface{}", "any"):
        return "interface"
    return "struct"


def _json_fields(structs: GoStructs, struct: str) -> tuple[tuple[str, str, FieldMeta], ...]:
    """The fields the JSON library sees, in order: embedded structs flattened, names from the tag or the Go name."""
    fields: list[tuple[str, str, FieldMeta]] = []
    for entry in structs.structs.get(struct, ()):
        if entry.inline:
            fields.extend(_json_fields(structs, structs.underlying(entry.go_type.removeprefix("*"))))
            continue
        meta = FieldMeta(split_strategies(entry.patch_strategy), entry.patch_merge_key)
        fields.append((entry.json_name or entry.go_name, entry.go_type, meta))
    return tuple(fields)


@functools.lru_cache(maxsize=4096)
def _meta(structs: GoStructs, go_type: str) -> _GoType:
    """One schema per type, so its field table is built once."""
    return _GoType(structs, go_type)


def struct_patch_meta(structs: GoStructs, go_type: str) -> PatchMeta:
    """The schema ``PatchMetaFromStruct`` makes of a Go type of the struct data."""
    return _meta(structs, go_type)


def kind_patch_meta(structs: GoStructs, api_version: str, kind: str) -> PatchMeta | None:
    """The schema of a built-in kind's versioned type; None for a kind outside ``k8s.io/api``."""
    struct = structs.kind_struct(api_version, kind)
    return None if struct is None else _meta(structs, struct)
