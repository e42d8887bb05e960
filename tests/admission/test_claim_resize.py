"""The PersistentVolumeClaimResize admission plugin as a client sees it: growing a claim is refused
with 403 unless the claim is Bound and its class allows expansion; kind's ``standard`` class does
not, so an operator that grows its claims on kind gets the 403 (docs/storage.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from fakeapi import FakeAPIServer
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

START = 1_700_000_000.0
CLAIMS = "/api/v1/namespaces/default/persistentvolumeclaims"
CLASSES = "/apis/storage.k8s.io/v1/storageclasses"
MERGE = "application/merge-patch+json"
NOT_EXPANDABLE = (
    "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize"
)


@pytest_asyncio.fixture
async def client() -> AsyncIterator[RawClient]:
    async with FakeAPIServer(clock=lambda: START) as running, aiohttp.ClientSession() as session:
        yield RawClient(session, running.url)
        assert running.errors == [], "\n".join(running.errors)


def storage_class(name: str, **fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": "example.com/disks",
        **fields,
    }


def claim(name: str, class_name: str | None, size: str = "1Gi") -> dict[str, Any]:
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}
    if class_name is not None:
        spec["storageClassName"] = class_name
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}


async def bound_claim(client: RawClient, name: str, class_name: str | None) -> dict[str, Any]:
    """A claim whose status says Bound, as the PV controller leaves it (written here through status)."""
    assert (await client.post(CLAIMS, claim(name, class_name))).status == 201
    status = {"status": {"phase": "Bound", "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]}}
    reply = await client.patch(f"{CLAIMS}/{name}/status", status, content_type=MERGE)
    assert reply.status == 200
    stored: dict[str, Any] = reply.json()
    return stored


def grow(size: str) -> dict[str, Any]:
    return {"spec": {"resources": {"requests": {"storage": size}}}}


def forbidden(name: str, problem: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'persistentvolumeclaims "{name}" is forbidden: {problem}',
        "reason": "Forbidden",
        "details": {"name": name, "kind": "persistentvolumeclaims"},
        "code": 403,
    }


async def test_growing_a_bound_claim_of_a_class_without_expansion_is_forbidden(client: RawClient) -> None:
    assert (await client.post(CLASSES, storage_class("plain"))).status == 201
    before = await bound_claim(client, "data", "plain")
    reply = await client.patch(f"{CLAIMS}/data", grow("2Gi"), content_type=MERGE)
    assert reply.status == 403
    assert reply.json() == forbidden("data", NOT_EXPANDABLE)
    after = (await client.get(f"{CLAIMS}/data")).json()
    assert after["spec"]["resources"] == {"requests": {"storage": "1Gi"}}
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]


async def test_allow_volume_expansion_false_is_refused_like_an_absent_one(client: RawClient) -> None:
    assert (await client.post(CLASSES, storage_class("fixed", allowVolumeExpansion=False))).status == 201
    await bound_claim(client, "data", "fixed")
    reply = await client.patch(f"{CLAIMS}/data", grow("1025Mi"), content_type=MERGE)
    assert (reply.status, reply.json()["message"]) == (
        403,
        f'persistentvolumeclaims "data" is forbidden: {NOT_EXPANDABLE}',
    )


async def test_growing_a_bound_claim_of_an_expandable_class_is_stored(client: RawClient) -> None:
    assert (await client.post(CLASSES, storage_class("elastic", allowVolumeExpansion=True))).status == 201
    await bound_claim(client, "data", "elastic")
    reply = await client.patch(f"{CLAIMS}/data", grow("2Gi"), content_type=MERGE)
    assert reply.status == 200
    assert reply.json()["spec"]["resources"] == {"requests": {"storage": "2Gi"}}


async def test_a_claim_that_is_not_bound_cannot_grow_whatever_its_class(client: RawClient) -> None:
    assert (await client.post(CLASSES, storage_class("elastic", allowVolumeExpansion=True))).status == 201
    assert (await client.post(CLAIMS, claim("waiting", "elastic"))).status == 201
    reply = await client.patch(f"{CLAIMS}/waiting", grow("2Gi"), content_type=MERGE)
    assert reply.status == 403
    assert reply.json() == forbidden("waiting", "Only bound persistent volume claims can be expanded")


async def test_a_claim_whose_class_does_not_exist_or_that_has_none_cannot_grow(client: RawClient) -> None:
    await bound_claim(client, "orphan", "gone")
    await bound_claim(client, "classless", "")
    for name in ("orphan", "classless"):
        reply = await client.patch(f"{CLAIMS}/{name}", grow("2Gi"), content_type=MERGE)
        assert (reply.status, reply.json()["message"]) == (
            403,
            f'persistentvolumeclaims "{name}" is forbidden: {NOT_EXPANDABLE}',
        )


async def test_an_equal_size_in_another_spelling_and_other_changes_pass(client: RawClient) -> None:
    assert (await client.post(CLASSES, storage_class("plain"))).status == 201
    await bound_claim(client, "data", "plain")
    same = await client.patch(f"{CLAIMS}/data", grow("1024Mi"), content_type=MERGE)
    assert same.status == 200
    # Stored as the apiserver writes a quantity back: canonically.
    assert same.json()["spec"]["resources"] == {"requests": {"storage": "1Gi"}}
    labelled = await client.patch(f"{CLAIMS}/data", {"metadata": {"labels": {"tier": "gold"}}}, content_type=MERGE)
    assert labelled.status == 200


async def test_the_status_subresource_is_not_checked(client: RawClient) -> None:
    await bound_claim(client, "data", "gone")
    status = {"status": {"capacity": {"storage": "5Gi"}}}
    reply = await client.patch(f"{CLAIMS}/data/status", status, content_type=MERGE)
    assert reply.status == 200
    assert reply.json()["status"]["capacity"] == {"storage": "5Gi"}


async def test_a_server_with_the_plugin_disabled_stores_the_growth() -> None:
    async with (
        FakeAPIServer(clock=lambda: START, disable_admission_plugins=["PersistentVolumeClaimResize"]) as running,
        aiohttp.ClientSession() as session,
    ):
        client = RawClient(session, running.url)
        await bound_claim(client, "data", "gone")
        reply = await client.patch(f"{CLAIMS}/data", grow("2Gi"), content_type=MERGE)
        assert reply.status == 200
        assert reply.json()["spec"]["resources"] == {"requests": {"storage": "2Gi"}}


async def test_a_claim_provisioned_in_kinds_standard_class_cannot_grow() -> None:
    async with (
        FakeAPIServer(controllers="all", control_plane_pods=False, clock=lambda: START, seed=3) as running,
        aiohttp.ClientSession() as session,
    ):
        client = RawClient(session, running.url)
        assert (await client.post(CLAIMS, claim("data", None))).status == 201
        consumer = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "user"},
            "spec": {
                "containers": [{"name": "main", "image": "nginx"}],
                "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}],
            },
        }
        assert (await client.post("/api/v1/namespaces/default/pods", consumer)).status == 201
        running.advance(0)
        bound = (await client.get(f"{CLAIMS}/data")).json()
        assert (bound["spec"]["storageClassName"], bound["status"]["phase"]) == ("standard", "Bound")
        reply = await client.patch(f"{CLAIMS}/data", grow("2Gi"), content_type=MERGE)
        assert reply.status == 403
        assert reply.json() == forbidden("data", NOT_EXPANDABLE)
        assert running.errors == [], "\n".join(running.errors)
