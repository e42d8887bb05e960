"""The protobuf wire format as the gogo-protobuf ``Unmarshal`` methods of Kubernetes types read it.

Each message's generated ``Unmarshal`` (``k8s.io/api/*/generated.pb.go``) walks its bytes key by
key: a key whose wire type is 4 or whose field number is not positive is an error, a known field
number must arrive with its own wire type, and an unknown one is skipped with ``skipGenerated``
(groups included). The errors keep Go's texts, since the apiserver puts them in its 400:
``unexpected EOF``, ``proto: integer overflow``, ``proto: negative length found during
unmarshaling``, ``proto: X: illegal tag N (wire type W)``, ``proto: wrong wireType = W for field F``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

__all__ = [
    "BYTES",
    "VARINT",
    "ProtobufError",
    "read_bytes",
    "read_fields",
    "read_varint",
    "signed",
]

VARINT = 0
FIXED64 = 1
BYTES = 2
START_GROUP = 3
END_GROUP = 4
FIXED32 = 5

UNEXPECTED_EOF = "unexpected EOF"
INTEGER_OVERFLOW = "proto: integer overflow"
NEGATIVE_LENGTH = "proto: negative length found during unmarshaling"

_UINT64 = (1 << 64) - 1


class ProtobufError(ValueError):
    """A body the apiserver's protobuf decoder refuses; ``str()`` is the Go error text.

    ``api_version`` and ``kind`` are those of the envelope once it was read (empty before), which
    is what decides between the apiserver's two 400 wordings (``transformDecodeError``).
    """

    def __init__(self, message: str, *, api_version: str = "", kind: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.api_version = api_version
        self.kind = kind


def signed(value: int, bits: int) -> int:
    """The low ``bits`` of a varint as Go's int32/int64 conversion reads them."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def read_varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """A varint at ``pos``, as uint64 (bits past 64 dropped, an 11th byte is an overflow)."""
    result = 0
    shift = 0
    while True:
        if shift >= 64:
            raise ProtobufError(INTEGER_OVERFLOW)
        if pos >= end:
            raise ProtobufError(UNEXPECTED_EOF)
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result & _UINT64, pos
        shift += 7


def read_bytes(data: bytes, pos: int, end: int) -> tuple[bytes, int]:
    """A length-delimited value at ``pos``; a length that is negative as Go's ``int`` is its own error."""
    length, pos = read_varint(data, pos, end)
    if length >= 1 << 63:
        raise ProtobufError(NEGATIVE_LENGTH)
    stop = pos + length
    if stop > end:
        raise ProtobufError(UNEXPECTED_EOF)
    return data[pos:stop], stop


def _skip(data: bytes, pos: int, end: int) -> int:
    """``skipGenerated``: the end of the field whose key starts at ``pos``, groups skipped whole.

    The first key is never an end group (the caller refused it), so an end group always closes one.
    """
    depth = 0
    while pos < end:
        key, pos = read_varint(data, pos, end)
        wire_type = key & 7
        if wire_type == VARINT:
            _, pos = read_varint(data, pos, end)
        elif wire_type == FIXED64:
            pos += 8
        elif wire_type == BYTES:
            length, pos = read_varint(data, pos, end)
            if length >= 1 << 63:
                raise ProtobufError(NEGATIVE_LENGTH)
            pos += length
        elif wire_type == START_GROUP:
            depth += 1
        elif wire_type == END_GROUP:
            depth -= 1
        elif wire_type == FIXED32:
            pos += 4
        else:
            raise ProtobufError(f"proto: illegal wireType {wire_type}")
        if depth == 0:
            if pos > end:
                raise ProtobufError(UNEXPECTED_EOF)
            return pos
    raise ProtobufError(UNEXPECTED_EOF)


def read_fields(
    data: bytes, message: str, known: Mapping[int, tuple[str, tuple[int, ...]]]
) -> Iterator[tuple[int, int, int | bytes | None]]:
    """The fields of one message in wire order: ``(number, wire type, value)``.

    ``known`` maps a field number to its Go name and the wire types it accepts; its value is an
    ``int`` (varint) or ``bytes`` (length-delimited). Any other number is skipped and yielded with
    the value ``None``, so the caller can note it.
    """
    pos = 0
    end = len(data)
    while pos < end:
        start = pos
        key, pos = read_varint(data, pos, end)
        number = signed(key >> 3, 32)
        wire_type = key & 7
        if wire_type == END_GROUP:
            raise ProtobufError(f"proto: {message}: wiretype end group for non-group")
        if number <= 0:
            raise ProtobufError(f"proto: {message}: illegal tag {number} (wire type {key})")
        field = known.get(number)
        if field is None:
            pos = _skip(data, start, end)
            yield number, wire_type, None
            continue
        go_name, wire_types = field
        if wire_type not in wire_types:
            raise ProtobufError(f"proto: wrong wireType = {wire_type} for field {go_name}")
        value: int | bytes
        if wire_type == VARINT:
            value, pos = read_varint(data, pos, end)
        else:
            value, pos = read_bytes(data, pos, end)
        yield number, wire_type, value
