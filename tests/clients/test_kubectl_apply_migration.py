"""The real kubectl 1.32 moving from client-side to server-side apply, and ``kubectl diff`` between them.

Shares ``test_kubectl``'s session. ``test_diff_steps_of_kubernetes_test_cmd`` runs the steps of
kubernetes' ``test/cmd/diff.sh`` (``run_kubectl_diff_tests``) in a namespace of its own: a
server-side diff of a changed image after a client-side apply must show the change, which needs the
apiserver's ``lastAppliedManager`` (docs/server-side-apply.md, "From client-side to server-side
apply"). ``test_server_side_apply_takes_over_a_client_side_applied_object`` follows kubectl's four
requests (apply, ``kubectl-last-applied``, the managedFields migration patch, the apply again) by
the managedFields and data they leave; the Pod of ``diff.sh`` makes the same move with a changed image.
"""

from __future__ import annotations

import json
from typing import Any

from tests.clients.test_kubectl import Kubectl, kubectl

__all__ = ["kubectl"]

NAMESPACE = "diff-steps"
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: test-pod
  labels:
    name: test-pod-label
spec:
  containers:
  - name: kubernetes-pause
    image: registry.k8s.io/pause:3.10
"""
POD_CHANGED = POD.replace("pause:3.10", "pause:3.4")
INVALID_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: test
spec:
  containers:
  - name:
    image: nginx
"""


def resource_version(kubectl: Kubectl) -> str:
    return kubectl.ok("get", "pod", "test-pod", "-n", NAMESPACE, "-o", "jsonpath={.metadata.resourceVersion}")


def test_diff_steps_of_kubernetes_test_cmd(kubectl: Kubectl) -> None:
    kubectl.ok("create", "namespace", NAMESPACE)

    absent = kubectl("diff", "-n", NAMESPACE, "-f", "-", stdin=POD)
    assert absent.code == 1, absent.explain(["diff"])
    assert "test-pod" in absent.stdout
    assert kubectl.ok("get", "pods", "-n", NAMESPACE, "-o", "name") == ""

    assert kubectl.ok("apply", "-n", NAMESPACE, "-f", "-", stdin=POD) == "pod/test-pod created\n"
    initial = resource_version(kubectl)
    assert kubectl.ok("diff", "-n", NAMESPACE, "-f", "-", stdin=POD) == ""
    assert resource_version(kubectl) == initial

    changed = kubectl("diff", "-n", NAMESPACE, "-f", "-", stdin=POD_CHANGED)
    assert (changed.code, changed.stderr) == (1, ""), changed.explain(["diff"])
    assert "+  - image: registry.k8s.io/pause:3.4\n" in changed.stdout
    assert resource_version(kubectl) == initial

    server_side = kubectl("diff", "--server-side", "-n", NAMESPACE, "-f", "-", stdin=POD_CHANGED)
    assert (server_side.code, server_side.stderr) == (1, ""), server_side.explain(["diff", "--server-side"])
    assert "+  - image: registry.k8s.io/pause:3.4\n" in server_side.stdout
    assert resource_version(kubectl) == initial

    invalid = kubectl("diff", "-n", NAMESPACE, "-f", "-", stdin=INVALID_POD)
    assert invalid.code > 1, invalid.explain(["diff"])

    kubectl.ok("delete", "-n", NAMESPACE, "-f", "-", "--wait=false", stdin=POD)

    absent = kubectl("diff", "--server-side", "-n", NAMESPACE, "-f", "-", stdin=POD)
    assert absent.code == 1, absent.explain(["diff", "--server-side"])
    assert "test-pod" in absent.stdout
    assert kubectl.ok("get", "pods", "-n", NAMESPACE, "-o", "name") == ""

    applied = kubectl.ok("apply", "--server-side", "-n", NAMESPACE, "-f", "-", stdin=POD)
    assert applied == "pod/test-pod serverside-applied\n"
    assert kubectl.ok("diff", "--server-side", "-n", NAMESPACE, "-f", "-", stdin=POD) == ""
    changed = kubectl("diff", "--server-side", "-n", NAMESPACE, "-f", "-", stdin=POD_CHANGED)
    assert (changed.code, changed.stderr) == (1, ""), changed.explain(["diff", "--server-side"])
    assert "+  - image: registry.k8s.io/pause:3.4\n" in changed.stdout


def configmap(data: dict[str, str]) -> str:
    lines = "".join(f"  {key}: {value!r}\n" for key, value in data.items())
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csa-to-ssa\n  namespace: default\ndata:\n{lines}"


def entries(obj: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(manager, operation, fieldsV1 as written) of each entry, by manager: entries are sorted by
    their time in seconds first, which two requests of one command may or may not share."""
    return sorted(
        (entry["manager"], entry["operation"], json.dumps(entry["fieldsV1"], separators=(",", ":")))
        for entry in obj["metadata"]["managedFields"]
    )


def managed_fields(kubectl: Kubectl) -> list[tuple[str, str, str]]:
    return entries(json.loads(kubectl.ok("get", "cm", "csa-to-ssa", "--show-managed-fields", "-o", "json")))


def test_server_side_apply_takes_over_a_client_side_applied_object(kubectl: Kubectl) -> None:
    assert kubectl.ok("apply", "-f", "-", stdin=configmap({"a": "1", "b": "2"})) == "configmap/csa-to-ssa created\n"
    assert managed_fields(kubectl) == [
        (
            "kubectl-client-side-apply",
            "Update",
            '{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:annotations":{".":{},'
            '"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}',
        )
    ]
    refused = kubectl.fails("apply", "--server-side", "--field-manager=other", "-f", "-", stdin=configmap({"a": "3"}))
    assert refused.stderr.splitlines()[0] == (
        'error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a'
    )

    result = kubectl("apply", "--server-side", "-f", "-", stdin=configmap({"a": "3"}))

    assert (result.code, result.stdout, result.stderr) == (0, "configmap/csa-to-ssa serverside-applied\n", "")
    obj = json.loads(kubectl.ok("get", "cm", "csa-to-ssa", "-o", "json"))
    assert obj["data"] == {"a": "3"}
    assert obj["metadata"]["annotations"] == {
        "kubectl.kubernetes.io/last-applied-configuration": '{"apiVersion":"v1","data":{"a":"3"},"kind":"ConfigMap",'
        '"metadata":{"name":"csa-to-ssa","namespace":"default"}}\n'
    }
    assert managed_fields(kubectl) == [
        ("kubectl", "Apply", '{"f:data":{"f:a":{}}}'),
        (
            "kubectl-last-applied",
            "Apply",
            '{"f:metadata":{"f:annotations":{"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}',
        ),
    ]


def test_a_client_side_applied_pod_moves_to_server_side_apply_with_a_new_image(kubectl: Kubectl) -> None:
    kubectl.ok("create", "namespace", "csa-pod")
    assert kubectl.ok("apply", "-n", "csa-pod", "-f", "-", stdin=POD) == "pod/test-pod created\n"

    moved = kubectl("apply", "--server-side", "-n", "csa-pod", "-f", "-", stdin=POD_CHANGED)

    assert (moved.code, moved.stdout, moved.stderr) == (0, "pod/test-pod serverside-applied\n", "")
    pod = json.loads(kubectl.ok("get", "pod", "test-pod", "-n", "csa-pod", "--show-managed-fields", "-o", "json"))
    assert pod["spec"]["containers"][0]["image"] == "registry.k8s.io/pause:3.4"
    assert entries(pod) == [
        (
            "kubectl",
            "Apply",
            '{"f:metadata":{"f:labels":{"f:name":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"kubernetes-pause\\"}":'
            '{".":{},"f:image":{},"f:name":{}}}}}',
        ),
        (
            "kubectl-last-applied",
            "Apply",
            '{"f:metadata":{"f:annotations":{"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}',
        ),
    ]
    assert [volume["name"].startswith("kube-api-access-") for volume in pod["spec"]["volumes"]] == [True]
