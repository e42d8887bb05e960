"""Optimistic concurrency under load: guarded increments from many clients lose nothing."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

JOBS = "/apis/example.com/v1/namespaces/default/jobs"
CLIENTS = 32
INCREMENTS = 50


async def _increment_until_done(session: aiohttp.ClientSession, url: str, times: int, *, use_put: bool) -> int:
    conflicts = 0
    done = 0
    while done < times:
        async with session.get(url) as response:
            current = await response.json()
        count = current["spec"]["count"]
        rv = current["metadata"]["resourceVersion"]
        if use_put:
            body = {**current, "spec": {"count": count + 1}}
            request = session.put(url, json=body)
        else:
            patch = [
                {"op": "test", "path": "/metadata/resourceVersion", "value": rv},
                {"op": "replace", "path": "/spec/count", "value": count + 1},
            ]
            request = session.patch(
                url, data=json.dumps(patch), headers={"Content-Type": "application/json-patch+json"}
            )
        async with request as response:
            if response.status == 200:
                done += 1
            elif response.status in (409, 422):
                conflicts += 1
            else:
                raise AssertionError(f"unexpected {response.status}: {await response.text()}")
    return conflicts


async def _watch(
    session: aiohttp.ClientSession, url: str, resource_version: str, expected: int
) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    async with session.get(f"{url}?watch=1&resourceVersion={resource_version}") as response:
        assert response.status == 200
        async for line in response.content:
            events.append(json.loads(line))
            if len(events) == expected:
                break
    return events


@pytest.mark.parametrize(("use_put", "increments"), [(False, INCREMENTS), (True, 10)], ids=["json-patch-test", "put"])
async def test_guarded_increments_from_32_clients_lose_nothing(
    server: FakeAPIServer, client: RawClient, use_put: bool, increments: int
) -> None:
    await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())
    created = await client.post(
        JOBS, {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "counter"}, "spec": {"count": 0}}
    )
    start_rv = created.json()["metadata"]["resourceVersion"]
    url = f"{server.url}{JOBS}/counter"
    total = CLIENTS * increments
    connector = aiohttp.TCPConnector(limit=CLIENTS + 2)
    async with aiohttp.ClientSession(connector=connector) as session:
        watcher = asyncio.create_task(_watch(session, f"{server.url}{JOBS}", start_rv, total))
        await asyncio.sleep(0)
        results = await asyncio.gather(
            *(_increment_until_done(session, url, increments, use_put=use_put) for _ in range(CLIENTS))
        )
        events = await asyncio.wait_for(watcher, timeout=60)
    final = (await client.get(f"{JOBS}/counter")).json()
    assert final["spec"]["count"] == total
    assert sum(results) > 0, "the clients never raced, so the test proved nothing"
    assert [event["type"] for event in events] == ["MODIFIED"] * total
    assert [event["object"]["spec"]["count"] for event in events] == list(range(1, total + 1))
    revisions = [int(event["object"]["metadata"]["resourceVersion"]) for event in events]
    assert revisions == sorted(set(revisions))
    assert revisions[-1] == int(final["metadata"]["resourceVersion"])
