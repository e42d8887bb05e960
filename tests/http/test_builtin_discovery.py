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
