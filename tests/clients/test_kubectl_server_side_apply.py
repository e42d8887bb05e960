"""The real kubectl 1.32's ``apply --server-side`` with two managers on a Deployment's containers.

Shares ``test_kubectl``'s session (one ``fakeapi serve`` per module). Manager ``a`` owns container
``a``, manager ``b`` adds container ``b``; ``a`` re-applies without ``b`` and ``b`` stays; ``b``
changing ``a``'s image is a conflict kubectl reports with the server's message.
"""

from __future__ import annotations

import json

from tests.clients.test_kubectl import Kubectl, kubectl

__all__ = ["kubectl"]


def deployment(*containers: tuple[str, str]) -> str:
    listed = "".join(f"      - name: {name}\n        image: {image}\n" for name, image in containers)
    return (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ssa-web\n  namespace: default\n"
        "spec:\n  selector:\n    matchLabels: {app: ssa-web}\n  template:\n    metadata:\n"
        "      labels: {app: ssa-web}\n    spec:\n      containers:\n" + listed
    )


def containers(kubectl: Kubectl) -> list[tuple[str, str]]:
    spec = json.loads(kubectl.ok("get", "deploy", "ssa-web", "-o", "json"))["spec"]["template"]["spec"]
    return [(c["name"], c["image"]) for c in spec["containers"]]


def test_two_managers_own_one_container_each(kubectl: Kubectl) -> None:
    def apply(manager: str, manifest: str) -> str:
        return kubectl.ok("apply", "--server-side", f"--field-manager={manager}", "-f", "-", stdin=manifest)

    assert apply("a", deployment(("a", "nginx:1.27"))) == "deployment.apps/ssa-web serverside-applied\n"
    assert apply("b", deployment(("b", "busybox:1.36"))) == "deployment.apps/ssa-web serverside-applied\n"
    assert apply("a", deployment(("a", "nginx:1.28"))) == "deployment.apps/ssa-web serverside-applied\n"
    assert containers(kubectl) == [("a", "nginx:1.28"), ("b", "busybox:1.36")]

    refused = kubectl.fails(
        "apply",
        "--server-side",
        "--field-manager=b",
        "-f",
        "-",
        stdin=deployment(("a", "nginx:1.29"), ("b", "busybox:1.36")),
    )

    assert refused.stderr.splitlines()[0] == (
        'error: Apply failed with 1 conflict: conflict with "a": .spec.template.spec.containers[name="a"].image'
    )
    assert containers(kubectl) == [("a", "nginx:1.28"), ("b", "busybox:1.36")]
    forced = kubectl.ok(
        "apply",
        "--server-side",
        "--force-conflicts",
        "--field-manager=b",
        "-f",
        "-",
        stdin=deployment(("a", "nginx:1.29"), ("b", "busybox:1.36")),
    )
    assert forced == "deployment.apps/ssa-web serverside-applied\n"
    assert containers(kubectl) == [("a", "nginx:1.29"), ("b", "busybox:1.36")]
    managers = kubectl.ok(
        "get", "deploy", "ssa-web", "--show-managed-fields", "-o", "jsonpath={.metadata.managedFields[*].manager}"
    )
    assert managers == "a b"
