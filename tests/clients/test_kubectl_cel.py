"""The real kubectl 1.32 against CRD validation rules: the texts a user sees (docs/cel.md).

Shares ``test_kubectl``'s session (one ``fakeapi serve`` per module). A CRD whose rule does not compile is
refused with the compiler's message; one whose rules compile is applied, and an object breaking a rule is
refused with the rule's field error, while ``kubectl patch`` of an unrelated field of an object that became
invalid under a later rule succeeds with the ratcheting warning.
"""

from __future__ import annotations

from tests.clients.test_kubectl import Kubectl, kubectl

__all__ = ["kubectl"]


def crd(rule: str) -> str:
    return (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
        "metadata:\n  name: gadgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n"
        "  names: {plural: gadgets, singular: gadget, kind: Gadget}\n  versions:\n"
        "  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n"
        "        type: object\n        properties:\n          spec:\n            type: object\n"
        "            properties:\n              minReplicas: {type: integer}\n              maxReplicas: {type: integer}\n"
        "            x-kubernetes-validations:\n"
        f"            - rule: {rule!r}\n              message: replicas out of order\n"
    )


def gadget(name: str, low: int, high: int) -> str:
    return (
        f"apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: {name}\n  namespace: default\n"
        f"spec:\n  minReplicas: {low}\n  maxReplicas: {high}\n"
    )


def test_kubectl_shows_rule_errors_and_ratcheting_warnings(kubectl: Kubectl) -> None:
    refused = kubectl.fails("apply", "-f", "-", stdin=crd("self.minReplicass <= self.maxReplicas"))
    assert (
        'The CustomResourceDefinition "gadgets.example.com" is invalid: '
        "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "
        'apiextensions.ValidationRule{Rule:"self.minReplicass <= self.maxReplicas", Message:"replicas out of order", '
        'MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", '
        "OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'minReplicass'\n"
        " | self.minReplicass <= self.maxReplicas\n"
        " | ....^"
    ) in refused.stderr
    kubectl.ok("apply", "-f", "-", stdin=crd("self.minReplicas >= 0"))
    kubectl.ok("apply", "-f", "-", stdin=gadget("g1", 3, 2))
    kubectl.ok("apply", "-f", "-", stdin=crd("self.minReplicas <= self.maxReplicas"))
    broken = kubectl.fails("apply", "-f", "-", stdin=gadget("g2", 5, 1))
    assert broken.stderr.endswith(
        'The Gadget "g2" is invalid: spec: Invalid value: "object": replicas out of order\n'
    ), broken.stderr
    patched = kubectl("patch", "gadget", "g1", "--type=merge", "-p", '{"metadata":{"labels":{"a":"b"}}}')
    assert patched.code == 0, patched.explain(["patch"])
    assert patched.stderr == 'Warning: spec: Invalid value: "object": replicas out of order\n'
    assert patched.stdout == "gadget.example.com/g1 patched\n"
