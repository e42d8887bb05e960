"""kubectl against kind's storage as the simulated controllers give it: ``kubectl apply`` of a claim
and a pod using it, ``kubectl wait`` for the claim to be Bound, ``kubectl get pv,pvc,sc``, on the fake
clock and on the wall clock (``fakeapi serve --controllers all``) (docs/storage.md)."""

from __future__ import annotations

from pathlib import Path

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server

START = 1_700_000_000.0  # 2023-11-14T22:13:20Z
MANIFEST = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers:
  - name: main
    image: nginx
    volumeMounts: [{name: data, mountPath: /data}]
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: data}
"""


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def apply(server: FakeAPIServer, home: Path) -> None:
    manifest = home / "app.yaml"
    manifest.write_text(MANIFEST)
    code, out, err = kubectl(server, home, "apply", "-f", str(manifest))
    assert (code, out, err) == (0, "persistentvolumeclaim/data created\npod/app created\n", "")


def test_kubectl_shows_the_default_class_and_a_provisioned_volume(tmp_path: Path) -> None:
    with threaded_server(controllers="all", clock=lambda: START, seed=7) as server:
        classes = kubectl(server, tmp_path, "get", "storageclass")
        apply(server, tmp_path)
        server.advance(0)
        claims = kubectl(server, tmp_path, "get", "pvc")
        volumes = kubectl(server, tmp_path, "get", "pv")
        uid = kubectl(server, tmp_path, "get", "pvc", "data", "-o", "jsonpath={.metadata.uid}")[1]
        pod = kubectl(server, tmp_path, "get", "pod", "app", "-o", "jsonpath={.spec.nodeName} {.status.phase}")
    assert classes[:2] == (
        0,
        "NAME                 PROVISIONER             RECLAIMPOLICY   VOLUMEBINDINGMODE      ALLOWVOLUMEEXPANSION   AGE\n"
        "standard (default)   rancher.io/local-path   Delete          WaitForFirstConsumer   false                  0s\n",
    )
    volume = f"pvc-{uid}"
    assert claims[1].splitlines()[1].split() == ["data", "Bound", volume, "1Gi", "RWO", "standard", "<unset>", "0s"]
    assert volumes[1].splitlines()[0].split() == [
        "NAME", "CAPACITY", "ACCESS", "MODES", "RECLAIM", "POLICY", "STATUS", "CLAIM", "STORAGECLASS",
        "VOLUMEATTRIBUTESCLASS", "REASON", "AGE",
    ]  # fmt: skip
    assert volumes[1].splitlines()[1].split() == [
        volume, "1Gi", "RWO", "Delete", "Bound", "default/data", "standard", "<unset>", "0s",
    ]  # fmt: skip
    assert pod[1] == "node-1 Running"


def test_kubectl_waits_for_a_claim_to_be_bound_on_the_wall_clock(tmp_path: Path) -> None:
    with threaded_server(controllers="all", real_time=True) as server:
        apply(server, tmp_path)
        code, out, err = kubectl(
            server, tmp_path, "wait", "--for=jsonpath={.status.phase}=Bound", "pvc/data", "--timeout=60s"
        )
        assert (code, out, err) == (0, "persistentvolumeclaim/data condition met\n", "")
        code, out, _ = kubectl(server, tmp_path, "wait", "--for=condition=Ready", "pod/app", "--timeout=60s")
        assert (code, out) == (0, "pod/app condition met\n")
        code, out, _ = kubectl(
            server, tmp_path, "get", "pv", "--no-headers", "-o", "custom-columns=C:.spec.claimRef.name,S:.status.phase"
        )
        assert (code, out.split()) == (0, ["data", "Bound"])
        assert kubectl(server, tmp_path, "delete", "pod", "app", "--wait=true")[0] == 0
        assert kubectl(server, tmp_path, "delete", "pvc", "data", "--wait=true")[0] == 0
        code, out, err = kubectl(server, tmp_path, "wait", "--for=delete", "pv", "--all", "--timeout=60s")
        assert code == 0, err
        assert kubectl(server, tmp_path, "get", "pv", "--no-headers")[1:] == ("", "No resources found\n")
