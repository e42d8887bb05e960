"""A namespace being deleted: emptied, held while its content has finalizers, and why, as the namespace controller writes it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

OK_CONDITIONS = [
    ("NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered", "All resources successfully discovered"),
    (
        "NamespaceDeletionGroupVersionParsingFailure",
        "False",
        "ParsedGroupVersions",
        "All legacy kube types successfully parsed",
    ),
    (
        "NamespaceDeletionContentFailure",
        "False",
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    ),
]


def conditions_of(namespace: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(c["type"], c["status"], c["reason"], c["message"]) for c in namespace["status"]["conditions"]]


async def namespace_with_held_content(client: RawClient) -> None:
    await client.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}})
    for name, finalizers in (
        ("held", ["example.com/keep", "example.com/audit"]),
        ("also", ["example.com/keep"]),
        ("free", []),
    ):
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "finalizers": finalizers}}
        assert (await client.post("/api/v1/namespaces/x/configmaps", body)).status == 201
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "finalizers": ["example.com/keep"]}}
    assert (await client.post("/api/v1/namespaces/x/secrets", secret)).status == 201


async def test_a_namespace_held_by_finalizers_says_what_remains(client: RawClient) -> None:
    await namespace_with_held_content(client)
    assert (await client.delete("/api/v1/namespaces/x")).status == 200
    namespace = (await client.get("/api/v1/namespaces/x")).json()
    assert namespace["status"]["phase"] == "Terminating"
    assert conditions_of(namespace) == [
        *OK_CONDITIONS,
        (
            "NamespaceContentRemaining",
            "True",
            "SomeResourcesRemain",
            "Some resources are remaining: configmaps. has 2 resource instances, secrets. has 1 resource instances",
        ),
        (
            "NamespaceFinalizersRemaining",
            "True",
            "SomeFinalizersRemain",
            "Some content in the namespace has finalizers remaining: example.com/audit in 1 resource instances, "
            "example.com/keep in 3 resource instances",
        ),
    ]
    fields = namespace["metadata"]["managedFields"][-1]
    assert (fields["manager"], fields["subresource"]) == ("kube-controller-manager", "status")
    assert (await client.get("/api/v1/namespaces/x/configmaps/free")).status == 404


async def test_the_conditions_follow_the_content_until_the_namespace_goes(client: RawClient) -> None:
    await namespace_with_held_content(client)
    await client.delete("/api/v1/namespaces/x")
    release = {"metadata": {"finalizers": None}}
    for path in ("configmaps/held", "configmaps/also"):
        reply = await client.patch(f"/api/v1/namespaces/x/{path}", release, content_type="application/merge-patch+json")
        assert reply.status == 200, reply.body
    namespace = (await client.get("/api/v1/namespaces/x")).json()
    assert conditions_of(namespace)[3:] == [
        (
            "NamespaceContentRemaining",
            "True",
            "SomeResourcesRemain",
            "Some resources are remaining: secrets. has 1 resource instances",
        ),
        (
            "NamespaceFinalizersRemaining",
            "True",
            "SomeFinalizersRemain",
            "Some content in the namespace has finalizers remaining: example.com/keep in 1 resource instances",
        ),
    ]
    await client.patch("/api/v1/namespaces/x/secrets/s", release, content_type="application/merge-patch+json")
    assert (await client.get("/api/v1/namespaces/x")).status == 404


async def test_a_spec_finalizer_of_its_own_keeps_the_emptied_namespace(client: RawClient) -> None:
    created = await client.post(
        "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}
    )
    namespace = created.json()
    namespace["spec"] = {"finalizers": ["kubernetes", "example.com/last"]}
    assert (await client.put("/api/v1/namespaces/x/finalize", namespace)).status == 200
    await client.delete("/api/v1/namespaces/x")
    held = (await client.get("/api/v1/namespaces/x")).json()
    assert held["spec"] == {"finalizers": ["example.com/last"]}
    assert conditions_of(held)[3:] == [
        ("NamespaceContentRemaining", "False", "ContentRemoved", "All content successfully removed"),
        (
            "NamespaceFinalizersRemaining",
            "False",
            "ContentHasNoFinalizers",
            "All content-preserving finalizers finished",
        ),
    ]
    held["spec"] = {"finalizers": []}
    assert (await client.put("/api/v1/namespaces/x/finalize", held)).status == 200
    assert (await client.get("/api/v1/namespaces/x")).status == 404
