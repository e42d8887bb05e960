"""ValidatingAdmissionPolicies evaluated on writes: the actions, messages, reasons and the failure policy
(docs/admission-policies.md)."""

from __future__ import annotations

import pytest

from tests.admission.conftest import WebhookServer, allow, configuration, webhook
from tests.admission.policy_objects import CONFIGMAPS, binding, configmap, install, policy
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
SMALL = {
    "expression": "request.operation == 'DELETE' || !has(object.data) || object.data.size() < 2",
    "message": "too much data",
}


def status_bytes(message: str, reason: str, code: int, name: str = "cm", kind: str = "configmaps") -> bytes:
    """The Status body kube-apiserver writes for a policy's refusal (``admission.NewForbidden`` re-coded)."""

    def quoted(text: str) -> str:
        return text.replace("\\", "\\\\").replace('"', '\\"')

    full = f'{kind} "{name}" is forbidden: {message}'
    return (
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
        f'"message":"{quoted(full)}","reason":"{reason}",'
        f'"details":{{"name":"{name}","kind":"{kind}","causes":[{{"message":"{quoted(message)}"}}]}},"code":{code}}}\n'
    ).encode()


async def test_a_deny_binding_refuses_with_the_policy_message(client: RawClient) -> None:
    await install(client, policy("small", SMALL), binding("small-b", "small"))
    assert (await client.post(CONFIGMAPS, configmap(a="1"))).status == 201
    refused = await client.post(CONFIGMAPS, configmap("big", a="1", b="2"))
    message = "ValidatingAdmissionPolicy 'small' with binding 'small-b' denied request: too much data"
    assert refused.status == 422
    assert refused.body == status_bytes(message, "Invalid", 422, name="big")
    assert (await client.get(f"{CONFIGMAPS}/big")).status == 404


async def test_a_policy_without_a_binding_does_nothing(client: RawClient) -> None:
    await install(client, policy("small", SMALL))
    assert (await client.post(CONFIGMAPS, configmap("big", a="1", b="2"))).status == 201


async def test_updates_patches_and_deletes_are_evaluated(client: RawClient) -> None:
    keep = {"expression": "request.operation != 'DELETE' || oldObject.data.keep != 'yes'", "message": "kept"}
    await install(client, policy("small", SMALL, keep), binding("b", "small"))
    assert (await client.post(CONFIGMAPS, configmap(keep="yes"))).status == 201
    patched = await client.patch(f"{CONFIGMAPS}/cm", {"data": {"b": "2"}}, content_type="application/merge-patch+json")
    assert patched.status == 422
    assert patched.json()["message"] == (
        "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'small' with binding 'b' denied request: too much data"
    )
    replaced = await client.put(f"{CONFIGMAPS}/cm", configmap(keep="yes", b="2"))
    assert replaced.status == 422
    deleted = await client.delete(f"{CONFIGMAPS}/cm")
    assert deleted.status == 422
    assert deleted.json()["details"]["causes"] == [
        {"message": "ValidatingAdmissionPolicy 'small' with binding 'b' denied request: kept"}
    ]
    assert (await client.get(f"{CONFIGMAPS}/cm")).status == 200


async def test_warn_adds_a_warning_header_and_admits(client: RawClient) -> None:
    await install(client, policy("small", SMALL), binding("warn-b", "small", ["Warn"]))
    created = await client.post(CONFIGMAPS, configmap("big", a="1", b="2"))
    assert created.status == 201
    assert created.warnings == [
        "299 - \"Validation failed for ValidatingAdmissionPolicy 'small' with binding 'warn-b': too much data\""
    ]


async def test_audit_alone_admits_without_a_warning(client: RawClient) -> None:
    await install(client, policy("small", SMALL), binding("audit-b", "small", ["Audit"]))
    created = await client.post(CONFIGMAPS, configmap("big", a="1", b="2"))
    assert created.status == 201
    assert created.warnings == []


async def test_warn_and_audit_together_warn(client: RawClient) -> None:
    await install(client, policy("small", SMALL), binding("b", "small", ["Warn", "Audit"]))
    created = await client.post(CONFIGMAPS, configmap("big", a="1", b="2"))
    assert created.status == 201
    assert len(created.warnings) == 1


@pytest.mark.parametrize(("reason", "code"), [("Forbidden", 403), ("Invalid", 422), ("RequestEntityTooLarge", 413)])
async def test_the_reason_sets_the_status_code(client: RawClient, reason: str, code: int) -> None:
    await install(client, policy("small", {**SMALL, "reason": reason}), binding("b", "small"))
    refused = await client.post(CONFIGMAPS, configmap("big", a="1", b="2"))
    message = "ValidatingAdmissionPolicy 'small' with binding 'b' denied request: too much data"
    assert refused.status == code
    assert refused.body == status_bytes(message, reason, code, name="big")


async def test_the_message_expression_then_the_message_then_the_expression(client: RawClient) -> None:
    await install(
        client,
        policy(
            "p",
            {"expression": "object.metadata.name != 'a'", "messageExpression": "'name ' + object.metadata.name"},
            {"expression": "object.metadata.name != 'b'", "messageExpression": "'  '", "message": "plain b"},
            {"expression": "object.metadata.name != 'c'  ", "messageExpression": "'two\\nlines'"},
            {"expression": "object.metadata.name != 'd'", "messageExpression": "string(object.data.missing)"},
        ),
        binding("b", "p"),
    )
    prefix = "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "
    expected = {
        "a": "name a",
        "b": "plain b",
        "c": "failed expression: object.metadata.name != 'c'",
        "d": "failed expression: object.metadata.name != 'd'",
    }
    for name, message in expected.items():
        refused = await client.post(CONFIGMAPS, configmap(name))
        assert refused.status == 422
        assert refused.json()["details"]["causes"] == [{"message": prefix + message}]


async def test_the_first_failing_validation_is_the_answer(client: RawClient) -> None:
    await install(
        client,
        policy("p", {"expression": "false", "message": "first"}, {"expression": "false", "message": "second"}),
        binding("b", "p"),
    )
    refused = await client.post(CONFIGMAPS, configmap())
    assert refused.json()["message"].endswith("denied request: first")


async def test_an_evaluation_error_refuses_under_fail_and_is_ignored_under_ignore(client: RawClient) -> None:
    failing = {"expression": "object.data.missing == 'x'"}
    await install(client, policy("fail", failing), binding("fb", "fail"))
    refused = await client.post(CONFIGMAPS, configmap(a="1"))
    assert refused.status == 422
    assert refused.json()["message"] == (
        "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'fail' with binding 'fb' denied request: "
        "expression 'object.data.missing == 'x'' resulted in error: no such key: missing"
    )
    await client.delete("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/fail")
    await install(client, policy("ignore", failing, failurePolicy="Ignore"), binding("ib", "ignore"))
    assert (await client.post(CONFIGMAPS, configmap(a="1"))).status == 201


async def test_variables_are_read_by_name_and_fail_only_when_read(client: RawClient) -> None:
    await install(
        client,
        policy(
            "p",
            {"expression": "variables.count < 2", "messageExpression": "'count ' + string(variables.count)"},
            {"expression": "object.metadata.name != 'x' || variables.broken == 'y'"},
            variables=[
                {"name": "count", "expression": "has(object.data) ? object.data.size() : 0"},
                {"name": "broken", "expression": "object.data.absent"},
            ],
        ),
        binding("b", "p"),
    )
    assert (await client.post(CONFIGMAPS, configmap("ok", a="1"))).status == 201
    refused = await client.post(CONFIGMAPS, configmap("big", a="1", b="2"))
    assert refused.json()["details"]["causes"] == [
        {"message": "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: count 2"}
    ]
    failed = await client.post(CONFIGMAPS, configmap("x", a="1"))
    assert failed.status == 422
    assert failed.json()["details"]["causes"] == [
        {
            "message": "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression "
            "'object.metadata.name != 'x' || variables.broken == 'y'' resulted in error: "
            'composited variable "broken" fails to evaluate: no such key: absent'
        }
    ]


async def test_match_conditions_skip_the_validations(client: RawClient) -> None:
    await install(
        client,
        policy(
            "p",
            {"expression": "false", "message": "no"},
            matchConditions=[{"name": "only-watched", "expression": "object.metadata.name == 'watched'"}],
        ),
        binding("b", "p"),
    )
    assert (await client.post(CONFIGMAPS, configmap("other"))).status == 201
    assert (await client.post(CONFIGMAPS, configmap("watched"))).status == 422


async def test_the_namespace_object_is_the_request_namespace(client: RawClient) -> None:
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "labels": {"tier": "gold"}}}
    assert (await client.post("/api/v1/namespaces", namespace)).status == 201
    await install(
        client,
        policy(
            "p",
            {
                "expression": "'tier' in namespaceObject.metadata.labels && namespaceObject.metadata.labels.tier == 'gold'",
                "messageExpression": "'namespace ' + namespaceObject.metadata.name + ' ' + namespaceObject.status.phase",
            },
        ),
        binding("b", "p"),
    )
    assert (await client.post("/api/v1/namespaces/team/configmaps", configmap())).status == 201
    refused = await client.post(CONFIGMAPS, configmap())
    assert refused.json()["details"]["causes"] == [
        {"message": "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: namespace default Active"}
    ]


async def test_policies_run_before_the_validating_webhooks(client: RawClient, hooks: WebhookServer) -> None:
    hooks.answers["/v"] = allow()
    hook = webhook("v.example.com", hooks.client_config("/v"))
    reply = await client.post(VALIDATING, configuration("ValidatingWebhookConfiguration", "v", hook))
    assert reply.status == 201, reply.body
    await install(client, policy("small", SMALL), binding("b", "small"))
    assert (await client.post(CONFIGMAPS, configmap("big", a="1", b="2"))).status == 422
    assert hooks.received == []
    assert (await client.post(CONFIGMAPS, configmap("ok", a="1"))).status == 201
    assert len(hooks.received) == 1


async def test_the_request_variable_describes_the_write(client: RawClient) -> None:
    await install(
        client,
        policy(
            "p",
            {
                "expression": "false",
                "messageExpression": "request.operation + ' ' + request.name + ' ' + request.namespace + ' ' + "
                "request.resource.resource + ' ' + request.kind.kind + ' ' + string(request.dryRun) + ' ' + "
                "(has(request.options.dryRun) ? request.options.dryRun[0] : '-') + ' ' + string(oldObject == null)",
            },
        ),
        binding("b", "p"),
    )
    refused = await client.post(f"{CONFIGMAPS}?dryRun=All", configmap())
    assert refused.json()["details"]["causes"] == [
        {
            "message": "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "
            "CREATE cm default configmaps ConfigMap true All true"
        }
    ]


async def test_audit_annotations_matter_only_by_their_errors(client: RawClient) -> None:
    annotations = [
        {"key": "size", "valueExpression": "string(object.data.size())"},
        {"key": "owner", "valueExpression": " object.data.owner"},
    ]
    refused_type = await client.post(
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", policy("p", auditAnnotations=annotations)
    )
    assert refused_type.status == 422
    assert refused_type.json()["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": 'Invalid value: " object.data.owner": must evaluate to one of [string null_type] but got dyn',
            "field": "spec.auditAnnotations[1].valueExpression",
        }
    ]
    annotations[1]["valueExpression"] = " string(object.data.owner)"
    await install(client, policy("p", auditAnnotations=annotations), binding("b", "p", ["Audit"]))
    assert (await client.post(CONFIGMAPS, configmap("owned", owner="me"))).status == 201
    refused = await client.post(CONFIGMAPS, configmap("unowned", a="1"))
    assert refused.status == 422
    assert refused.json()["details"]["causes"] == [
        {
            "message": "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression "
            "' string(object.data.owner)' resulted in error: no such key: owner"
        }
    ]
