"""``kubectl delete --cascade=...`` as it behaves against a cluster with a garbage collector
(docs/garbage-collection.md): background deletes the dependents, orphan keeps them without the
reference, foreground deletes them first and keeps the owner until none blocks it."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server

LABELS = {"app": "web"}
POD_SPEC: dict[str, Any] = {"containers": [{"name": "web", "image": "nginx"}]}
TEMPLATE: dict[str, Any] = {"metadata": {"labels": LABELS}, "spec": POD_SPEC}


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    with threaded_server() as running:
        yield running


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def reference(owner: dict[str, Any], *, block: bool = True, controller: bool = True) -> dict[str, Any]:
    meta = owner["metadata"]
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": controller,
        "blockOwnerDeletion": block,
    }


def family(server: FakeAPIServer, *, pod_finalizers: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """A Deployment owning a ReplicaSet owning a Pod, and a ConfigMap owned by the Deployment and by
    another ConfigMap that stays."""
    spec = {"selector": {"matchLabels": LABELS}, "template": TEMPLATE}
    (deployment,) = server.load(
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": spec}
    )
    (keeper,) = server.load({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "keeper"}})
    (replicas,) = server.load(
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": "web-1", "ownerReferences": [reference(deployment)]},
            "spec": spec,
        }
    )
    pod_meta: dict[str, Any] = {"name": "web-1-a", "labels": LABELS, "ownerReferences": [reference(replicas)]}
    if pod_finalizers:
        pod_meta["finalizers"] = list(pod_finalizers)
    (pod,) = server.load({"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": TEMPLATE["spec"]})
    shared_meta = {
        "name": "shared",
        # The apiserver takes one controller reference at most (ValidateOwnerReferences).
        "ownerReferences": [reference(deployment, block=False), reference(keeper, block=False, controller=False)],
    }
    (shared,) = server.load({"apiVersion": "v1", "kind": "ConfigMap", "metadata": shared_meta})
    return {"deployment": deployment, "replicas": replicas, "pod": pod, "shared": shared, "keeper": keeper}


def present(server: FakeAPIServer) -> dict[str, bool]:
    return {
        "deployment": server.find("apps/v1", "Deployment", "web") is not None,
        "replicas": server.find("apps/v1", "ReplicaSet", "web-1") is not None,
        "pod": server.find("v1", "Pod", "web-1-a") is not None,
        "shared": server.find("v1", "ConfigMap", "shared") is not None,
    }


def test_background_deletes_the_dependents_and_spares_one_with_another_owner(
    server: FakeAPIServer, tmp_path: Path
) -> None:
    objects = family(server)
    assert kubectl(server, tmp_path, "delete", "deployment", "web") == (0, 'deployment.apps "web" deleted\n', "")
    assert present(server) == {"deployment": False, "replicas": False, "pod": False, "shared": True}
    shared = server.get("v1", "ConfigMap", "shared")
    assert [ref["name"] for ref in shared["metadata"]["ownerReferences"]] == ["keeper"]
    assert objects["keeper"]["metadata"]["uid"] == shared["metadata"]["ownerReferences"][0]["uid"]


def test_orphan_keeps_the_dependents_without_the_reference(server: FakeAPIServer, tmp_path: Path) -> None:
    family(server)
    code, _, errors = kubectl(server, tmp_path, "delete", "deployment", "web", "--cascade=orphan")
    assert (code, errors) == (0, "")
    assert present(server) == {"deployment": False, "replicas": True, "pod": True, "shared": True}
    assert "ownerReferences" not in server.get("apps/v1", "ReplicaSet", "web-1")["metadata"]
    assert server.get("v1", "Pod", "web-1-a")["metadata"]["ownerReferences"][0]["name"] == "web-1"


def test_foreground_waits_for_a_blocking_dependent(server: FakeAPIServer, tmp_path: Path) -> None:
    family(server, pod_finalizers=("example.com/hold",))
    code, _, errors = kubectl(server, tmp_path, "delete", "deployment", "web", "--cascade=foreground", "--wait=false")
    assert (code, errors) == (0, "")
    deployment = server.get("apps/v1", "Deployment", "web")
    assert deployment["metadata"]["finalizers"] == ["foregroundDeletion"]
    replicas = server.get("apps/v1", "ReplicaSet", "web-1")
    assert replicas["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert "deletionTimestamp" in server.get("v1", "Pod", "web-1-a")["metadata"]
    assert present(server)["shared"] and "ownerReferences" in server.get("v1", "ConfigMap", "shared")["metadata"]

    unblock = json.dumps([{"op": "remove", "path": "/metadata/finalizers"}])
    code, _, errors = kubectl(server, tmp_path, "patch", "pod", "web-1-a", "--type=json", "-p", unblock)
    assert (code, errors) == (0, "")
    assert present(server) == {"deployment": False, "replicas": False, "pod": False, "shared": True}


def test_a_job_deleted_without_a_policy_orphans_its_pods_as_batch_v1_does(server: FakeAPIServer) -> None:
    job_spec = {"template": {**TEMPLATE, "spec": {**POD_SPEC, "restartPolicy": "Never"}}}
    (job,) = server.load({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once"}, "spec": job_spec})
    server.load(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "once-a", "ownerReferences": [reference(job)]},
            "spec": TEMPLATE["spec"],
        }
    )
    request = urllib.request.Request(server.url + "/apis/batch/v1/namespaces/default/jobs/once", method="DELETE")
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
    assert server.find("batch/v1", "Job", "once") is None
    assert "ownerReferences" not in server.get("v1", "Pod", "once-a")["metadata"]


def test_dependents_are_found_after_a_restore_and_after_their_references_change(server: FakeAPIServer) -> None:
    snapshot = server.snapshot()
    objects = family(server)
    server.restore(snapshot)
    assert present(server) == {"deployment": False, "replicas": False, "pod": False, "shared": False}
    objects = family(server)
    kept = server.get("v1", "Pod", "web-1-a")
    freed = {**kept, "metadata": {key: value for key, value in kept["metadata"].items() if key != "ownerReferences"}}
    server.apply(freed)
    assert "ownerReferences" not in server.get("v1", "Pod", "web-1-a")["metadata"]
    server.delete("apps/v1", "ReplicaSet", objects["replicas"]["metadata"]["name"])
    assert server.find("apps/v1", "ReplicaSet", "web-1") is None
    assert server.find("v1", "Pod", "web-1-a") is not None  # no longer its dependent
