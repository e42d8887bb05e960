"""The storage controllers stepped one write at a time (docs/controllers.md "In scenarios",
docs/storage.md): each writes what it announced, and in any order they bind a StatefulSet's claims
and run its pods as settling does."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi import FakeAPIServer
from tests.controllers.random_steps import step_at_random

START = 1_700_000_000.0
CLAIM_TEMPLATE = {
    "metadata": {"name": "data"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
}
STATEFUL_SET = {
    "apiVersion": "apps/v1",
    "kind": "StatefulSet",
    "metadata": {"name": "db"},
    "spec": {
        "replicas": 2,
        "serviceName": "db",
        "selector": {"matchLabels": {"app": "db"}},
        "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "m", "image": "nginx"}]}},
        "volumeClaimTemplates": [CLAIM_TEMPLATE],
    },
}


def listed(server: FakeAPIServer, kind: str, namespace: str | None = "default") -> list[dict[str, Any]]:
    return server._state.store.items(server.resource_type("v1", kind), namespace)


def summary(server: FakeAPIServer) -> dict[str, Any]:
    claims = listed(server, "PersistentVolumeClaim")
    volumes = listed(server, "PersistentVolume", None)
    return {
        "ready": server.get("apps/v1", "StatefulSet", "db")["status"].get("readyReplicas"),
        "claims": sorted(
            (c["metadata"]["name"], c["status"]["phase"], c["spec"]["volumeName"] == f"pvc-{c['metadata']['uid']}")
            for c in claims
        ),
        "volumes": sorted((v["spec"]["claimRef"]["name"], v["status"]["phase"]) for v in volumes),
        "nodes": sorted(p["spec"].get("nodeName") for p in listed(server, "Pod")),
    }


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_stepped_storage_controllers_bind_what_settling_binds(seed: int) -> None:
    settled = FakeAPIServer(seed=5, clock=lambda: START, controllers="all")
    settled.load(STATEFUL_SET)
    settled.advance(30)

    stepped = FakeAPIServer(seed=5, clock=lambda: START)
    stepped.set_controllers("all", stepped=True)
    stepped.load(STATEFUL_SET)
    storage = {
        written.controller
        for written in step_at_random(stepped, seed, None)
        if written.controller in ("persistentvolume-binder", "local-path-provisioner")
    }
    assert storage == {"persistentvolume-binder", "local-path-provisioner"}
    assert summary(stepped) == summary(settled)
    assert summary(settled) == {
        "ready": 2,
        "claims": [("data-db-0", "Bound", True), ("data-db-1", "Bound", True)],
        "volumes": [("data-db-0", "Bound"), ("data-db-1", "Bound")],
        "nodes": ["node-1", "node-1"],
    }
