"""An operator's deploy folder, loaded at start and then read and re-applied with the real kubectl.

``tests/data/operator-deploy`` is laid out as an operator repository ships it: its CRD under
``crds/``, and files named by topic, not by dependency (``availability.yaml`` holds a PDB, a Lease
and a custom resource; the Namespace comes in ``namespace.yaml``, after the Deployment's file).
``fakeapi serve --crd crds --load DIR`` creates everything in dependency order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.serving import ServeProcess, require_tool
from tests.clients.test_kubectl import Kubectl

DEPLOY = Path(__file__).parent.parent / "data" / "operator-deploy"
NAMESPACE = "backup-operator-system"


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubectl]:
    binary = require_tool("kubectl", "driving the real kubectl (1.32) against `fakeapi serve`")
    home = tmp_path_factory.mktemp("kubectl-deploy")
    kubeconfig = home / "kubeconfig"
    # The folder configures the operator's webhooks, and no operator runs here: as in a cluster, its
    # Backup writes would be refused (connection refused at the webhook Service). These tests are
    # about kubectl and ownership, so the webhook plugins are off, as kube-apiserver's switch allows.
    webhooks_off = ["--disable-admission-plugins", "MutatingAdmissionWebhook,ValidatingAdmissionWebhook"]
    arguments = ["--port", "0", "--kubeconfig", str(kubeconfig), "--log-requests", *webhooks_off]
    with ServeProcess(*arguments, "--crd", str(DEPLOY / "crds"), "--load", str(DEPLOY)) as server:
        yield Kubectl(binary, home, server, kubeconfig)
        assert server.stop() == 0
        assert server.stderr_text() == ""


def names(kubectl: Kubectl, *args: str) -> list[str]:
    return kubectl.ok("get", *args, "-o", "name").split()


def test_every_object_of_the_folder_is_served(loaded: Kubectl) -> None:
    namespaced = "deploy,svc,sa,role,rolebinding,cm,secret,lease,pdb,backups"
    assert names(loaded, namespaced, "-n", NAMESPACE) == [
        "deployment.apps/backup-operator-controller-manager",
        "service/backup-operator-webhook-service",
        "serviceaccount/backup-operator-controller-manager",
        "serviceaccount/default",
        "role.rbac.authorization.k8s.io/backup-operator-leader-election-role",
        "rolebinding.rbac.authorization.k8s.io/backup-operator-leader-election-rolebinding",
        "configmap/backup-operator-config",
        "configmap/kube-root-ca.crt",
        "secret/webhook-server-cert",
        "lease.coordination.k8s.io/3a1f2c9e.ops.example.com",
        "poddisruptionbudget.policy/backup-operator-controller-manager",
        "backup.ops.example.com/nightly",
    ]
    cluster = "clusterrole,clusterrolebinding,mutatingwebhookconfigurations,validatingwebhookconfigurations"
    # A new cluster's own roles and bindings (the bootstrap policy) carry kubernetes.io/bootstrapping.
    assert names(loaded, cluster, "-l", "!kubernetes.io/bootstrapping") == [
        "clusterrole.rbac.authorization.k8s.io/backup-operator-manager-role",
        "clusterrolebinding.rbac.authorization.k8s.io/backup-operator-manager-rolebinding",
        "mutatingwebhookconfiguration.admissionregistration.k8s.io/backup-operator-mutating-webhook-configuration",
        "validatingwebhookconfiguration.admissionregistration.k8s.io/backup-operator-validating-webhook-configuration",
    ]


def test_the_objects_are_stored_as_the_apiserver_stores_them(loaded: Kubectl) -> None:
    backup = json.loads(loaded.ok("get", "backup", "nightly", "-n", NAMESPACE, "-o", "json"))
    assert backup["spec"] == {"schedule": "0 2 * * *", "retain": 7}
    secret = json.loads(loaded.ok("get", "secret", "webhook-server-cert", "-n", NAMESPACE, "-o", "json"))
    assert sorted(secret["data"]) == ["tls.crt", "tls.key"]
    assert "stringData" not in secret
    webhook = json.loads(
        loaded.ok("get", "mutatingwebhookconfiguration", "backup-operator-mutating-webhook-configuration", "-o", "json")
    )
    assert webhook["metadata"]["generation"] == 1
    assert webhook["webhooks"][0]["clientConfig"]["service"]["path"] == "/mutate-ops-example-com-v1alpha1-backup"
    assert re.fullmatch(
        r"NAME\s+SCHEDULE\s+PHASE\nnightly\s+0 2 \* \* \*\s*\n", loaded.ok("get", "backups", "-n", NAMESPACE)
    )


def test_kubectl_apply_of_the_same_folder_takes_ownership_without_errors(loaded: Kubectl) -> None:
    result = loaded("apply", "-R", "-f", str(DEPLOY))
    assert result.code == 0, result.explain(["apply"])
    configured = sorted(line for line in result.stdout.splitlines())
    assert len(configured) == 16
    assert all(line.endswith(" configured") for line in configured)
    again = loaded.ok("apply", "-R", "-f", str(DEPLOY))
    # On any server kubectl's own patch is never empty for a PDB (its selector's patchStrategy is
    # replace) nor for a Secret written with stringData (kubernetes/kubernetes#87736).
    # Nor for a webhook configuration: the server defaults each rule's scope to "*", and rules is an
    # atomic list, so kubectl sends the file's rules back every time.
    always = {
        "poddisruptionbudget.policy/backup-operator-controller-manager configured",
        "secret/webhook-server-cert configured",
        "mutatingwebhookconfiguration.admissionregistration.k8s.io/"
        "backup-operator-mutating-webhook-configuration configured",
        "validatingwebhookconfiguration.admissionregistration.k8s.io/"
        "backup-operator-validating-webhook-configuration configured",
    }
    assert sorted(again.splitlines()) == [
        line if line in always else line.replace(" configured", " unchanged") for line in configured
    ]
