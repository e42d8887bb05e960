"""DELETE of a pod as kube-apiserver 1.32 does it: a grace period for a scheduled pod, none for an
unscheduled or finished one, and no kubelet in the default server (docs/graceful-deletion.md)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from fakeapi import FakeAPIServer
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

START = 1_700_000_000.0  # 2023-11-14T22:13:20Z
NOW, IN_30S, IN_10S = "2023-11-14T22:13:20Z", "2023-11-14T22:13:50Z", "2023-11-14T22:13:30Z"
PODS = "/api/v1/namespaces/default/pods"


@pytest_asyncio.fixture
async def server() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer(clock=lambda: START) as running:
        yield running
        assert running.errors == [], "\n".join(running.errors)


@pytest_asyncio.fixture
async def client(server: FakeAPIServer) -> AsyncIterator[RawClient]:
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        yield RawClient(session, server.url)


def pod(name: str, node: str | None = "node-1", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "main", "image": "nginx"}], **spec},
    }
    if node is not None:
        body["spec"]["nodeName"] = node
    return body


async def created(client: RawClient, body: dict[str, Any]) -> dict[str, Any]:
    reply = await client.post(PODS, body)
    assert reply.status == 201, reply.body
    result: dict[str, Any] = reply.json()
    return result


async def watch_events(client: RawClient, since: str, count: int) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    async with client.session.get(f"{client.base}{PODS}?watch=1&resourceVersion={since}&timeoutSeconds=5") as response:
        while len(events) < count:
            events.append(json.loads(await response.content.readline()))
    return events


def deletion(obj: dict[str, Any]) -> tuple[Any, Any]:
    meta = obj["metadata"]
    return meta.get("deletionTimestamp"), meta.get("deletionGracePeriodSeconds")


async def test_a_scheduled_pod_gets_its_grace_period_and_stays(client: RawClient) -> None:
    stored = await created(client, pod("web"))
    reply = await client.delete(f"{PODS}/web")
    assert reply.status == 200
    answer = reply.json()
    assert answer["kind"] == "Pod" and deletion(answer) == (IN_30S, 30)
    assert int(answer["metadata"]["resourceVersion"]) > int(stored["metadata"]["resourceVersion"])
    got = await client.get(f"{PODS}/web")
    assert got.status == 200 and got.body == reply.body  # no kubelet here: it stays Terminating
    [event] = await watch_events(client, stored["metadata"]["resourceVersion"], 1)
    assert event["type"] == "MODIFIED" and deletion(event["object"]) == (IN_30S, 30)


async def test_the_grace_period_comes_from_the_query_the_body_or_the_spec(client: RawClient) -> None:
    await created(client, pod("a"))
    await created(client, pod("b"))
    await created(client, pod("c", terminationGracePeriodSeconds=120))
    await created(client, pod("d"))
    query = await client.delete(f"{PODS}/a?gracePeriodSeconds=10")
    body = await client.delete(f"{PODS}/b", {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 10})
    spec = await client.delete(f"{PODS}/c")
    negative = await client.delete(f"{PODS}/d?gracePeriodSeconds=-5")
    assert deletion(query.json()) == deletion(body.json()) == (IN_10S, 10)
    assert deletion(spec.json()) == ("2023-11-14T22:15:20Z", 120)
    assert deletion(negative.json()) == ("2023-11-14T22:13:21Z", 1)  # a negative grace is 1 s


async def test_a_second_delete_may_only_shorten_the_grace(client: RawClient) -> None:
    await created(client, pod("web"))
    first = await client.delete(f"{PODS}/web")
    longer = await client.delete(f"{PODS}/web?gracePeriodSeconds=60")
    again = await client.delete(f"{PODS}/web")
    assert longer.status == again.status == 200
    assert longer.body == again.body == first.body  # the stored object, unchanged (same resourceVersion)
    shorter = await client.delete(f"{PODS}/web?gracePeriodSeconds=10")
    assert shorter.status == 200 and deletion(shorter.json()) == (IN_10S, 10)
    assert int(shorter.json()["metadata"]["resourceVersion"]) > int(first.json()["metadata"]["resourceVersion"])


async def test_grace_zero_deletes_with_a_modified_event_then_deleted(client: RawClient) -> None:
    stored = await created(client, pod("web"))
    await client.delete(f"{PODS}/web")
    forced = await client.delete(f"{PODS}/web?gracePeriodSeconds=0")
    assert forced.status == 200
    # The deadline moves back by the whole grace: to the moment of the first DELETE.
    assert forced.json()["kind"] == "Pod" and deletion(forced.json()) == (NOW, 0)
    assert (await client.get(f"{PODS}/web")).status == 404
    events = await watch_events(client, stored["metadata"]["resourceVersion"], 3)
    assert [e["type"] for e in events] == ["MODIFIED", "MODIFIED", "DELETED"]
    assert [deletion(e["object"]) for e in events] == [(IN_30S, 30), (NOW, 0), (NOW, 0)]
    assert events[1]["object"]["metadata"]["resourceVersion"] == forced.json()["metadata"]["resourceVersion"]
    assert int(events[2]["object"]["metadata"]["resourceVersion"]) > int(forced.json()["metadata"]["resourceVersion"])


async def test_unscheduled_and_finished_pods_go_at_once(client: RawClient) -> None:
    pending = await created(client, pod("pending", node=None, terminationGracePeriodSeconds=60))
    reply = await client.delete(f"{PODS}/pending?gracePeriodSeconds=45")
    assert reply.status == 200 and deletion(reply.json()) == (NOW, 0)
    assert (await client.get(f"{PODS}/pending")).status == 404
    events = await watch_events(client, pending["metadata"]["resourceVersion"], 2)
    assert [(e["type"], deletion(e["object"])) for e in events] == [("MODIFIED", (NOW, 0)), ("DELETED", (NOW, 0))]
    done = await created(client, pod("done"))
    finished = {**done, "status": {"phase": "Succeeded"}}
    assert (await client.put(f"{PODS}/done/status", finished)).status == 200
    reply = await client.delete(f"{PODS}/done")
    assert reply.status == 200 and deletion(reply.json()) == (NOW, 0)
    assert (await client.get(f"{PODS}/done")).status == 404


async def test_a_finalizer_holds_a_pod_whose_grace_is_over(client: RawClient) -> None:
    await created(client, {**pod("held"), "metadata": {"name": "held", "finalizers": ["example.com/hold"]}})
    marked = await client.delete(f"{PODS}/held")
    assert deletion(marked.json()) == (IN_30S, 30)
    # With grace left, removing the finalizer does not delete it: the kubelet's final delete would.
    patch = {"metadata": {"finalizers": None}}
    released = await client.patch(f"{PODS}/held", patch, content_type="application/merge-patch+json")
    assert released.status == 200 and deletion(released.json()) == (IN_30S, 30)
    assert (await client.get(f"{PODS}/held")).status == 200
    await created(client, {**pod("kept"), "metadata": {"name": "kept", "finalizers": ["example.com/hold"]}})
    forced = await client.delete(f"{PODS}/kept?gracePeriodSeconds=0")
    assert forced.status == 200 and deletion(forced.json()) == (NOW, 0)
    assert (await client.get(f"{PODS}/kept")).status == 200  # grace over, the finalizer holds it
    gone = await client.patch(f"{PODS}/kept", patch, content_type="application/merge-patch+json")
    assert gone.status == 200
    assert (await client.get(f"{PODS}/kept")).status == 404


async def test_a_dry_run_delete_changes_nothing(client: RawClient) -> None:
    stored = await created(client, pod("web"))
    reply = await client.delete(f"{PODS}/web?dryRun=All")
    assert reply.status == 200 and deletion(reply.json()) == (IN_30S, 30)
    got = (await client.get(f"{PODS}/web")).json()
    assert deletion(got) == (None, None)
    assert got["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]


async def test_a_uid_precondition_that_does_not_match_is_a_conflict(client: RawClient) -> None:
    await created(client, pod("web"))
    options = {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0, "preconditions": {"uid": "x"}}
    reply = await client.delete(f"{PODS}/web", options)
    assert reply.status == 409
    assert reply.json()["reason"] == "Conflict"
    assert deletion((await client.get(f"{PODS}/web")).json()) == (None, None)
