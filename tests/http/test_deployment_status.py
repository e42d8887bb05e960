"""A write to ``deployments/status`` keeps only spec and labels from the stored Deployment
(``pkg/registry/apps/deployment/strategy.go`` ``deploymentStatusStrategy.PrepareForUpdate``): the
Deployment controller sets the revision annotation that way."""

from __future__ import annotations

import pytest

from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"


async def test_a_status_write_sets_annotations_but_not_labels_or_spec(client: RawClient) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }
    assert (await client.post(DEPLOYMENTS, deployment)).status == 201
    patch = {
        "metadata": {"labels": {"app": "other"}, "annotations": {"deployment.kubernetes.io/revision": "1"}},
        "spec": {"replicas": 5},
        "status": {"observedGeneration": 1},
    }
    reply = await client.patch(f"{DEPLOYMENTS}/web/status", patch, content_type="application/merge-patch+json")
    assert reply.status == 200, reply.json()
    stored = (await client.get(f"{DEPLOYMENTS}/web")).json()
    assert stored["metadata"]["annotations"] == {"deployment.kubernetes.io/revision": "1"}
    assert stored["metadata"]["labels"] == {"app": "web"}
    assert (stored["spec"]["replicas"], stored["status"]) == (1, {"observedGeneration": 1})
