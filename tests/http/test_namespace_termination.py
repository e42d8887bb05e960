"""A deleted namespace's termination window (docs/namespace-deletion.md): with the simulated
``namespace`` controller it stays ``Terminating`` with its ``kubernetes`` finalizer until the
controller acts, by settling or one write per step; without it, the same writes happen inside the
DELETE. Creates in a terminating namespace get NamespaceLifecycle's 403 in every mode."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from fakeapi import FakeAPIServer
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

NAMESPACES = "/api/v1/namespaces"
ALL_CLEAR = [
    ("NamespaceDeletionDiscoveryFailure", "False"),
    ("NamespaceDeletionGroupVersionParsingFailure", "False"),
    ("NamespaceDeletionContentFailure", "False"),
    ("NamespaceContentRemaining", "False"),
    ("NamespaceFinalizersRemaining", "False"),
]


def terminated(resource: str, name: str, namespace: str = "x") -> dict[str, Any]:
    """NamespaceLifecycle's refusal, as ``admission.NewForbidden`` builds it."""
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'{resource} "{name}" is forbidden: unable to create new content in namespace {namespace} '
        "because it is being terminated",
        "reason": "Forbidden",
        "details": {
            "name": name,
            "kind": resource,
            "causes": [
                {
                    "reason": "NamespaceTerminating",
                    "message": f"namespace {namespace} is being terminated",
                    "field": "metadata.namespace",
                }
            ],
        },
        "code": 403,
    }


def config_map(**metadata: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}


async def create_namespace(client: RawClient, name: str = "x") -> str:
    created = await client.post(NAMESPACES, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    assert created.status == 201
    return str(created.json()["metadata"]["resourceVersion"])


async def namespace_events(server: FakeAPIServer, since: str, count: int) -> list[tuple[str, dict[str, Any]]]:
    """The watch events of namespace ``x`` after resourceVersion ``since`` (replayed from history)."""
    query = f"watch=true&resourceVersion={since}&fieldSelector=metadata.name%3Dx"
    events = []
    async with aiohttp.ClientSession() as session, session.get(f"{server.url}{NAMESPACES}?{query}") as response:
        assert response.status == 200
        async with asyncio.timeout(10):
            async for line in response.content:
                event = json.loads(line)
                events.append((event["type"], event["object"]))
                if len(events) == count:
                    break
    return events


def condition_statuses(namespace: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["type"], c["status"]) for c in (namespace.get("status") or {}).get("conditions") or []]


@pytest_asyncio.fixture
async def simulated() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer(controllers="namespace") as server:
        yield server
        assert server.errors == []


@pytest_asyncio.fixture
async def on_simulated(simulated: FakeAPIServer) -> AsyncIterator[RawClient]:
    async with aiohttp.ClientSession() as session:
        yield RawClient(session, simulated.url)


async def test_a_deleted_namespace_is_terminating_until_the_controller_acts(
    simulated: FakeAPIServer, on_simulated: RawClient
) -> None:
    client = on_simulated
    await create_namespace(client)
    assert (await client.post(f"{NAMESPACES}/x/configmaps", config_map(name="settings"))).status == 201
    deleted = await client.delete(f"{NAMESPACES}/x")
    assert deleted.status == 200
    for namespace in (deleted.json(), (await client.get(f"{NAMESPACES}/x")).json()):
        assert namespace["metadata"]["deletionTimestamp"] == namespace["metadata"]["creationTimestamp"]
        assert namespace["spec"] == {"finalizers": ["kubernetes"]}
        assert namespace["status"] == {"phase": "Terminating"}
    # Nothing is deleted yet: the content is still listed, and an update to it is still allowed.
    listed = (await client.get(f"{NAMESPACES}/x/configmaps")).json()["items"]
    assert sorted(item["metadata"]["name"] for item in listed) == ["kube-root-ca.crt", "settings"]
    patched = await client.patch(
        f"{NAMESPACES}/x/configmaps/settings", {"data": {"k": "v"}}, content_type="application/merge-patch+json"
    )
    assert patched.status == 200

    simulated.advance(0)

    assert (await client.get(f"{NAMESPACES}/x")).status == 404
    assert (await client.get(f"{NAMESPACES}/x/configmaps/settings")).status == 404


async def test_creates_in_a_terminating_namespace_are_refused(on_simulated: RawClient) -> None:
    client = on_simulated
    await create_namespace(client)
    containers = [{"name": "c", "image": "busybox"}]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": containers}}
    assert (await client.post(f"{NAMESPACES}/x/pods", pod)).status == 201
    assert (await client.delete(f"{NAMESPACES}/x")).status == 200
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p", "namespace": "x"}}
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"}, "target": {"name": "node-1"}}
    cases = [
        (f"{NAMESPACES}/x/configmaps", config_map(name="c"), "configmaps", "c"),
        # Admission runs before a name is generated, and before validation.
        (f"{NAMESPACES}/x/configmaps", config_map(generateName="web-"), "configmaps", "web-"),
        (f"{NAMESPACES}/x/configmaps", config_map(), "configmaps", "Unknown"),
        (f"{NAMESPACES}/x/configmaps", config_map(name="Not_A_Name"), "configmaps", "Not_A_Name"),
        (
            f"{NAMESPACES}/x/serviceaccounts/default/token",
            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}},
            "serviceaccounts",
            "default",
        ),
        (f"{NAMESPACES}/x/pods/p/eviction", eviction, "pods", "p"),
        (f"{NAMESPACES}/x/pods/p/binding", binding, "pods", "p"),
    ]
    for path, body, resource, name in cases:
        refused = await client.post(path, body)
        assert (refused.status, refused.json()) == (403, terminated(resource, name)), path
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "LocalSubjectAccessReview",
        "metadata": {"namespace": "x"},
        "spec": {"user": "jane", "resourceAttributes": {"namespace": "x", "verb": "get", "resource": "pods"}},
    }
    # Access reviews are let through (NamespaceLifecycle's isAccessReview).
    reviews = "/apis/authorization.k8s.io/v1/namespaces/x/localsubjectaccessreviews"
    assert (await client.post(reviews, review)).status == 201


async def test_a_missing_namespace_is_not_found_for_a_subresource_create_too(client: RawClient) -> None:
    token_request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}
    refused = await client.post(f"{NAMESPACES}/nowhere/serviceaccounts/default/token", token_request)
    assert refused.status == 404
    assert refused.json()["message"] == 'namespaces "nowhere" not found'


async def test_the_controller_writes_conditions_then_finalizes_in_every_mode(
    simulated: FakeAPIServer, on_simulated: RawClient, server: FakeAPIServer, client: RawClient
) -> None:
    for running, raw in ((server, client), (simulated, on_simulated)):
        since = await create_namespace(raw)
        assert (await raw.delete(f"{NAMESPACES}/x")).status == 200
        if running is simulated:
            simulated.advance(0)
        (marked_type, marked), (conditions_type, with_conditions), (gone_type, gone) = await namespace_events(
            running, since, 3
        )
        assert (marked_type, marked["status"]) == ("MODIFIED", {"phase": "Terminating"})
        assert conditions_type == "MODIFIED"
        assert condition_statuses(with_conditions) == ALL_CLEAR
        assert with_conditions["spec"] == {"finalizers": ["kubernetes"]}
        assert gone_type == "DELETED"
        # The DELETED event carries the last stored state: the /finalize write that emptied
        # spec.finalizers deleted the namespace instead of storing it.
        assert gone["spec"] == {"finalizers": ["kubernetes"]} and condition_statuses(gone) == ALL_CLEAR


async def test_without_the_simulated_controller_a_held_namespace_refuses_creates(client: RawClient) -> None:
    await create_namespace(client)
    held = config_map(name="held", finalizers=["example.com/keep"])
    assert (await client.post(f"{NAMESPACES}/x/configmaps", held)).status == 201
    assert (await client.delete(f"{NAMESPACES}/x")).status == 200
    refused = await client.post(f"{NAMESPACES}/x/configmaps", config_map(name="late"))
    assert (refused.status, refused.json()) == (403, terminated("configmaps", "late"))
    remaining = (await client.get(f"{NAMESPACES}/x/configmaps")).json()["items"]
    assert [item["metadata"]["name"] for item in remaining] == ["held"]


async def test_stepped_one_write_at_a_time_with_a_create_raced_in_between(
    simulated: FakeAPIServer, on_simulated: RawClient
) -> None:
    client = on_simulated
    simulated.set_controllers("namespace", stepped=True)
    await create_namespace(client)
    assert (await client.post(f"{NAMESPACES}/x/configmaps", config_map(name="settings"))).status == 201
    assert (await client.delete(f"{NAMESPACES}/x")).status == 200
    made = []
    while True:
        pending = [write.describe() for write in simulated.controller_writes()]
        if not pending:
            break
        assert len(pending) == 1
        written = simulated.step_controller("namespace")
        assert written is not None and written.describe() == pending[0]
        made.append(written.describe())
        if len(made) == 1:
            # A client's create between two of the controller's writes is refused.
            refused = await client.post(f"{NAMESPACES}/x/configmaps", config_map(name="late"))
            assert refused.status == 403
    assert made == [
        "namespace: delete configmaps x/kube-root-ca.crt",
        "namespace: delete configmaps x/settings",
        "namespace: delete serviceaccounts x/default",
        "namespace: update namespaces/status x",
        "namespace: update namespaces/finalize x",
    ]
    assert (await client.get(f"{NAMESPACES}/x")).status == 404


async def test_switching_the_simulated_controller_off_finishes_what_it_left(
    simulated: FakeAPIServer, on_simulated: RawClient
) -> None:
    await create_namespace(on_simulated)
    assert (await on_simulated.delete(f"{NAMESPACES}/x")).status == 200
    assert (await on_simulated.get(f"{NAMESPACES}/x")).json()["status"] == {"phase": "Terminating"}
    simulated.set_controllers(None)
    assert (await on_simulated.get(f"{NAMESPACES}/x")).status == 404
