"""``kube-system`` as a new one-node kind cluster holds it, and ``componentstatuses``
(docs/control-plane-pods.md): through kubectl against ``fakeapi serve``, raw HTTP, and the pytest fixture."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from fakeapi import FakeAPIServer
from tests.cli.serving import ServeProcess, home_env, require_tool

START = 1_700_000_000.0
WARNING = '299 - "v1 ComponentStatus is deprecated in v1.19+"'
HEALTHY_LIST = (
    b'{"kind":"ComponentStatusList","apiVersion":"v1","metadata":{},"items":['
    b'{"metadata":{"name":"scheduler","creationTimestamp":null},'
    b'"conditions":[{"type":"Healthy","status":"True","message":"ok"}]},'
    b'{"metadata":{"name":"controller-manager","creationTimestamp":null},'
    b'"conditions":[{"type":"Healthy","status":"True","message":"ok"}]},'
    b'{"metadata":{"name":"etcd-0","creationTimestamp":null},"conditions":[{"type":"Healthy","status":"True"}]}]}\n'
)
KUBE_SYSTEM_PODS = re.compile(
    r"coredns-668d6bf9bc-[a-z0-9]{5}\tRunning\tnode-1\n"
    r"coredns-668d6bf9bc-[a-z0-9]{5}\tRunning\tnode-1\n"
    r"etcd-node-1\tRunning\tnode-1\n"
    r"kindnet-[a-z0-9]{5}\tRunning\tnode-1\n"
    r"kube-apiserver-node-1\tRunning\tnode-1\n"
    r"kube-controller-manager-node-1\tRunning\tnode-1\n"
    r"kube-proxy-[a-z0-9]{5}\tRunning\tnode-1\n"
    r"kube-scheduler-node-1\tRunning\tnode-1\n"
)


def call(server: FakeAPIServer, path: str) -> tuple[int, str | None, bytes]:
    try:
        with urllib.request.urlopen(server.url + path) as response:
            return response.status, response.headers.get("Warning"), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Warning"), error.read()


def kubectl(kubeconfig: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    binary = require_tool("kubectl", "kubectl against fakeapi serve")
    return subprocess.run(
        [binary, "--kubeconfig", str(kubeconfig), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=home_env(home),
        check=False,
    )


def tabbed(text: str) -> str:
    return "\n".join("\t".join(line.split()) for line in text.splitlines()) + "\n"


def test_kubectl_sees_the_control_plane_running_in_kube_system(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    with ServeProcess("--port", "0", "--controllers", "all", "--kubeconfig", str(kubeconfig)):
        columns = "custom-columns=NAME:.metadata.name,PHASE:.status.phase,NODE:.spec.nodeName"
        pods = kubectl(kubeconfig, tmp_path, "get", "pods", "-n", "kube-system", "--no-headers", "-o", columns)
        apiserver = kubectl(
            kubeconfig, tmp_path, "get", "pods", "-n", "kube-system", "-l", "component=kube-apiserver", "-o", "json"
        )
        workloads = kubectl(kubeconfig, tmp_path, "get", "deployments,daemonsets,services", "-n", "kube-system")
        statuses = kubectl(kubeconfig, tmp_path, "get", "componentstatuses")

    assert (pods.returncode, pods.stderr) == (0, "")
    assert KUBE_SYSTEM_PODS.fullmatch(tabbed(pods.stdout)), pods.stdout
    [mirror] = json.loads(apiserver.stdout)["items"]
    meta = mirror["metadata"]
    assert meta["labels"] == {"component": "kube-apiserver", "tier": "control-plane"}
    assert meta["annotations"]["kubernetes.io/config.source"] == "file"
    assert meta["annotations"]["kubernetes.io/config.mirror"] == meta["annotations"]["kubernetes.io/config.hash"]
    assert meta["annotations"]["kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint"] == "172.18.0.2:6443"
    assert [(o["kind"], o["name"], o["controller"]) for o in meta["ownerReferences"]] == [("Node", "node-1", True)]
    assert mirror["spec"]["priorityClassName"] == "system-node-critical"
    assert mirror["spec"]["priority"] == 2000001000
    assert mirror["spec"]["containers"][0]["image"] == "registry.k8s.io/kube-apiserver:v1.32.0"
    assert mirror["status"]["podIP"] == "172.18.0.2"
    assert [line.split()[:2] for line in workloads.stdout.splitlines() if line] == [
        ["NAME", "READY"],
        ["deployment.apps/coredns", "2/2"],
        ["NAME", "DESIRED"],
        ["daemonset.apps/kindnet", "1"],
        ["daemonset.apps/kube-proxy", "1"],
        ["NAME", "TYPE"],
        ["service/kube-dns", "ClusterIP"],
    ]
    assert "10.96.0.10" in workloads.stdout
    assert statuses.returncode == 0
    assert statuses.stderr == "Warning: v1 ComponentStatus is deprecated in v1.19+\n"
    assert statuses.stdout == (
        "NAME                 STATUS    MESSAGE   ERROR\n"
        "scheduler            Healthy   ok        \n"
        "controller-manager   Healthy   ok        \n"
        "etcd-0               Healthy             \n"
    )


def test_the_switch_leaves_kube_system_empty(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    with ServeProcess(
        "--port", "0", "--controllers", "all", "--no-control-plane-pods", "--kubeconfig", str(kubeconfig)
    ):
        pods = kubectl(kubeconfig, tmp_path, "get", "pods,deployments,daemonsets", "-n", "kube-system")
        node = kubectl(kubeconfig, tmp_path, "get", "node", "node-1", "-o", "jsonpath={.metadata.labels}")

    assert (pods.returncode, pods.stdout) == (0, "")
    assert pods.stderr == "No resources found in kube-system namespace.\n"
    assert "node-role.kubernetes.io/control-plane" not in node.stdout


def test_component_statuses_answer_with_the_deprecation_warning() -> None:
    with FakeAPIServer(controllers="all", clock=lambda: START) as server:
        listed = call(server, "/api/v1/componentstatuses")
        one = call(server, "/api/v1/componentstatuses/etcd-0")
        selected = call(server, "/api/v1/componentstatuses?fieldSelector=metadata.name%3Dscheduler")
        missing = call(server, "/api/v1/componentstatuses/etcd-1")

    assert listed == (200, WARNING, HEALTHY_LIST)
    assert one == (
        200,
        WARNING,
        b'{"kind":"ComponentStatus","apiVersion":"v1","metadata":{"name":"etcd-0","creationTimestamp":null},'
        b'"conditions":[{"type":"Healthy","status":"True"}]}\n',
    )
    assert json.loads(selected[2])["items"] == [json.loads(HEALTHY_LIST)["items"][0]]
    assert missing[:2] == (500, WARNING)
    assert json.loads(missing[2]) == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "Component not found: etcd-1",
        "code": 500,
    }


def test_without_controllers_the_scheduler_and_controller_manager_do_not_answer() -> None:
    with FakeAPIServer(clock=lambda: START) as server:
        status, warning, body = call(server, "/api/v1/componentstatuses")

    assert (status, warning) == (200, WARNING)
    conditions = {item["metadata"]["name"]: item["conditions"] for item in json.loads(body)["items"]}
    assert conditions == {
        "scheduler": [
            {
                "type": "Healthy",
                "status": "Unknown",
                "error": 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused',
            }
        ],
        "controller-manager": [
            {
                "type": "Healthy",
                "status": "Unknown",
                "error": 'Get "https://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection refused',
            }
        ],
        "etcd-0": [{"type": "Healthy", "status": "True"}],
    }


@pytest.mark.parametrize("controller", ["resourcequota", "disruption", "horizontalpodautoscaling", "job"])
def test_any_controller_of_kube_controller_manager_makes_it_answer(controller: str) -> None:
    with FakeAPIServer(controllers=controller, clock=lambda: START) as server:
        status, _, body = call(server, "/api/v1/componentstatuses/controller-manager")

    assert status == 200
    assert json.loads(body)["conditions"] == [{"type": "Healthy", "status": "True", "message": "ok"}]


def _kube_system(fakeapi: Any, kind: str, group: str = "") -> list[dict[str, Any]]:
    prefix = f"/apis/{group}/v1" if group else "/api/v1"
    with urllib.request.urlopen(f"{fakeapi.url}{prefix}/namespaces/kube-system/{kind}") as response:
        items: list[dict[str, Any]] = json.loads(response.read())["items"]
    return items


@pytest.mark.fakeapi(controllers="all")
def test_the_fixture_starts_each_test_with_the_control_plane_running(fakeapi: Any) -> None:
    pods = _kube_system(fakeapi, "pods")
    assert sorted(p["metadata"]["labels"].get("component", p["metadata"]["labels"].get("k8s-app")) for p in pods) == [
        "etcd",
        "kindnet",
        "kube-apiserver",
        "kube-controller-manager",
        "kube-dns",
        "kube-dns",
        "kube-proxy",
        "kube-scheduler",
    ]
    assert {p["status"]["phase"] for p in pods} == {"Running"}
    [deployment] = _kube_system(fakeapi, "deployments", "apps")
    assert deployment["status"]["availableReplicas"] == 2


def test_a_restore_brings_kube_system_back_as_it_was() -> None:
    with FakeAPIServer(controllers="all", clock=lambda: START) as server:
        pristine = server.snapshot()
        server.restore(pristine)
        before = _pods_of(server)
        request = urllib.request.Request(
            f"{server.url}/apis/apps/v1/namespaces/kube-system/deployments/coredns", method="DELETE"
        )
        with urllib.request.urlopen(request) as response:
            assert response.status == 200
        server.restore(pristine)
        after = _pods_of(server)

    assert len(before) == 8
    assert after == before


def _pods_of(server: FakeAPIServer) -> list[tuple[str, str, str]]:
    with urllib.request.urlopen(f"{server.url}/api/v1/namespaces/kube-system/pods") as response:
        items = json.loads(response.read())["items"]
    return [(p["metadata"]["name"], p["metadata"]["uid"], p["metadata"]["resourceVersion"]) for p in items]


@pytest.mark.fakeapi(controllers="all", control_plane_pods=False)
def test_the_marker_switch_leaves_kube_system_empty(fakeapi: Any) -> None:
    assert _kube_system(fakeapi, "pods") == []
    assert _kube_system(fakeapi, "deployments", "apps") == []
    assert _kube_system(fakeapi, "daemonsets", "apps") == []
