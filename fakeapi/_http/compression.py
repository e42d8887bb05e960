"""Gzip for large serialized answers, as kube-apiserver's response writer does it.

k8s.io/apiserver ``pkg/endpoints/handlers/responsewriters/writers.go``: ``SerializeObject`` writes
every API object it negotiates (objects, lists, tables, Status errors, the discovery documents)
through a ``deferredResponseWriter`` whose content encoding ``negotiateContentEncoding`` takes from
the request: ``gzip`` when one comma-separated token of ``Accept-Encoding``, spaces trimmed, is
exactly ``gzip`` (``gzip;q=1`` is not) and the APIResponseCompression gate is on (beta, on by
default in 1.32). When the encoded answer is longer than ``defaultGzipThresholdBytes`` (128 KiB) it
goes out gzipped at level 1 (``defaultGzipContentEncodingLevel``, BestSpeed) with
``Content-Encoding: gzip`` and ``Vary: Accept-Encoding``; a shorter one goes out as it is. Watches,
``/version``, health checks and the OpenAPI documents have their own writers and are never gzipped
here. docs/http-limits.md, "Compressed answers", says what differs: the deflate stream is zlib's,
not Go's ``compress/flate``, so the compressed bytes differ while what they decompress to does not.
A large answer is compressed in pieces with a turn of the event loop between them, so that a 6 MB
answer does not hold up other clients for the tens of milliseconds it takes (docs/http-limits.md,
"One request among others").
"""

from __future__ import annotations

import asyncio
import struct
import zlib

from aiohttp import web

__all__ = ["SERIALIZED", "compress_answer", "go_gzip", "gzip_wanted", "negotiated_gzip"]

# Set on the answers SerializeObject would write: only those are gzipped.
SERIALIZED: web.ResponseKey[bool] = web.ResponseKey("fakeapi_serialized", bool)

GZIP_THRESHOLD_BYTES = 128 * 1024
_BEST_SPEED = 1
# What Go's gzip.Writer writes first: magic, deflate, no flags, time zero, XFL 4 for BestSpeed,
# and OS 255 ("unknown"), where zlib's own gzip wrapper would name Unix.
_GO_GZIP_HEADER = bytes((0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 4, 255))
_PIECE_BYTES = 256 * 1024  # about a millisecond of level-1 deflate


def negotiated_gzip(accept_encoding: str) -> bool:
    """``negotiateContentEncoding``: whether one comma-separated token, trimmed, is ``gzip``."""
    return any(token.strip() == "gzip" for token in accept_encoding.split(","))


async def go_gzip(data: bytes) -> bytes:
    """``gzip.NewWriterLevel(w, gzip.BestSpeed)``: Go's header, a raw deflate stream, CRC-32 and size."""
    deflate = zlib.compressobj(_BEST_SPEED, zlib.DEFLATED, -zlib.MAX_WBITS)
    parts = [_GO_GZIP_HEADER]
    crc = 0
    view = memoryview(data)
    for start in range(0, len(data), _PIECE_BYTES):
        if start:
            await asyncio.sleep(0)
        piece = view[start : start + _PIECE_BYTES]
        parts.append(deflate.compress(piece))
        crc = zlib.crc32(piece, crc)
    parts.append(deflate.flush())
    parts.append(struct.pack("<II", crc, len(data) & 0xFFFFFFFF))
    return b"".join(parts)


def gzip_wanted(request: web.BaseRequest, response: web.StreamResponse) -> bytes | None:
    """The body to gzip: a serialized answer longer than 128 KiB to a client that accepts gzip."""
    if not isinstance(response, web.Response) or not response.get(SERIALIZED) or response.prepared:
        return None
    body = response.body
    if not isinstance(body, bytes) or len(body) <= GZIP_THRESHOLD_BYTES:
        return None
    if not negotiated_gzip(request.headers.get("Accept-Encoding", "")):
        return None
    return body


async def compress_answer(response: web.Response, body: bytes) -> None:
    """Gzip ``body``, which :func:`gzip_wanted` chose, as the answer's body."""
    response.body = await go_gzip(body)
    response.headers["Content-Encoding"] = "gzip"
    response.headers.add("Vary", "Accept-Encoding")
