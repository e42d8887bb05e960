"""Connections as Go's ``net/http`` server keeps them, before any handler sees a request.

kube-apiserver serves with ``http.Server{MaxHeaderBytes: 1 << 20, ReadHeaderTimeout: 32s,
IdleTimeout: 90s}`` (k8s.io/apiserver ``pkg/server/secure_serving.go``), and ``net/http``
(``server.go`` ``conn.serve`` and ``readRequest``, ``request.go`` ``parseRequestLine``) answers what
it cannot parse itself, in plain text, and closes the connection:

- a request line without two spaces, or a malformed ``HTTP/x.y``: ``400 Bad Request`` (so an
  HTTP/0.9 ``GET /`` is refused at once instead of waiting for more);
- a version other than 1.x: ``505 HTTP Version Not Supported: unsupported protocol version``;
- a request line and headers beyond 1 MiB (plus the 4 KiB its reader buffers): ``431 Request
  Header Fields Too Large``; there is no separate limit per header line or on their number;
- headers not complete within the read-header timeout, or no next request within the idle
  timeout: the connection is closed without a reply.

aiohttp's own limits (8 KiB lines, 128 headers) are lifted to these, and its parse errors are
answered with Go's bytes. docs/http-limits.md has the sources and the defaults.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aiohttp import web
from aiohttp.streams import StreamReader
from aiohttp.web_protocol import RequestHandler

from fakeapi._http.outer_filters import request_factory

__all__ = [
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_IDLE_TIMEOUT",
    "MAX_HEADER_BYTES",
    "GoConnection",
    "GoServer",
]

MAX_HEADER_BYTES = 1 << 20
"""``MaxHeaderBytes`` of kube-apiserver's server (Go's default too)."""
_READ_LIMIT = MAX_HEADER_BYTES + 4096  # ``initialReadLimitSize``: the bufio.Reader's slack
DEFAULT_HEADER_TIMEOUT = 32.0
DEFAULT_IDLE_TIMEOUT = 90.0
_NEVER = 365 * 24 * 3600.0

_ERROR_HEADERS = b"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
_BAD_REQUEST = b"HTTP/1.1 400 Bad Request" + _ERROR_HEADERS + b"400 Bad Request"
_TOO_LARGE = b"HTTP/1.1 431 Request Header Fields Too Large" + _ERROR_HEADERS + b"431 Request Header Fields Too Large"
_MISSING_HOST = (
    b"HTTP/1.1 400 Bad Request: missing required Host header"
    + _ERROR_HEADERS
    + b"400 Bad Request: missing required Host header"
)
_UNSUPPORTED_VERSION = (
    b"HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version"
    + _ERROR_HEADERS
    + b"505 HTTP Version Not Supported: unsupported protocol version"
)


def _request_line_refusal(line: bytes) -> bytes | None:
    """Go's answer to a request line it refuses (``parseRequestLine``, ``ParseHTTPVersion``,
    ``http1ServerSupportsRequest``), or None for one it takes."""
    line = line.rstrip(b"\r\n")
    method, space, rest = line.partition(b" ")
    target, space2, proto = rest.partition(b" ")
    if not space or not space2:
        return _BAD_REQUEST
    if proto in (b"HTTP/1.1", b"HTTP/1.0"):
        return None
    if (
        not proto.startswith(b"HTTP/")
        or len(proto) != len(b"HTTP/X.Y")
        or proto[6:7] != b"."
        or not proto[5:6].isdigit()
        or not proto[7:8].isdigit()
    ):
        return _BAD_REQUEST
    if proto[5:6] == b"1" or (proto == b"HTTP/2.0" and method == b"PRI" and target == b"*"):
        return None
    return _UNSUPPORTED_VERSION


def _parse_head(head: bytes) -> tuple[bytes, dict[bytes, bytes]] | None:
    """The protocol version and the headers of a lowercased head (repeated values joined by
    commas); None for a malformed header line, which the parser refuses."""
    lines = head.split(b"\r\n")
    headers: dict[bytes, bytes] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            return None
        key = name.strip()
        headers[key] = (headers[key] + b"," if key in headers else b"") + value.strip()
    return lines[0].rpartition(b" ")[2], headers


def _closes_without_body(version: bytes, headers: dict[bytes, bytes]) -> bool:
    """A request that ends its connection and has no body (``shouldClose``, ``readTransfer``)."""
    tokens = {token.strip() for token in headers.get(b"connection", b"").split(b",")}
    closes = b"close" in tokens or (version == b"http/1.0" and b"keep-alive" not in tokens)
    return closes and b"content-length" not in headers and b"transfer-encoding" not in headers


class GoConnection(RequestHandler):
    """aiohttp's connection handler, with Go's limits on what comes before the body."""

    def __init__(self, manager: web.Server, *, header_timeout: float, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._header_timeout = header_timeout
        self._header_timer: asyncio.TimerHandle | None = None
        self._head = bytearray()  # the request line and headers received so far
        self._line_checked = False
        self._body: StreamReader | None = None
        self._refused = False
        self._last_request = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._start_header_timer()

    def connection_lost(self, exc: BaseException | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused or self._last_request:
            return  # Go reads nothing after a request that closes the connection
        if self._upgraded or self._payload_parser is not None:
            # An upgraded connection (a WebSocket) carries frames, not requests: none of the
            # header checks apply to them.
            super().data_received(data)
            return
        reading_headers = data and self._reading_headers()
        if reading_headers:
            data = self._headers_received(data)
            if self._refused:
                return
        parsed_before = self._request_count
        super().data_received(data)
        if self._request_count > parsed_before:
            self._cancel_header_timer()
            self._head.clear()
            self._line_checked = False
            self._body = self._messages[-1][1] if self._messages else None
        elif reading_headers and self._header_timer is None:
            self._start_header_timer()  # the headers did not all come at once

    def _headers_received(self, data: bytes) -> bytes:
        """Account for header bytes; refuse what Go refuses; cut what follows a closing request.

        Headers almost always come in one piece: then ``data`` is read as it is, without a copy.
        """
        searched_from = max(0, len(self._head) - 3)
        if self._head:
            self._head += data
            head: bytes | bytearray = self._head
        else:
            head = data.lstrip(b"\r\n")
        if not self._line_checked:
            end = head.find(b"\n")
            if end >= 0:
                self._line_checked = True
                refusal = _request_line_refusal(bytes(head[: end + 1]))
                if refusal is not None:
                    self._refuse(refusal)
                    return data
        if len(head) > _READ_LIMIT:
            self._refuse(_TOO_LARGE)
            return data
        end = head.find(b"\r\n\r\n", searched_from)
        if end < 0:
            if not self._head:
                self._head += head
            return data
        lowered = bytes(head[:end]).lower()
        http10 = lowered[: lowered.find(b"\r\n")].endswith(b" http/1.0")
        if b"\r\nhost:" in lowered and b"\r\nconnection:" not in lowered and not http10:
            return data  # almost every request: nothing to decide
        parsed = _parse_head(lowered)
        if parsed is None:
            return data
        version, headers = parsed
        if version != b"http/1.0" and b"host" not in headers:
            self._refuse(_MISSING_HOST)
            return data
        if _closes_without_body(version, headers):
            # An HTTP/1.0 request (or Connection: close) without Content-Length has no body, and
            # the connection closes after it: whatever follows is never read.
            self._last_request = True
            return data[: len(data) - (len(head) - (end + 4))]
        return data

    def handle_error(
        self, request: web.BaseRequest, status: int = 500, exc: BaseException | None = None, message: str | None = None
    ) -> web.StreamResponse:
        if isinstance(exc, ConnectionError):
            # The client went away (the only error :func:`journaled` lets through, docs/http-limits.md):
            # no one to answer and no server error, so nothing is logged.
            self.force_close()
            return web.Response(status=status)
        if status == 400 and request.writer.output_size == 0:
            # What aiohttp's parser refused (a bad header line, a bad chunk size): Go's plain 400.
            self._refuse(_BAD_REQUEST)
            return web.Response(status=400)
        return super().handle_error(request, status, exc, message)

    def _reading_headers(self) -> bool:
        body = self._body
        return body is None or body.is_eof()

    def _start_header_timer(self) -> None:
        if self._header_timeout > 0:
            self._header_timer = self._loop.call_later(self._header_timeout, self._header_timed_out)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timed_out(self) -> None:
        self._header_timer = None
        if self._reading_headers() and self.transport is not None:
            self.transport.close()

    def _refuse(self, answer: bytes) -> None:
        self._refused = True
        self._cancel_header_timer()
        transport = self.transport
        if transport is not None and not transport.is_closing():
            transport.write(answer)
            transport.close()


class GoServer(web.Server):
    """aiohttp's low-level server, making :class:`GoConnection` handlers."""

    def __init__(
        self,
        handler: Any,
        *,
        header_timeout: float,
        idle_timeout: float,
        new_audit_id: Callable[[], str],
        **kwargs: Any,
    ) -> None:
        super().__init__(
            handler,
            keepalive_timeout=idle_timeout if idle_timeout > 0 else _NEVER,
            max_line_size=_READ_LIMIT,
            max_field_size=_READ_LIMIT,
            max_headers=_READ_LIMIT // 4,  # "a:\r\n" is the shortest header line
            auto_decompress=False,  # Go's server leaves a request's Content-Encoding to the handler
            **kwargs,
        )
        self._header_timeout = header_timeout
        self.request_factory = request_factory(self, new_audit_id)

    def __call__(self) -> GoConnection:
        return GoConnection(self, loop=self._loop, header_timeout=self._header_timeout, **self._kwargs)
