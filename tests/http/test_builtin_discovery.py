"""Discovery of the built-in kinds: each resource and its subresources as a 1.32 kube-apiserver lists them."""

from __future__ import annotations

import pytest

from tests.conftest import RawClient

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
