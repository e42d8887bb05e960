"""The simulated EndpointSlice and Endpoints controllers on the fake clock: a Service's pods as slices
and subsets, following their readiness (docs/controllers.md)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi import FakeAPIServer, NodeSpec, OutcomeRule
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

RULES = [
    OutcomeRule("exit 1 after 5s", image="crashing"),
    OutcomeRule("never-ready", image="shy"),
    OutcomeRule("succeed after 5s", image="brief"),
]
SERVICES = "/api/v1/namespaces/default/services"
PODS = "/api/v1/namespaces/default/pods"
SLICES = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
ENDPOINTS = "/api/v1/namespaces/default/endpoints"
NODES = [NodeSpec("node-1", labels={"topology.kubernetes.io/zone": "zone-a"}), NodeSpec("node-2")]


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"nodes": NODES, "outcomes": RULES}


def service(name: str, **spec: Any) -> dict[str, Any]:
    ports = [{"name": "http", "port": 80, "targetPort": "http"}]
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "labels": {"tier": "front"}},
        "spec": {"selector": {"app": name}, "ports": ports, **spec},
    }


def pod(name: str, app: str, image: str = "nginx", restart: str = "Always", **spec: Any) -> dict[str, Any]:
    container = {"name": "main", "image": image, "ports": [{"name": "http", "containerPort": 8080}]}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": app}},
        "spec": {"restartPolicy": restart, "containers": [container], **spec},
    }


async def slices_of(client: RawClient, name: str) -> list[dict[str, Any]]:
    items = (await client.get(f"{SLICES}?labelSelector=kubernetes.io/service-name%3D{name}")).json()["items"]
    return list(items)


async def test_a_service_gets_a_slice_and_endpoints_for_its_ready_pods(
    server: FakeAPIServer, client: RawClient
) -> None:
    created = (await client.post(SERVICES, service("web"))).json()
    await client.post(PODS, pod("web-0", "web", nodeName="node-1"))
    await client.post(PODS, pod("web-1", "web", nodeName="node-2"))
    await client.post(PODS, pod("other", "db"))
    server.advance(0)
    [slice_] = await slices_of(client, "web")
    meta = slice_["metadata"]
    assert meta["name"].startswith("web-") and len(meta["name"]) == 9
    assert meta["generateName"] == "web-"
    assert meta["labels"] == {
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
        "kubernetes.io/service-name": "web",
        "tier": "front",
    }
    assert meta["annotations"] == {"endpoints.kubernetes.io/last-change-trigger-time": "2023-11-14T22:13:20Z"}
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "v1",
            "kind": "Service",
            "name": "web",
            "uid": created["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert [m["manager"] for m in meta["managedFields"]] == ["kube-controller-manager"]
    pods = {p["metadata"]["name"]: p for p in (await client.get(PODS)).json()["items"]}
    assert slice_["addressType"] == "IPv4"
    assert slice_["ports"] == [{"name": "http", "protocol": "TCP", "port": 8080}]
    assert slice_["endpoints"] == [
        {
            "addresses": [pods["web-0"]["status"]["podIP"]],
            "conditions": {"ready": True, "serving": True, "terminating": False},
            "targetRef": {
                "kind": "Pod",
                "namespace": "default",
                "name": "web-0",
                "uid": pods["web-0"]["metadata"]["uid"],
            },
            "nodeName": "node-1",
            "zone": "zone-a",
        },
        {
            "addresses": [pods["web-1"]["status"]["podIP"]],
            "conditions": {"ready": True, "serving": True, "terminating": False},
            "targetRef": {
                "kind": "Pod",
                "namespace": "default",
                "name": "web-1",
                "uid": pods["web-1"]["metadata"]["uid"],
            },
            "nodeName": "node-2",
        },
    ]
    endpoints = (await client.get(f"{ENDPOINTS}/web")).json()
    assert endpoints["metadata"]["labels"] == {"tier": "front"}
    assert endpoints["metadata"]["annotations"] == {
        "endpoints.kubernetes.io/last-change-trigger-time": "2023-11-14T22:13:20Z"
    }
    assert "ownerReferences" not in endpoints["metadata"]
    assert [m["manager"] for m in endpoints["metadata"]["managedFields"]] == ["kube-controller-manager"]
    addresses = endpoints["subsets"][0]["addresses"]
    assert [(a["targetRef"]["name"], a["nodeName"]) for a in addresses] == [("web-0", "node-1"), ("web-1", "node-2")]
    assert endpoints["subsets"] == [
        {"addresses": addresses, "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}
    ]


async def test_a_service_without_pods_has_a_placeholder_slice(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(SERVICES, service("empty"))
    server.advance(0)
    reply = await client.get(SLICES)
    [slice_] = [s for s in reply.json()["items"] if s["metadata"]["name"].startswith("empty-")]
    assert (slice_["endpoints"], slice_["ports"]) == (None, None)
    assert b'"addressType":"IPv4","endpoints":null,"ports":null}' in reply.body
    endpoints = (await client.get(f"{ENDPOINTS}/empty")).json()
    assert "subsets" not in endpoints


async def test_a_pod_that_stops_being_ready_moves_to_not_ready(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(SERVICES, service("app"))
    await client.post(PODS, pod("app-0", "app", image="crashing"))
    server.advance(0)
    assert (await slices_of(client, "app"))[0]["endpoints"][0]["conditions"]["ready"] is True
    server.advance(10)  # exits at 22:13:25 and restarts at once, exits again at 22:13:30: back-off, not ready
    [slice_] = await slices_of(client, "app")
    assert slice_["endpoints"][0]["conditions"] == {"ready": False, "serving": False, "terminating": False}
    assert slice_["metadata"]["annotations"] == {
        "endpoints.kubernetes.io/last-change-trigger-time": "2023-11-14T22:13:30Z"
    }
    endpoints = (await client.get(f"{ENDPOINTS}/app")).json()
    [subset] = endpoints["subsets"]
    assert "addresses" not in subset
    assert [a["targetRef"]["name"] for a in subset["notReadyAddresses"]] == ["app-0"]
    assert endpoints["metadata"]["annotations"] == {
        "endpoints.kubernetes.io/last-change-trigger-time": "2023-11-14T22:13:30Z"
    }
    server.advance(10)  # restarted after the back-off: ready again
    assert (await client.get(f"{ENDPOINTS}/app")).json()["subsets"][0]["addresses"][0]["targetRef"]["name"] == "app-0"


async def test_a_finished_pod_leaves_and_takes_the_trigger_time_along(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(SERVICES, service("batch"))
    await client.post(PODS, pod("batch-0", "batch", image="brief", restart="Never"))
    await client.post(PODS, pod("batch-1", "batch"))
    server.advance(0)
    assert len((await slices_of(client, "batch"))[0]["endpoints"]) == 2
    server.advance(5)
    [slice_] = await slices_of(client, "batch")
    assert [e["targetRef"]["name"] for e in slice_["endpoints"]] == ["batch-1"]
    assert slice_["metadata"]["annotations"] == {
        "endpoints.kubernetes.io/last-change-trigger-time": "2023-11-14T22:13:25Z"
    }
    await client.delete(f"{PODS}/batch-1")
    # Its kubelet stops it at once (docs/graceful-deletion.md): Ready turns False, which the slice
    # records with that transition's time before the pod goes; the pod's going changes nothing more.
    server.advance(0)
    [emptied] = await slices_of(client, "batch")
    assert emptied["metadata"]["name"] == slice_["metadata"]["name"]
    assert emptied["endpoints"] is None
    assert emptied["metadata"]["annotations"] == {
        "endpoints.kubernetes.io/last-change-trigger-time": "2023-11-14T22:13:25Z"
    }
    server.advance(1)  # nothing changed since: the annotation stays where it is
    assert (await slices_of(client, "batch"))[0]["metadata"]["annotations"] == emptied["metadata"]["annotations"]
    assert (await client.get(f"{PODS}/batch-1")).status == 404


async def test_publish_not_ready_addresses_lists_unready_pods_as_ready(
    server: FakeAPIServer, client: RawClient
) -> None:
    await client.post(SERVICES, service("peers", publishNotReadyAddresses=True))
    await client.post(SERVICES, service("shy"))
    await client.post(PODS, pod("peer-0", "peers", image="shy"))
    await client.post(PODS, pod("shy-0", "shy", image="shy"))
    server.advance(0)
    [slice_] = await slices_of(client, "peers")
    assert slice_["endpoints"][0]["conditions"] == {"ready": True, "serving": False, "terminating": False}
    assert [
        a["targetRef"]["name"] for a in (await client.get(f"{ENDPOINTS}/peers")).json()["subsets"][0]["addresses"]
    ] == ["peer-0"]
    [slice_] = await slices_of(client, "shy")
    assert slice_["endpoints"][0]["conditions"] == {"ready": False, "serving": False, "terminating": False}
    assert "addresses" not in (await client.get(f"{ENDPOINTS}/shy")).json()["subsets"][0]


async def test_a_pod_without_the_named_port_gets_a_slice_without_ports(
    server: FakeAPIServer, client: RawClient
) -> None:
    await client.post(SERVICES, service("mixed"))
    await client.post(PODS, pod("mixed-0", "mixed"))
    bare = pod("mixed-1", "mixed")
    del bare["spec"]["containers"][0]["ports"]
    await client.post(PODS, bare)
    server.advance(0)
    slices = await slices_of(client, "mixed")
    by_ports = {repr(s["ports"]): [e["targetRef"]["name"] for e in s["endpoints"]] for s in slices}
    assert by_ports == {"[{'name': 'http', 'protocol': 'TCP', 'port': 8080}]": ["mixed-0"], "None": ["mixed-1"]}
    endpoints = (await client.get(f"{ENDPOINTS}/mixed")).json()
    assert [a["targetRef"]["name"] for a in endpoints["subsets"][0]["addresses"]] == ["mixed-0"]


async def test_a_headless_service_is_labelled_headless(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(SERVICES, service("db", clusterIP="None"))
    await client.post(PODS, pod("db-0", "db", hostname="db-0", subdomain="db"))
    server.advance(0)
    [slice_] = await slices_of(client, "db")
    assert slice_["metadata"]["labels"]["service.kubernetes.io/headless"] == ""
    assert slice_["endpoints"][0]["hostname"] == "db-0"
    endpoints = (await client.get(f"{ENDPOINTS}/db")).json()
    assert endpoints["metadata"]["labels"] == {"service.kubernetes.io/headless": "", "tier": "front"}
    assert endpoints["subsets"][0]["addresses"][0]["hostname"] == "db-0"


async def test_a_deleted_service_takes_its_slices_and_endpoints(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(SERVICES, service("gone"))
    await client.post(PODS, pod("gone-0", "gone"))
    server.advance(0)
    assert len(await slices_of(client, "gone")) == 1
    assert (await client.get(f"{ENDPOINTS}/gone")).status == 200
    await client.delete(f"{SERVICES}/gone")
    server.advance(0)
    assert await slices_of(client, "gone") == []
    assert (await client.get(f"{ENDPOINTS}/gone")).status == 404


async def test_the_apiservers_own_endpoints_are_left_alone(server: FakeAPIServer, client: RawClient) -> None:
    before_endpoints = (await client.get(f"{ENDPOINTS}/kubernetes")).json()
    before_slice = (await client.get(f"{SLICES}/kubernetes")).json()
    await client.post(SERVICES, service("web"))
    server.advance(60)
    assert (await client.get(f"{ENDPOINTS}/kubernetes")).json() == before_endpoints
    assert (await client.get(f"{SLICES}/kubernetes")).json() == before_slice
    managed = [s["metadata"]["name"] for s in (await client.get(SLICES)).json()["items"]
               if s["metadata"]["labels"].get("endpointslice.kubernetes.io/managed-by")]  # fmt: skip
    assert len(managed) == 1 and managed[0].startswith("web-")
