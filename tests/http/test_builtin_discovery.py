"""Discovery of the built-in kinds: each resource and its subresources as a 1.32 kube-apiserver lists them."""

from __future__ import annotations

import pytest

from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio


async def test_subresources_follow_their_resource_sorted_by_name(client: RawClient) -> None:
    reply = await client.get("/apis/apps/v1")
    assert reply.status == 200
    entries = [entry for entry in reply.json()["resources"] if entry["name"].startswith("deployments")]
    assert entries[1:] == [
        {
            "name": "deployments/scale",
            "singularName": "",
            "namespaced": True,
            "group": "autoscaling",
            "version": "v1",
            "kind": "Scale",
            "verbs": ["get", "patch", "update"],
        },
        {
            "name": "deployments/status",
            "singularName": "",
            "namespaced": True,
            "kind": "Deployment",
            "verbs": ["get", "patch", "update"],
        },
    ]


async def test_apis_lists_the_groups_in_the_apiservers_order(client: RawClient) -> None:
    reply = await client.get("/apis")
    assert reply.status == 200
    assert [(group["name"], [v["version"] for v in group["versions"]]) for group in reply.json()["groups"]] == [
        ("apiregistration.k8s.io", ["v1"]),
        ("apps", ["v1"]),
        ("events.k8s.io", ["v1"]),
        ("authentication.k8s.io", ["v1"]),
        ("authorization.k8s.io", ["v1"]),
        ("autoscaling", ["v2", "v1"]),
        ("batch", ["v1"]),
        ("certificates.k8s.io", ["v1"]),
        ("networking.k8s.io", ["v1"]),
        ("policy", ["v1"]),
        ("rbac.authorization.k8s.io", ["v1"]),
        ("storage.k8s.io", ["v1"]),
        ("admissionregistration.k8s.io", ["v1"]),
        ("apiextensions.k8s.io", ["v1"]),
        ("scheduling.k8s.io", ["v1"]),
        ("coordination.k8s.io", ["v1"]),
        ("node.k8s.io", ["v1"]),
        ("discovery.k8s.io", ["v1"]),
        ("flowcontrol.apiserver.k8s.io", ["v1"]),
    ]


async def test_the_pod_and_service_account_subresources_as_the_core_group_lists_them(client: RawClient) -> None:
    reply = await client.get("/api/v1")
    entries = {entry["name"]: entry for entry in reply.json()["resources"]}
    pods = [name for name in entries if name.startswith("pods/")]
    assert pods == [
        "pods/attach",
        "pods/binding",
        "pods/ephemeralcontainers",
        "pods/eviction",
        "pods/exec",
        "pods/log",
        "pods/portforward",
        "pods/proxy",
        "pods/status",
    ]
    assert entries["pods/eviction"] == {
        "name": "pods/eviction",
        "singularName": "",
        "namespaced": True,
        "group": "policy",
        "version": "v1",
        "kind": "Eviction",
        "verbs": ["create"],
    }
    assert entries["pods/exec"]["kind"] == "PodExecOptions"
    assert entries["pods/exec"]["verbs"] == ["create", "get"]
    assert entries["serviceaccounts/token"] == {
        "name": "serviceaccounts/token",
        "singularName": "",
        "namespaced": True,
        "group": "authentication.k8s.io",
        "version": "v1",
        "kind": "TokenRequest",
        "verbs": ["create"],
    }
    assert entries["bindings"]["verbs"] == ["create"]
    assert entries["componentstatuses"]["verbs"] == ["get", "list"]


async def test_events_of_both_groups_carry_the_storage_hash_of_core_v1_events(client: RawClient) -> None:
    core = {e["name"]: e for e in (await client.get("/api/v1")).json()["resources"]}
    events = {e["name"]: e for e in (await client.get("/apis/events.k8s.io/v1")).json()["resources"]}
    assert core["events"]["storageVersionHash"] == events["events"]["storageVersionHash"] == "r2yiGXH7wu8="


AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
CLIENT_GO_ACCEPT = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)


async def test_aggregated_discovery_of_the_core_group(client: RawClient) -> None:
    reply = await client.get("/api", headers={"Accept": CLIENT_GO_ACCEPT})
    assert reply.status == 200
    assert reply.headers["Content-Type"] == AGGREGATED
    document = reply.json()
    assert (document["kind"], document["apiVersion"], document["metadata"]) == (
        "APIGroupDiscoveryList",
        "apidiscovery.k8s.io/v2",
        {},
    )
    [core] = document["items"]
    assert core["metadata"] == {"creationTimestamp": None}
    [v1] = core["versions"]
    assert (v1["version"], v1["freshness"]) == ("v1", "Current")
    pods = next(r for r in v1["resources"] if r["resource"] == "pods")
    assert list(pods) == [
        "resource",
        "responseKind",
        "scope",
        "singularResource",
        "verbs",
        "shortNames",
        "categories",
        "subresources",
    ]
    assert pods["responseKind"] == {"group": "", "version": "", "kind": "Pod"}
    eviction = next(s for s in pods["subresources"] if s["subresource"] == "eviction")
    assert eviction == {
        "subresource": "eviction",
        "responseKind": {"group": "policy", "version": "v1", "kind": "Eviction"},
        "verbs": ["create"],
    }


async def test_aggregated_discovery_of_the_groups_includes_custom_resources(client: RawClient) -> None:
    assert (
        await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd("widgets", "Widget"))
    ).status == 201
    reply = await client.get("/apis", headers={"Accept": CLIENT_GO_ACCEPT})
    names = [item["metadata"]["name"] for item in reply.json()["items"]]
    assert names[:3] == ["apiregistration.k8s.io", "apps", "events.k8s.io"]
    assert names[-1] == "example.com"
    widgets = reply.json()["items"][-1]["versions"][0]["resources"][0]
    assert widgets["responseKind"] == {"group": "example.com", "version": "v1", "kind": "Widget"}
    assert widgets["subresources"] == [
        {
            "subresource": "status",
            "responseKind": {"group": "example.com", "version": "v1", "kind": "Widget"},
            "verbs": ["get", "patch", "update"],
        }
    ]
    autoscaling = next(item for item in reply.json()["items"] if item["metadata"]["name"] == "autoscaling")
    assert [v["version"] for v in autoscaling["versions"]] == ["v2", "v1"]


async def test_aggregated_discovery_has_an_etag_and_answers_304_to_it(client: RawClient) -> None:
    first = await client.get("/apis", headers={"Accept": AGGREGATED})
    etag = first.headers["ETag"]
    assert etag.startswith('"') and len(etag) == 130
    assert first.headers["Vary"] == "Accept"
    again = await client.get("/apis", headers={"Accept": AGGREGATED, "If-None-Match": etag})
    assert (again.status, again.body) == (304, b"")
    beta = await client.get("/apis", headers={"Accept": AGGREGATED.replace("v=v2", "v=v2beta1")})
    assert beta.json()["apiVersion"] == "apidiscovery.k8s.io/v2beta1"


async def test_a_plain_json_accept_keeps_the_legacy_documents(client: RawClient) -> None:
    reply = await client.get("/apis", headers={"Accept": "application/json"})
    assert reply.headers["Content-Type"].startswith("application/json")
    assert reply.json()["kind"] == "APIGroupList"
