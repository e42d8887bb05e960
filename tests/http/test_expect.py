"""``Expect`` headers as Go's ``net/http`` server answers them, seen on a raw connection.

``100-continue`` gets an interim ``HTTP/1.1 100 Continue`` before the body is sent, then the
usual answer; any other expectation gets 417 with ``Connection: close`` and reaches no handler.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from fakeapi.server import FakeAPIServer

pytestmark = pytest.mark.asyncio

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


async def _connect(server: FakeAPIServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    return await asyncio.open_connection(host, int(port))


def _head(expect: str, length: int) -> bytes:
    return (
        f"POST {CONFIGMAPS} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\nExpect: {expect}\r\n\r\n"
    ).encode()


async def test_expect_100_continue_gets_the_interim_answer_before_the_body_is_sent(server: FakeAPIServer) -> None:
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "waited"}}).encode()
    reader, writer = await _connect(server)
    writer.write(_head("100-continue", len(body)))
    async with asyncio.timeout(10):
        interim = await reader.readuntil(b"\r\n\r\n")
    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
    writer.write(body)
    async with asyncio.timeout(10):
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))[15:])
        answer = json.loads(await reader.readexactly(length))
    writer.close()
    assert head.startswith(b"HTTP/1.1 201 Created\r\n")
    assert answer["metadata"]["name"] == "waited"
    assert server.find("v1", "ConfigMap", "waited") is not None


async def test_an_unknown_expectation_gets_417_and_changes_nothing(server: FakeAPIServer) -> None:
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "refused"}}).encode()
    revision = server.revision
    journaled = len(server.journal)
    reader, writer = await _connect(server)
    writer.write(_head("something-else", len(body)) + body)
    async with asyncio.timeout(10):
        head = await reader.readuntil(b"\r\n\r\n")
        rest = await reader.read()  # the server closes the connection
    writer.close()
    assert head.startswith(b"HTTP/1.1 417 Expectation Failed\r\n")
    assert b"\r\nConnection: close\r\n" in head
    assert rest == b""
    assert server.revision == revision
    assert len(server.journal) == journaled
