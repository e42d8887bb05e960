"""The message entries of ``messages`` parsed once into fields a decoder (or a test's encoder) can walk."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from fakeapi._http.protobuf.messages import list_messages, messages
from fakeapi._http.protobuf.wire import BYTES, VARINT
from fakeapi._state.typed import DEFAULT_KUBE_VERSION

__all__ = [
    "INTEGERS",
    "SCALARS",
    "SPECIALS",
    "Field",
    "Message",
    "ProtobufSchema",
    "protobuf_schema",
]

INTEGERS = {"i32": 32, "i64": 64}
SCALARS = frozenset({"s", "b", "bytes", *INTEGERS})
# Messages whose JSON is their Go type's own MarshalJSON, not their fields.
SPECIALS = frozenset({"Time", "MicroTime", "Quantity", "IntOrString", "FieldsV1", "RawExtension"})
_FIELD = re.compile(r"(\d+) (\.\.\.|\w+) (\[)?(\{)?([\w./]+)[\]}]?([?*^]?)")
_INLINE = "..."


@dataclass(frozen=True, slots=True)
class Field:
    """One field: ``presence`` is ``""``, ``"?"``, ``"*"`` or ``"^"`` as ``messages`` explains."""

    number: int
    name: str
    type: str
    repeated: bool
    map: bool
    presence: str

    @property
    def inline(self) -> bool:
        return self.name == _INLINE

    @property
    def go_name(self) -> str:
        """The Go field name of Go's wire-type errors (initialisms such as ``UID`` are not restored)."""
        name = self.type if self.inline else self.name
        return name[:1].upper() + name[1:]

    @property
    def wire_types(self) -> tuple[int, ...]:
        if self.map:
            return (BYTES,)
        if self.type in INTEGERS or self.type == "b":
            return (VARINT, BYTES) if self.repeated else (VARINT,)
        return (BYTES,)


@dataclass(frozen=True, slots=True)
class Message:
    """A message: its fields in Go struct order, and by number with what the wire reader needs."""

    name: str
    fields: tuple[Field, ...]
    by_number: dict[int, Field]
    wire: dict[int, tuple[str, tuple[int, ...]]]
    is_list: bool = False

    @property
    def go_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]


def _message(name: str, spec: str, *, is_list: bool = False) -> Message:
    fields = []
    for item in spec.split(", "):
        match = _FIELD.fullmatch(item)
        if match is None:
            raise ValueError(f"bad field {item!r} in message {name}")
        number, json_name, repeated, is_map, type_name, presence = match.groups()
        fields.append(Field(int(number), json_name, type_name, bool(repeated), bool(is_map), presence))
    by_number = {field.number: field for field in fields}
    wire = {field.number: (field.go_name, field.wire_types) for field in fields}
    return Message(name, tuple(fields), by_number, wire, is_list)


@dataclass(frozen=True)
class ProtobufSchema:
    """Every message of one Kubernetes version, and the map entry message of each map value type."""

    messages: dict[str, Message]
    # A map field is a repeated entry message (``key = 1``, ``value = 2``), one per value type.
    map_entries: dict[str, Message]


@functools.cache
def protobuf_schema(version: str = DEFAULT_KUBE_VERSION) -> ProtobufSchema:
    """The messages of ``version``'s struct data, built on the first protobuf body of that version."""
    lists = list_messages(version)
    schema = {name: _message(name, spec, is_list=name in lists) for name, spec in messages(version).items()}
    for message in schema.values():
        for field in message.fields:
            if field.type not in SCALARS and field.type not in SPECIALS and field.type not in schema:
                raise ValueError(f"{message.name}.{field.name} refers to unknown message {field.type}")
    entries = {
        field.type: _message(f"{field.type}Entry", f"1 key s, 2 value {field.type}")
        for message in schema.values()
        for field in message.fields
        if field.map
    }
    return ProtobufSchema(schema, entries)
