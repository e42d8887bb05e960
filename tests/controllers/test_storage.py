"""Storage as a new kind cluster has it, seen through raw requests: the ``standard`` class, the
DefaultStorageClass and StorageObjectInUseProtection admission plugins, the PV binder, the
local-path provisioner, the scheduler waiting for claims, reclaiming and protection (docs/storage.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from fakeapi import FakeAPIServer
from tests.conftest import RawClient
from tests.controllers.conftest import START

pytestmark = pytest.mark.asyncio

NOW = "2023-11-14T22:13:20Z"
CLAIMS = "/api/v1/namespaces/default/persistentvolumeclaims"
PODS = "/api/v1/namespaces/default/pods"
VOLUMES = "/api/v1/persistentvolumes"
CLASSES = "/apis/storage.k8s.io/v1/storageclasses"
PROVISIONER_SOURCE = "rancher.io/local-path_local-path-provisioner-6d5d9b6c7b-fakea_"


async def session_for(server: FakeAPIServer) -> AsyncIterator[RawClient]:
    async with aiohttp.ClientSession() as session:
        yield RawClient(session, server.url)


@pytest.fixture
def server_options() -> dict[str, Any]:
    # Two empty nodes: the scheduler's choice between them is the volumes' alone.
    return {"nodes": ["node-1", "node-2"], "control_plane_pods": False}


def claim(name: str, size: str = "1Gi", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": {**body, **spec}}


def pod(name: str, claim_name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "containers": [{"name": "main", "image": "nginx", "volumeMounts": [{"name": "data", "mountPath": "/d"}]}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}],
        },
    }


def volume(name: str, size: str, storage_class: str, policy: str = "Retain") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "capacity": {"storage": size},
            "accessModes": ["ReadWriteOnce", "ReadOnlyMany"],
            "storageClassName": storage_class,
            "persistentVolumeReclaimPolicy": policy,
            "hostPath": {"path": f"/srv/{name}"},
        },
    }


async def events_of(client: RawClient, uid: str) -> list[tuple[str, str, str, str]]:
    listed = (await client.get("/api/v1/namespaces/default/events")).json()["items"]
    return [
        (e["type"], e["reason"], e["message"], e["source"].get("component", ""))
        for e in listed
        if e["involvedObject"]["uid"] == uid
    ]


async def test_the_cluster_has_kinds_default_class(client: RawClient) -> None:
    reply = await client.get(f"{CLASSES}/standard")
    assert reply.status == 200
    found = reply.json()
    assert {key: found[key] for key in ("provisioner", "reclaimPolicy", "volumeBindingMode")} == {
        "provisioner": "rancher.io/local-path",
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
    }
    assert found["metadata"]["annotations"] == {"storageclass.kubernetes.io/is-default-class": "true"}
    assert [entry["manager"] for entry in found["metadata"]["managedFields"]] == ["kubectl-client-side-apply"]
    assert "namespace" not in found["metadata"]


async def test_a_server_without_controllers_has_no_class_and_adds_no_finalizer() -> None:
    async with FakeAPIServer(clock=lambda: START) as plain:
        async for client in session_for(plain):
            assert (await client.get(f"{CLASSES}/standard")).status == 404
            created = (await client.post(CLAIMS, claim("data"))).json()
    assert "storageClassName" not in created["spec"]
    assert "finalizers" not in created["metadata"]


async def test_a_default_class_of_ones_own_is_given_to_claims_without_controllers() -> None:
    mine = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "fast", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "example.com/fast",
    }
    async with FakeAPIServer(clock=lambda: START) as plain:
        async for client in session_for(plain):
            assert (await client.post(CLASSES, mine)).status == 201
            defaulted = (await client.post(CLAIMS, claim("data"))).json()
            empty = (await client.post(CLAIMS, claim("none", storageClassName=""))).json()
    assert defaulted["spec"]["storageClassName"] == "fast"
    assert empty["spec"]["storageClassName"] == ""


async def test_admission_gives_a_claim_the_default_class_and_the_protection_finalizers(client: RawClient) -> None:
    created = await client.post(CLAIMS, claim("data"))
    assert created.status == 201
    body = created.json()
    assert body["spec"]["storageClassName"] == "standard"
    assert body["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    assert body["status"] == {"phase": "Pending"}
    kept = (await client.post(CLAIMS, claim("other", storageClassName="manual"))).json()
    assert kept["spec"]["storageClassName"] == "manual"
    made = (await client.post(VOLUMES, volume("disk", "5Gi", "manual"))).json()
    assert made["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]


async def test_a_claim_waits_for_its_first_consumer_then_is_provisioned_and_bound(
    server: FakeAPIServer, client: RawClient
) -> None:
    uid = (await client.post(CLAIMS, claim("data", "2Gi"))).json()["metadata"]["uid"]
    server.advance(0)
    waiting = (await client.get(f"{CLAIMS}/data")).json()
    assert waiting["status"] == {"phase": "Pending"}
    assert "annotations" not in waiting["metadata"]
    assert await events_of(client, uid) == [
        (
            "Normal",
            "WaitForFirstConsumer",
            "waiting for first consumer to be created before binding",
            "persistentvolume-controller",
        )
    ]
    assert (await client.get(VOLUMES)).json()["items"] == []

    assert (await client.post(PODS, pod("app", "data"))).status == 201
    server.advance(0)

    bound = (await client.get(f"{CLAIMS}/data")).json()
    name = f"pvc-{uid}"
    assert bound["metadata"]["annotations"] == {
        "pv.kubernetes.io/bind-completed": "yes",
        "pv.kubernetes.io/bound-by-controller": "yes",
        "volume.beta.kubernetes.io/storage-provisioner": "rancher.io/local-path",
        "volume.kubernetes.io/selected-node": "node-1",
        "volume.kubernetes.io/storage-provisioner": "rancher.io/local-path",
    }
    assert bound["spec"]["volumeName"] == name
    assert bound["status"] == {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "2Gi"}}
    managers = [(e["manager"], e.get("subresource", "")) for e in bound["metadata"]["managedFields"]]
    assert ("kube-scheduler", "") in managers and ("kube-controller-manager", "status") in managers

    provisioned = (await client.get(f"{VOLUMES}/{name}")).json()
    assert provisioned["metadata"]["annotations"] == {
        "local.path.provisioner/selected-node": "node-1",
        "pv.kubernetes.io/provisioned-by": "rancher.io/local-path",
    }
    assert provisioned["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]
    assert provisioned["spec"] == {
        "capacity": {"storage": "2Gi"},
        "hostPath": {"path": f"/var/local-path-provisioner/{name}_default_data", "type": "DirectoryOrCreate"},
        "accessModes": ["ReadWriteOnce"],
        "claimRef": {
            "kind": "PersistentVolumeClaim",
            "namespace": "default",
            "name": "data",
            "uid": uid,
            "apiVersion": "v1",
            "resourceVersion": provisioned["spec"]["claimRef"]["resourceVersion"],
        },
        "persistentVolumeReclaimPolicy": "Delete",
        "storageClassName": "standard",
        "volumeMode": "Filesystem",
        "nodeAffinity": {
            "required": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-1"]}]}
                ]
            }
        },
    }
    assert provisioned["status"] == {"phase": "Bound", "lastPhaseTransitionTime": NOW}

    scheduled = (await client.get(f"{PODS}/app")).json()
    assert scheduled["spec"]["nodeName"] == "node-1"
    assert scheduled["status"]["phase"] == "Running"
    recorded = await events_of(client, uid)
    assert [(kind, reason) for kind, reason, _, _ in recorded] == [
        ("Normal", "WaitForFirstConsumer"),
        ("Normal", "ExternalProvisioning"),
        ("Normal", "Provisioning"),
        ("Normal", "ProvisioningSucceeded"),
    ]
    assert recorded[1][2:] == (
        "Waiting for a volume to be created either by the external provisioner 'rancher.io/local-path' or manually "
        "by the system administrator. If volume creation is delayed, please verify that the provisioner is running "
        "and correctly registered.",
        "persistentvolume-controller",
    )
    assert recorded[2][2] == 'External provisioner is provisioning volume for claim "default/data"'
    assert recorded[3][2] == f"Successfully provisioned volume {name}"
    assert recorded[3][3].startswith(PROVISIONER_SOURCE)


async def test_a_pod_stays_pending_until_its_claim_exists(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(PODS, pod("app", "later"))
    server.advance(30)
    waiting = (await client.get(f"{PODS}/app")).json()
    assert "nodeName" not in waiting["spec"] and waiting["status"]["phase"] == "Pending"
    await client.post(CLAIMS, claim("later"))
    server.advance(0)
    assert (await client.get(f"{PODS}/app")).json()["spec"]["nodeName"] == "node-1"
    assert (await client.get(f"{CLAIMS}/later")).json()["status"]["phase"] == "Bound"


async def test_a_recreated_pod_follows_its_volume_to_its_node(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(
        PODS,
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "busy"},
            "spec": {"containers": [{"name": "m", "image": "nginx"}], "nodeName": "node-2"},
        },
    )
    await client.post(CLAIMS, claim("data"))
    await client.post(PODS, pod("first", "data"))
    server.advance(0)
    assert (await client.get(f"{PODS}/first")).json()["spec"]["nodeName"] == "node-1"
    await client.delete(f"{PODS}/first")
    await client.delete(f"{PODS}/busy")
    server.advance(60)
    await client.post(PODS, pod("second", "data"))
    await client.post(PODS, pod("third", "data"))
    server.advance(0)
    assert (await client.get(f"{PODS}/second")).json()["spec"]["nodeName"] == "node-1"
    assert (await client.get(f"{PODS}/third")).json()["spec"]["nodeName"] == "node-1"


async def test_local_path_cannot_serve_an_immediate_class(server: FakeAPIServer, client: RawClient) -> None:
    immediate = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "now"},
        "provisioner": "rancher.io/local-path",
        "volumeBindingMode": "Immediate",
    }
    await client.post(CLASSES, immediate)
    uid = (await client.post(CLAIMS, claim("data", storageClassName="now"))).json()["metadata"]["uid"]
    await client.post(PODS, pod("app", "data"))
    server.advance(10)
    assert (await client.get(f"{CLAIMS}/data")).json()["status"] == {"phase": "Pending"}
    assert "nodeName" not in (await client.get(f"{PODS}/app")).json()["spec"]
    assert [(t, r, m) for t, r, m, _ in await events_of(client, uid)][1:] == [
        ("Normal", "Provisioning", 'External provisioner is provisioning volume for claim "default/data"'),
        (
            "Warning",
            "ProvisioningFailed",
            'failed to provision volume with StorageClass "now": configuration error, no node was specified',
        ),
    ]


async def test_an_immediate_claim_binds_the_smallest_fitting_volume_at_once(
    server: FakeAPIServer, client: RawClient
) -> None:
    for name, size in (("big", "10Gi"), ("small", "5Gi"), ("tiny", "500Mi")):
        await client.post(VOLUMES, volume(name, size, "manual"))
    server.advance(0)
    assert (await client.get(f"{VOLUMES}/small")).json()["status"]["phase"] == "Available"
    uid = (await client.post(CLAIMS, claim("data", storageClassName="manual"))).json()["metadata"]["uid"]
    server.advance(0)
    chosen = (await client.get(f"{VOLUMES}/small")).json()
    assert chosen["metadata"]["annotations"] == {"pv.kubernetes.io/bound-by-controller": "yes"}
    assert chosen["spec"]["claimRef"]["uid"] == uid
    assert chosen["status"] == {"phase": "Bound", "lastPhaseTransitionTime": NOW}
    bound = (await client.get(f"{CLAIMS}/data")).json()
    assert bound["spec"]["volumeName"] == "small"
    assert bound["metadata"]["annotations"] == {
        "pv.kubernetes.io/bind-completed": "yes",
        "pv.kubernetes.io/bound-by-controller": "yes",
    }
    assert bound["status"] == {
        "phase": "Bound",
        "accessModes": ["ReadWriteOnce", "ReadOnlyMany"],
        "capacity": {"storage": "5Gi"},
    }
    assert (await client.get(f"{VOLUMES}/big")).json()["status"]["phase"] == "Available"


async def test_a_claim_with_no_class_and_no_volume_fails_to_bind(server: FakeAPIServer, client: RawClient) -> None:
    uid = (await client.post(CLAIMS, claim("data", storageClassName=""))).json()["metadata"]["uid"]
    server.advance(0)
    assert await events_of(client, uid) == [
        (
            "Normal",
            "FailedBinding",
            "no persistent volumes available for this claim and no storage class is set",
            "persistentvolume-controller",
        )
    ]


async def test_deleting_a_claim_deletes_its_provisioned_volume(server: FakeAPIServer, client: RawClient) -> None:
    uid = (await client.post(CLAIMS, claim("data"))).json()["metadata"]["uid"]
    await client.post(PODS, pod("app", "data"))
    server.advance(0)
    deleted = await client.delete(f"{CLAIMS}/data")
    assert deleted.status == 200
    assert deleted.json()["metadata"]["deletionTimestamp"] == NOW
    server.advance(0)
    held = (await client.get(f"{CLAIMS}/data")).json()
    assert held["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    assert (await client.get(f"{VOLUMES}/pvc-{uid}")).json()["status"]["phase"] == "Bound"

    await client.delete(f"{PODS}/app")
    server.advance(60)
    assert (await client.get(f"{CLAIMS}/data")).status == 404
    assert (await client.get(f"{VOLUMES}/pvc-{uid}")).status == 404


async def test_a_retained_volume_is_released_and_kept(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(VOLUMES, volume("disk", "5Gi", "manual", policy="Retain"))
    await client.post(CLAIMS, claim("data", storageClassName="manual"))
    server.advance(0)
    assert (await client.get(f"{VOLUMES}/disk")).json()["status"]["phase"] == "Bound"
    await client.delete(f"{CLAIMS}/data")
    server.advance(0)
    assert (await client.get(f"{CLAIMS}/data")).status == 404
    kept = (await client.get(f"{VOLUMES}/disk")).json()
    assert kept["status"]["phase"] == "Released"
    assert kept["spec"]["claimRef"]["name"] == "data"
    deleted = await client.delete(f"{VOLUMES}/disk")
    assert deleted.status == 200
    server.advance(0)
    assert (await client.get(f"{VOLUMES}/disk")).status == 404


async def test_a_bound_volume_is_protected_from_deletion(server: FakeAPIServer, client: RawClient) -> None:
    await client.post(VOLUMES, volume("disk", "5Gi", "manual"))
    await client.post(CLAIMS, claim("data", storageClassName="manual"))
    server.advance(0)
    await client.delete(f"{VOLUMES}/disk")
    server.advance(0)
    held = (await client.get(f"{VOLUMES}/disk")).json()
    assert held["metadata"]["deletionTimestamp"] == NOW
    assert held["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]
    await client.delete(f"{CLAIMS}/data")
    server.advance(0)
    assert (await client.get(f"{VOLUMES}/disk")).status == 404


async def test_the_two_plugins_can_be_switched_off() -> None:
    off = ["DefaultStorageClass", "StorageObjectInUseProtection"]
    async with FakeAPIServer(controllers="all", clock=lambda: START, disable_admission_plugins=off) as running:
        async for client in session_for(running):
            created = (await client.post(CLAIMS, claim("data"))).json()
            made = (await client.post(VOLUMES, volume("disk", "5Gi", "manual"))).json()
    assert "storageClassName" not in created["spec"]
    assert "finalizers" not in created["metadata"] and "finalizers" not in made["metadata"]
