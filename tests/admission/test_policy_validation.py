"""ValidatingAdmissionPolicies and bindings refused on create and update with the apiserver's field errors
(docs/admission-policies.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.admission.policy_objects import BINDINGS, POLICIES, binding, policy
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio


def causes(reply: Any) -> list[tuple[str, str]]:
    return [(cause["field"], cause["message"]) for cause in reply.json()["details"]["causes"]]


async def test_an_expression_that_does_not_compile_is_refused(client: RawClient) -> None:
    refused = await client.post(POLICIES, policy("p", {"expression": "object.spec.replicas < "}))
    assert refused.status == 422
    body = refused.json()
    assert body["message"] == (
        'ValidatingAdmissionPolicy.admissionregistration.k8s.io "p" is invalid: spec.validations[0].expression: '
        'Invalid value: "object.spec.replicas < ": compilation failed: ERROR: <input>:1:24: Syntax error: '
        "mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
        "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | object.spec.replicas < \n | .......................^"
    )
    assert (await client.get(f"{POLICIES}/p")).status == 404


async def test_result_types_params_and_variables_are_checked(client: RawClient) -> None:
    refused = await client.post(
        POLICIES,
        policy(
            "p",
            {"expression": "object.spec.enabled"},
            {"expression": "params.max > 1", "messageExpression": "1", "reason": "Unauthorized"},
            {"expression": "variables.missing"},
        ),
    )
    assert refused.status == 422
    assert causes(refused) == [
        ("spec.validations[0].expression", 'Invalid value: "object.spec.enabled": must evaluate to bool but got dyn'),
        (
            "spec.validations[1].expression",
            'Invalid value: "params.max > 1": compilation failed: ERROR: <input>:1:1: undeclared reference to '
            "'params' (in container '')\n | params.max > 1\n | ^",
        ),
        ("spec.validations[1].messageExpression", 'Invalid value: "1": must evaluate to string but got int'),
        (
            "spec.validations[1].reason",
            'Unsupported value: "Unauthorized": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
        ),
        (
            "spec.validations[2].expression",
            'Invalid value: "variables.missing": compilation failed: ERROR: <input>:1:1: undeclared reference to '
            "'variables' (in container '')\n | variables.missing\n | ^",
        ),
    ]


async def test_variables_are_typed_and_named(client: RawClient) -> None:
    refused = await client.post(
        POLICIES,
        policy(
            "p",
            {"expression": "variables.count"},
            {"expression": "variables.names.size() > 0 && variables.nope"},
            variables=[
                {"name": "count", "expression": "1"},
                {"name": "names", "expression": "['a']"},
                {"name": "in", "expression": "true"},
            ],
        ),
    )
    assert causes(refused) == [
        ("spec.variables[2].name", 'Invalid value: "in": name is not a valid CEL identifier'),
        ("spec.validations[0].expression", 'Invalid value: "variables.count": must evaluate to bool but got int'),
        (
            "spec.validations[1].expression",
            'Invalid value: "variables.names.size() > 0 && variables.nope": compilation failed: ERROR: '
            "<input>:1:40: undefined field 'nope'\n | variables.names.size() > 0 && variables.nope\n"
            " | .......................................^",
        ),
    ]


async def test_required_fields_and_values(client: RawClient) -> None:
    bare = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": {"failurePolicy": "Sometimes", "paramKind": {"apiVersion": "a/b/c"}},
    }
    refused = await client.post(POLICIES, bare)
    assert refused.status == 422
    assert refused.json()["message"] == (
        'ValidatingAdmissionPolicy.admissionregistration.k8s.io "p" is invalid: [spec.failurePolicy: Unsupported '
        'value: "Sometimes": supported values: "Fail", "Ignore", spec.paramKind.apiVersion: Invalid value: "a/b/c": '
        "unexpected GroupVersion string: a/b/c, spec.paramKind.kind: Required value, spec.matchConstraints: "
        "Required value, spec.validations: Required value: validations or auditAnnotations must contain at least "
        "one item, spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one "
        "item]"
    )


async def test_binding_actions_and_param_refs(client: RawClient) -> None:
    refused = await client.post(
        BINDINGS,
        binding(
            "b",
            "p",
            ["Deny", "Warn", "Deny"],
            paramRef={"name": "x", "selector": {}, "parameterNotFoundAction": "Maybe"},
            matchResources={"matchPolicy": "Loose"},
        ),
    )
    assert refused.status == 422
    assert causes(refused) == [
        ("spec.paramRef.name", "Forbidden: name and selector are mutually exclusive"),
        ("spec.paramRef.selector", "Forbidden: name and selector are mutually exclusive"),
        ("spec.paramRef.parameterNotFoundAction", 'Unsupported value: "Maybe": supported values: "Deny", "Allow"'),
        ("spec.matchResouces.matchPolicy", 'Unsupported value: "Loose": supported values: "Equivalent", "Exact"'),
        ("spec.validationActions[2]", 'Duplicate value: "Deny"'),
        (
            "spec.validationActions",
            'Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny"}: must not contain both '
            "Deny and Warn (repeating the same validation failure information in the API response and headers "
            "serves no purpose)",
        ),
    ]
    empty = await client.post(BINDINGS, {**binding("b", "p"), "spec": {"policyName": "p"}})
    assert causes(empty) == [("spec.validationActions", "Required value: at least one validation action is required")]


async def test_a_valid_policy_is_stored_with_its_defaults(client: RawClient) -> None:
    created = await client.post(POLICIES, policy("p", {"expression": "true"}))
    assert created.status == 201
    spec = created.json()["spec"]
    assert spec["failurePolicy"] == "Fail"
    assert spec["matchConstraints"]["matchPolicy"] == "Equivalent"


async def test_match_resources_rules_are_checked_at_upstreams_path(client: RawClient) -> None:
    rules = [
        {
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "operations": ["CREATE", "*"],
            "resources": ["*", "pods"],
            "resourceNames": ["a", "a"],
            "scope": "Everywhere",
        }
    ]
    refused = await client.post(BINDINGS, binding("b", "p", matchResources={"resourceRules": rules}))
    assert refused.status == 422
    path = "spec.matchResouces.resourceRules[0]"
    assert causes(refused) == [
        (f"{path}.resourceNames[1]", 'Duplicate value: "a"'),
        (
            f"{path}.operations",
            'Invalid value: []admissionregistration.OperationType{"CREATE", "*"}: if \'*\' is present, must not '
            "specify other operations",
        ),
        (
            f"{path}.resources",
            'Invalid value: []string{"*", "pods"}: if \'*\' is present, must not specify other resources without '
            "subresources",
        ),
        (f"{path}.scope", 'Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"'),
    ]
