"""What a long-running server keeps is bounded (docs/limits.md): the journal, the change history, slow watchers."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def _configmap(name: str, size: int = 10) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"x": "a" * size}}


@pytest.mark.asyncio
async def test_the_journal_keeps_the_start_of_a_large_body_and_its_length(
    server: FakeAPIServer, client: RawClient
) -> None:
    body = json.dumps(_configmap("big", 3 * 1024 * 1024)).encode()
    reply = await client.post(CONFIGMAPS, body)
    assert reply.status == 413
    entry = next(entry for entry in server.journal if entry.method == "POST")
    assert (len(entry.body), entry.body_length, entry.body_truncated) == (64 * 1024, len(body), True)
    assert entry.body == body[: 64 * 1024]
    assert entry.response_truncated is False and entry.json()["code"] == 413


@pytest.mark.asyncio
async def test_a_truncated_response_says_so_when_decoded() -> None:
    async with FakeAPIServer(journal_body_limit=100) as server:
        async with aiohttp.ClientSession() as session:
            client = RawClient(session, server.url)
            created = await client.post(CONFIGMAPS, _configmap("cm", 500))
            assert created.status == 201
        entry = next(entry for entry in server.journal if entry.method == "POST")
        assert entry.response_length == len(created.body) and len(entry.response_body) == 100
        with pytest.raises(ValueError, match=r"only 100 of the response's \d+ bytes were kept"):
            entry.json()


@pytest.mark.asyncio
async def test_the_journal_forgets_the_oldest_entries_past_its_byte_budget() -> None:
    async with FakeAPIServer(journal_body_limit=10_000, journal_max_bytes=100_000) as server:
        async with aiohttp.ClientSession() as session:
            client = RawClient(session, server.url)
            for index in range(30):
                assert (await client.post(CONFIGMAPS, _configmap(f"cm-{index}", 20_000))).status == 201
        kept = list(server.journal)
        assert sum(len(e.body) + len(e.response_body) for e in kept) <= 100_000
        assert server.journal.bytes_kept == sum(len(e.body) + len(e.response_body) for e in kept)
        assert [e.sequence for e in kept] == list(range(31 - len(kept), 31))  # the newest, in order
        assert all(e.body_length > len(e.body) for e in kept)


@pytest.mark.asyncio
async def test_the_change_history_keeps_its_byte_budget_and_a_watch_from_before_it_expires() -> None:
    async with FakeAPIServer(history_max_bytes=200_000) as server:
        first = server.load(_configmap("cm", 10))[0]
        for index in range(40):
            server.apply({**_configmap("cm", 20_000), "data": {"x": str(index) * 20_000}})
        hub = server._state.store.hub
        assert hub.history_bytes <= 200_000 and 0 < len(hub.history) < 40
        async with aiohttp.ClientSession() as session:
            since = first["metadata"]["resourceVersion"]
            async with session.get(f"{server.url}{CONFIGMAPS}?watch=1&resourceVersion={since}") as response:
                event = json.loads(await response.content.readline())
        assert event["type"] == "ERROR" and event["object"]["code"] == 410


@pytest.mark.asyncio
async def test_a_watcher_that_does_not_read_is_ended_and_its_queue_dropped() -> None:
    async with FakeAPIServer(watch_queue_limit=20) as server:
        reader, writer = await asyncio.open_connection(server.host, server.port)
        writer.write(f"GET {CONFIGMAPS}?watch=1 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await writer.drain()
        await reader.readuntil(b"\r\n\r\n")
        hub = server._state.store.hub
        while not hub.watchers:
            await asyncio.sleep(0.01)
        watcher = next(iter(hub.watchers))
        writes = 0
        while not watcher.terminated:  # until the socket buffers are full and 21 events wait
            server.apply(_configmap("cm", 200_000) | {"data": {"x": str(writes % 10) * 200_000}})
            writes += 1
            await asyncio.sleep(0)  # let the stream write what the transport takes
        assert hub.watchers == set() and watcher.events == []
        received = b""
        while not received.endswith(b"\r\n0\r\n\r\n"):  # the stream ends: the client will watch again
            chunk = await asyncio.wait_for(reader.read(1 << 20), 30)
            assert chunk, "the connection closed instead of ending the stream"
            received += chunk
        assert 0 < received.count(b'"type":') < writes
        writer.close()
