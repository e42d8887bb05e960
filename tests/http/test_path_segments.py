"""Encoded slashes and empty path segments, routed as the apiserver routes them.

Go decodes ``%2F`` before anything looks at the path; RequestInfo and go-restful 3.11 then trim
slashes at both ends and keep the empty segments inside (docs/routing.md). So ``configmaps/%2F``
is the collection (a DELETE there is a deletecollection, authorized and journaled as one), while
``configmaps/%2Fa`` and ``configmaps/a%2Fb`` match no route.
"""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from fakeapi import FakeAPIServer
from tests.conftest import RawClient, crd
from tests.http.test_rbac_enforcement import as_, binding, role

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
ROUTE_NOT_FOUND = (
    b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
    b'"message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}\n'
)


def bad_request(message: str) -> bytes:
    return (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"'
        + message.encode()
        + b'","reason":"BadRequest","code":400}\n'
    )


def configmap(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}


async def names(client: RawClient, path: str = CONFIGMAPS) -> list[str]:
    reply = await client.get(path)
    assert reply.status == 200
    return sorted(item["metadata"]["name"] for item in reply.json()["items"])


@pytest.mark.asyncio
async def test_an_encoded_slash_alone_is_the_collection_and_delete_there_is_a_deletecollection(
    server: FakeAPIServer, client: RawClient
) -> None:
    for name in ("a", "b"):
        assert (await client.post(CONFIGMAPS, configmap(name))).status == 201
    listed = await client.get(CONFIGMAPS + "/%2F")
    assert (listed.status, listed.json()["kind"]) == (200, "ConfigMapList")
    deleted = await client.delete(CONFIGMAPS + "/%2F")
    assert (deleted.status, deleted.json()["kind"]) == (200, "ConfigMapList")
    assert [n for n in await names(client) if n in ("a", "b")] == []
    entry = [e for e in server.journal if e.method == "DELETE"][-1]
    assert (entry.verb, entry.resource, entry.name) == ("deletecollection", "configmaps", "")


@pytest.mark.asyncio
async def test_the_collection_delete_behind_an_encoded_slash_needs_the_deletecollection_permission() -> None:
    async with FakeAPIServer(authorization="rbac") as server, aiohttp.ClientSession() as session:
        admin = as_(server, session, actor="admin", groups=["system:masters"])
        grants = role("deleter", {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["delete", "list"]})
        subject = {"kind": "ServiceAccount", "name": "operator", "namespace": "default"}
        assert (await admin.post("/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", grants)).status == 201
        bound = binding("deleter", "Role", "deleter", subject)
        assert (
            await admin.post("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", bound)
        ).status == 201
        assert (await admin.post(CONFIGMAPS, configmap("a"))).status == 201
        operator = as_(server, session, actor="op", service_account="default/operator")
        revision = server.revision
        refused = await operator.delete(CONFIGMAPS + "/%2F")
        assert refused.status == 403
        assert refused.json()["message"] == (
            'configmaps is forbidden: User "system:serviceaccount:default:operator" cannot deletecollection '
            'resource "configmaps" in API group "" in the namespace "default"'
        )
        assert server.revision == revision
        assert "a" in await names(admin)


@pytest.mark.asyncio
@pytest.mark.parametrize("tail", ["%2Fa", "a%2Fb", "a%2F%2Fb", "%2F%2Fa"])
async def test_an_encoded_slash_inside_a_name_matches_no_route_and_deletes_nothing(
    client: RawClient, tail: str
) -> None:
    assert (await client.post(CONFIGMAPS, configmap("a"))).status == 201
    for method in ("GET", "DELETE", "PUT"):
        reply = await client.request(method, f"{CONFIGMAPS}/{tail}", configmap("a") if method == "PUT" else None)
        assert (reply.status, reply.body) == (404, ROUTE_NOT_FOUND), (method, tail)
    assert "a" in await names(client)


@pytest.mark.asyncio
async def test_trailing_encoded_slashes_are_trimmed_like_plain_ones(client: RawClient) -> None:
    assert (await client.post(CONFIGMAPS, configmap("a"))).status == 201
    for tail in ("a/", "a%2F", "a%2F%2F"):
        reply = await client.get(f"{CONFIGMAPS}/{tail}")
        assert (reply.status, reply.json()["metadata"]["name"]) == (200, "a"), tail


@pytest.mark.asyncio
async def test_an_empty_name_before_a_subresource_is_routed_and_refused_by_the_handler(client: RawClient) -> None:
    for method in ("GET", "PUT", "PATCH"):
        reply = await client.request(method, "/api/v1/namespaces/default/pods//status", {})
        assert (reply.status, reply.body) == (400, bad_request("name must be provided")), method


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/namespaces/default/pods/p/status/extra",
        "/api/v1/namespaces/default/configmaps/a/b/c",
        "/api/v1/watch/namespaces/default/pods/p/status",
        "/api/v1/namespaces/x/status/extra",
    ],
)
async def test_segments_past_the_longest_route_are_not_found(client: RawClient, path: str) -> None:
    reply = await client.get(path)
    assert (reply.status, reply.body) == (404, ROUTE_NOT_FOUND)


@pytest.mark.asyncio
async def test_an_empty_namespace_segment_lists_every_namespace_and_refuses_a_named_verb(client: RawClient) -> None:
    assert (await client.post("/api/v1/namespaces", {"metadata": {"name": "other"}})).status == 201
    assert (await client.post("/api/v1/namespaces/other/configmaps", configmap("elsewhere"))).status == 201
    listed = await client.get("/api/v1/namespaces//configmaps")
    assert listed.status == 200
    assert {item["metadata"]["namespace"] for item in listed.json()["items"]} >= {"default", "other"}
    for method in ("GET", "DELETE", "PUT"):
        reply = await client.request(method, "/api/v1/namespaces//configmaps/elsewhere", configmap("elsewhere"))
        assert (reply.status, reply.body) == (400, bad_request("Namespace parameter required.")), method
    assert "elsewhere" in await names(client, "/api/v1/namespaces/other/configmaps")


@pytest.mark.asyncio
async def test_a_custom_resource_is_served_from_request_info_alone(client: RawClient) -> None:
    assert (await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())).status == 201
    jobs = "/apis/example.com/v1/namespaces/default/jobs"
    created = await client.post(jobs, {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "j"}})
    assert created.status == 201
    # The CRD handler reads only RequestInfo's resource, name and subresource: segments after the
    # subresource are not looked at, and an empty name before a subresource is a name like any other.
    status = await client.get(jobs + "/j/status/extra")
    assert (status.status, status.json()["metadata"]["name"]) == (200, "j")
    missing = await client.get(jobs + "/%2Fj")
    assert missing.status == 404
    assert missing.json()["message"] == 'jobs.example.com "" not found'
    assert (await client.get(jobs + "/j")).status == 200
    nameless_get = await client.get(jobs + "//status")
    assert (nameless_get.status, nameless_get.json()["message"]) == (
        405,
        'list is not supported on resources of kind "jobs.example.com"',
    )
    nameless_put = await client.put(jobs + "//status", {"apiVersion": "example.com/v1", "kind": "Job"})
    assert (nameless_put.status, nameless_put.body) == (400, bad_request("name must be provided"))
