"""A Kubernetes protobuf body turned into the dict its JSON form would decode to.

The apiserver's protobuf serializer (``apimachinery/pkg/runtime/serializer/protobuf/protobuf.go``,
``Serializer.Decode``) checks the ``k8s\\x00`` prefix, reads a ``runtime.Unknown`` envelope
(``typeMeta`` 1, ``raw`` 2, ``contentEncoding`` 3, ``contentType`` 4), defaults a missing kind or
version from the request (``copyKindDefaults``) and unmarshals ``raw`` into the Go type of that kind.
fakeapi keeps objects as JSON, so the Go struct is rendered here as ``encoding/json`` would write
it; that is exactly the JSON a client holding the same struct sends:

- a value field the wire leaves out is still written, as its zero value, unless it is ``omitempty``
  (gogo always writes such fields, so this only matters for hand-made bodies); a zero scalar that
  is ``omitempty`` is left out (``generation: 0``, ``namespace: ""``); a struct never is
  (``spec: {}``, ``resources: {}``);
- a pointer is written exactly when present, zero or not (``replicas: 0``, ``gracePeriodSeconds: 0``);
- a field that occurs twice merges like gogo's ``Unmarshal``: the last scalar wins, repeated fields
  append, messages merge (``Time`` and ``Quantity`` replace, their ``Unmarshal`` is custom);
- map keys are sorted, ``bytes`` are standard base64, invalid UTF-8 in strings is U+FFFD per byte;
- ``Time`` (meta/v1 ``time_proto.go``) keeps whole seconds (its ``Unmarshal`` drops nanos) and is
  ``null`` when zero or an empty message; ``MicroTime`` keeps microseconds; ``Quantity`` is its
  string, format-checked like ``ParseQuantity`` but not canonicalized, ``"0"`` when empty;
  ``IntOrString`` is its int or its string; ``FieldsV1`` is its raw JSON, decoded.

Field numbers the tables do not know are skipped (protobuf semantics; the apiserver does not warn
about them) and their paths appended to ``unknown_fields`` when the caller passes a list. Map
entries are read as strictly as other messages, where Go's map code does not check their wire types.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Collection, Mapping
from typing import Any

from fakeapi._http.protobuf.messages import ANY_VERSION_KINDS
from fakeapi._http.protobuf.schema import INTEGERS, Field, Message, ProtobufSchema, protobuf_schema
from fakeapi._http.protobuf.wire import BYTES, VARINT, ProtobufError, read_fields, read_varint, signed
from fakeapi._patching.godecode import GoNumberRangeError, GoSyntaxError, decode
from fakeapi._patching.rawtext import decode_utf8
from fakeapi._state.typed import DEFAULT_KUBE_VERSION, go_structs

__all__ = ["MAGIC", "decode_protobuf"]

MAGIC = b"k8s\x00"
_SCHEME = "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"
_ZERO_TIME_SECONDS = -62135596800  # time.Time{}.Unix(): 0001-01-01T00:00:00Z
_QUANTITY_SHAPE = re.compile(r"[+-]?[0-9.]+[eEinumkKMGTP]*[-+]?[0-9]*")
_QUANTITY = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE])?")
_QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
_QUANTITY_SUFFIX = "unable to parse quantity's suffix"
_ZEROS: dict[str, Any] = {"s": "", "i32": 0, "i64": 0, "b": False, "bytes": None}
_SPECIAL_ZEROS: dict[str, Any] = {"Time": None, "MicroTime": None, "Quantity": "0", "IntOrString": 0, "FieldsV1": None}
_UNKNOWN = {
    1: ("TypeMeta", (BYTES,)),
    2: ("Raw", (BYTES,)),
    3: ("ContentEncoding", (BYTES,)),
    4: ("ContentType", (BYTES,)),
}
_TYPE_META = {1: ("APIVersion", (BYTES,)), 2: ("Kind", (BYTES,))}
_TIMESTAMP = {1: ("Seconds", (VARINT,)), 2: ("Nanos", (VARINT,))}
_INT_OR_STRING = {1: ("Type", (VARINT,)), 2: ("IntVal", (VARINT,)), 3: ("StrVal", (BYTES,))}
_QUANTITY_FIELDS = {1: ("String_", (BYTES,))}
_FIELDS_V1 = {1: ("Raw", (BYTES,))}
_RAW_EXTENSION = {1: ("Raw", (BYTES,))}


def decode_protobuf(
    body: bytes,
    *,
    api_version: str = "",
    kind: str = "",
    unknown_fields: list[str] | None = None,
    kube_version: str = DEFAULT_KUBE_VERSION,
) -> dict[str, Any]:
    """The object of a ``application/vnd.kubernetes.protobuf`` body, ``kind`` and ``apiVersion`` first.

    ``api_version`` and ``kind`` are the request's defaults for an envelope that leaves them out;
    the messages are those of ``kube_version``'s Go structs.
    Raises :class:`ProtobufError` with the apiserver's error text.
    """
    if not body:
        raise ProtobufError("empty data")
    if not body.startswith(MAGIC):
        expected = " ".join(str(byte) for byte in MAGIC)
        raise ProtobufError(f"provided data does not appear to be a protobuf message, expected prefix [{expected}]")
    if len(body) == len(MAGIC):
        raise ProtobufError("empty body")
    envelope = _last_values(body[len(MAGIC) :], "Unknown", _UNKNOWN, merge={1})
    type_meta = _last_values(_as_bytes(envelope.get(1, b"")), "TypeMeta", _TYPE_META)
    sent_version = decode_utf8(_as_bytes(type_meta.get(1, b"")))
    sent_kind = decode_utf8(_as_bytes(type_meta.get(2, b"")))
    actual_version = _defaulted_version(sent_version, api_version)
    actual_kind = sent_kind or kind
    if not actual_kind or not actual_version:
        missing = "Kind" if not actual_kind else "apiVersion"
        go_type_meta = f"runtime.TypeMeta{{APIVersion:{_go_quote(sent_version)}, Kind:{_go_quote(sent_kind)}}}"
        raise ProtobufError(
            f"Object '{missing}' is missing in '{go_type_meta}'", api_version=actual_version, kind=actual_kind
        )
    schema = protobuf_schema(kube_version)
    name = go_structs(kube_version).kind_struct(actual_version, actual_kind) or ANY_VERSION_KINDS.get(actual_kind)
    if name is None or name not in schema.messages:
        raise ProtobufError(
            f"no kind {_go_quote(actual_kind)} is registered for version {_go_quote(actual_version)} "
            f"in scheme {_go_quote(_SCHEME)}",
            api_version=actual_version,
            kind=actual_kind,
        )
    try:
        fields = _Decoder(unknown_fields, schema).message(_as_bytes(envelope.get(2, b"")), schema.messages[name], "")
    except ProtobufError as error:
        raise ProtobufError(error.message, api_version=actual_version, kind=actual_kind) from None
    return {"kind": actual_kind, "apiVersion": actual_version, **fields}


def _defaulted_version(sent: str, default: str) -> str:
    """``copyKindDefaults`` on ``ParseGroupVersion(sent)``: no version (or no parse) takes the default."""
    group, _, version = sent.rpartition("/")
    if "/" in group or not version:
        return default
    return f"{group}/{version}" if group else version


def _go_quote(text: str) -> str:
    """Go's ``%q`` for the printable text of apiVersion and kind."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _as_bytes(value: int | bytes) -> bytes:
    return value if isinstance(value, bytes) else b""


def _last_values(
    data: bytes, message: str, known: Mapping[int, tuple[str, tuple[int, ...]]], merge: Collection[int] = ()
) -> dict[int, int | bytes]:
    """The last value of each field of a small fixed message; fields in ``merge`` concatenate instead."""
    values: dict[int, int | bytes] = {}
    for number, _, value in read_fields(data, message, known):
        if value is None:
            continue
        previous = values.get(number)
        if number in merge and isinstance(previous, bytes) and isinstance(value, bytes):
            value = previous + value
        values[number] = value
    return values


class _Decoder:
    """Renders the messages of one object, collecting the paths of unknown fields."""

    def __init__(self, unknown_fields: list[str] | None, schema: ProtobufSchema) -> None:
        self.unknown_fields = unknown_fields
        self.messages = schema.messages
        self.map_entries = schema.map_entries

    def message(self, data: bytes, message: Message, path: str) -> dict[str, Any]:
        values: dict[int, list[int | bytes]] = {}
        for number, wire_type, value in read_fields(data, message.go_name, message.wire):
            if value is None:
                self._note_unknown(path, number)
                continue
            field = message.by_number[number]
            if wire_type == BYTES and isinstance(value, bytes) and field.repeated and field.type in ("b", *INTEGERS):
                values.setdefault(number, []).extend(_packed(value))
            else:
                values.setdefault(number, []).append(value)
        out: dict[str, Any] = {}
        for field in message.fields:
            self._field(out, field, values.get(field.number), path)
        return out

    def _note_unknown(self, path: str, number: int) -> None:
        if self.unknown_fields is not None:
            self.unknown_fields.append(f"{path}.#{number}" if path else f"#{number}")

    def _field(self, out: dict[str, Any], field: Field, values: list[int | bytes] | None, path: str) -> None:
        child = path if field.inline else (f"{path}.{field.name}" if path else field.name)
        if field.map or field.repeated:
            if field.map:
                rendered: Any = self._map(field.type, values or [], child)
            else:
                rendered = [
                    self._value(field.type, [value], f"{child}[{index}]") for index, value in enumerate(values or [])
                ]
            if rendered:
                out[field.name] = rendered
            elif field.presence != "?":
                out[field.name] = None
            return
        if values is None:
            if field.presence == "^":
                out[field.name] = None
            elif field.presence == "*" or (field.presence == "?" and field.type in _ZEROS):
                return
            elif field.inline:
                out.update(self.message(b"", self.messages[field.type], child))
            else:
                out[field.name] = self._zero(field.type, child)
            return
        value = self._value(field.type, values, child)
        if field.inline:
            out.update(value)
        elif not (field.presence == "?" and field.type in _ZEROS and not value):
            out[field.name] = value

    def _zero(self, type_name: str, path: str) -> Any:
        if type_name in _ZEROS:
            return _ZEROS[type_name]
        if type_name in _SPECIAL_ZEROS:
            return _SPECIAL_ZEROS[type_name]
        return self.message(b"", self.messages[type_name], path)

    def _value(self, type_name: str, values: list[int | bytes], path: str) -> Any:
        """One field's value from all its occurrences on the wire (a repeated field passes one)."""
        last = values[-1]
        if isinstance(last, int):
            if type_name == "b":
                return last != 0
            return signed(last, INTEGERS[type_name])
        if type_name == "s":
            return decode_utf8(last)
        if type_name == "bytes":
            return base64.b64encode(last).decode("ascii")
        if type_name == "Time":
            return _time(last, micro=False)
        if type_name == "MicroTime":
            return _time(last, micro=True)
        if type_name == "Quantity":
            return _quantity(last)
        joined = b"".join(value for value in values if isinstance(value, bytes))
        if type_name == "IntOrString":
            return _int_or_string(joined)
        if type_name == "FieldsV1":
            return _fields_v1(joined)
        if type_name == "RawExtension":
            return _raw_extension(joined)
        message = self.messages[type_name]
        rendered = self.message(joined, message, path)
        return rendered.get("items") if message.is_list else rendered

    def _map(self, value_type: str, entries: list[int | bytes], path: str) -> dict[str, Any]:
        entry_message = self.map_entries[value_type]
        items: dict[str, Any] = {}
        for entry in entries:
            values: dict[int, list[int | bytes]] = {}
            unknown = []
            for number, _, value in read_fields(_as_bytes(entry), entry_message.go_name, entry_message.wire):
                if value is None:
                    unknown.append(number)
                else:
                    values[number] = [value]
            key = decode_utf8(_as_bytes(values[1][-1])) if 1 in values else ""
            value_path = f"{path}[{key}]"
            for number in unknown:
                self._note_unknown(value_path, number)
            if 2 in values:
                items[key] = self._value(value_type, values[2], value_path)
            else:
                items[key] = "" if value_type == "bytes" else self._zero(value_type, value_path)
        return dict(sorted(items.items()))


def _packed(data: bytes) -> list[int]:
    numbers = []
    pos = 0
    while pos < len(data):
        number, pos = read_varint(data, pos, len(data))
        numbers.append(number)
    return numbers


def _time(data: bytes, *, micro: bool) -> str | None:
    if not data:
        return None
    values = _last_values(data, "Timestamp", _TIMESTAMP)
    seconds = signed(_as_int(values.get(1, 0)), 64)
    nanos = signed(_as_int(values.get(2, 0)), 32) if micro else 0
    seconds += nanos // 1_000_000_000
    nanos %= 1_000_000_000
    if seconds == _ZERO_TIME_SECONDS and nanos == 0:
        return None
    return _rfc3339(seconds, f".{nanos // 1000:06d}" if micro else "")


def _as_int(value: int | bytes) -> int:
    return value if isinstance(value, int) else 0


def _rfc3339(seconds: int, fraction: str) -> str:
    """Go's ``UTC().Format(time.RFC3339)`` (or RFC3339Micro) for any year, as proleptic Gregorian."""
    days, rest = divmod(seconds, 86400)
    shifted = days + 719468  # days from 0000-03-01 (civil_from_days, H. Hinnant)
    era, day_of_era = divmod(shifted, 146097)
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + 3 if month_index < 10 else month_index - 9
    year = year_of_era + era * 400 + (month <= 2)
    year_text = f"{year:04d}" if year >= 0 else f"-{-year:04d}"
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{year_text}-{month:02d}-{day:02d}T{hours:02d}:{minutes:02d}:{secs:02d}{fraction}Z"


def _quantity(data: bytes) -> str:
    text = "0"
    for _, _, value in read_fields(data, "Quantity", _QUANTITY_FIELDS):
        if isinstance(value, bytes):
            text = decode_utf8(value)
            if not _QUANTITY_SHAPE.fullmatch(text):
                raise ProtobufError(_QUANTITY_FORMAT)
            if not _QUANTITY.fullmatch(text):
                raise ProtobufError(_QUANTITY_SUFFIX)
    return text


def _int_or_string(data: bytes) -> int | str:
    values = _last_values(data, "IntOrString", _INT_OR_STRING)
    kind = signed(_as_int(values.get(1, 0)), 64)
    if kind == 0:
        return signed(_as_int(values.get(2, 0)), 32)
    if kind == 1:
        return decode_utf8(_as_bytes(values.get(3, b"")))
    raise ProtobufError("impossible IntOrString.Type")


def _fields_v1(data: bytes) -> Any:
    values = _last_values(data, "FieldsV1", _FIELDS_V1)
    if 1 not in values:
        return None
    try:
        return decode(_as_bytes(values[1]))
    except (GoSyntaxError, GoNumberRangeError) as error:
        raise ProtobufError(f"json: error calling MarshalJSON for type *v1.FieldsV1: {error}") from None


def _raw_extension(data: bytes) -> Any:
    """``RawExtension.MarshalJSON``: the raw bytes as they are (JSON), ``null`` when there are none."""
    values = _last_values(data, "RawExtension", _RAW_EXTENSION)
    if 1 not in values:
        return None
    try:
        return decode(_as_bytes(values[1]))
    except (GoSyntaxError, GoNumberRangeError) as error:
        raise ProtobufError(f"json: error calling MarshalJSON for type runtime.RawExtension: {error}") from None
