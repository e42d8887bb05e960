"""The connection layer as Go's net/http keeps it (docs/http-limits.md), over raw sockets.

What Go refuses before a handler runs is answered with its exact bytes and the connection closed;
what it allows (1 MiB of headers, any number of them) is served; a connection that dawdles over its
headers, or idles between requests, is closed without a reply. A client that goes away at any
moment is never a server error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from fakeapi.server import FakeAPIServer, GateDecision, GateRequest

ERROR_HEADERS = b"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"


async def exchange(server: FakeAPIServer, data: bytes, *, timeout: float = 30.0) -> bytes:
    """Send ``data``, then read until the server closes the connection."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    try:
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()


async def _connections_closed(server: FakeAPIServer) -> None:
    """Until the server has seen every client connection close."""
    runner = server._runner
    assert runner is not None and runner.server is not None
    while runner.server.connections:
        await asyncio.sleep(0.01)


@pytest_asyncio.fixture
async def quick() -> AsyncIterator[FakeAPIServer]:
    """A server with short timeouts, so that the tests about them end soon."""
    async with FakeAPIServer(header_timeout=0.3, idle_timeout=0.3) as running:
        yield running
        assert running.errors == [], "\n".join(running.errors)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("request_line", "answer"),
    [
        (b"GET /version HTTP/2.0", b"505 HTTP Version Not Supported: unsupported protocol version"),
        (b"GET /version HTTP/3.0", b"505 HTTP Version Not Supported: unsupported protocol version"),
        (b"GET /version HTTP/0.9", b"505 HTTP Version Not Supported: unsupported protocol version"),
        (b"GET /", b"400 Bad Request"),  # HTTP/0.9: no version at all
        (b"GET /version HTTP/1", b"400 Bad Request"),
        (b"GET /version HTTPS/1.1", b"400 Bad Request"),
    ],
)
async def test_a_request_line_go_refuses_gets_its_plain_answer_at_once(
    server: FakeAPIServer, request_line: bytes, answer: bytes
) -> None:
    reply = await exchange(server, request_line + b"\r\nHost: x\r\n\r\n")
    assert reply == b"HTTP/1.1 " + answer + ERROR_HEADERS + answer
    assert len(server.journal) == 0


@pytest.mark.asyncio
async def test_http11_without_host_is_gos_400(server: FakeAPIServer) -> None:
    reply = await exchange(server, b"GET /version HTTP/1.1\r\n\r\n")
    message = b"400 Bad Request: missing required Host header"
    assert reply == b"HTTP/1.1 " + message + ERROR_HEADERS + message


@pytest.mark.asyncio
async def test_an_empty_host_header_is_a_host_header(server: FakeAPIServer) -> None:
    reply = await exchange(server, b"GET /version HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 200 OK\r\n")


@pytest.mark.asyncio
async def test_headers_up_to_a_mebibyte_are_served(server: FakeAPIServer) -> None:
    values = ",".join(f"v{i}" for i in range(2500))
    selector = f"app+in+({values})".encode()
    many = b"".join(b"X-Header-%d: %d\r\n" % (i, i) for i in range(1000))
    big = b"X-Big: " + b"a" * 200_000 + b"\r\n"
    request = b"GET /api/v1/namespaces/default/configmaps?labelSelector=" + selector + b" HTTP/1.1\r\n"
    reply = await exchange(server, request + b"Host: x\r\n" + many + big + b"Connection: close\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 200 OK\r\n"), reply[:200]
    assert b'"kind":"ConfigMapList"' in reply


@pytest.mark.asyncio
async def test_headers_past_a_mebibyte_are_431(server: FakeAPIServer) -> None:
    padding = b"".join(b"X-%d: %s\r\n" % (i, b"a" * 1000) for i in range(1100))
    reply = await exchange(server, b"GET /version HTTP/1.1\r\nHost: x\r\n" + padding + b"\r\n")
    answer = b"431 Request Header Fields Too Large"
    assert reply == b"HTTP/1.1 " + answer + ERROR_HEADERS + answer


@pytest.mark.asyncio
async def test_an_http10_post_without_content_length_has_an_empty_body_and_is_answered(server: FakeAPIServer) -> None:
    request = b"POST /api/v1/namespaces/default/configmaps HTTP/1.0\r\nContent-Type: application/json\r\n\r\n"
    reply = await exchange(server, request + b'{"metadata":{"name":"never-read"}}')
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 400 Bad Request\r\n")
    assert b"unexpected end of JSON input" in body
    assert server.find("v1", "ConfigMap", "never-read") is None


@pytest.mark.asyncio
async def test_a_header_dribbler_is_cut_at_the_read_header_timeout(quick: FakeAPIServer) -> None:
    reader, writer = await asyncio.open_connection(quick.host, quick.port)
    writer.write(b"GET /version HTTP/1.1\r\nHost: x\r\n")
    await writer.drain()
    try:
        answer = await asyncio.wait_for(reader.read(), 30)
    except ConnectionResetError:  # a close with the request's bytes still unread is a reset
        answer = b""
    assert answer == b""  # closed, no reply
    writer.close()


@pytest.mark.asyncio
async def test_a_silent_connection_is_cut_at_the_read_header_timeout(quick: FakeAPIServer) -> None:
    reader, writer = await asyncio.open_connection(quick.host, quick.port)
    assert await asyncio.wait_for(reader.read(), 30) == b""
    writer.close()


@pytest.mark.asyncio
async def test_an_idle_kept_alive_connection_is_cut_at_the_idle_timeout(quick: FakeAPIServer) -> None:
    reader, writer = await asyncio.open_connection(quick.host, quick.port)
    writer.write(b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
    length = int(
        next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")).split(b":")[1]
    )
    await reader.readexactly(length)
    assert await asyncio.wait_for(reader.read(), 30) == b""  # the server closed the idle connection
    writer.close()


@pytest.mark.asyncio
async def test_a_slow_request_body_is_not_cut_by_the_header_timeout(quick: FakeAPIServer) -> None:
    body = b'{"metadata":{"name":"slow"}}'
    reader, writer = await asyncio.open_connection(quick.host, quick.port)
    writer.write(
        b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    await writer.drain()
    while len(quick.journal) == 0:
        await asyncio.sleep(0.01)  # until the handler waits for the body
    await asyncio.sleep(0.6)  # twice the header timeout: a body has no such timeout, as in Go
    writer.write(body)
    reply = await asyncio.wait_for(reader.read(), 30)
    assert reply.startswith(b"HTTP/1.1 201 Created\r\n"), reply[:100]
    writer.close()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "path", ["/api/v1/namespaces/default/configmaps?watch=1", "/api/v1/namespaces/default/configmaps"]
)
async def test_a_client_that_leaves_before_the_answer_is_no_server_error(server: FakeAPIServer, path: str) -> None:
    held = asyncio.Event()
    release = asyncio.Event()

    async def gate(request: GateRequest) -> GateDecision | None:
        # The client leaves while the request is held; the handler then goes on to write its
        # answer (or a watch's headers) to a connection that is gone, as it does when the client
        # leaves between two of its steps.
        held.set()
        with contextlib.suppress(asyncio.CancelledError):
            await release.wait()
        return None

    server.set_gate(gate)
    _, writer = await asyncio.open_connection(server.host, server.port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    await writer.drain()
    await held.wait()
    writer.close()
    await writer.wait_closed()
    await _connections_closed(server)
    release.set()
    server.set_gate(None)
    reply = await exchange(server, b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 200 OK")
    assert server.errors == []


@pytest.mark.asyncio
async def test_a_client_that_leaves_mid_body_is_no_server_error(server: FakeAPIServer) -> None:
    _reader, writer = await asyncio.open_connection(server.host, server.port)
    writer.write(
        b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Content-Length: 1000\r\n\r\n{"metadata":'
    )
    await writer.drain()
    while len(server.journal) == 0:
        await asyncio.sleep(0.01)
    writer.close()
    await writer.wait_closed()
    await _connections_closed(server)
    reply = await exchange(server, b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 200 OK")
    assert server.errors == []


@pytest.mark.asyncio
async def test_a_watch_dropped_before_its_headers_logs_nothing(
    server: FakeAPIServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for _ in range(20):
        _reader, writer = await asyncio.open_connection(server.host, server.port)
        writer.write(b"GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n\r\n")
        await writer.drain()
        # An abortive close (RST), as a killed client's kernel sends: the handler's first write fails.
        writer.transport.get_extra_info("socket").setsockopt(
            socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
        )
        writer.transport.abort()
    await _connections_closed(server)
    reply = await exchange(server, b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")

    assert reply.startswith(b"HTTP/1.1 200 OK")
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING] == []
    assert server.errors == []
