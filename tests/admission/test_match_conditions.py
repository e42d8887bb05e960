"""Webhooks' ``matchConditions``: which webhooks they skip, how a failing one refuses, and how a
configuration with a bad condition is refused (docs/admission.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.admission.conftest import WebhookServer, allow, configuration, json_patch, webhook
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
DENIED = 'admission webhook "deny.example.com" denied the request: denied'


def configmap(name: str = "cm", **data: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def conditions(*expressions: str) -> list[dict[str, str]]:
    return [{"name": f"c{number}", "expression": expression} for number, expression in enumerate(expressions)]


async def deny_when(client: RawClient, hooks: WebhookServer, *expressions: str, **fields: Any) -> None:
    """A validating webhook that refuses every write it is called for, with these conditions."""
    hooks.answers["/deny"] = allow(allowed=False, status={"message": "denied"})
    hook = webhook("deny.example.com", hooks.client_config("/deny"), matchConditions=conditions(*expressions), **fields)
    reply = await client.post(VALIDATING, configuration("ValidatingWebhookConfiguration", "v", hook))
    assert reply.status == 201, reply.body


async def test_a_false_condition_skips_the_webhook(client: RawClient, hooks: WebhookServer) -> None:
    await deny_when(client, hooks, "object.metadata.name == 'watched'")
    assert (await client.post(CONFIGMAPS, configmap("other"))).status == 201
    assert hooks.received == []
    refused = await client.post(CONFIGMAPS, configmap("watched"))
    assert refused.status == 400
    assert refused.json()["message"] == DENIED
    assert len(hooks.received) == 1
    assert (await client.get(f"{CONFIGMAPS}/watched")).status == 404


async def test_every_condition_must_hold(client: RawClient, hooks: WebhookServer) -> None:
    await deny_when(client, hooks, "has(object.data)", "object.data.size() > 1")
    assert (await client.post(CONFIGMAPS, configmap("one", a="1"))).status == 201
    assert hooks.received == []
    assert (await client.post(CONFIGMAPS, configmap("two", a="1", b="2"))).status == 400
    assert len(hooks.received) == 1


async def test_the_request_old_object_and_operation_are_seen(client: RawClient, hooks: WebhookServer) -> None:
    await deny_when(
        client,
        hooks,
        "request.operation == 'UPDATE'",
        "oldObject.data.a != object.data.a",
        "request.namespace == 'default' && request.resource.resource == 'configmaps'",
        "request.kind.kind == 'ConfigMap' && request.userInfo.username != ''",
    )
    assert (await client.post(CONFIGMAPS, configmap(a="1"))).status == 201
    same = await client.patch(f"{CONFIGMAPS}/cm", {"data": {"b": "2"}}, content_type="application/merge-patch+json")
    assert same.status == 200
    assert hooks.received == []
    changed = await client.patch(f"{CONFIGMAPS}/cm", {"data": {"a": "2"}}, content_type="application/merge-patch+json")
    assert changed.status == 400
    assert changed.json()["message"] == DENIED


async def test_a_false_condition_after_an_error_still_skips(client: RawClient, hooks: WebhookServer) -> None:
    await deny_when(client, hooks, "object.data.missing == 'x'", "false")
    assert (await client.post(CONFIGMAPS, configmap(a="1"))).status == 201
    assert hooks.received == []


async def test_an_error_under_failure_policy_fail_refuses_the_write(client: RawClient, hooks: WebhookServer) -> None:
    await deny_when(client, hooks, "object.data.missing == 'x'", "true")
    reply = await client.post(CONFIGMAPS, configmap(a="1"))
    assert reply.status == 403
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": (
            "configmaps \"cm\" is forbidden: expression 'object.data.missing == 'x'' resulted in error: "
            "no such key: missing"
        ),
        "reason": "Forbidden",
        "details": {"name": "cm", "kind": "configmaps"},
        "code": 403,
    }
    assert hooks.received == []
    assert (await client.get(f"{CONFIGMAPS}/cm")).status == 404


async def test_several_errors_are_aggregated(client: RawClient, hooks: WebhookServer) -> None:
    await deny_when(client, hooks, "object.data.missing == 'x'", "request.name == 'cm'", "1 / object.data.size() == 1")
    reply = await client.post(CONFIGMAPS, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}})
    assert reply.status == 403
    assert reply.json()["message"] == (
        "configmaps \"cm\" is forbidden: [expression 'object.data.missing == 'x'' resulted in error: "
        "no such key: data, expression '1 / object.data.size() == 1' resulted in error: no such key: data]"
    )


async def test_an_error_under_failure_policy_ignore_skips_the_webhook(client: RawClient, hooks: WebhookServer) -> None:
    await deny_when(client, hooks, "object.data.missing == 'x'", failurePolicy="Ignore")
    assert (await client.post(CONFIGMAPS, configmap(a="1"))).status == 201
    assert hooks.received == []


async def test_an_absent_optional_request_field_is_an_error(client: RawClient, hooks: WebhookServer) -> None:
    await deny_when(client, hooks, "request.subResource == ''")
    reply = await client.post(CONFIGMAPS, configmap())
    assert reply.status == 403
    assert reply.json()["message"] == (
        "configmaps \"cm\" is forbidden: expression 'request.subResource == ''' resulted in error: "
        "no such key: subResource"
    )


async def test_a_mutating_webhook_is_skipped_on_a_false_condition(client: RawClient, hooks: WebhookServer) -> None:
    hooks.answers["/mutate"] = json_patch([{"op": "add", "path": "/data/added", "value": "yes"}])
    hook = webhook(
        "add.example.com",
        hooks.client_config("/mutate"),
        matchConditions=conditions("object.metadata.name.startsWith('mutate-')"),
    )
    reply = await client.post(MUTATING, configuration("MutatingWebhookConfiguration", "m", hook))
    assert reply.status == 201, reply.body
    assert (await client.post(CONFIGMAPS, configmap("plain", a="1"))).json()["data"] == {"a": "1"}
    assert (await client.post(CONFIGMAPS, configmap("mutate-me", a="1"))).json()["data"] == {"a": "1", "added": "yes"}
    assert len(hooks.received) == 1


# -- validation of the configuration ---------------------------------------------------------------


def _invalid(name: str, *messages: str, causes: list[dict[str, str]]) -> dict[str, Any]:
    text = messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'ValidatingWebhookConfiguration.admissionregistration.k8s.io "{name}" is invalid: {text}',
        "reason": "Invalid",
        "details": {
            "name": name,
            "group": "admissionregistration.k8s.io",
            "kind": "ValidatingWebhookConfiguration",
            "causes": causes,
        },
        "code": 422,
    }


async def create_with(client: RawClient, hooks: WebhookServer, match_conditions: Any) -> Any:
    hook = webhook("v.example.com", hooks.client_config("/v"), matchConditions=match_conditions)
    return await client.post(VALIDATING, configuration("ValidatingWebhookConfiguration", "bad", hook))


async def test_a_condition_that_does_not_compile_is_refused(client: RawClient, hooks: WebhookServer) -> None:
    reply = await create_with(client, hooks, [{"name": "n", "expression": " request.nope == 1 "}])
    detail = "compilation failed: ERROR: <input>:1:8: undefined field 'nope'\n | request.nope == 1\n | .......^"
    assert reply.status == 422
    assert reply.json() == _invalid(
        "bad",
        f'webhooks[0].matchConditions[0].expression: Invalid value: "request.nope == 1": {detail}',
        causes=[
            {
                "reason": "FieldValueInvalid",
                "message": f'Invalid value: "request.nope == 1": {detail}',
                "field": "webhooks[0].matchConditions[0].expression",
            }
        ],
    )
    assert (await client.get(f"{VALIDATING}/bad")).status == 404


async def test_a_condition_must_give_a_bool(client: RawClient, hooks: WebhookServer) -> None:
    reply = await create_with(client, hooks, [{"name": "n", "expression": "object.metadata.name"}])
    assert reply.status == 422
    assert reply.json()["message"] == (
        'ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: '
        'webhooks[0].matchConditions[0].expression: Invalid value: "object.metadata.name": '
        "must evaluate to bool but got dyn"
    )


async def test_names_must_be_given_qualified_and_unique(client: RawClient, hooks: WebhookServer) -> None:
    reply = await create_with(
        client,
        hooks,
        [
            {"name": "same", "expression": "true"},
            {"name": "same", "expression": "true"},
            {"name": "", "expression": ""},
            {"name": "not qualified", "expression": "true"},
        ],
    )
    assert reply.status == 422
    assert [(cause["field"], cause["reason"]) for cause in reply.json()["details"]["causes"]] == [
        ("webhooks[0].matchConditions[1].name", "FieldValueDuplicate"),
        ("webhooks[0].matchConditions[2].expression", "FieldValueRequired"),
        ("webhooks[0].matchConditions[2].name", "FieldValueRequired"),
        ("webhooks[0].matchConditions[3].name", "FieldValueInvalid"),
    ]


async def test_at_most_64_conditions(client: RawClient, hooks: WebhookServer) -> None:
    reply = await create_with(client, hooks, [{"name": f"c{n}", "expression": "true"} for n in range(65)])
    assert reply.status == 422
    assert reply.json()["message"] == (
        'ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: '
        "webhooks[0].matchConditions: Too many: 65: must have at most 64 items"
    )
    assert (await create_with(client, hooks, conditions(*["true"] * 64))).status == 201


async def test_an_update_to_a_bad_condition_is_refused(client: RawClient, hooks: WebhookServer) -> None:
    assert (await create_with(client, hooks, conditions("true"))).status == 201
    reply = await client.patch(
        f"{VALIDATING}/bad",
        [{"op": "replace", "path": "/webhooks/0/matchConditions/0/expression", "value": "1 +"}],
        content_type="application/json-patch+json",
    )
    assert reply.status == 422
    assert reply.json()["details"]["causes"][0]["field"] == "webhooks[0].matchConditions[0].expression"
    assert (await client.get(f"{VALIDATING}/bad")).json()["webhooks"][0]["matchConditions"][0]["expression"] == "true"


async def test_a_create_has_no_old_object(client: RawClient, hooks: WebhookServer) -> None:
    await deny_when(client, hooks, "oldObject == null || oldObject.metadata.name == 'cm'")
    assert (await client.post(CONFIGMAPS, configmap())).status == 400
    hooks.received.clear()
    assert (await client.delete(f"{VALIDATING}/v")).status == 200
    await deny_when(client, hooks, "oldObject.metadata.name == 'other'")
    reply = await client.post(CONFIGMAPS, configmap("second"))
    assert reply.status == 403
    assert reply.json()["message"] == (
        "configmaps \"second\" is forbidden: expression 'oldObject.metadata.name == 'other'' resulted in error: "
        "no such key: metadata"
    )
    assert hooks.received == []


async def test_a_mutating_webhooks_conditions_see_the_earlier_webhooks_patch(
    client: RawClient, hooks: WebhookServer
) -> None:
    hooks.answers["/first"] = json_patch([{"op": "add", "path": "/data/added", "value": "yes"}])
    hooks.answers["/second"] = json_patch([{"op": "add", "path": "/data/second", "value": "yes"}])
    first = webhook("first.example.com", hooks.client_config("/first"))
    second = webhook(
        "second.example.com",
        hooks.client_config("/second"),
        matchConditions=conditions("has(object.data.added)"),
    )
    for name, hook in (("a", first), ("b", second)):
        reply = await client.post(MUTATING, configuration("MutatingWebhookConfiguration", name, hook))
        assert reply.status == 201, reply.body
    created = await client.post(CONFIGMAPS, configmap(a="1"))
    assert created.json()["data"] == {"a": "1", "added": "yes", "second": "yes"}
    assert [path for path, _, _ in hooks.received] == ["/first", "/second"]
