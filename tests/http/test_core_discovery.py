"""The core group's resource list: the namespace entries as kube-apiserver lists them.

``namespaces/finalize`` (PUT only) sits between ``namespaces`` and ``namespaces/status``; a PUT to it
replaces the namespace's spec.finalizers and keeps its status, as ``namespaceFinalizeStrategy`` does.
"""

from __future__ import annotations

import pytest

from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio


async def test_the_namespace_subresources_are_listed_in_order(client: RawClient) -> None:
    reply = await client.get("/api/v1")
    assert reply.status == 200
    entries = [entry for entry in reply.json()["resources"] if entry["name"].startswith("namespaces")]
    assert [(entry["name"], entry["verbs"]) for entry in entries] == [
        ("namespaces", ["create", "delete", "get", "list", "patch", "update", "watch"]),
        ("namespaces/finalize", ["update"]),
        ("namespaces/status", ["get", "patch", "update"]),
    ]
    assert entries[1] == {
        "name": "namespaces/finalize",
        "singularName": "",
        "namespaced": False,
        "kind": "Namespace",
        "verbs": ["update"],
    }


async def test_a_put_to_finalize_replaces_the_spec_finalizers_and_keeps_the_status(client: RawClient) -> None:
    created = await client.post(
        "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}
    )
    assert created.status == 201, created.body
    namespace = created.json()
    assert namespace["spec"] == {"finalizers": ["kubernetes"]}
    namespace["spec"] = {"finalizers": ["example.com/last"]}
    namespace["status"] = {"phase": "Terminating"}
    finalized = await client.put("/api/v1/namespaces/x/finalize", namespace)
    assert finalized.status == 200, finalized.body
    assert finalized.json()["spec"] == {"finalizers": ["example.com/last"]}
    assert finalized.json()["status"] == {"phase": "Active"}
    assert (await client.get("/api/v1/namespaces/x")).json()["spec"] == {"finalizers": ["example.com/last"]}


async def test_a_built_in_subresource_answers_unrouted_verbs_and_names_as_go_restful_does(client: RawClient) -> None:
    created = await client.post(
        "/api/v1/namespaces/default/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    )
    assert created.status == 201, created.body
    wrong_verb = await client.get("/api/v1/namespaces/default/finalize")
    assert (wrong_verb.status, wrong_verb.json()["reason"], wrong_verb.json()["message"]) == (
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
    )
    unknown = await client.get("/api/v1/namespaces/default/configmaps/c/nothing")
    assert (unknown.status, unknown.json()["reason"], unknown.json()["message"]) == (
        404,
        "NotFound",
        "the server could not find the requested resource",
    )
