"""FakeAPIServer's Python surface: loading manifests, reset, restore, and clients that leave mid-request."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from fakeapi import APIError, FakeAPIServer, GateRequest


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    with FakeAPIServer() as running:
        yield running


def config_map(name: str, **data: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": dict(data)}


def test_loading_a_dict_neither_keeps_nor_changes_it(server: FakeAPIServer) -> None:
    manifest = config_map("settings", mode="fast")
    server.load(manifest)
    manifest["data"]["mode"] = "changed after loading"  # type: ignore[index]
    assert manifest == config_map("settings", mode="changed after loading")
    assert server.get("v1", "ConfigMap", "settings")["data"] == {"mode": "fast"}


def test_a_json_manifest_indented_with_tabs_loads(server: FakeAPIServer, tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(config_map("settings", mode="fast"), indent="\t"), encoding="utf-8")
    (created,) = server.load(path)
    assert created["metadata"]["namespace"] == "default"
    assert server.get("v1", "ConfigMap", "settings")["data"] == {"mode": "fast"}


def test_reset_forgets_objects_but_keeps_counting_resource_versions(server: FakeAPIServer) -> None:
    (before,) = server.load(config_map("settings"))
    server.reset()
    assert server.find("v1", "ConfigMap", "settings") is None
    (after,) = server.load(config_map("settings"))
    assert int(after["metadata"]["resourceVersion"]) > int(before["metadata"]["resourceVersion"])


def test_delete_removes_an_object_at_a_new_revision(server: FakeAPIServer) -> None:
    (created,) = server.load(config_map("settings"))
    deleted = server.delete("v1", "ConfigMap", "settings")
    assert deleted["metadata"]["uid"] == created["metadata"]["uid"]
    assert server.find("v1", "ConfigMap", "settings") is None
    assert server.revision > int(created["metadata"]["resourceVersion"])


def test_delete_marks_an_object_with_finalizers_and_keeps_it(server: FakeAPIServer) -> None:
    manifest = config_map("guarded")
    manifest["metadata"] = {"name": "guarded", "finalizers": ["example.com/keep"]}
    server.load(manifest)
    marked = server.delete("v1", "ConfigMap", "guarded")
    assert marked["metadata"]["deletionTimestamp"]
    assert server.get("v1", "ConfigMap", "guarded")["metadata"]["finalizers"] == ["example.com/keep"]


def test_deleting_a_missing_object_raises_the_404(server: FakeAPIServer) -> None:
    revision = server.revision
    with pytest.raises(APIError) as raised:
        server.delete("v1", "ConfigMap", "absent")
    assert (raised.value.code, str(raised.value)) == (404, 'configmaps "absent" not found')
    assert server.revision == revision


@pytest.mark.asyncio
async def test_the_request_log_gets_a_line_per_request_until_it_is_unset() -> None:
    lines: list[str] = []
    async with FakeAPIServer() as server, aiohttp.ClientSession(server.url) as session:
        server.set_request_log(lines.append)
        async with session.get("/api/v1/namespaces/default/configmaps/absent") as response:
            assert response.status == 404
        server.set_request_log(None)
        async with session.get("/api/v1/namespaces/default") as response:
            assert response.status == 200
    assert len(lines) == 1
    assert lines[0].startswith("GET /api/v1/namespaces/default/configmaps/absent 404 ")


@pytest.mark.asyncio
async def test_a_restored_server_numbers_its_requests_from_one_again() -> None:
    async with FakeAPIServer() as server, aiohttp.ClientSession(server.url) as session:
        snapshot = server.snapshot()
        for _ in range(2):
            async with session.get("/api/v1/namespaces/default") as response:
                assert response.status == 200
            assert [entry.sequence for entry in server.journal] == [1]
            server.restore(snapshot)


@pytest.mark.asyncio
async def test_a_request_whose_client_left_while_it_was_held_never_runs() -> None:
    async with FakeAPIServer() as server:
        held = asyncio.Event()
        abandoned = asyncio.Event()

        async def gate(request: GateRequest) -> None:
            held.set()
            try:
                await asyncio.Event().wait()  # held until the client goes away
            except asyncio.CancelledError:
                abandoned.set()
                raise

        server.set_gate(gate)
        revision = server.revision
        async with aiohttp.ClientSession(server.url) as session:
            body = config_map("late")
            create = asyncio.ensure_future(session.post("/api/v1/namespaces/default/configmaps", json=body))
            await held.wait()
            create.cancel()  # the client gives up and closes its connection
            with pytest.raises(asyncio.CancelledError):
                await create
        await asyncio.wait_for(abandoned.wait(), timeout=10)  # a deadline, not an ordering
        server.set_gate(None)
        async with (
            aiohttp.ClientSession(server.url) as session,
            session.get("/api/v1/namespaces/default/configmaps/late") as response,
        ):
            assert response.status == 404
        assert server.revision == revision
        (entry, _) = server.journal
        assert (entry.method, entry.status, entry.committed) == ("POST", 0, False)


@pytest.mark.asyncio
async def test_a_watch_valve_lets_later_events_through_one_at_a_time() -> None:
    from fakeapi import GateDecision, WatchValve

    valves: list[WatchValve] = []
    queued: list[int] = []

    async def gate(request: GateRequest) -> GateDecision | None:
        if request.verb != "watch":
            return None
        valve = WatchValve(request)
        valve.on_event = lambda: queued.append(len(valve.waiting))
        valves.append(valve)
        return GateDecision(valve=valve)

    async with FakeAPIServer() as server, aiohttp.ClientSession(server.url) as session:
        server.load(config_map("settings", mode="a"))
        start = server.revision
        server.set_gate(gate)
        path = "/api/v1/namespaces/default/configmaps/settings"
        patch = {"Content-Type": "application/merge-patch+json"}
        async with session.patch(path, data='{"data":{"mode":"b"}}', headers=patch) as response:
            assert response.status == 200
        watch = f"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={start}"
        async with session.get(watch) as stream:
            first = json.loads(await stream.content.readline())
            assert (first["type"], first["object"]["data"]) == ("MODIFIED", {"mode": "b"})  # from history: not held
            (valve,) = valves
            for mode in ("c", "d"):
                async with session.patch(path, data=json.dumps({"data": {"mode": mode}}), headers=patch) as response:
                    assert response.status == 200
            assert [event[1]["data"]["mode"] for event in valve.waiting] == ["c", "d"]
            assert queued == [1, 2]
            valve.let_one_through()
            second = json.loads(await stream.content.readline())
            assert second["object"]["data"] == {"mode": "c"}
            assert [event[1]["data"]["mode"] for event in valve.waiting] == ["d"]
            valve.let_one_through()
            third = json.loads(await stream.content.readline())
            assert third["object"]["data"] == {"mode": "d"} and valve.waiting == []
            with pytest.raises(RuntimeError, match="no event is waiting"):
                valve.let_one_through()
        server.set_gate(None)


@pytest.mark.asyncio
async def test_a_gate_fails_a_request_with_an_api_error_and_nothing_is_stored() -> None:
    from fakeapi import APIError, GateDecision

    async def gate(request: GateRequest) -> GateDecision | None:
        throttled = APIError(
            "Too many requests, please try again later.",
            reason="TooManyRequests",
            code=429,
            details={"retryAfterSeconds": 1},
            retry_after=1,
        )
        return GateDecision(fail_before=throttled) if request.verb == "create" else None

    async with FakeAPIServer() as server, aiohttp.ClientSession(server.url) as session:
        server.set_gate(gate)
        revision = server.revision
        path = "/api/v1/namespaces/default/configmaps"
        async with session.post(path, json=config_map("throttled")) as response:
            assert response.status == 429
            assert response.headers["Retry-After"] == "1"
            assert await response.read() == (
                b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, '
                b'please try again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}\n'
            )
        assert server.revision == revision and server.find("v1", "ConfigMap", "throttled") is None
        (entry,) = server.journal
        assert entry.fault == "failed before commit with 429"
