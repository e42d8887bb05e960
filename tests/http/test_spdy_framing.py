"""SPDY/3.1 frames against bytes written from the SPDY/3 draft (section 2.2 and 2.6), and the
refusals of spdystream's reader (docs/kubelet-endpoints.md)."""

from __future__ import annotations

import hashlib
import struct
import zlib

import pytest

from fakeapi._http.spdy_framing import (
    DICTIONARY,
    Data,
    Frame,
    FrameReader,
    FrameWriter,
    GoAway,
    Headers,
    Ping,
    RstStream,
    Settings,
    SpdyError,
    SynReply,
    SynStream,
    WindowUpdate,
)

# Fixed-size frames, byte by byte: control bit and version 3, the type, flags and a 24-bit length,
# then the fields.
FIXED: list[tuple[Frame, str]] = [
    (Ping(1), "80030006 00000004 00000001"),
    (RstStream(3, 5), "80030003 00000008 00000003 00000005"),
    (GoAway(5, 0), "80030007 00000008 00000005 00000000"),
    (WindowUpdate(1, 65536), "80030009 00000008 00000001 00010000"),
    (Settings(((1, 7, 65536),)), "80030004 0000000c 00000001 01000007 00010000"),
    (Data(1, b"abc", 1), "00000001 01000003 616263"),
    (Data(7, b""), "00000007 00000000"),
]


def block(*pairs: tuple[str, str]) -> bytes:
    """A name/value block as section 2.6.10 lays it out: a count, then lengths and bytes, all 32 bits."""
    out = struct.pack(">I", len(pairs))
    for name, value in pairs:
        out += struct.pack(">I", len(name)) + name.encode() + struct.pack(">I", len(value)) + value.encode()
    return out


def syn_stream(stream_id: int, compressed: bytes, flags: int = 0) -> bytes:
    return struct.pack(">HHIIIBB", 0x8003, 1, flags << 24 | (10 + len(compressed)), stream_id, 0, 0, 0) + compressed


def compressor() -> zlib._Compress:
    return zlib.compressobj(zdict=DICTIONARY)


def compressed(deflater: zlib._Compress, raw: bytes) -> bytes:
    return deflater.compress(raw) + deflater.flush(zlib.Z_SYNC_FLUSH)


def test_the_dictionary_is_the_drafts_byte_for_byte() -> None:
    # The figures of spdystream's spdy/dictionary.go (the kubelet's), and the DICTID a zlib stream
    # compressed with it carries.
    assert len(DICTIONARY) == 1423
    assert hashlib.sha256(DICTIONARY).hexdigest() == "51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02"
    assert zlib.adler32(DICTIONARY) == 0xE3C6A7C2
    assert DICTIONARY.startswith(b"\x00\x00\x00\x07options\x00\x00\x00\x04head")
    assert DICTIONARY.endswith(b"charset=iso-8859-1,utf-,*,enq=0.")


@pytest.mark.parametrize(("frame", "wire"), FIXED)
def test_fixed_frames_are_the_drafts_bytes_both_ways(frame: Frame, wire: str) -> None:
    raw = bytes.fromhex(wire.replace(" ", ""))
    assert FrameWriter().encode(frame) == raw
    assert FrameReader().feed(raw) == [frame]


def test_a_syn_reply_carries_an_empty_block_compressed_with_the_dictionary() -> None:
    raw = FrameWriter().encode(SynReply(1))
    kind, flags_and_length, stream_id = struct.unpack(">HHII", raw[:12])[1:]
    assert (raw[:2], kind, flags_and_length >> 24, flags_and_length & 0xFFFFFF, stream_id) == (
        b"\x80\x03",
        2,
        0,
        len(raw) - 8,
        1,
    )
    # A zlib header that asks for a preset dictionary (FDICT), then that dictionary's Adler-32.
    assert raw[12] == 0x78 and raw[13] & 0x20 and raw[14:18] == bytes.fromhex("e3c6a7c2")
    assert zlib.decompressobj(zdict=DICTIONARY).decompress(raw[12:]) == b"\x00\x00\x00\x00"


def test_a_syn_stream_as_kubectl_sends_it() -> None:
    headers = block(("port", "8080"), ("requestid", "0"), ("streamtype", "error"))
    raw = syn_stream(1, compressed(compressor(), headers))
    assert FrameReader().feed(raw) == [SynStream(1, {"port": ["8080"], "requestid": ["0"], "streamtype": ["error"]})]


def test_one_compression_context_per_direction_spans_the_connection() -> None:
    deflater = compressor()
    headers = block(("port", "8080"), ("requestid", "0"), ("streamtype", "error"))
    first = syn_stream(1, compressed(deflater, headers))
    second = syn_stream(3, compressed(deflater, block(("port", "8080"), ("requestid", "0"), ("streamtype", "data"))))
    reader = FrameReader()
    assert [frame.stream_id for frame in reader.feed(first + second)] == [1, 3]  # type: ignore[union-attr]
    with pytest.raises(SpdyError):
        FrameReader().feed(second)  # without the first block, the second does not inflate

    writer = FrameWriter()
    replies = writer.encode(SynReply(1)) + writer.encode(SynReply(3))
    assert FrameReader().feed(replies) == [SynReply(1), SynReply(3)]


def test_frames_come_out_whatever_pieces_the_bytes_arrive_in() -> None:
    writer = FrameWriter()
    frames: list[Frame] = [
        SynStream(1, {"port": ["80"], "streamtype": ["data"], "x": ["a", "b"]}, flags=1),
        Headers(1, {"k": ["v"]}),
        Data(1, b"x" * 70000),
        Ping(2),
    ]
    wire = b"".join(writer.encode(frame) for frame in frames)
    reader = FrameReader()
    received = [frame for at in range(0, len(wire), 7) for frame in reader.feed(wire[at : at + 7])]
    assert received == frames


def test_values_of_one_name_are_joined_by_nul() -> None:
    raw = FrameWriter().encode(Headers(5, {"Accept": ["a", "b"]}))
    inflated = zlib.decompressobj(zdict=DICTIONARY).decompress(raw[12:])
    assert inflated == block(("accept", "a\x00b"))


@pytest.mark.parametrize(
    "raw",
    [
        "00000000 00000001 61",  # a data frame on stream 0
        "80030006 00000004 00000000",  # ping 0
        "80030006 01000004 00000001",  # a ping with flags
        "80030003 00000008 00000001 00000000",  # RST_STREAM without a status
        "80030003 00000008 00000000 00000005",  # RST_STREAM of stream 0
        "80030007 01000008 00000001 00000000",  # GOAWAY with flags
        "80030009 00000004 00000001",  # a short WINDOW_UPDATE
        "8003000a 00000000",  # CREDENTIAL: spdystream reads no such frame
    ],
)
def test_frames_spdystream_refuses(raw: str) -> None:
    with pytest.raises(SpdyError):
        FrameReader().feed(bytes.fromhex(raw.replace(" ", "")))


@pytest.mark.parametrize(
    "headers",
    [
        block(("Port", "80")),  # not lowercase
        block(("port", "80"), ("port", "81")),  # twice
        block(("host", "example")),  # refused in a request
        block(("port", "80"))[:-1],  # cut short
        block(("port", "80")) + b"\x00",  # followed by more
    ],
)
def test_name_value_blocks_spdystream_refuses(headers: bytes) -> None:
    with pytest.raises(SpdyError):
        FrameReader().feed(syn_stream(1, compressed(compressor(), headers)))


def test_a_block_that_inflates_beyond_the_limit_is_refused() -> None:
    huge = block(("x", "y" * (2 << 20)))
    with pytest.raises(SpdyError):
        FrameReader().feed(syn_stream(1, compressed(compressor(), huge)))
