"""kube-scheduler's node filters that DaemonSet pods rely on: required node affinity (``matchFields``
on ``metadata.name``, ``matchExpressions`` on labels) and ``NodeUnschedulable`` (docs/controllers.md)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi import FakeAPIServer, NodeSpec
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

PODS = "/api/v1/namespaces/default/pods"
NODES = [NodeSpec("a", labels={"disk": "ssd"}), NodeSpec("b"), NodeSpec("c", labels={"disk": "ssd"})]


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"nodes": NODES}


async def placements(client: RawClient) -> dict[str, str | None]:
    reply = await client.get(PODS)
    return {p["metadata"]["name"]: p["spec"].get("nodeName") for p in reply.json()["items"]}


def plain_pod(name: str, affinity: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"affinity": {"nodeAffinity": affinity}, "containers": [{"name": "main", "image": "busybox"}]},
    }


async def test_the_scheduler_honours_required_node_affinity(server: FakeAPIServer, client: RawClient) -> None:
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    by_field = {required: {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["c"]}]}]}}  # fmt: skip
    not_ssd = {"key": "disk", "operator": "DoesNotExist"}
    by_label = {required: {"nodeSelectorTerms": [{"matchExpressions": [not_ssd]}]}}
    nowhere = {required: {"nodeSelectorTerms": [{"matchExpressions": [{"key": "disk", "operator": "In", "values": ["nvme"]}]}]}}  # fmt: skip
    for name, affinity in (("field", by_field), ("label", by_label), ("nowhere", nowhere)):
        assert (await client.post(PODS, plain_pod(name, affinity))).status == 201
    server.advance(0)
    assert await placements(client) == {"field": "c", "label": "b", "nowhere": None}


async def test_only_a_pod_tolerating_unschedulable_goes_to_a_cordoned_node(
    server: FakeAPIServer, client: RawClient
) -> None:
    cordon = {"spec": {"unschedulable": True}}
    await client.patch("/api/v1/nodes/b", cordon, content_type="application/merge-patch+json")
    pinned = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["b"]}]}]}}  # fmt: skip
    tolerating = plain_pod("tolerating", pinned)
    tolerating["spec"]["tolerations"] = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]  # fmt: skip
    for body in (plain_pod("plain", pinned), tolerating):
        assert (await client.post(PODS, body)).status == 201
    server.advance(0)
    assert await placements(client) == {"plain": None, "tolerating": "b"}
