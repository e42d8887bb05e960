"""Objects and steps several controller test modules share: a Deployment of one ``main`` container,
and a pod created and run at once on the fake node."""

from __future__ import annotations

from typing import Any

from fakeapi import FakeAPIServer
from tests.conftest import RawClient

PODS = "/api/v1/namespaces/default/pods"


def deployment(name: str, replicas: int, image: str = "nginx") -> dict[str, Any]:
    """A Deployment ``name`` of ``replicas`` pods labelled ``app: <name>``, one ``main`` container each."""
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "main", "image": image}]}},
        },
    }


async def started(server: FakeAPIServer, client: RawClient, name: str, image: str = "web") -> None:
    """A pod ``name`` that never restarts, created and taken through the kubelet's first steps."""
    spec = {"restartPolicy": "Never", "containers": [{"name": "main", "image": image}]}
    created = await client.post(PODS, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})
    assert created.status == 201
    server.advance(0)
