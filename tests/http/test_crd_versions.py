"""``strategy: None``: every served version shows the stored object with only apiVersion changed
(docs/conversion.md, "None")."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

V1 = "/apis/example.com/v1/namespaces/default/jobs"
V2 = "/apis/example.com/v2/namespaces/default/jobs"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def job(version: str, name: str = "job-1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": f"example.com/{version}", "kind": "Job", "metadata": {"name": name}, "spec": spec}


async def setup(client: RawClient) -> dict[str, Any]:
    reply = await client.post(CRDS, crd(versions=["v1", "v2"]))
    assert reply.status == 201, reply.body
    return dict(reply.json())


async def test_each_version_shows_the_object_with_its_own_api_version(client: RawClient) -> None:
    await setup(client)
    created = await client.post(V2, job("v2", a=1))
    assert created.status == 201, created.body
    assert created.json()["apiVersion"] == "example.com/v2"
    at_v1 = (await client.get(f"{V1}/job-1")).json()
    at_v2 = (await client.get(f"{V2}/job-1")).json()
    assert at_v1["apiVersion"] == "example.com/v1" and at_v2["apiVersion"] == "example.com/v2"
    assert {**at_v1, "apiVersion": ""} == {**at_v2, "apiVersion": ""}
    listed = (await client.get(V2)).json()
    assert listed["apiVersion"] == "example.com/v2"
    assert [item["apiVersion"] for item in listed["items"]] == ["example.com/v2"]
    # A JSON patch sees the object at the version it is sent to.
    test_version = [{"op": "test", "path": "/apiVersion", "value": "example.com/v2"}]
    patched = await client.patch(f"{V2}/job-1", [*test_version, {"op": "replace", "path": "/spec/a", "value": 2}])
    assert patched.status == 200, patched.body
    assert patched.json()["apiVersion"] == "example.com/v2"
    refused = await client.patch(f"{V1}/job-1", test_version)
    assert refused.status == 422
    replaced = await client.put(f"{V1}/job-1", {**patched.json(), "apiVersion": "example.com/v1", "spec": {"a": 3}})
    assert replaced.status == 200, replaced.body
    assert replaced.json()["apiVersion"] == "example.com/v1"


async def test_a_watch_of_either_version_shows_its_version(server: FakeAPIServer, client: RawClient) -> None:
    await setup(client)
    async with aiohttp.ClientSession() as session, session.get(server.url + V2 + "?watch=1") as stream:
        assert (await client.post(V1, job("v1", a=1))).status == 201
        event = json.loads(await stream.content.readline())
        assert (event["type"], event["object"]["apiVersion"]) == ("ADDED", "example.com/v2")


async def test_stored_versions_grow_with_a_new_storage_version(client: RawClient) -> None:
    definition = await setup(client)
    assert (await client.post(V1, job("v1", a=1))).status == 201
    versions = definition["spec"]["versions"]
    versions[0]["storage"], versions[1]["storage"] = False, True
    updated = await client.put(f"{CRDS}/jobs.example.com", definition)
    assert updated.status == 200, updated.body
    assert updated.json()["status"]["storedVersions"] == ["v1", "v2"]
    # An object stored before the switch reads at either version.
    assert (await client.get(f"{V2}/job-1")).json()["apiVersion"] == "example.com/v2"
    assert (await client.get(f"{V1}/job-1")).json()["apiVersion"] == "example.com/v1"
    # storedVersions is pruned through status, never past the storage version.
    status = updated.json()
    status["status"]["storedVersions"] = ["v2"]
    pruned = await client.put(f"{CRDS}/jobs.example.com/status", status)
    assert pruned.status == 200, pruned.body
    assert pruned.json()["status"]["storedVersions"] == ["v2"]


async def test_a_body_at_another_version_is_refused(client: RawClient) -> None:
    await setup(client)
    for version in ("v2", "v9"):
        refused = await client.post(V1, job(version))
        assert refused.status == 400
        assert refused.json()["message"] == (
            f"the API version in the data (example.com/{version}) does not match the expected API version "
            "(example.com/v1)"
        )
    assert (await client.post(V1, job("v1"))).status == 201
    replaced = await client.put(
        f"{V2}/job-1", {**(await client.get(f"{V2}/job-1")).json(), "apiVersion": "example.com/v1"}
    )
    assert replaced.status == 400


async def test_field_managers_record_the_version_written_to(client: RawClient) -> None:
    await setup(client)
    created = await client.post(f"{V2}?fieldManager=tool", job("v2", a=1))
    entries = created.json()["metadata"]["managedFields"]
    assert [(entry["manager"], entry["apiVersion"]) for entry in entries] == [("tool", "example.com/v2")]
    assert (await client.get(f"{V1}/job-1")).json()["metadata"]["managedFields"] == entries
