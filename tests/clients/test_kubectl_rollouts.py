"""kubectl against a server whose simulated controllers run on the wall clock with two nodes (``fakeapi
serve --controllers all --node a --node b``): ``kubectl rollout status`` sees a StatefulSet and a
DaemonSet roll out, roll out again after ``kubectl set image`` and back after ``kubectl rollout undo``
(docs/controllers.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server

STATEFUL_SET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: nginx
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: "nginx:1.27"}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"""
DAEMON_SET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "busybox:1.36"}]
"""


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    with threaded_server(controllers="all", real_time=True, nodes=["a", "b"]) as running:
        yield running


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def apply(server: FakeAPIServer, home: Path, manifest: str) -> None:
    path = home / "manifest.yaml"
    path.write_text(manifest)
    code, _, err = kubectl(server, home, "apply", "-f", str(path))
    assert code == 0, err


def test_kubectl_rollout_status_of_a_stateful_set(server: FakeAPIServer, tmp_path: Path) -> None:
    apply(server, tmp_path, STATEFUL_SET)
    code, out, err = kubectl(server, tmp_path, "rollout", "status", "statefulset/web", "--timeout=60s")
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "partitioned roll out complete: 3 new pods have been updated..."
    code, out, _ = kubectl(server, tmp_path, "get", "pods", "-o", "custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,STATUS:.status.phase", "--no-headers")  # fmt: skip
    assert code == 0
    rows = [line.split() for line in out.splitlines()]
    assert [row[0] for row in rows] == ["web-0", "web-1", "web-2"]
    assert {row[1] for row in rows} == {"a", "b"} and {row[2] for row in rows} == {"Running"}
    code, out, _ = kubectl(server, tmp_path, "get", "statefulset", "web", "--no-headers")
    assert out.split()[:2] == ["web", "3/3"]
    code, out, _ = kubectl(server, tmp_path, "get", "pvc", "-o", "name")
    assert out.splitlines() == [f"persistentvolumeclaim/www-web-{n}" for n in range(3)]

    assert kubectl(server, tmp_path, "set", "image", "statefulset/web", "nginx=nginx:1.28")[0] == 0
    code, out, err = kubectl(server, tmp_path, "rollout", "status", "statefulset/web", "--timeout=60s")
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "partitioned roll out complete: 3 new pods have been updated..."
    code, out, _ = kubectl(server, tmp_path, "get", "pods", "-o", "jsonpath={.items[*].spec.containers[0].image}")
    assert out.split() == ["nginx:1.28"] * 3
    code, out, _ = kubectl(server, tmp_path, "rollout", "history", "statefulset/web")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()[1:] if line.strip()] == ["REVISION", "1", "2"]

    # The rollback patches the template back from revision 1, which the controller renumbers 3.
    assert kubectl(server, tmp_path, "rollout", "undo", "statefulset/web")[1] == "statefulset.apps/web rolled back\n"
    code, out, err = kubectl(server, tmp_path, "rollout", "status", "statefulset/web", "--timeout=60s")
    assert (code, err) == (0, "")
    code, out, _ = kubectl(server, tmp_path, "get", "pods", "-o", "jsonpath={.items[*].spec.containers[0].image}")
    assert out.split() == ["nginx:1.27"] * 3
    code, out, _ = kubectl(server, tmp_path, "rollout", "history", "statefulset/web")
    assert [line.split()[0] for line in out.splitlines()[1:] if line.strip()] == ["REVISION", "2", "3"]


def test_kubectl_rollout_status_of_a_daemon_set(server: FakeAPIServer, tmp_path: Path) -> None:
    apply(server, tmp_path, DAEMON_SET)
    code, out, err = kubectl(server, tmp_path, "rollout", "status", "daemonset/agent", "--timeout=60s")
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == 'daemon set "agent" successfully rolled out'
    code, out, _ = kubectl(server, tmp_path, "get", "pods", "-o", "jsonpath={.items[*].spec.nodeName}")
    assert sorted(out.split()) == ["a", "b"]
    code, out, _ = kubectl(server, tmp_path, "get", "daemonset", "agent", "--no-headers")
    assert out.split()[:6] == ["agent", "2", "2", "2", "2", "2"]

    assert kubectl(server, tmp_path, "set", "image", "daemonset/agent", "agent=busybox:1.37")[0] == 0
    code, out, err = kubectl(server, tmp_path, "rollout", "status", "daemonset/agent", "--timeout=60s")
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == 'daemon set "agent" successfully rolled out'
    code, out, _ = kubectl(server, tmp_path, "get", "pods", "-o", "jsonpath={.items[*].spec.containers[0].image}")
    assert out.split() == ["busybox:1.37"] * 2

    assert kubectl(server, tmp_path, "rollout", "undo", "daemonset/agent")[1] == "daemonset.apps/agent rolled back\n"
    code, out, err = kubectl(server, tmp_path, "rollout", "status", "daemonset/agent", "--timeout=60s")
    assert (code, err) == (0, "")
    code, out, _ = kubectl(server, tmp_path, "get", "pods", "-o", "jsonpath={.items[*].spec.containers[0].image}")
    assert out.split() == ["busybox:1.36"] * 2
    code, out, _ = kubectl(server, tmp_path, "rollout", "history", "daemonset/agent")
    assert [line.split()[0] for line in out.splitlines()[1:] if line.strip()] == ["REVISION", "2", "3"]
