"""The simulated DaemonSet controller, and the scheduler's required node affinity, on the fake clock
(docs/controllers.md)."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from fakeapi import FakeAPIServer, NodeSpec
from tests.conftest import RawClient
from tests.controllers.conftest import START

pytestmark = pytest.mark.asyncio

DAEMON_SETS = "/apis/apps/v1/namespaces/default/daemonsets"
PODS = "/api/v1/namespaces/default/pods"
NODES = [NodeSpec("a", labels={"disk": "ssd"}), NodeSpec("b"), NodeSpec("c", labels={"disk": "ssd"})]
DAEMON_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"nodes": NODES}


def daemon_set(image: str = "busybox:1.36", **pod_spec: Any) -> dict[str, Any]:
    strategy = pod_spec.pop("updateStrategy", None)
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent"},
        "spec": {
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {
                "metadata": {"labels": {"app": "agent"}},
                "spec": {"containers": [{"name": "agent", "image": image}], **pod_spec},
            },
            **({"updateStrategy": strategy} if strategy else {}),
        },
    }


async def items(client: RawClient, path: str) -> list[dict[str, Any]]:
    reply = await client.get(path)
    assert reply.status == 200, reply.body
    return list(reply.json()["items"])


async def by_node(client: RawClient) -> dict[str, dict[str, Any]]:
    return {p["spec"]["nodeName"]: p for p in await items(client, PODS)}


async def ds_events(client: RawClient) -> list[tuple[str, str]]:
    events = await items(client, "/api/v1/namespaces/default/events")
    mine = sorted((e for e in events if e["involvedObject"]["kind"] == "DaemonSet"), key=lambda e: int(e["metadata"]["resourceVersion"]))  # fmt: skip
    return [(e["reason"], e["message"]) for e in mine]


async def new_image(client: RawClient, image: str) -> None:
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "agent", "image": image}]}}}}
    reply = await client.patch(f"{DAEMON_SETS}/agent", patch, content_type="application/merge-patch+json")
    assert reply.status == 200, reply.body


async def test_one_pod_per_node_pinned_by_node_affinity(server: FakeAPIServer, client: RawClient) -> None:
    created = await client.post(DAEMON_SETS, daemon_set())
    assert created.status == 201
    assert created.json()["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}
    server.advance(0)
    pods = await by_node(client)
    assert sorted(pods) == ["a", "b", "c"]
    pod = pods["b"]
    assert pod["metadata"]["name"].startswith("agent-") and pod["metadata"]["generateName"] == "agent-"
    revisions = await items(client, "/apis/apps/v1/namespaces/default/controllerrevisions")
    assert len(revisions) == 1
    revision = revisions[0]
    digest = revision["metadata"]["labels"]["controller-revision-hash"]
    assert revision["metadata"]["name"] == f"agent-{digest}" and revision["revision"] == 1
    assert revision["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}
    assert revision["data"]["spec"]["template"]["$patch"] == "replace"
    assert pod["metadata"]["labels"] == {"app": "agent", "controller-revision-hash": digest, "pod-template-generation": "1"}  # fmt: skip
    assert pod["spec"]["affinity"] == {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["b"]}]}]
            }
        }
    }
    assert pod["spec"]["tolerations"] == DAEMON_TOLERATIONS
    assert pod["status"]["phase"] == "Running"
    assert [(r["kind"], r["controller"]) for r in pod["metadata"]["ownerReferences"]] == [("DaemonSet", True)]
    names = sorted(p["metadata"]["name"] for p in pods.values())
    created_events = sorted(m for r, m in await ds_events(client) if r == "SuccessfulCreate")
    assert created_events == [f"Created pod: {name}" for name in names]
    status = (await client.get(f"{DAEMON_SETS}/agent")).json()["status"]
    assert status == {
        "currentNumberScheduled": 3,
        "numberMisscheduled": 0,
        "desiredNumberScheduled": 3,
        "numberReady": 3,
        "observedGeneration": 1,
        "updatedNumberScheduled": 3,
        "numberAvailable": 3,
    }


async def test_pods_that_never_turn_ready_count_as_unavailable(server: FakeAPIServer, client: RawClient) -> None:
    body = daemon_set()
    body["spec"]["template"]["metadata"]["annotations"] = {"fakeapi.dev/outcome": "never-ready"}
    await client.post(DAEMON_SETS, body)
    server.advance(30)
    status = (await client.get(f"{DAEMON_SETS}/agent")).json()["status"]
    assert status == {
        "currentNumberScheduled": 3,
        "numberMisscheduled": 0,
        "desiredNumberScheduled": 3,
        "numberReady": 0,
        "observedGeneration": 1,
        "updatedNumberScheduled": 3,
        "numberUnavailable": 3,
    }


async def test_a_node_that_is_not_ready_gets_no_pod() -> None:
    nodes = [NodeSpec("a"), NodeSpec("down", ready=False)]
    async with FakeAPIServer(controllers="all", nodes=nodes, clock=lambda: START, seed=7) as server:
        async with aiohttp.ClientSession() as session:
            local = RawClient(session, server.url)
            await local.post(DAEMON_SETS, daemon_set())
            server.advance(0)
            assert sorted(await by_node(local)) == ["a"]
            status = (await local.get(f"{DAEMON_SETS}/agent")).json()["status"]
            assert (status["desiredNumberScheduled"], status["numberReady"]) == (1, 1)
        assert server.errors == []


async def test_host_network_pods_also_tolerate_network_unavailable(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(DAEMON_SETS, daemon_set(hostNetwork=True))
    server.advance(0)
    pod = (await by_node(client))["a"]
    assert pod["spec"]["tolerations"][-1] == {
        "key": "node.kubernetes.io/network-unavailable",
        "operator": "Exists",
        "effect": "NoSchedule",
    }


async def test_node_selector_and_taints_choose_the_nodes(server: FakeAPIServer, client: RawClient) -> None:
    taint = {"spec": {"taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]}}
    reply = await client.patch("/api/v1/nodes/c", taint, content_type="application/merge-patch+json")
    assert reply.status == 200
    await client.post(DAEMON_SETS, daemon_set(nodeSelector={"disk": "ssd"}))
    server.advance(0)
    assert sorted(await by_node(client)) == ["a"]
    status = (await client.get(f"{DAEMON_SETS}/agent")).json()["status"]
    assert (status["desiredNumberScheduled"], status["currentNumberScheduled"]) == (1, 1)


async def test_a_no_execute_taint_removes_the_pod_and_counts_it_misscheduled_until_then(
    server: FakeAPIServer, client: RawClient
) -> None:
    await client.post(DAEMON_SETS, daemon_set())
    server.advance(0)
    gone = (await by_node(client))["c"]["metadata"]["name"]
    taint = {"spec": {"taints": [{"key": "maintenance", "effect": "NoExecute"}]}}
    await client.patch("/api/v1/nodes/c", taint, content_type="application/merge-patch+json")
    server.advance(0)
    assert sorted(await by_node(client)) == ["a", "b"]
    assert (await ds_events(client))[-1] == ("SuccessfulDelete", f"Deleted pod: {gone}")
    status = (await client.get(f"{DAEMON_SETS}/agent")).json()["status"]
    assert (status["desiredNumberScheduled"], status["numberMisscheduled"]) == (2, 0)


async def test_a_no_schedule_taint_leaves_the_pod_there_misscheduled(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(DAEMON_SETS, daemon_set())
    server.advance(0)
    taint = {"spec": {"taints": [{"key": "maintenance", "effect": "NoSchedule"}]}}
    await client.patch("/api/v1/nodes/c", taint, content_type="application/merge-patch+json")
    server.advance(0)
    assert sorted(await by_node(client)) == ["a", "b", "c"]
    status = (await client.get(f"{DAEMON_SETS}/agent")).json()["status"]
    assert (status["desiredNumberScheduled"], status["currentNumberScheduled"], status["numberMisscheduled"]) == (
        2,
        2,
        1,
    )


async def test_rolling_update_replaces_one_pod_at_a_time(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(DAEMON_SETS, daemon_set())
    server.advance(0)
    before = {node: p["metadata"]["name"] for node, p in (await by_node(client)).items()}
    await new_image(client, "busybox:1.37")
    server.advance(0)
    pods = await by_node(client)
    assert {p["spec"]["containers"][0]["image"] for p in pods.values()} == {"busybox:1.37"}
    assert {p["metadata"]["labels"]["pod-template-generation"] for p in pods.values()} == {"2"}
    rolled = [(r, m.split(": ")[1]) for r, m in await ds_events(client)][3:]
    # maxUnavailable 1: each old pod is deleted only once the previous replacement is available.
    kinds = [reason for reason, _ in rolled]
    assert kinds == ["SuccessfulDelete", "SuccessfulCreate"] * 3
    assert {name for reason, name in rolled if reason == "SuccessfulDelete"} == set(before.values())
    revisions = await items(client, "/apis/apps/v1/namespaces/default/controllerrevisions")
    assert sorted(r["revision"] for r in revisions) == [1, 2]
    status = (await client.get(f"{DAEMON_SETS}/agent")).json()["status"]
    assert (status["observedGeneration"], status["updatedNumberScheduled"], status["numberAvailable"]) == (2, 3, 3)


async def test_max_surge_starts_the_new_pod_before_deleting_the_old_one(
    server: FakeAPIServer, client: RawClient
) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}
    await client.post(DAEMON_SETS, daemon_set(updateStrategy=strategy))
    server.advance(0)
    await new_image(client, "busybox:1.37")
    server.advance(0)
    rolled = [reason for reason, _ in await ds_events(client)][3:]
    assert rolled == ["SuccessfulCreate", "SuccessfulDelete"] * 3
    pods = await by_node(client)
    assert len(pods) == 3 and {p["spec"]["containers"][0]["image"] for p in pods.values()} == {"busybox:1.37"}


async def test_on_delete_keeps_old_pods_until_they_are_deleted(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(DAEMON_SETS, daemon_set(updateStrategy={"type": "OnDelete"}))
    server.advance(0)
    await new_image(client, "busybox:1.37")
    server.advance(0)
    pods = await by_node(client)
    assert {p["spec"]["containers"][0]["image"] for p in pods.values()} == {"busybox:1.36"}
    await client.delete(f"{PODS}/{pods['a']['metadata']['name']}")
    server.advance(0)
    images = {node: p["spec"]["containers"][0]["image"] for node, p in (await by_node(client)).items()}
    assert images == {"a": "busybox:1.37", "b": "busybox:1.36", "c": "busybox:1.36"}
    status = (await client.get(f"{DAEMON_SETS}/agent")).json()["status"]
    assert status["updatedNumberScheduled"] == 1


async def test_a_succeeded_daemon_pod_is_replaced(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(DAEMON_SETS, daemon_set())
    server.advance(0)
    pod = (await by_node(client))["a"]
    name = pod["metadata"]["name"]
    done = {"status": {"phase": "Succeeded"}}
    await client.patch(f"{PODS}/{name}/status", done, content_type="application/merge-patch+json")
    server.advance(0)
    assert (await ds_events(client))[-3:-1] == [
        ("SucceededDaemonPod", f"Found succeeded daemon pod default/{name} on node a, will try to delete it"),
        ("SuccessfulDelete", f"Deleted pod: {name}"),
    ]
    assert (await by_node(client))["a"]["status"]["phase"] == "Running"
