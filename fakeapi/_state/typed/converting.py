"""A patched map turned into its Go struct as ``runtime.DefaultUnstructuredConverter`` does (docs/typed-decoding.md).

A strategic merge patch never goes through JSON: the apiserver hands the merged
``map[string]interface{}`` to ``FromUnstructuredWithValidation`` (k8s.io/apimachinery
``pkg/runtime/converter.go``) and stores what the typed value encodes to. It is the same walk over
the kind's Go struct as :mod:`.decoding` makes (same zero values, ``omitempty``, canonical
quantities and times), with the converter's rules where they differ from ``encoding/json``'s:

* the struct's fields are visited in declaration order and the first error ends the conversion;
  its texts carry no field path: ``cannot convert int64 to string`` and ``cannot convert float64
  to int32`` where Go's ``reflect`` could convert but JSON may not, ``unrecognized type: int32``
  where it cannot (a bool or a string into a number), ``cannot restore struct from: string``,
  ``cannot restore slice from map``, ``cannot restore map from slice``;
* an integral float fits an integer field, and an integer is converted to the field's size as Go
  converts (it wraps);
* ``[]byte`` takes base64 (``error decoding from json: illegal base64 data at input byte N``) or a
  list of numbers;
* types with their own ``UnmarshalJSON`` (``Time``, ``IntOrString``, ``Quantity``) get the value
  re-encoded, so their errors say ``Go value of type``;
* unknown fields (compared exactly) are collected with their path and sorted.
"""

from __future__ import annotations

import base64
from typing import Any

from fakeapi._state.typed.decoding import (
    INT_BITS,
    SPECIAL_TYPES,
    UINT_BITS,
    DecodingAborted,
    TypedDecoder,
    TypedError,
    TypedObject,
    go_base64,
    go_type_name,
)
from fakeapi._state.typed.structs import GoStructs
from fakeapi._state.typed.zeros import is_empty, zero

__all__ = ["convert_unstructured"]

_KINDS: dict[type, str] = {dict: "map", list: "slice", str: "string", bool: "bool", int: "int64", float: "float64"}
_TYPE_NAMES: dict[type, str] = {dict: "map[string]interface {}", list: "[]interface {}"}


def convert_unstructured(structs: GoStructs, struct: str, obj: dict[str, Any], *, unknown: bool) -> TypedObject:
    """``FromUnstructuredWithValidation(obj, &struct, unknown)``: the value Go writes back, and the
    unknown fields, sorted (collected only when ``unknown``)."""
    converter = _Converter(structs, unknown)
    try:
        value = converter.struct(struct, obj, (), "", "")
    except DecodingAborted as error:
        raise TypedError(str(error)) from None
    return TypedObject(value, sorted(converter.unknown))


def _kind(value: Any) -> str:
    return _KINDS[type(value)]


def _type_name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value)) or _kind(value)


class _Converter(TypedDecoder):
    def __init__(self, structs: GoStructs, collect_unknown: bool) -> None:
        super().__init__(structs)
        self._collect = collect_unknown

    def strict(self, path: str) -> None:
        if self._collect:
            self.unknown.append(f'unknown field "{path}"')

    def struct(
        self, struct: str, obj: dict[str, Any], fields: tuple[str, ...], path: str, owner: str
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        matched: set[str] = set()
        for entry in self.structs.fields_in_order(struct):
            key = entry.json_name
            matched.add(key)
            item = obj.get(key)
            value = (
                zero(self.structs, entry.go_type)
                if item is None
                else self.value(entry.go_type, item, (), f"{path}.{key}" if path else key, "")
            )
            if entry.omitempty and is_empty(self.structs, entry.go_type, value):
                continue
            out[key] = value
        if self._collect and not matched.issuperset(obj):
            for key in obj:
                if key not in matched:
                    self.strict(f"{path}.{key}" if path else key)
        return out

    def value(self, go_type: str, item: Any, fields: tuple[str, ...], path: str, owner: str) -> Any:
        target = go_type.removeprefix("*")
        if item is None:
            return None if go_type.startswith("*") else zero(self.structs, target)
        special = SPECIAL_TYPES.get(target)
        if special is not None:
            return special(item, go_type.startswith("*"), (), "")
        shape = self.structs.underlying(target)
        if shape in self.structs.structs:
            if not isinstance(item, dict):
                raise DecodingAborted(f"cannot restore struct from: {_kind(item)}")
            return self.struct(shape, item, (), path, "")
        if shape == "[]byte":
            return self._bytes_from(item)
        if shape.startswith("[]"):
            if not isinstance(item, list):
                raise DecodingAborted(f"cannot restore slice from {_kind(item)}")
            element = shape[2:]
            return [self.value(element, entry, (), f"{path}[{index}]", "") for index, entry in enumerate(item)]
        if shape.startswith("map["):
            if not isinstance(item, dict):
                raise DecodingAborted(f"cannot restore map from {_kind(item)}")
            element = shape[shape.index("]") + 1 :]
            converted = {key: self.value(element, entry, (), path, "") for key, entry in item.items()}
            return dict(sorted(converted.items()))
        return _scalar(shape, target, item)

    def _bytes_from(self, item: Any) -> Any:
        if isinstance(item, str):
            decoded = go_base64(item)
            if isinstance(decoded, str):
                raise DecodingAborted(f"error decoding from json: {decoded}")
            return base64.b64encode(decoded).decode("ascii")
        if not isinstance(item, list):
            raise DecodingAborted(f"cannot restore slice from {_kind(item)}")
        data = bytes(_scalar("uint8", "uint8", entry) if entry is not None else 0 for entry in item)
        return base64.b64encode(data).decode("ascii")


def _scalar(shape: str, target: str, item: Any) -> Any:
    """``fromUnstructured`` for a simple kind: assign, convert within a group, or fail."""
    if shape in ("interface{}", "any"):
        return item
    numeric = shape in INT_BITS or shape in UINT_BITS or shape.startswith("float")
    if shape == "string" and isinstance(item, str):
        return item
    if shape == "bool" and isinstance(item, bool):
        return item
    if numeric and isinstance(item, (int, float)) and not isinstance(item, bool):
        if shape.startswith("float"):
            return item
        if isinstance(item, float):
            if item != int(item):
                raise DecodingAborted(f"cannot convert float64 to {go_type_name(target)}")
            item = int(item)
        bits = INT_BITS.get(shape) or UINT_BITS[shape]
        wrapped = item & ((1 << bits) - 1)
        if shape in INT_BITS and wrapped >= 1 << (bits - 1):
            wrapped -= 1 << bits
        return wrapped
    if shape == "string" and isinstance(item, int) and not isinstance(item, bool):
        raise DecodingAborted(f"cannot convert int64 to {go_type_name(target)}")
    if shape in ("string", "bool") or numeric:
        raise DecodingAborted(f"unrecognized type: {shape}")
    raise DecodingAborted(f"unrecognized type: {_type_name(item)}")
