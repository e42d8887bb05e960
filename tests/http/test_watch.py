"""Watch streams: start points, selector transitions, bookmarks, expiry (docs/watch.md)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from fakeapi._http.watches import WRITE_BUDGET
from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

JOBS = "/apis/example.com/v1/namespaces/default/jobs"


def job(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Job",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {},
    }


async def collect(server: FakeAPIServer, query: str, count: int, timeout: float = 10) -> list[dict[str, Any]]:
    async with aiohttp.ClientSession() as session, session.get(f"{server.url}{JOBS}?watch=true&{query}") as response:
        assert response.status == 200
        assert response.headers["Content-Type"] == "application/json"
        events = []
        async with asyncio.timeout(timeout):
            async for line in response.content:
                events.append(json.loads(line))
                if len(events) == count:
                    break
        return events


async def test_watch_from_zero_lists_then_streams(server: FakeAPIServer, client: RawClient) -> None:
    await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())
    await client.post(JOBS, job("a"))
    task = asyncio.create_task(collect(server, "resourceVersion=0", 2))
    while not server._state.store.hub.watchers:
        await asyncio.sleep(0.001)
    await client.post(JOBS, job("b"))
    events = await task
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "a"), ("ADDED", "b")]


async def test_selector_transitions_become_added_and_deleted(server: FakeAPIServer, client: RawClient) -> None:
    await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())
    created = (await client.post(JOBS, job("a", {"tier": "web"}))).json()
    rv = created["metadata"]["resourceVersion"]
    await client.patch(
        f"{JOBS}/a", {"metadata": {"labels": {"tier": "db"}}}, content_type="application/merge-patch+json"
    )
    back = await client.patch(
        f"{JOBS}/a", {"metadata": {"labels": {"tier": "web"}}}, content_type="application/merge-patch+json"
    )
    events = await collect(server, f"resourceVersion={rv}&labelSelector=tier%3Dweb", 2)
    assert [e["type"] for e in events] == ["DELETED", "ADDED"]
    assert events[0]["object"]["metadata"]["labels"] == {"tier": "web"}
    assert events[1]["object"]["metadata"]["resourceVersion"] == back.json()["metadata"]["resourceVersion"]


async def test_no_op_writes_make_no_events(server: FakeAPIServer, client: RawClient) -> None:
    await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())
    rv = (await client.post(JOBS, job("a"))).json()["metadata"]["resourceVersion"]
    await client.patch(f"{JOBS}/a", [])
    await client.patch(f"{JOBS}/a", {"spec": {"x": 1}}, content_type="application/merge-patch+json")
    events = await collect(server, f"resourceVersion={rv}", 1)
    assert events[0]["object"]["spec"] == {"x": 1}


async def test_initial_events_end_with_a_bookmark(server: FakeAPIServer, client: RawClient) -> None:
    await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())
    await client.post(JOBS, job("a"))
    events = await collect(
        server, "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", 2
    )
    assert events[0]["type"] == "ADDED"
    assert events[1]["type"] == "BOOKMARK"
    assert events[1]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert events[1]["object"]["kind"] == "Job"


async def test_send_initial_events_requires_not_older_than(client: RawClient) -> None:
    await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())
    reply = await client.get(f"{JOBS}?watch=true&sendInitialEvents=true")
    assert reply.status == 422
    assert "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" in reply.json()["message"]


async def test_bookmarks_arrive_at_the_configured_interval(client: RawClient) -> None:
    async with FakeAPIServer(bookmark_interval=0.05) as server:
        async with aiohttp.ClientSession() as session:
            await session.post(f"{server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd())
        events = await collect(server, "allowWatchBookmarks=true&resourceVersion=" + str(server.revision), 1)
        assert events[0]["type"] == "BOOKMARK"
        assert events[0]["object"]["metadata"]["resourceVersion"] == str(server.revision)


async def test_a_too_old_resource_version_is_one_expired_error_event() -> None:
    async with FakeAPIServer(history_window=5) as server, aiohttp.ClientSession() as session:
        await session.post(f"{server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd())
        for index in range(10):
            await session.post(f"{server.url}{JOBS}", json=job(f"j{index}"))
        async with session.get(f"{server.url}{JOBS}?watch=1&resourceVersion=2") as response:
            assert response.status == 200
            lines = [line async for line in response.content]
    assert len(lines) == 1
    event = json.loads(lines[0])
    assert event["type"] == "ERROR"
    assert event["object"]["code"] == 410 and event["object"]["reason"] == "Expired"
    assert event["object"]["message"].startswith("too old resource version: 2 (")
    assert lines[0].startswith(b'{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1"')


async def test_timeout_seconds_ends_the_stream(server: FakeAPIServer, client: RawClient) -> None:
    await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())
    url = f"{server.url}{JOBS}?watch=1&resourceVersion={server.revision}&timeoutSeconds=1"
    async with aiohttp.ClientSession() as session, session.get(url) as response, asyncio.timeout(10):
        lines = [line async for line in response.content]
    assert lines == []


async def test_deletion_event_carries_the_last_state_and_a_new_revision(
    server: FakeAPIServer, client: RawClient
) -> None:
    await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())
    created = (await client.post(JOBS, job("a"))).json()
    await client.delete(f"{JOBS}/a")
    events = await collect(server, f"resourceVersion={created['metadata']['resourceVersion']}", 1)
    assert events[0]["type"] == "DELETED"
    assert int(events[0]["object"]["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])


async def _read_chunked_events(reader: asyncio.StreamReader, count: int) -> list[dict[str, Any]]:
    """Events from a raw chunked watch body; every chunk holds whole lines, within the write budget."""
    events: list[dict[str, Any]] = []
    while len(events) < count:
        size = int((await reader.readuntil(b"\r\n"))[:-2], 16)
        chunk = await reader.readexactly(size + 2)
        assert size > 0 and chunk.endswith(b"\n\r\n")
        lines = chunk[:-2].splitlines(keepends=True)
        assert size - len(lines[-1]) < WRITE_BUDGET
        events.extend(json.loads(line) for line in lines)
    return events


async def test_a_watcher_that_stops_reading_holds_back_no_other_and_catches_up_in_parts(
    server: FakeAPIServer, client: RawClient
) -> None:
    await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())
    big = job("a")
    big["spec"] = {"data": "x" * 50_000, "n": -1}
    rv = (await client.post(JOBS, big)).json()["metadata"]["resourceVersion"]
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port), limit=2**16)
    writer.write(f"GET {JOBS}?watch=true&resourceVersion={rv} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"Transfer-Encoding: chunked\r\n" in head
    writes = 200  # 10 MB of events: more than the socket buffers hold while the slow watcher reads nothing
    fast = asyncio.create_task(collect(server, f"resourceVersion={rv}", writes, timeout=60))
    while len(server._state.store.hub.watchers) < 2:
        await asyncio.sleep(0.001)
    revisions = []
    for index in range(writes):
        reply = await client.patch(f"{JOBS}/a", [{"op": "replace", "path": "/spec/n", "value": index}])
        revisions.append(reply.json()["metadata"]["resourceVersion"])
    fast_events = await fast
    assert [e["object"]["metadata"]["resourceVersion"] for e in fast_events] == revisions
    async with asyncio.timeout(60):
        slow_events = await _read_chunked_events(reader, writes)
    writer.close()
    assert [(e["type"], e["object"]["metadata"]["resourceVersion"]) for e in slow_events] == [
        ("MODIFIED", revision) for revision in revisions
    ]
    assert [e["object"]["spec"]["n"] for e in slow_events] == list(range(writes))
