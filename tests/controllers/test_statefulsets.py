"""The simulated StatefulSet controller on the fake clock, as a client sees it: pods and claims,
ControllerRevisions, status, Events, managedFields (docs/controllers.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakeapi import FakeAPIServer
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

SETS = "/apis/apps/v1/namespaces/default/statefulsets"
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"nodes": ["a", "b"]}


def stateful_set(replicas: int = 3, image: str = "nginx:1.27", **spec: Any) -> dict[str, Any]:
    template_meta: dict[str, Any] = {"labels": {"app": "web"}}
    if "outcome" in spec:
        template_meta["annotations"] = {"fakeapi.dev/outcome": spec.pop("outcome")}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "web"},
        "spec": {
            "serviceName": "nginx",
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": template_meta, "spec": {"containers": [{"name": "nginx", "image": image}]}},
            **spec,
        },
    }


CLAIM_TEMPLATE = {"metadata": {"name": "www"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}  # fmt: skip


async def items(client: RawClient, path: str) -> list[dict[str, Any]]:
    reply = await client.get(path)
    assert reply.status == 200, reply.body
    return list(reply.json()["items"])


async def set_events(client: RawClient) -> list[tuple[str, str]]:
    events = await items(client, "/api/v1/namespaces/default/events")
    mine = [e for e in events if e["involvedObject"]["kind"] == "StatefulSet"]
    mine.sort(key=lambda e: int(e["metadata"]["resourceVersion"]))
    return [(e["reason"], e["message"]) for e in mine]


async def pod_names(client: RawClient) -> list[str]:
    return [p["metadata"]["name"] for p in await items(client, "/api/v1/namespaces/default/pods")]


async def patch_set(client: RawClient, patch: dict[str, Any]) -> None:
    reply = await client.patch(f"{SETS}/web", patch, content_type="application/merge-patch+json")
    assert reply.status == 200, reply.body


def fnv1_32(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = (value * 0x01000193) & 0xFFFFFFFF
        value ^= byte
    return value


async def test_pods_claims_and_the_revision_carry_the_set_identity(server: FakeAPIServer, client: RawClient) -> None:
    body = stateful_set(2, volumeClaimTemplates=[CLAIM_TEMPLATE])
    assert (await client.post(SETS, body)).status == 201
    server.advance(0)
    revisions = await items(client, "/apis/apps/v1/namespaces/default/controllerrevisions")
    assert len(revisions) == 1
    revision = revisions[0]
    name = revision["metadata"]["name"]
    # The name's hash is HashControllerRevision's: FNV-1 of the data bytes and the collision count.
    raw = (await client.get(f"/apis/apps/v1/namespaces/default/controllerrevisions/{name}")).body
    data = raw[raw.index(b'"data":') + len(b'"data":') : raw.rindex(b',"revision":')]
    digest = "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in str(fnv1_32(data + b"0")))
    assert name == f"web-{digest}"
    assert data.startswith(b'{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,')
    assert revision["revision"] == 1
    assert revision["metadata"]["labels"] == {"app": "web", "controller.kubernetes.io/hash": digest}
    owner = {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "controller": True, "blockOwnerDeletion": True}  # fmt: skip
    assert [{k: v for k, v in r.items() if k != "uid"} for r in revision["metadata"]["ownerReferences"]] == [owner]

    pods = await items(client, "/api/v1/namespaces/default/pods")
    assert [p["metadata"]["name"] for p in pods] == ["web-0", "web-1"]
    pod = pods[1]
    assert pod["metadata"]["generateName"] == "web-"
    assert pod["metadata"]["labels"] == {
        "app": "web",
        "apps.kubernetes.io/pod-index": "1",
        "controller-revision-hash": name,
        "statefulset.kubernetes.io/pod-name": "web-1",
    }
    assert (pod["spec"]["hostname"], pod["spec"]["subdomain"]) == ("web-1", "nginx")
    assert pod["spec"]["volumes"][0] == {"name": "www", "persistentVolumeClaim": {"claimName": "www-web-1"}}
    assert pod["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet"
    assert pod["status"]["phase"] == "Running"
    managers = {(m["manager"], m.get("subresource")) for m in pod["metadata"]["managedFields"]}
    assert ("kube-controller-manager", None) in managers

    claims = await items(client, "/api/v1/namespaces/default/persistentvolumeclaims")
    assert [(c["metadata"]["name"], c["metadata"]["labels"]) for c in claims] == [
        ("www-web-0", {"app": "web"}),
        ("www-web-1", {"app": "web"}),
    ]
    assert "ownerReferences" not in claims[0]["metadata"]  # the default retention policy is Retain

    assert await set_events(client) == [
        ("SuccessfulCreate", "create Claim www-web-0 Pod web-0 in StatefulSet web success"),
        ("SuccessfulCreate", "create Pod web-0 in StatefulSet web successful"),
        ("SuccessfulCreate", "create Claim www-web-1 Pod web-1 in StatefulSet web success"),
        ("SuccessfulCreate", "create Pod web-1 in StatefulSet web successful"),
    ]
    events = await items(client, "/api/v1/namespaces/default/events")
    created = next(e for e in events if e["involvedObject"]["kind"] == "StatefulSet")
    assert created["source"] == {"component": "statefulset-controller"}

    status = (await client.get(f"{SETS}/web")).json()["status"]
    assert status == {
        "observedGeneration": 1,
        "replicas": 2,
        "readyReplicas": 2,
        "currentReplicas": 2,
        "updatedReplicas": 2,
        "currentRevision": name,
        "updateRevision": name,
        "collisionCount": 0,
        "availableReplicas": 2,
    }


async def test_the_revision_name_is_the_one_a_real_controller_gives_that_template(
    server: FakeAPIServer, client: RawClient
) -> None:
    # A ControllerRevision a cluster showed in openkruise/kruise#125 (same history package):
    # this template, once defaulted, was saved as sample-55d9756b4.
    body = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "sample"},
        "spec": {
            "replicas": 1,
            "serviceName": "sample",
            "selector": {"matchLabels": {"app": "sample"}},
            "template": {
                "metadata": {"labels": {"app": "sample"}},
                "spec": {
                    "readinessGates": [{"conditionType": "InPlaceUpdateReady"}],
                    "containers": [{"name": "main", "image": "nginx:latest"}],
                },
            },
        },
    }
    assert (await client.post(SETS, body)).status == 201
    server.advance(0)
    revisions = await items(client, "/apis/apps/v1/namespaces/default/controllerrevisions")
    assert [r["metadata"]["name"] for r in revisions] == ["sample-55d9756b4"]
    pod = (await client.get("/api/v1/namespaces/default/pods/sample-0")).json()
    assert pod["metadata"]["labels"]["controller-revision-hash"] == "sample-55d9756b4"


async def test_ordered_ready_waits_for_each_pod_to_be_running_and_ready(
    server: FakeAPIServer, client: RawClient
) -> None:
    await client.post(SETS, stateful_set(3, outcome="never-ready"))
    server.advance(30)
    assert await pod_names(client) == ["web-0"]
    status = (await client.get(f"{SETS}/web")).json()["status"]
    assert (status["replicas"], status.get("readyReplicas", 0), status["availableReplicas"]) == (1, 0, 0)


async def test_ordered_ready_creates_the_next_pod_only_after_the_previous_one_is_ready(
    server: FakeAPIServer, client: RawClient
) -> None:
    await client.post(SETS, stateful_set(2))
    server.advance(0)
    pods = {p["metadata"]["name"]: p for p in await items(client, "/api/v1/namespaces/default/pods")}
    events = await items(client, "/api/v1/namespaces/default/events")
    started = next(
        e for e in events if e["involvedObject"]["name"] == "web-0" and e["reason"] == "Started"
    )  # the kubelet's write that made web-0 Running and Ready comes just before this Event
    second = pods["web-1"]["metadata"]
    assert int(second["resourceVersion"]) > int(started["metadata"]["resourceVersion"])
    assert second["creationTimestamp"] == "2023-11-14T22:13:20Z"


async def test_parallel_creates_every_pod_at_once(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(SETS, stateful_set(3, outcome="never-ready", podManagementPolicy="Parallel"))
    server.advance(0)
    assert await pod_names(client) == ["web-0", "web-1", "web-2"]


async def test_ordinals_start_numbers_the_pods(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(SETS, stateful_set(2, ordinals={"start": 5}))
    server.advance(0)
    assert await pod_names(client) == ["web-5", "web-6"]
    pods = await items(client, "/api/v1/namespaces/default/pods")
    assert pods[0]["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == "5"


async def test_scaling_down_deletes_from_the_highest_ordinal_and_keeps_the_claims(
    server: FakeAPIServer, client: RawClient
) -> None:
    await client.post(SETS, stateful_set(3, volumeClaimTemplates=[CLAIM_TEMPLATE]))
    server.advance(0)
    await patch_set(client, {"spec": {"replicas": 1}})
    server.advance(0)
    assert await pod_names(client) == ["web-0"]
    assert (await set_events(client))[-2:] == [
        ("SuccessfulDelete", "delete Pod web-2 in StatefulSet web successful"),
        ("SuccessfulDelete", "delete Pod web-1 in StatefulSet web successful"),
    ]
    claims = await items(client, "/api/v1/namespaces/default/persistentvolumeclaims")
    assert len(claims) == 3
    status = (await client.get(f"{SETS}/web")).json()["status"]
    assert (status["observedGeneration"], status["replicas"], status["readyReplicas"]) == (2, 1, 1)


async def test_rolling_update_replaces_pods_in_reverse_ordinal_order(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(SETS, stateful_set(3))
    server.advance(0)
    old = (await client.get(f"{SETS}/web")).json()["status"]["currentRevision"]
    await patch_set(client, {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.28"}]}}}})  # fmt: skip
    server.advance(0)
    deletions = [m for r, m in await set_events(client) if r == "SuccessfulDelete"]
    assert deletions == [f"delete Pod web-{n} in StatefulSet web successful" for n in (2, 1, 0)]
    revisions = await items(client, "/apis/apps/v1/namespaces/default/controllerrevisions")
    numbered = {r["metadata"]["name"]: r["revision"] for r in revisions}
    new = next(name for name in numbered if name != old)
    assert numbered == {old: 1, new: 2}
    pods = await items(client, "/api/v1/namespaces/default/pods")
    assert {p["metadata"]["labels"]["controller-revision-hash"] for p in pods} == {new}
    assert {p["spec"]["containers"][0]["image"] for p in pods} == {"nginx:1.28"}
    status = (await client.get(f"{SETS}/web")).json()["status"]
    assert (status["currentRevision"], status["updateRevision"], status["updatedReplicas"]) == (new, new, 3)


async def test_going_back_to_a_template_renumbers_its_revision(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(SETS, stateful_set(2))
    server.advance(0)
    first = (await client.get(f"{SETS}/web")).json()["status"]["currentRevision"]
    for image in ("nginx:1.28", "nginx:1.27"):
        await patch_set(client, {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": image}]}}}})
        server.advance(0)
    revisions = await items(client, "/apis/apps/v1/namespaces/default/controllerrevisions")
    numbered = sorted((r["revision"], r["metadata"]["name"]) for r in revisions)
    assert [n for n, _ in numbered] == [2, 3] and numbered[1][1] == first
    status = (await client.get(f"{SETS}/web")).json()["status"]
    assert status["currentRevision"] == status["updateRevision"] == first


async def test_min_ready_seconds_delays_availability_and_the_next_pod(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(SETS, stateful_set(2, minReadySeconds=10))
    server.advance(0)
    assert await pod_names(client) == ["web-0"]
    status = (await client.get(f"{SETS}/web")).json()["status"]
    assert (status["readyReplicas"], status["availableReplicas"]) == (1, 0)
    server.advance(10)
    pods = await items(client, "/api/v1/namespaces/default/pods")
    assert [(p["metadata"]["name"], p["metadata"]["creationTimestamp"]) for p in pods] == [
        ("web-0", "2023-11-14T22:13:20Z"),
        ("web-1", "2023-11-14T22:13:30Z"),
    ]
    status = (await client.get(f"{SETS}/web")).json()["status"]
    assert (status["readyReplicas"], status["availableReplicas"]) == (2, 1)
    server.advance(10)
    assert (await client.get(f"{SETS}/web")).json()["status"]["availableReplicas"] == 2


async def test_a_partition_keeps_the_lower_ordinals_at_the_current_revision(
    server: FakeAPIServer, client: RawClient
) -> None:
    await client.post(SETS, stateful_set(3))
    server.advance(0)
    old = (await client.get(f"{SETS}/web")).json()["status"]["currentRevision"]
    patch = {
        "spec": {
            "updateStrategy": {"rollingUpdate": {"partition": 2}},
            "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.28"}]}},
        }
    }
    await patch_set(client, patch)
    server.advance(0)
    pods = await items(client, "/api/v1/namespaces/default/pods")
    images = {p["metadata"]["name"]: p["spec"]["containers"][0]["image"] for p in pods}
    assert images == {"web-0": "nginx:1.27", "web-1": "nginx:1.27", "web-2": "nginx:1.28"}
    status = (await client.get(f"{SETS}/web")).json()["status"]
    assert status["currentRevision"] == old and status["updateRevision"] != old
    assert (status["currentReplicas"], status["updatedReplicas"]) == (2, 1)


async def test_on_delete_waits_for_the_pod_to_be_deleted(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(SETS, stateful_set(2, updateStrategy={"type": "OnDelete"}))
    server.advance(0)
    await patch_set(client, {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.28"}]}}}})  # fmt: skip
    server.advance(0)
    pods = await items(client, "/api/v1/namespaces/default/pods")
    assert {p["spec"]["containers"][0]["image"] for p in pods} == {"nginx:1.27"}
    assert (await client.delete("/api/v1/namespaces/default/pods/web-1")).status == 200
    server.advance(0)
    pods = await items(client, "/api/v1/namespaces/default/pods")
    images = {p["metadata"]["name"]: p["spec"]["containers"][0]["image"] for p in pods}
    assert images == {"web-0": "nginx:1.27", "web-1": "nginx:1.28"}
    status = (await client.get(f"{SETS}/web")).json()["status"]
    assert (status["currentReplicas"], status["updatedReplicas"]) == (1, 1)


async def test_a_failed_pod_is_deleted_and_created_again(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(SETS, stateful_set(1))
    server.advance(0)
    first = (await client.get("/api/v1/namespaces/default/pods/web-0")).json()["metadata"]["uid"]
    failed = {"status": {"phase": "Failed"}}  # as an eviction leaves it
    reply = await client.patch(
        "/api/v1/namespaces/default/pods/web-0/status", failed, content_type="application/merge-patch+json"
    )
    assert reply.status == 200, reply.body
    server.advance(0)
    events = await set_events(client)
    assert events[-2:] == [
        ("SuccessfulDelete", "delete Pod web-0 in StatefulSet web successful"),
        ("SuccessfulCreate", "create Pod web-0 in StatefulSet web successful"),
    ]
    again = (await client.get("/api/v1/namespaces/default/pods/web-0")).json()
    assert again["metadata"]["uid"] != first and again["status"]["phase"] == "Running"


async def test_the_retention_policy_makes_the_set_and_the_pod_own_the_claims(
    server: FakeAPIServer, client: RawClient
) -> None:
    policy = {"whenDeleted": "Delete", "whenScaled": "Delete"}
    body = stateful_set(2, volumeClaimTemplates=[CLAIM_TEMPLATE], persistentVolumeClaimRetentionPolicy=policy)
    await client.post(SETS, body)
    server.advance(0)
    claim = (await client.get("/api/v1/namespaces/default/persistentvolumeclaims/www-web-1")).json()
    refs = claim["metadata"]["ownerReferences"]
    assert [(r["kind"], r["name"], r["controller"], r["blockOwnerDeletion"]) for r in refs] == [
        ("StatefulSet", "web", True, True)
    ]
    await patch_set(client, {"spec": {"replicas": 1}})
    server.advance(0)
    claims = await items(client, "/api/v1/namespaces/default/persistentvolumeclaims")
    assert [c["metadata"]["name"] for c in claims] == ["www-web-0"]


async def test_the_status_is_written_once_per_change(server: FakeAPIServer, client: RawClient) -> None:
    created = await client.post(SETS, stateful_set(1))
    since = created.json()["metadata"]["resourceVersion"]
    server.advance(0)
    server.advance(10)
    url = f"{client.base}{SETS}?watch=1&resourceVersion={since}"
    events: list[dict[str, Any]] = []
    current = (await client.get(f"{SETS}/web")).json()["metadata"]["resourceVersion"]
    async with client.session.get(url) as response:
        while not events or events[-1]["object"]["metadata"]["resourceVersion"] != current:
            events.append(json.loads(await response.content.readline()))
    statuses = [e["object"]["status"] for e in events]
    # Created (not yet counted: the controller has not seen it), Pending, Running and Ready; no write
    # while nothing changed (inconsistentStatus).
    assert [(s["replicas"], s.get("readyReplicas", 0)) for s in statuses] == [(0, 0), (1, 0), (1, 1)]
    managers = {(m["manager"], m.get("subresource")) for m in events[-1]["object"]["metadata"]["managedFields"]}
    assert ("kube-controller-manager", "status") in managers
