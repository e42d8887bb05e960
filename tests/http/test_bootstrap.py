"""What a new cluster holds before the first request (docs/bootstrap.md), read over HTTP."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

SYSTEM_NAMESPACES = ["default", "kube-node-lease", "kube-public", "kube-system"]
ROOT_CA_DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as "
    "the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of "
    "Kubernetes clusters."
)


def names(listed: dict[str, Any]) -> list[str]:
    return [item["metadata"]["name"] for item in listed["items"]]


def managers(obj: dict[str, Any]) -> list[tuple[str, str]]:
    return [(entry["manager"], entry["operation"]) for entry in obj["metadata"].get("managedFields", [])]


async def test_the_system_namespaces_are_there_written_by_the_apiserver(client: RawClient) -> None:
    listed = (await client.get("/api/v1/namespaces")).json()
    assert names(listed) == SYSTEM_NAMESPACES
    for namespace in listed["items"]:
        assert namespace["status"] == {"phase": "Active"}
        assert namespace["metadata"]["labels"] == {"kubernetes.io/metadata.name": namespace["metadata"]["name"]}
        assert managers(namespace) == [("kube-apiserver", "Update")]


async def test_the_system_priority_classes(client: RawClient) -> None:
    listed = (await client.get("/apis/scheduling.k8s.io/v1/priorityclasses")).json()
    found = {
        item["metadata"]["name"]: (item["value"], item["description"], item["preemptionPolicy"])
        for item in listed["items"]
    }
    assert found == {
        "system-cluster-critical": (
            2000000000,
            "Used for system critical pods that must run in the cluster, but can be moved to another node if "
            "necessary.",
            "PreemptLowerPriority",
        ),
        "system-node-critical": (
            2000001000,
            "Used for system critical pods that must not be moved from their current node.",
            "PreemptLowerPriority",
        ),
    }
    assert {tuple(managers(item)) for item in listed["items"]} == {(("kube-apiserver", "Update"),)}


async def test_the_kubernetes_service_and_its_endpoints_point_at_the_server(
    server: FakeAPIServer, client: RawClient
) -> None:
    service = (await client.get("/api/v1/namespaces/default/services/kubernetes")).json()
    assert service["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}
    assert managers(service) == [("kube-apiserver", "Update")]
    spec = service["spec"]
    assert (spec["clusterIP"], spec["clusterIPs"], spec["type"], spec["sessionAffinity"]) == (
        "10.96.0.1",
        ["10.96.0.1"],
        "ClusterIP",
        "None",
    )
    assert (spec["ipFamilies"], spec["ipFamilyPolicy"]) == (["IPv4"], "SingleStack")
    assert "selector" not in spec
    assert spec["ports"] == [{"name": "https", "protocol": "TCP", "port": 443, "targetPort": server.port}]

    endpoints = (await client.get("/api/v1/namespaces/default/endpoints/kubernetes")).json()
    assert endpoints["metadata"]["labels"] == {"endpointslice.kubernetes.io/skip-mirror": "true"}
    assert endpoints["subsets"] == [
        {"addresses": [{"ip": "127.0.0.1"}], "ports": [{"name": "https", "port": server.port, "protocol": "TCP"}]}
    ]
    assert managers(endpoints) == [("kube-apiserver", "Update")]

    slice_ = (await client.get("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes")).json()
    assert slice_["metadata"]["labels"] == {"kubernetes.io/service-name": "kubernetes"}
    assert slice_["addressType"] == "IPv4"
    assert slice_["endpoints"] == [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}]
    assert slice_["ports"] == [{"name": "https", "port": server.port, "protocol": "TCP"}]
    assert managers(slice_) == [("kube-apiserver", "Update")]


async def test_every_system_namespace_has_its_service_account_and_root_ca(client: RawClient) -> None:
    accounts = (await client.get("/api/v1/serviceaccounts")).json()
    assert [(a["metadata"]["namespace"], a["metadata"]["name"]) for a in accounts["items"]] == [
        (namespace, "default") for namespace in SYSTEM_NAMESPACES
    ]
    # Nothing but its name: the controller's write owns no field, so no managedFields entry is kept.
    assert {tuple(sorted(a)) for a in accounts["items"]} == {("metadata",)}
    assert all("managedFields" not in a["metadata"] for a in accounts["items"])
    configmaps = (await client.get("/api/v1/configmaps")).json()
    assert [(c["metadata"]["namespace"], c["metadata"]["name"]) for c in configmaps["items"]] == [
        (namespace, "kube-root-ca.crt") for namespace in SYSTEM_NAMESPACES
    ]
    for configmap in configmaps["items"]:
        assert configmap["metadata"]["annotations"] == {"kubernetes.io/description": ROOT_CA_DESCRIPTION}
        assert configmap["data"]["ca.crt"].startswith("-----BEGIN CERTIFICATE-----\n")
        assert managers(configmap) == [("kube-controller-manager", "Update")]


async def test_the_root_ca_is_the_ca_the_server_serves_https_with() -> None:
    async with FakeAPIServer(tls=True) as server:
        assert server.ca_certificate is not None
        connector = aiohttp.TCPConnector(ssl=False)
        async with aiohttp.ClientSession(connector=connector) as session:
            url = f"{server.url}/api/v1/namespaces/kube-system/configmaps/kube-root-ca.crt"
            async with session.get(url) as response:
                configmap = await response.json()
        assert configmap["data"] == {"ca.crt": server.ca_certificate.decode()}


async def test_a_new_namespace_has_both_when_its_create_returns(client: RawClient) -> None:
    created = await client.post(
        "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}
    )
    assert created.status == 201
    revision = int(created.json()["metadata"]["resourceVersion"])
    account = (await client.get("/api/v1/namespaces/team/serviceaccounts/default")).json()
    configmap = (await client.get("/api/v1/namespaces/team/configmaps/kube-root-ca.crt")).json()
    assert int(account["metadata"]["resourceVersion"]) == revision + 1
    assert int(configmap["metadata"]["resourceVersion"]) == revision + 2
    assert configmap["metadata"]["annotations"] == {"kubernetes.io/description": ROOT_CA_DESCRIPTION}


async def test_a_deleted_service_account_or_root_ca_comes_back(client: RawClient) -> None:
    account_path = "/api/v1/namespaces/default/serviceaccounts/default"
    configmap_path = "/api/v1/namespaces/default/configmaps/kube-root-ca.crt"
    before = {path: (await client.get(path)).json()["metadata"]["uid"] for path in (account_path, configmap_path)}
    for path in (account_path, configmap_path):
        assert (await client.delete(path)).status == 200
        again = await client.get(path)
        assert again.status == 200
        assert again.json()["metadata"]["uid"] != before[path]


async def test_a_changed_root_ca_is_set_back_and_other_content_is_kept(client: RawClient) -> None:
    path = "/api/v1/namespaces/default/configmaps/kube-root-ca.crt"
    original = (await client.get(path)).json()
    patch = {"metadata": {"annotations": {"kubernetes.io/description": "mine", "team": "a"}}, "data": {"extra": "x"}}
    reply = await client.patch(path, patch, content_type="application/merge-patch+json")
    assert reply.status == 200
    assert reply.json()["data"]["extra"] == "x", "the client's write answers with what it wrote"
    current = (await client.get(path)).json()
    assert current["data"] == original["data"]
    # The publisher adds its annotation only where it is missing.
    assert current["metadata"]["annotations"] == {"kubernetes.io/description": "mine", "team": "a"}
    removed = {"metadata": {"annotations": {"kubernetes.io/description": None}}}
    assert (await client.patch(path, removed, content_type="application/merge-patch+json")).status == 200
    current = (await client.get(path)).json()
    assert current["metadata"]["annotations"] == {"kubernetes.io/description": ROOT_CA_DESCRIPTION, "team": "a"}


async def test_an_unchanged_root_ca_is_not_written_again(client: RawClient) -> None:
    path = "/api/v1/namespaces/default/configmaps/kube-root-ca.crt"
    labelled = {"metadata": {"labels": {"team": "a"}}}
    reply = await client.patch(path, labelled, content_type="application/merge-patch+json")
    assert reply.status == 200
    current = (await client.get(path)).json()
    assert current["metadata"]["resourceVersion"] == reply.json()["metadata"]["resourceVersion"]


async def test_other_service_accounts_and_configmaps_stay_deleted(client: RawClient) -> None:
    body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "mine"}}
    assert (await client.post("/api/v1/namespaces/default/serviceaccounts", body)).status == 201
    assert (await client.delete("/api/v1/namespaces/default/serviceaccounts/mine")).status == 200
    assert (await client.get("/api/v1/namespaces/default/serviceaccounts/mine")).status == 404


async def test_a_terminating_namespace_gets_nothing_back(client: RawClient) -> None:
    body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "going", "finalizers": ["example.com/hold"]}}
    assert (await client.post("/api/v1/namespaces", body)).status == 201
    assert (await client.delete("/api/v1/namespaces/going")).status == 200
    # The namespace controller removed its content; the namespace stays, held by its finalizer.
    assert (await client.get("/api/v1/namespaces/going")).json()["status"]["phase"] == "Terminating"
    assert (await client.get("/api/v1/namespaces/going/serviceaccounts/default")).status == 404
    assert (await client.get("/api/v1/namespaces/going/configmaps/kube-root-ca.crt")).status == 404


async def test_without_the_namespace_controllers_namespaces_stay_empty() -> None:
    async with FakeAPIServer(namespace_controllers=False) as server, aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        assert names((await client.get("/api/v1/namespaces")).json()) == SYSTEM_NAMESPACES
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}
        assert (await client.post("/api/v1/namespaces", body)).status == 201
        assert (await client.get("/api/v1/serviceaccounts")).json()["items"] == []
        assert (await client.get("/api/v1/configmaps")).json()["items"] == []


async def test_reset_brings_back_a_new_cluster(server: FakeAPIServer, client: RawClient) -> None:
    before = (await client.get("/api/v1/namespaces/default/services/kubernetes")).json()
    assert (await client.delete("/api/v1/namespaces/default/services/kubernetes")).status == 200
    assert (await client.delete("/api/v1/namespaces/default/configmaps/kube-root-ca.crt")).status == 200
    server.reset()
    after = (await client.get("/api/v1/namespaces/default/services/kubernetes")).json()
    assert after["spec"] == before["spec"]
    assert (await client.get("/api/v1/namespaces/default/configmaps/kube-root-ca.crt")).status == 200
