"""The simulated kubelet ends a deleted pod's grace period, and the Job controller lets the pods of a
deleted Job go, on the fake clock (docs/graceful-deletion.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakeapi import FakeAPIServer, OutcomeRule
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

NOW = "2023-11-14T22:13:20Z"
PODS = "/api/v1/namespaces/default/pods"
JOBS = "/apis/batch/v1/namespaces/default/jobs"
RULES = [
    OutcomeRule("run ignores-sigterm", image="stubborn"),
    OutcomeRule("run on-sigterm exit 143 after 3s", image="slow"),
    OutcomeRule("succeed after 5s", image="brief"),
    OutcomeRule("image-pull-failure", image="missing"),
]


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"outcomes": RULES, "seed": 3}


def pod(name: str, image: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "main", "image": image}], **spec},
    }


async def running(server: FakeAPIServer, client: RawClient, body: dict[str, Any]) -> dict[str, Any]:
    assert (await client.post(PODS, body)).status == 201
    server.advance(0)
    stored: dict[str, Any] = (await client.get(f"{PODS}/{body['metadata']['name']}")).json()
    assert stored["status"]["phase"] == "Running"
    return stored


async def watch_events(client: RawClient, path: str, since: str, count: int) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    async with client.session.get(f"{client.base}{path}?watch=1&resourceVersion={since}&timeoutSeconds=5") as response:
        while len(events) < count:
            events.append(json.loads(await response.content.readline()))
    return events


def deletion(obj: dict[str, Any]) -> tuple[Any, Any]:
    return obj["metadata"].get("deletionTimestamp"), obj["metadata"].get("deletionGracePeriodSeconds")


async def test_the_kubelet_stops_the_containers_writes_the_status_then_deletes(
    server: FakeAPIServer, client: RawClient
) -> None:
    stored = await running(server, client, pod("web", "nginx"))
    reply = await client.delete(f"{PODS}/web")
    assert reply.status == 200 and deletion(reply.json()) == ("2023-11-14T22:13:50Z", 30)
    assert (await client.get(f"{PODS}/web")).status == 200  # nothing runs between advances
    server.advance(0)  # the container exits 0 on SIGTERM at once: status, then the final delete
    assert (await client.get(f"{PODS}/web")).status == 404
    events = await watch_events(client, PODS, stored["metadata"]["resourceVersion"], 4)
    assert [e["type"] for e in events] == ["MODIFIED", "MODIFIED", "MODIFIED", "DELETED"]
    marked, stopped, graceless, deleted = (e["object"] for e in events)
    assert deletion(marked) == deletion(stopped) == ("2023-11-14T22:13:50Z", 30)
    assert stopped["metadata"]["managedFields"][-1]["manager"] == "kubelet"
    status = stopped["status"]
    assert status["phase"] == "Succeeded"
    [container] = status["containerStatuses"]
    assert container["state"] == {
        "terminated": {
            "exitCode": 0,
            "reason": "Completed",
            "startedAt": NOW,
            "finishedAt": NOW,
            "containerID": container["containerID"],
        }
    }
    assert (container["ready"], container["started"]) == (False, False)
    conditions = {c["type"]: c for c in status["conditions"]}
    assert conditions["Ready"]["status"] == "False" and conditions["Ready"]["reason"] == "PodCompleted"
    assert conditions["PodReadyToStartContainers"]["status"] == "False"
    assert deletion(graceless) == deletion(deleted) == (NOW, 0)  # the kubelet's gracePeriodSeconds=0
    assert deleted["status"] == stopped["status"]
    killing = [
        e for e in (await client.get("/api/v1/namespaces/default/events")).json()["items"] if e["reason"] == "Killing"
    ]
    assert [(e["type"], e["message"], e["source"]) for e in killing] == [
        ("Normal", "Stopping container main", {"component": "kubelet", "host": "node-1"})
    ]
    assert killing[0]["involvedObject"]["fieldPath"] == "spec.containers{main}"


async def test_a_container_that_ignores_sigterm_is_killed_when_the_grace_ends(
    server: FakeAPIServer, client: RawClient
) -> None:
    await running(server, client, pod("web", "stubborn"))
    await client.delete(f"{PODS}/web?gracePeriodSeconds=20")
    server.advance(19)
    still = (await client.get(f"{PODS}/web")).json()
    assert still["status"]["phase"] == "Running" and deletion(still) == ("2023-11-14T22:13:40Z", 20)
    server.advance(1)
    assert (await client.get(f"{PODS}/web")).status == 404


async def test_a_shorter_grace_brings_the_kill_forward(server: FakeAPIServer, client: RawClient) -> None:
    stored = await running(server, client, pod("web", "stubborn"))
    await client.delete(f"{PODS}/web")
    server.advance(5)
    shortened = await client.delete(f"{PODS}/web?gracePeriodSeconds=8")
    assert deletion(shortened.json()) == ("2023-11-14T22:13:28Z", 8)
    server.advance(2)  # 22:13:27: one second of grace left
    assert (await client.get(f"{PODS}/web")).status == 200
    server.advance(1)
    assert (await client.get(f"{PODS}/web")).status == 404
    events = await watch_events(client, PODS, stored["metadata"]["resourceVersion"], 5)
    stopped = events[2]["object"]["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (stopped["exitCode"], stopped["reason"], stopped["finishedAt"]) == (137, "Error", "2023-11-14T22:13:28Z")
    assert events[2]["object"]["status"]["phase"] == "Failed"


async def test_a_container_exits_with_its_own_code_after_sigterm(server: FakeAPIServer, client: RawClient) -> None:
    await running(server, client, pod("web", "slow"))
    reply = await client.delete(f"{PODS}/web")
    server.advance(2)
    assert (await client.get(f"{PODS}/web")).status == 200
    server.advance(1)
    assert (await client.get(f"{PODS}/web")).status == 404
    since = reply.json()["metadata"]["resourceVersion"]
    [stopped] = [e["object"] for e in await watch_events(client, PODS, since, 1)]
    terminated = stopped["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"], terminated["finishedAt"]) == (
        143,
        "Error",
        "2023-11-14T22:13:23Z",
    )


async def test_a_container_that_never_ran_is_reported_unknown_and_the_pod_failed(
    server: FakeAPIServer, client: RawClient
) -> None:
    assert (await client.post(PODS, pod("web", "missing"))).status == 201
    server.advance(0)
    waiting = (await client.get(f"{PODS}/web")).json()
    assert waiting["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] == "ErrImagePull"
    reply = await client.delete(f"{PODS}/web")
    server.advance(0)
    assert (await client.get(f"{PODS}/web")).status == 404
    since = reply.json()["metadata"]["resourceVersion"]
    [stopped] = [e["object"] for e in await watch_events(client, PODS, since, 1)]
    assert stopped["status"]["phase"] == "Failed"
    assert stopped["status"]["containerStatuses"][0]["state"] == {
        "terminated": {
            "exitCode": 137,
            "reason": "ContainerStatusUnknown",
            "message": "The container could not be located when the pod was terminated",
            "startedAt": None,  # Go's zero metav1.Time, as a cluster shows it
            "finishedAt": None,
        }
    }


async def test_a_pod_on_a_node_without_a_simulated_kubelet_stays_terminating(
    server: FakeAPIServer, client: RawClient
) -> None:
    assert (await client.post(PODS, pod("away", "nginx", nodeName="elsewhere"))).status == 201
    await client.delete(f"{PODS}/away")
    server.advance(60)
    assert deletion((await client.get(f"{PODS}/away")).json()) == ("2023-11-14T22:13:50Z", 30)


def job(name: str, image: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": image}]}}},
    }


async def job_pods(client: RawClient, name: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = (await client.get(f"{PODS}?labelSelector=job-name%3D{name}")).json()["items"]
    return items


async def test_the_pods_of_a_deleted_job_lose_their_finalizer_and_go(server: FakeAPIServer, client: RawClient) -> None:
    assert (await client.post(JOBS, job("r1", "stubborn"))).status == 201
    server.advance(0)
    [started] = await job_pods(client, "r1")
    assert started["status"]["phase"] == "Running"
    assert started["metadata"]["finalizers"] == ["batch.kubernetes.io/job-tracking"]
    reply = await client.delete(f"{JOBS}/r1?propagationPolicy=Background")
    assert reply.status == 200
    [terminating] = await job_pods(client, "r1")  # the garbage collector deleted it inside the DELETE
    assert deletion(terminating) == ("2023-11-14T22:13:50Z", 30)
    server.advance(0)
    [released] = await job_pods(client, "r1")
    assert "finalizers" not in released["metadata"]
    server.advance(30)  # its kubelet kills it when the grace ends, and nothing holds it any more
    assert await job_pods(client, "r1") == []


async def test_a_job_deleted_in_the_foreground_releases_its_pods_and_goes_after_them(
    server: FakeAPIServer, client: RawClient
) -> None:
    assert (await client.post(JOBS, job("r2", "nginx"))).status == 201
    server.advance(0)
    reply = await client.delete(f"{JOBS}/r2?propagationPolicy=Foreground")
    assert reply.status == 200 and reply.json()["metadata"]["finalizers"] == ["foregroundDeletion"]
    server.advance(0)
    assert await job_pods(client, "r2") == []
    assert (await client.get(f"{JOBS}/r2")).status == 404


async def test_orphaned_pods_keep_no_tracking_finalizer_but_pods_of_others_do(
    server: FakeAPIServer, client: RawClient
) -> None:
    assert (await client.post(JOBS, job("r3", "nginx"))).status == 201
    server.advance(0)
    foreign = pod("foreign", "nginx")
    foreign["metadata"]["finalizers"] = ["batch.kubernetes.io/job-tracking"]
    foreign["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u-1", "controller": True}
    ]
    assert (await client.post(PODS, foreign)).status == 201
    reply = await client.delete(f"{JOBS}/r3?propagationPolicy=Orphan")
    assert reply.status == 200
    server.advance(0)
    [orphan] = await job_pods(client, "r3")
    assert "ownerReferences" not in orphan["metadata"] and "finalizers" not in orphan["metadata"]
    assert orphan["status"]["phase"] == "Running"  # orphaned, not deleted
    kept = (await client.get(f"{PODS}/foreign")).json()
    assert kept["metadata"]["finalizers"] == ["batch.kubernetes.io/job-tracking"]
