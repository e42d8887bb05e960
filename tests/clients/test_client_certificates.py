"""x509 client certificates as kind's kubeconfig carries them (docs/authentication.md): the common
name is the user, the organizations its groups, and the certificate comes before any bearer token."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import kubernetes
import pytest
import yaml

from fakeapi import FakeAPIServer
from tests.cli.serving import READ_TIMEOUT, ServeProcess, console_script, home_env
from tests.clients.local import run_kubectl, threaded_server


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    with threaded_server(tls=True, authorization="RBAC") as running:
        yield running


kubectl = run_kubectl


def test_a_kind_shaped_kubeconfig_authenticates_kubectl_as_its_certificate(
    server: FakeAPIServer, tmp_path: Path
) -> None:
    kubeconfig = server.kubeconfig(tmp_path / "kc", certificate=True)
    user = yaml.safe_load(kubeconfig.read_text())["users"][0]["user"]
    assert set(user) == {"client-certificate-data", "client-key-data"}
    code, output, errors = kubectl(kubeconfig, tmp_path, "auth", "whoami", "-o", "yaml")
    assert (code, errors) == (0, "")
    info = yaml.safe_load(output)["status"]["userInfo"]
    assert info["username"] == "kubernetes-admin"
    assert info["groups"] == ["kubeadm:cluster-admins", "system:masters", "system:authenticated"]
    assert info["extra"]["authentication.kubernetes.io/credential-id"][0].startswith("X509SHA256=")
    assert kubectl(kubeconfig, tmp_path, "create", "configmap", "made", "--from-literal=a=b")[0] == 0
    assert {entry.user for entry in server.journal} == {"kubernetes-admin"}


def test_groups_come_from_the_organizations_and_rbac_judges_them(server: FakeAPIServer, tmp_path: Path) -> None:
    server.load(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "devs-view"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "devs-view"},
            "subjects": [{"kind": "Group", "name": "devs", "apiGroup": "rbac.authorization.k8s.io"}],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "devs-view"},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}],
        },
    )
    kubeconfig = server.kubeconfig(tmp_path / "kc", certificate=True, user="alice", groups=["devs"])
    api = kubernetes.client.CoreV1Api(kubernetes.config.new_client_from_config(str(kubeconfig)))
    assert [item.metadata.name for item in api.list_namespaced_config_map("default").items] == ["kube-root-ca.crt"]
    with pytest.raises(kubernetes.client.ApiException) as refused:
        api.list_namespaced_secret("default")
    assert refused.value.status == 403
    assert 'User \\"alice\\" cannot list resource \\"secrets\\"' in refused.value.body
    entry = list(server.journal)[-1]
    assert (entry.user, entry.groups) == ("alice", ("devs", "system:authenticated"))


def test_certificates_need_tls(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="client certificates need a server started with tls=True"):
        FakeAPIServer().kubeconfig(tmp_path / "kc", certificate=True)


def test_serve_writes_a_certificate_kubeconfig_that_kubectl_uses(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kc"
    flags = ("--port", "0", "--tls", "--kubeconfig", str(kubeconfig), "--kubeconfig-credentials", "certificate")
    with ServeProcess(*flags, env=home_env(tmp_path)):
        assert set(yaml.safe_load(kubeconfig.read_text())["users"][0]["user"]) == {
            "client-certificate-data",
            "client-key-data",
        }
        code, output, _ = kubectl(kubeconfig, tmp_path, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
        assert (code, output) == (0, "kubernetes-admin")


def test_serve_refuses_a_certificate_kubeconfig_without_tls(tmp_path: Path) -> None:
    done = subprocess.run(
        [*console_script(), "serve", "--kubeconfig", str(tmp_path / "kc"), "--kubeconfig-credentials", "certificate"],
        capture_output=True,
        text=True,
        timeout=READ_TIMEOUT,
    )
    assert done.returncode == 2
    assert "--kubeconfig-credentials certificate needs --tls" in done.stderr
    assert not (tmp_path / "kc").exists()
