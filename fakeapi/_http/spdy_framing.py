"""SPDY/3.1 frames, as the kubelet's port forwarding reads and writes them (docs/kubelet-endpoints.md).

kubectl's ``port-forward`` speaks SPDY/3.1 through ``k8s.io/apimachinery/pkg/util/httpstream/spdy``,
which uses ``github.com/moby/spdystream`` and its framer (``spdy/read.go``, ``spdy/write.go``, a
fork of Go's old ``go.net/spdy``). The wire format is the SPDY/3 draft's (section 2.2): a control
frame starts with the control bit, the version (3) and its type, then 8 bits of flags and a 24-bit
length; a data frame starts with a 31-bit stream id, then flags and length. SYN_STREAM, SYN_REPLY
and HEADERS carry a name/value block (a 32-bit count, then each name and value with a 32-bit
length, values of one name joined by NUL) compressed with zlib and the draft's dictionary
(section 2.6.10.1), one compression context per direction for the whole connection: a block is
compressed after every block the same side sent before it, and ends with a sync flush.

:class:`FrameReader` decodes what a peer sends, refusing what spdystream's reader refuses (a
frame it cannot read ends its connection); :class:`FrameWriter` encodes what the server sends.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

__all__ = [
    "CANCEL",
    "DICTIONARY",
    "FLAG_FIN",
    "FLAG_UNIDIRECTIONAL",
    "PROTOCOL_ERROR",
    "Data",
    "Frame",
    "FrameReader",
    "FrameWriter",
    "GoAway",
    "Headers",
    "Ping",
    "RstStream",
    "Settings",
    "SpdyError",
    "SynReply",
    "SynStream",
    "WindowUpdate",
]

VERSION = 3
FLAG_FIN = 0x01
FLAG_UNIDIRECTIONAL = 0x02
PROTOCOL_ERROR = 1
CANCEL = 5

SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = 1, 2, 3, 4, 6, 7, 8, 9

# Decompressed name/value blocks beyond this are refused: the length of a frame bounds what is
# received, not what it inflates to.
MAX_HEADER_BLOCK = 1 << 20

# The draft's dictionary: these names and values ("|" between them), each after its length in 32
# bits, then the tail as it is.
_DICTIONARY_WORDS = (
    "options|head|post|put|delete|trace|accept|accept-charset|accept-encoding|accept-language|"
    "accept-ranges|age|allow|authorization|cache-control|connection|content-base|content-encoding|"
    "content-language|content-length|content-location|content-md5|content-range|content-type|date|"
    "etag|expect|expires|from|host|if-match|if-modified-since|if-none-match|if-range|"
    "if-unmodified-since|last-modified|location|max-forwards|pragma|proxy-authenticate|"
    "proxy-authorization|range|referer|retry-after|server|te|trailer|transfer-encoding|upgrade|"
    "user-agent|vary|via|warning|www-authenticate|method|get|status|200 OK|version|HTTP/1.1|url|"
    "public|set-cookie|keep-alive|origin"
)
_DICTIONARY_TAIL = (
    b"100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505"
    b"203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request"
    b"401 Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented"
    b"503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 "
    b"Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,"
    b"application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age="
    b"gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0."
)


DICTIONARY = (
    b"".join(struct.pack(">I", len(word)) + word.encode("ascii") for word in _DICTIONARY_WORDS.split("|"))
    + _DICTIONARY_TAIL
)

HeaderBlock = dict[str, list[str]]


class SpdyError(Exception):
    """A frame spdystream's reader refuses; the connection ends."""


@dataclass(frozen=True)
class SynStream:
    stream_id: int
    headers: HeaderBlock
    flags: int = 0
    associated_to: int = 0
    priority: int = 0
    slot: int = 0


@dataclass(frozen=True)
class SynReply:
    stream_id: int
    headers: HeaderBlock = field(default_factory=dict)
    flags: int = 0


@dataclass(frozen=True)
class Headers:
    stream_id: int
    headers: HeaderBlock
    flags: int = 0


@dataclass(frozen=True)
class RstStream:
    stream_id: int
    status: int


@dataclass(frozen=True)
class Settings:
    entries: tuple[tuple[int, int, int], ...]  # (flags, id, value)
    flags: int = 0


@dataclass(frozen=True)
class Ping:
    ping_id: int


@dataclass(frozen=True)
class GoAway:
    last_good_stream_id: int
    status: int = 0


@dataclass(frozen=True)
class WindowUpdate:
    stream_id: int
    delta: int


@dataclass(frozen=True)
class Data:
    stream_id: int
    data: bytes
    flags: int = 0


Frame = SynStream | SynReply | Headers | RstStream | Settings | Ping | GoAway | WindowUpdate | Data

# Names spdystream refuses in a block (compared after Go's canonical spelling, so in any case).
_REFUSED_IN_REQUESTS = frozenset({"connection", "host", "keep-alive", "proxy-connection", "transfer-encoding"})
_REFUSED_IN_REPLIES = _REFUSED_IN_REQUESTS - {"host"}


def _encode_block(headers: HeaderBlock) -> bytes:
    parts = [struct.pack(">I", len(headers))]
    for name, values in headers.items():
        key, value = name.lower().encode(), "\x00".join(values).encode()
        parts += [struct.pack(">I", len(key)), key, struct.pack(">I", len(value)), value]
    return b"".join(parts)


def _decode_block(block: bytes) -> HeaderBlock:
    def take(at: int, size: int) -> bytes:
        if at + size > len(block):
            raise SpdyError("compressed payload size was incorrect")
        return block[at : at + size]

    (count,) = struct.unpack(">I", take(0, 4))
    headers: HeaderBlock = {}
    at = 4
    for _ in range(count):
        (size,) = struct.unpack(">I", take(at, 4))
        name = take(at + 4, size).decode("utf-8", "surrogateescape")
        at += 4 + size
        (size,) = struct.unpack(">I", take(at, 4))
        value = take(at + 4, size).decode("utf-8", "surrogateescape")
        at += 4 + size
        if name != name.lower():
            raise SpdyError("header was not lowercased")
        if name in headers:
            raise SpdyError("multiple headers with same name")
        headers[name] = value.split("\x00")
    if at != len(block):
        raise SpdyError("compressed payload size was incorrect")
    return headers


class FrameReader:
    """Frames out of the bytes a peer sends, whatever pieces they come in."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._inflater = zlib.decompressobj(zdict=DICTIONARY)

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += data
        frames: list[Frame] = []
        while len(self._buffer) >= 8:
            first, flags_and_length = struct.unpack_from(">II", self._buffer)
            length = flags_and_length & 0xFFFFFF
            if len(self._buffer) < 8 + length:
                break
            payload = bytes(self._buffer[8 : 8 + length])
            del self._buffer[: 8 + length]
            flags = flags_and_length >> 24
            if first & 0x80000000:
                frames.append(self._control(first & 0xFFFF, flags, payload))
            elif first & 0x7FFFFFFF == 0:
                raise SpdyError("stream id zero is disallowed")
            else:
                frames.append(Data(first & 0x7FFFFFFF, payload, flags))
        return frames

    def _headers(self, compressed: bytes, refused: frozenset[str]) -> HeaderBlock:
        try:
            block = self._inflater.decompress(compressed, MAX_HEADER_BLOCK)
        except zlib.error as error:
            raise SpdyError(f"zlib: {error}") from None
        if self._inflater.unconsumed_tail:
            raise SpdyError("header block too large")
        headers = _decode_block(block)
        if refused & headers.keys():
            raise SpdyError("frame contained invalid header")
        return headers

    def _control(self, kind: int, flags: int, payload: bytes) -> Frame:
        def fixed(size: int) -> tuple[int, ...]:
            if len(payload) != size:
                raise SpdyError("invalid control frame")
            return struct.unpack(">" + "I" * (size // 4), payload)

        frame: Frame
        if kind == SYN_STREAM:
            if len(payload) < 10:
                raise SpdyError("invalid control frame")
            stream_id, associated = struct.unpack_from(">II", payload)
            frame = SynStream(
                stream_id & 0x7FFFFFFF,
                self._headers(payload[10:], _REFUSED_IN_REQUESTS),
                flags,
                associated & 0x7FFFFFFF,
                payload[8] >> 5,
                payload[9],
            )
        elif kind in (SYN_REPLY, HEADERS):
            if len(payload) < 4:
                raise SpdyError("invalid control frame")
            stream_id = struct.unpack_from(">I", payload)[0] & 0x7FFFFFFF
            refused = _REFUSED_IN_REPLIES if kind == SYN_REPLY or stream_id % 2 else _REFUSED_IN_REQUESTS
            headers = self._headers(payload[4:], refused)
            frame = SynReply(stream_id, headers, flags) if kind == SYN_REPLY else Headers(stream_id, headers, flags)
        elif kind == RST_STREAM:
            stream_id, status = fixed(8)
            if status == 0:
                raise SpdyError("invalid control frame")
            frame = RstStream(stream_id & 0x7FFFFFFF, status)
        elif kind == SETTINGS:
            if len(payload) < 4 or len(payload) != 4 + 8 * struct.unpack_from(">I", payload)[0]:
                raise SpdyError("invalid control frame")
            pairs = struct.iter_unpack(">II", payload[4:])
            frame = Settings(tuple((key >> 24, key & 0xFFFFFF, value) for key, value in pairs), flags)
        elif kind == PING:
            (ping_id,) = fixed(4)
            if ping_id == 0 or flags:
                raise SpdyError("invalid control frame")
            frame = Ping(ping_id)
        elif kind == GOAWAY:
            last_good, status = fixed(8)
            if flags:
                raise SpdyError("invalid control frame")
            frame = GoAway(last_good & 0x7FFFFFFF, status)
        elif kind == WINDOW_UPDATE:
            stream_id, delta = fixed(8)
            if flags:
                raise SpdyError("invalid control frame")
            frame = WindowUpdate(stream_id & 0x7FFFFFFF, delta & 0x7FFFFFFF)
        else:
            raise SpdyError("invalid control frame")
        if getattr(frame, "stream_id", 1) == 0:
            raise SpdyError("stream id zero is disallowed")
        return frame


class FrameWriter:
    """The bytes of the frames this side sends, in the order they are encoded."""

    def __init__(self) -> None:
        self._deflater = zlib.compressobj(level=9, zdict=DICTIONARY)

    def _block(self, headers: HeaderBlock) -> bytes:
        return self._deflater.compress(_encode_block(headers)) + self._deflater.flush(zlib.Z_SYNC_FLUSH)

    def encode(self, frame: Frame) -> bytes:
        if isinstance(frame, Data):
            return struct.pack(">II", frame.stream_id & 0x7FFFFFFF, frame.flags << 24 | len(frame.data)) + frame.data
        flags = getattr(frame, "flags", 0)
        if isinstance(frame, SynStream):
            kind = SYN_STREAM
            payload = struct.pack(">IIBB", frame.stream_id, frame.associated_to, frame.priority << 5, frame.slot)
            payload += self._block(frame.headers)
        elif isinstance(frame, SynReply | Headers):
            kind = SYN_REPLY if isinstance(frame, SynReply) else HEADERS
            payload = struct.pack(">I", frame.stream_id) + self._block(frame.headers)
        elif isinstance(frame, RstStream):
            kind, payload = RST_STREAM, struct.pack(">II", frame.stream_id, frame.status)
        elif isinstance(frame, Settings):
            kind = SETTINGS
            payload = struct.pack(">I", len(frame.entries)) + b"".join(
                struct.pack(">II", entry_flags << 24 | key, value) for entry_flags, key, value in frame.entries
            )
        elif isinstance(frame, Ping):
            kind, payload = PING, struct.pack(">I", frame.ping_id)
        elif isinstance(frame, GoAway):
            kind, payload = GOAWAY, struct.pack(">II", frame.last_good_stream_id, frame.status)
        else:
            kind, payload = WINDOW_UPDATE, struct.pack(">II", frame.stream_id, frame.delta)
        return struct.pack(">HHI", 0x8000 | VERSION, kind, flags << 24 | len(payload)) + payload
