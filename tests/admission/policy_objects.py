"""ValidatingAdmissionPolicies and their bindings as the tests write them, and the paths they are written to."""

from __future__ import annotations

from typing import Any

from tests.conftest import RawClient

POLICIES = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
BINDINGS = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def rule(resources: list[str] | None = None, groups: list[str] | None = None, **fields: Any) -> dict[str, Any]:
    return {
        "apiGroups": groups if groups is not None else [""],
        "apiVersions": ["*"],
        "operations": ["*"],
        "resources": resources or ["configmaps"],
        **fields,
    }


def policy(
    name: str, *validations: dict[str, Any], rules: list[dict[str, Any]] | None = None, **spec: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": {"matchConstraints": {"resourceRules": rules or [rule()]}, "validations": list(validations), **spec},
    }


def binding(name: str, policy_name: str, actions: list[str] | None = None, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": {"policyName": policy_name, "validationActions": actions or ["Deny"], **spec},
    }


def configmap(name: str = "cm", labels: dict[str, str] | None = None, **data: str) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data}


async def install(client: RawClient, *objects: dict[str, Any]) -> None:
    """Create policies and bindings, in the order given."""
    for obj in objects:
        path = POLICIES if obj["kind"] == "ValidatingAdmissionPolicy" else BINDINGS
        reply = await client.post(path, obj)
        assert reply.status == 201, reply.body
