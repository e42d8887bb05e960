"""kubectl rolling Deployments out against ``fakeapi serve --controllers all`` (wall clock): ``rollout
status`` returns, ``scale`` and ``set image`` roll out, ``rollout history`` lists the revisions, and the
ReplicaSet carries the pod-template-hash a real cluster gives ``kubectl create deployment`` (docs/controllers.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    with threaded_server(controllers="all", real_time=True) as running:
        yield running


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def test_kubectl_rolls_a_deployment_out_scales_it_and_lists_its_history(server: FakeAPIServer, tmp_path: Path) -> None:
    assert kubectl(server, tmp_path, "create", "deployment", "nginx", "--image=nginx", "--replicas=3")[0] == 0
    code, out, err = kubectl(server, tmp_path, "rollout", "status", "deployment/nginx", "--timeout=60s")
    assert (code, out.splitlines()[-1], err) == (0, 'deployment "nginx" successfully rolled out', "")
    code, out, _ = kubectl(server, tmp_path, "get", "rs", "--no-headers")
    assert out.split()[:4] == ["nginx-5869d7778c", "3", "3", "3"]

    assert kubectl(server, tmp_path, "set", "image", "deployment/nginx", "nginx=nginx:1.27")[0] == 0
    assert kubectl(server, tmp_path, "annotate", "deployment/nginx", "kubernetes.io/change-cause=nginx 1.27")[0] == 0
    code, out, _ = kubectl(server, tmp_path, "rollout", "status", "deployment/nginx", "--timeout=60s")
    assert (code, out.splitlines()[-1]) == (0, 'deployment "nginx" successfully rolled out')

    assert kubectl(server, tmp_path, "scale", "deployment/nginx", "--replicas=5")[0] == 0
    code, out, _ = kubectl(server, tmp_path, "rollout", "status", "deployment/nginx", "--timeout=60s")
    assert (code, out.splitlines()[-1]) == (0, 'deployment "nginx" successfully rolled out')
    code, out, _ = kubectl(server, tmp_path, "get", "deployment", "nginx", "--no-headers")
    assert out.split()[:4] == ["nginx", "5/5", "5", "5"]

    code, out, _ = kubectl(server, tmp_path, "rollout", "history", "deployment/nginx")
    assert code == 0
    assert [line.split(None, 1) for line in out.splitlines()[1:] if line.strip()] == [
        ["REVISION", "CHANGE-CAUSE"],
        ["1", "<none>"],
        ["2", "nginx 1.27"],
    ]
    code, out, _ = kubectl(server, tmp_path, "rollout", "history", "deployment/nginx", "--revision=2")
    assert code == 0 and "Image:\tnginx:1.27" in out
    code, out, _ = kubectl(server, tmp_path, "get", "rs", "--no-headers", "-o", "custom-columns=N:.spec.replicas")
    assert sorted(out.split()) == ["0", "5"]

    assert kubectl(server, tmp_path, "rollout", "undo", "deployment/nginx")[0] == 0
    code, out, _ = kubectl(server, tmp_path, "rollout", "status", "deployment/nginx", "--timeout=60s")
    assert (code, out.splitlines()[-1]) == (0, 'deployment "nginx" successfully rolled out')
    code, out, _ = kubectl(server, tmp_path, "rollout", "history", "deployment/nginx")
    assert [line.split(None, 1)[0] for line in out.splitlines()[2:] if line.strip()] == ["2", "3"]
    code, out, _ = kubectl(server, tmp_path, "get", "pods", "-l", "pod-template-hash=5869d7778c", "--no-headers")
    assert len(out.splitlines()) == 5 and all(line.split()[1:3] == ["1/1", "Running"] for line in out.splitlines())
