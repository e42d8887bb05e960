"""ResourceQuota: the quota controller's status and the admission plugin's 403s, as a client sees
them (docs/quota-disruption-autoscaling.md)."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from fakeapi import FakeAPIServer
from tests.conftest import RawClient
from tests.controllers.conftest import START

pytestmark = pytest.mark.asyncio

NS = "/api/v1/namespaces/default"
QUOTAS = f"{NS}/resourcequotas"


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"controllers": "resourcequota"}


def quota(hard: dict[str, str], name: str = "q", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": {"hard": hard, **spec}}


def pod(name: str, *containers: dict[str, Any], **spec: Any) -> dict[str, Any]:
    listed = list(containers) or [{"name": "main", "image": "nginx"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": listed, **spec}}


def container(name: str, **resources: dict[str, str]) -> dict[str, Any]:
    return {"name": name, "image": "nginx", "resources": resources}


def forbidden(resource: str, name: str, message: str, group: str = "") -> bytes:
    shown = f"{resource}.{group}" if group else resource
    in_group = f'"group":"{group}",' if group else ""
    return (
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
        f'"{shown} \\"{name}\\" is forbidden: {message}","reason":"Forbidden",'
        f'"details":{{"name":"{name}",{in_group}"kind":"{resource}"}},"code":403}}\n'
    ).encode()


async def synced(server: FakeAPIServer, client: RawClient, body: dict[str, Any]) -> dict[str, Any]:
    created = await client.post(QUOTAS, body)
    assert created.status == 201, created.body
    server.advance(0)
    reply = await client.get(f"{QUOTAS}/{body['metadata']['name']}")
    result: dict[str, Any] = reply.json()
    return result


async def test_the_controller_writes_hard_and_used_for_every_name(server: FakeAPIServer, client: RawClient) -> None:
    hard = {
        "pods": "4",
        "requests.cpu": "2",
        "limits.memory": "2Gi",
        "count/deployments.apps": "2",
        "configmaps": "5",
        "secrets": "5",
        "services": "3",
        "services.loadbalancers": "1",
        "services.nodeports": "2",
        "persistentvolumeclaims": "2",
        "requests.storage": "10Gi",
        "replicationcontrollers": "1",
        "resourcequotas": "1",
    }
    stored = await synced(server, client, quota(hard))
    assert stored["status"] == {
        "hard": dict(sorted(hard.items())),
        "used": {
            "configmaps": "1",  # the kube-root-ca.crt every namespace gets
            "count/deployments.apps": "0",
            "limits.memory": "0",
            "persistentvolumeclaims": "0",
            "pods": "0",
            "replicationcontrollers": "0",
            "requests.cpu": "0",
            "requests.storage": "0",
            "resourcequotas": "1",
            "secrets": "0",
            "services": "1",  # the kubernetes Service
            "services.loadbalancers": "0",
            "services.nodeports": "0",
        },
    }
    writer = stored["metadata"]["managedFields"][-1]
    assert (writer["manager"], writer["operation"], writer["subresource"]) == (
        "kube-controller-manager",
        "Update",
        "status",
    )


async def test_a_pod_over_the_quota_is_refused_and_the_admitted_one_charged(
    server: FakeAPIServer, client: RawClient
) -> None:
    await synced(server, client, quota({"pods": "2", "requests.cpu": "1", "limits.memory": "1Gi"}))
    limits = {"memory": "512Mi"}
    first = await client.post(f"{NS}/pods", pod("p1", container("main", requests={"cpu": "500m"}, limits=limits)))
    assert first.status == 201
    charged = (await client.get(f"{QUOTAS}/q")).json()
    assert charged["status"]["used"] == {"limits.memory": "512Mi", "pods": "1", "requests.cpu": "500m"}
    managers = [(entry["manager"], entry.get("subresource")) for entry in charged["metadata"]["managedFields"]]
    assert managers == [("Python", None), ("kube-apiserver", "status"), ("kube-controller-manager", "status")]
    admission = charged["metadata"]["managedFields"][1]
    assert admission["fieldsV1"] == {
        "f:status": {"f:used": {"f:limits.memory": {}, "f:pods": {}, "f:requests.cpu": {}}}
    }
    over = await client.post(f"{NS}/pods", pod("p2", container("main", requests={"cpu": "600m"}, limits=limits)))
    assert (over.status, over.body) == (
        403,
        forbidden(
            "pods",
            "p2",
            "exceeded quota: q, requested: requests.cpu=600m, used: requests.cpu=500m, limited: requests.cpu=1",
        ),
    )
    assert (await client.get(f"{NS}/pods/p2")).status == 404
    second = await client.post(f"{NS}/pods", pod("p3", container("main", requests={"cpu": "500m"}, limits=limits)))
    assert second.status == 201
    third = await client.post(f"{NS}/pods", pod("p4", container("main", requests={"cpu": "100m"}, limits=limits)))
    message = (
        "exceeded quota: q, requested: limits.memory=512Mi,pods=1,requests.cpu=100m, "
        "used: limits.memory=1Gi,pods=2,requests.cpu=1, limited: limits.memory=1Gi,pods=2,requests.cpu=1"
    )
    assert (third.status, third.body) == (403, forbidden("pods", "p4", message))
    server.advance(0)
    recounted = (await client.get(f"{QUOTAS}/q")).json()["status"]["used"]
    assert recounted == {"limits.memory": "1Gi", "pods": "2", "requests.cpu": "1"}


async def test_a_quota_on_cpu_or_memory_needs_every_container_to_state_it(
    server: FakeAPIServer, client: RawClient
) -> None:
    await synced(server, client, quota({"requests.cpu": "1", "limits.memory": "1Gi"}))
    refused = await client.post(f"{NS}/pods", pod("web", container("a"), container("b", requests={"cpu": "100m"})))
    message = "failed quota: q: must specify limits.memory for: a,b; requests.cpu for: a"
    assert (refused.status, refused.body) == (403, forbidden("pods", "web", message))


async def test_a_quota_the_controller_never_synced_refuses_nothing() -> None:
    async with FakeAPIServer(clock=lambda: START) as server, aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        assert (await client.post(QUOTAS, quota({"pods": "1"}))).status == 201
        for name in ("a", "b"):
            assert (await client.post(f"{NS}/pods", pod(name))).status == 201
        stored = (await client.get(f"{QUOTAS}/q")).json()
        assert stored.get("status") in (None, {})


async def test_a_status_without_usage_is_status_unknown() -> None:
    async with FakeAPIServer(clock=lambda: START) as server, aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        assert (await client.post(QUOTAS, quota({"pods": "1", "services": "1"}))).status == 201
        status = {"status": {"hard": {"pods": "1", "services": "1"}, "used": {"services": "0"}}}
        patched = await client.patch(f"{QUOTAS}/q/status", status, content_type="application/merge-patch+json")
        assert patched.status == 200, patched.body
        refused = await client.post(f"{NS}/pods", pod("a"))
        assert (refused.status, refused.body) == (
            403,
            forbidden("pods", "a", "status unknown for quota: q, resources: pods"),
        )


async def test_node_ports_and_load_balancers_are_counted_on_create_and_on_update(
    server: FakeAPIServer, client: RawClient
) -> None:
    await synced(server, client, quota({"services.nodeports": "1", "services.loadbalancers": "0"}))
    ports = [{"name": "a", "port": 80}, {"name": "b", "port": 81}]
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"type": "NodePort", "ports": ports},
    }
    refused = await client.post(f"{NS}/services", service)
    message = (
        "exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1"
    )
    assert (refused.status, refused.body) == (403, forbidden("services", "web", message))
    plain = {**service, "spec": {"ports": ports}}
    assert (await client.post(f"{NS}/services", plain)).status == 201
    patch = {"spec": {"type": "LoadBalancer"}}
    updated = await client.patch(f"{NS}/services/web", patch, content_type="application/merge-patch+json")
    message = (
        "exceeded quota: q, requested: services.loadbalancers=1,services.nodeports=2, "
        "used: services.loadbalancers=0,services.nodeports=0, limited: services.loadbalancers=0,services.nodeports=1"
    )
    assert (updated.status, updated.body) == (403, forbidden("services", "web", message))
    assert (await client.get(f"{NS}/services/web")).json()["spec"]["type"] == "ClusterIP"


async def test_object_counts_and_claimed_storage(server: FakeAPIServer, client: RawClient) -> None:
    await synced(server, client, quota({"count/deployments.apps": "1", "requests.storage": "1Gi"}))
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "one"},
        "spec": {
            "selector": {"matchLabels": {"app": "one"}},
            "template": {"metadata": {"labels": {"app": "one"}}, "spec": {"containers": [{"name": "a", "image": "x"}]}},
        },
    }
    deployments = "/apis/apps/v1/namespaces/default/deployments"
    assert (await client.post(deployments, deployment)).status == 201
    second = await client.post(deployments, {**deployment, "metadata": {"name": "two"}})
    message = (
        "exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=1, "
        "limited: count/deployments.apps=1"
    )
    assert (second.status, second.body) == (403, forbidden("deployments", "two", message, group="apps"))
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "768Mi"}}},
    }
    assert (await client.post(f"{NS}/persistentvolumeclaims", claim)).status == 201
    more = await client.post(f"{NS}/persistentvolumeclaims", {**claim, "metadata": {"name": "more"}})
    message = "exceeded quota: q, requested: requests.storage=768Mi, used: requests.storage=768Mi, limited: requests.storage=1Gi"
    assert (more.status, more.body) == (403, forbidden("persistentvolumeclaims", "more", message))


async def test_a_dry_run_is_judged_but_not_charged(server: FakeAPIServer, client: RawClient) -> None:
    await synced(server, client, quota({"pods": "1"}))
    tried = await client.post(f"{NS}/pods?dryRun=All", pod("a"))
    assert tried.status == 201
    assert (await client.get(f"{QUOTAS}/q")).json()["status"]["used"] == {"pods": "0"}
    assert (await client.post(f"{NS}/pods", pod("a"))).status == 201
    over = await client.post(f"{NS}/pods?dryRun=All", pod("b"))
    message = "exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1"
    assert (over.status, over.body) == (403, forbidden("pods", "b", message))


async def test_usage_is_given_back_when_a_pod_goes_or_finishes(server: FakeAPIServer, client: RawClient) -> None:
    await synced(server, client, quota({"pods": "1", "count/pods": "5"}))
    assert (await client.post(f"{NS}/pods", pod("a"))).status == 201
    finished = {"status": {"phase": "Succeeded"}}
    patched = await client.patch(f"{NS}/pods/a/status", finished, content_type="application/merge-patch+json")
    assert patched.status == 200
    server.advance(0)
    assert (await client.get(f"{QUOTAS}/q")).json()["status"]["used"] == {"count/pods": "1", "pods": "0"}
    assert (await client.post(f"{NS}/pods", pod("b"))).status == 201
    assert (await client.delete(f"{NS}/pods/b")).status == 200  # on no node: gone at once
    server.advance(0)
    assert (await client.get(f"{QUOTAS}/q")).json()["status"]["used"] == {"count/pods": "1", "pods": "0"}


async def test_a_scoped_quota_counts_only_the_pods_in_its_scope(server: FakeAPIServer, client: RawClient) -> None:
    await synced(server, client, quota({"pods": "1"}, name="best-effort", scopes=["BestEffort"]))
    assert (await client.post(f"{NS}/pods", pod("a"))).status == 201
    refused = await client.post(f"{NS}/pods", pod("b"))
    message = "exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: pods=1"
    assert (refused.status, refused.body) == (403, forbidden("pods", "b", message))
    guaranteed = container("main", requests={"cpu": "1"}, limits={"cpu": "1"})
    assert (await client.post(f"{NS}/pods", pod("c", guaranteed))).status == 201
