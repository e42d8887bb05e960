"""Go's zero values and ``omitempty`` rule for the fields of the built-in kinds' structs.

What ``encoding/json`` writes for a field depends on two things reproduced here: the zero value a
field holds when nothing set it (``""``, ``0``, ``false``, ``null`` for a pointer, slice or map, a
struct's own zero with every field at its zero), and ``isEmptyValue`` (``encode.go``), which
``omitempty`` consults: an empty string, a zero number, ``false``, a nil pointer, an empty or nil
slice or map are empty; a struct never is. The types that encode themselves have their own zeros:
a zero ``Time`` is written ``null``, a zero ``Quantity`` ``"0"``, a zero ``IntOrString`` ``0``, a zero ``Duration``
``"0s"``.
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.typed.structs import GoStructs

__all__ = ["SELF_ENCODING", "is_empty", "is_struct", "zero"]

# The types with their own MarshalJSON/UnmarshalJSON, and what their zero value is written as.
SELF_ENCODING: dict[str, Any] = {
    "meta/v1.Time": None,
    "meta/v1.MicroTime": None,
    "intstr.IntOrString": 0,
    "resource.Quantity": "0",
    "runtime.RawExtension": None,
    "meta/v1.FieldsV1": None,
    "meta/v1.Duration": "0s",
}

_NUMBERS = frozenset(
    ("int8", "int16", "int32", "int64", "int", "uint8", "uint16", "uint32", "uint64", "uint", "float32", "float64")
)


def is_struct(structs: GoStructs, go_type: str) -> bool:
    """A struct value (never a pointer to one): Go never treats it as empty."""
    if go_type.startswith("*"):
        return False
    return go_type in SELF_ENCODING or structs.underlying(go_type) in structs.structs


def zero(structs: GoStructs, go_type: str) -> Any:
    """The JSON of a field's zero value."""
    if go_type.startswith("*"):
        return None
    if go_type in SELF_ENCODING:
        return SELF_ENCODING[go_type]
    shape = structs.underlying(go_type)
    if shape in structs.structs:
        out: dict[str, Any] = {}
        for entry in structs.fields_in_order(shape):
            if entry.omitempty and not is_struct(structs, entry.go_type):
                continue
            out[entry.json_name] = zero(structs, entry.go_type)
        return out
    if shape == "string":
        return ""
    if shape == "bool":
        return False
    if shape in _NUMBERS:
        return 0
    return None


def is_empty(structs: GoStructs, go_type: str, value: Any) -> bool:
    """``isEmptyValue``: structs are never empty; pointers only when nil."""
    if go_type.startswith("*"):
        return value is None
    if is_struct(structs, go_type):
        return False
    return value is None or value is False or (value == 0 and not isinstance(value, str)) or value in ("", [], {})
