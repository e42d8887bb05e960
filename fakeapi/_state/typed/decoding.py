"""A built-in object decoded into its Go struct as the apiserver's JSON decoder does (docs/typed-decoding.md).

The apiserver decodes a built-in kind's JSON with ``sigs.k8s.io/json`` (a fork of Go's
``encoding/json``, case-sensitive, strict) into the kind's Go type, then encodes that value. What a
client can observe of it, reproduced here from the kind's struct (:mod:`.structs`):

* a JSON value of the wrong type is ``json: cannot unmarshal <value> into Go struct field
  <Struct>.<path> of type <type>``, where ``<Struct>`` is the innermost struct being decoded and
  ``<path>`` the JSON field names from the root (``Container.spec.containers.image``); an integer
  out of range or with a fraction names the literal (``number 1.5``). Decoding goes on after such an
  error and the first one is the answer (``decodeState.saveError``);
* a field the struct does not have (names match exactly) is dropped and is a strict error
  ``unknown field "<path>"``, the path with ``[i]`` for list items and ``.key`` for map keys;
* ``null`` clears a pointer, slice or map and leaves any other field at its zero value;
* ``[]byte`` fields are base64 (``illegal base64 data at input byte N``), written back canonically;
  ``Time`` is RFC 3339, written in UTC to the second; ``MicroTime`` to the microsecond;
  ``IntOrString`` is either; ``Quantity`` is parsed and written canonically (:mod:`.quantities`).
  These types' own ``UnmarshalJSON`` errors carry no field context and end decoding at once;
* on the way out, ``omitempty`` drops an empty string, zero number, false, empty slice or map and
  nil pointer, but never a struct, and a set pointer is written whatever it points to.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from fakeapi._patching.slices import paused, sorted_in_slices
from fakeapi._state.typed.quantities import QuantityError, canonical_quantity
from fakeapi._state.typed.structs import GoStructs
from fakeapi._state.typed.zeros import is_empty, zero

__all__ = [
    "INT_BITS",
    "SPECIAL_TYPES",
    "UINT_BITS",
    "DecodingAborted",
    "TypedDecoder",
    "TypedError",
    "TypedObject",
    "decode_typed",
    "go_base64",
    "go_type_name",
]

INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "int": 64}
UINT_BITS = {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64, "uint": 64}
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)  # what time.Parse(time.RFC3339, ...) takes; finer checks below


class TypedError(ValueError):
    """The decoding error the apiserver answers with; ``str()`` is Go's text."""


@dataclass
class TypedObject:
    value: dict[str, Any]
    unknown: list[str] = field(default_factory=list)


def decode_typed(structs: GoStructs, struct: str, obj: dict[str, Any]) -> TypedObject:
    """``obj`` decoded into ``struct`` and written back: the value, and the unknown fields in order."""
    decoder = TypedDecoder(structs)
    try:
        value = decoder.struct(struct, obj, (), "", struct.rsplit(".", 1)[-1])
    except DecodingAborted as error:
        raise TypedError(str(error)) from None
    if decoder.error is not None:
        raise TypedError(decoder.error)
    return TypedObject(value, decoder.unknown)


def type_error_text(value: str, go_type: str, fields: tuple[str, ...], owner: str) -> str:
    """``UnmarshalTypeError.Error()`` with the decoder's context (``addErrorContext``)."""
    shown = go_type_name(go_type)
    if fields:
        return f"json: cannot unmarshal {value} into Go struct field {owner}.{'.'.join(fields)} of type {shown}"
    return f"json: cannot unmarshal {value} into Go value of type {shown}"


def go_type_name(go_type: str) -> str:
    """``reflect.Type.String()``: package ids shortened to their package name (``[]core/v1.Container`` ->
    ``[]v1.Container``), and ``byte`` by its real name ``uint8``."""
    return re.sub(r"[\w./]*/(\w+)\.", r"\1.", go_type).replace("[]byte", "[]uint8")


class DecodingAborted(Exception):
    """An ``UnmarshalJSON`` error: decoding stops there, and it is the answer whatever came before."""


class TypedDecoder:
    def __init__(self, structs: GoStructs) -> None:
        self.structs = structs
        self.error: str | None = None
        self.unknown: list[str] = []
        self._seen: set[str] = set()

    def save(self, text: str) -> None:
        if self.error is None:
            self.error = text

    def type_error(self, value: Any, go_type: str, fields: tuple[str, ...], owner: str) -> None:
        self.save(type_error_text(value, go_type, fields, owner))

    def strict(self, path: str) -> None:
        text = f'unknown field "{path}"'
        if text not in self._seen and len(self.unknown) < 100:
            self._seen.add(text)
            self.unknown.append(text)

    # -- decoding ------------------------------------------------------------------------------

    def struct(
        self, struct: str, obj: dict[str, Any], fields: tuple[str, ...], path: str, owner: str
    ) -> dict[str, Any]:
        known = self.structs.fields_by_name(struct)
        name = struct.rsplit(".", 1)[-1]
        decoded: dict[str, Any] = {}
        for key, item in paused(obj.items(), len(obj)):
            entry = known.get(key)
            if entry is None:
                self.strict(f"{path}.{key}" if path else key)
                continue
            child = f"{path}.{key}" if path else key
            decoded[key] = self.value(entry.go_type, item, (*fields, key), child, name)
        out: dict[str, Any] = {}
        for entry in self.structs.fields_in_order(struct):
            key = entry.json_name
            value = decoded[key] if key in decoded else zero(self.structs, entry.go_type)
            if entry.omitempty and is_empty(self.structs, entry.go_type, value):
                continue
            out[key] = value
        return out

    def value(self, go_type: str, item: Any, fields: tuple[str, ...], path: str, owner: str) -> Any:
        pointer = go_type.startswith("*")
        target = go_type.removeprefix("*")
        special = SPECIAL_TYPES.get(target)
        if special is not None:
            return special(item, pointer, fields, owner)
        shape = self.structs.underlying(target)
        if item is None:
            if pointer or shape.startswith(("[]", "map[")):
                return None
            return zero(self.structs, target)
        if shape in self.structs.structs:
            if not isinstance(item, dict):
                self.type_error(_kind(item), target, fields, owner)
                return zero(self.structs, target)
            return self.struct(shape, item, fields, path, owner)
        if shape == "[]byte":
            return self._bytes(item, target, fields, owner)
        if shape.startswith("[]"):
            if not isinstance(item, list):
                self.type_error(_kind(item), target, fields, owner)
                return None
            element = shape[2:]
            return [
                self.value(element, entry, fields, f"{path}[{index}]", owner)
                for index, entry in paused(enumerate(item), len(item))
            ]
        if shape.startswith("map["):
            if not isinstance(item, dict):
                self.type_error(_kind(item), target, fields, owner)
                return None
            element = shape[shape.index("]") + 1 :]
            decoded = {
                key: self.value(element, entry, fields, f"{path}.{key}", owner)
                for key, entry in paused(item.items(), len(item))
            }
            ordered = sorted_in_slices(decoded)  # a map's keys are distinct: sorting them alone is enough
            return {key: decoded[key] for key in paused(ordered, len(ordered))}
        return self._scalar(shape, target, item, fields, owner)

    def _scalar(self, shape: str, target: str, item: Any, fields: tuple[str, ...], owner: str) -> Any:
        if shape == "string":
            if isinstance(item, str):
                return item
            self.type_error(_kind(item), target, fields, owner)
            return ""
        if shape == "bool":
            if isinstance(item, bool):
                return item
            self.type_error(_kind(item), target, fields, owner)
            return False
        if shape in INT_BITS or shape in UINT_BITS:
            if isinstance(item, bool) or not isinstance(item, (int, float)):
                self.type_error(_kind(item), target, fields, owner)
                return 0
            bits = INT_BITS.get(shape) or UINT_BITS[shape]
            low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if shape in INT_BITS else (0, (1 << bits) - 1)
            if isinstance(item, float) or not low <= item <= high:
                self.type_error(f"number {_literal(item)}", target, fields, owner)
                return 0
            return item
        if shape in ("float64", "float32"):
            if isinstance(item, bool) or not isinstance(item, (int, float)):
                self.type_error(_kind(item), target, fields, owner)
                return 0
            return item
        return item  # interface{}: any JSON value

    def _bytes(self, item: Any, target: str, fields: tuple[str, ...], owner: str) -> Any:
        if not isinstance(item, str):
            self.type_error(_kind(item), target, fields, owner)
            return None
        decoded = go_base64(item)
        if isinstance(decoded, str):
            self.save(decoded)
            return None
        return base64.b64encode(decoded).decode("ascii")


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    return "number"


def _literal(value: Any) -> str:
    if isinstance(value, float):
        text = repr(float(value))
        return text[:-2] if text.endswith(".0") else text
    return str(value)


_BASE64 = {
    symbol: value for value, symbol in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
}


def go_base64(text: str) -> bytes | str:
    """``base64.StdEncoding.Decode``, quantum by quantum (``decodeQuantum``): the bytes, or the
    ``CorruptInputError`` text with Go's offset. ``\r`` and ``\n`` are skipped anywhere."""
    data = text.encode("utf-8")
    out = bytearray()
    index, size = 0, len(data)
    while True:
        symbols: list[int] = []
        while len(symbols) < 4:
            if index == size:
                if not symbols:
                    return bytes(out)
                return f"illegal base64 data at input byte {index - len(symbols)}"
            byte = data[index]
            index += 1
            char = chr(byte)
            if char in _BASE64:
                symbols.append(_BASE64[char])
                continue
            if char in "\r\n":
                continue
            if char != "=" or len(symbols) < 2:
                return f"illegal base64 data at input byte {index - 1}"
            if len(symbols) == 2:
                while index < size and data[index] in b"\r\n":
                    index += 1
                if index == size:
                    return f"illegal base64 data at input byte {size}"
                if data[index] != ord("="):
                    return f"illegal base64 data at input byte {index - 1}"
                index += 1
            while index < size and data[index] in b"\r\n":
                index += 1
            if index < size:
                return f"illegal base64 data at input byte {index}"
            break
        value = 0
        for symbol in [*symbols, 0, 0, 0][:4]:
            value = value << 6 | symbol
        out += value.to_bytes(3, "big")[: len(symbols) - 1]
        if len(symbols) < 4:
            return bytes(out)


Fields = tuple[str, ...]


def _time(item: Any, pointer: bool, fields: Fields, owner: str, *, micro: bool = False) -> Any:
    """``Time.UnmarshalJSON``: null, or an RFC 3339 string (its inner ``json.Unmarshal`` names ``string``)."""
    if item is None:
        return None
    if not isinstance(item, str):
        raise DecodingAborted(type_error_text(_kind(item), "string", fields, owner))
    moment = _parse_rfc3339(item)
    if moment is None:
        raise DecodingAborted(f'parsing time "{item}" as "2006-01-02T15:04:05Z07:00": cannot parse "{item}" as "2006"')
    utc = moment.astimezone(UTC)
    stamp = utc.strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{utc.microsecond:06d}Z" if micro else f"{stamp}Z"


def _micro_time(item: Any, pointer: bool, fields: Fields, owner: str) -> Any:
    return _time(item, pointer, fields, owner, micro=True)


def _parse_rfc3339(text: str) -> datetime | None:
    if _RFC3339.match(text) is None:
        return None
    try:
        return datetime.fromisoformat(text.replace("z", "Z").replace("t", "T").replace("Z", "+00:00"))
    except ValueError:
        return None


def _int_or_string(item: Any, pointer: bool, fields: Fields, owner: str) -> Any:
    """``IntOrString.UnmarshalJSON``: a quoted value is a string, anything else an int32."""
    if item is None:
        return None if pointer else 0
    if isinstance(item, str):
        return item
    if isinstance(item, bool) or not isinstance(item, (int, float)):
        raise DecodingAborted(type_error_text(_kind(item), "int32", fields, owner))
    if isinstance(item, float) or not -(1 << 31) <= item < (1 << 31):
        raise DecodingAborted(type_error_text(f"number {_literal(item)}", "int32", fields, owner))
    return item


def _quantity(item: Any, pointer: bool, fields: Fields, owner: str) -> Any:
    """``Quantity.UnmarshalJSON``: null, or a string or bare number parsed by ``ParseQuantity``."""
    if item is None:
        return None if pointer else "0"
    if isinstance(item, str):
        text = item
    elif isinstance(item, (int, float)) and not isinstance(item, bool):
        text = _literal(item)
    else:
        raise DecodingAborted(f"quantities must match the regular expression '{_SPLIT}'")
    try:
        return canonical_quantity(text.strip())
    except QuantityError as error:
        raise DecodingAborted(str(error)) from None


def _raw(item: Any, pointer: bool, fields: Fields, owner: str) -> Any:
    return item


_SPLIT = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
SPECIAL_TYPES = {
    "meta/v1.Time": _time,
    "meta/v1.MicroTime": _micro_time,
    "intstr.IntOrString": _int_or_string,
    "resource.Quantity": _quantity,
    "runtime.RawExtension": _raw,
    "meta/v1.FieldsV1": _raw,
    "meta/v1.Duration": _raw,
}
