"""Validating and mutating webhooks called on writes, their verdicts as a client sees them (docs/admission.md)."""

from __future__ import annotations

import pytest

from tests.admission.conftest import WebhookServer, allow, configuration, json_patch, webhook
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def configmap(name: str = "cm", **data: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


async def test_a_validating_webhook_refusal_is_the_apiservers_status(client: RawClient, hooks: WebhookServer) -> None:
    hooks.answers["/deny"] = allow(allowed=False, status={"message": "no configmaps today", "code": 403})
    config = configuration("ValidatingWebhookConfiguration", "v", webhook("deny.example.com", hooks.client_config("/deny")))
    assert (await client.post(VALIDATING, config)).status == 201
    reply = await client.post(CONFIGMAPS, configmap())
    assert reply.status == 403
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'admission webhook "deny.example.com" denied the request: no configmaps today',
        "code": 403,
    }
    assert (await client.get(f"{CONFIGMAPS}/cm")).status == 404


async def test_a_mutating_webhook_patch_is_stored(client: RawClient, hooks: WebhookServer) -> None:
    hooks.answers["/mutate"] = json_patch([{"op": "add", "path": "/data/added", "value": "yes"}], warnings=["mutated it"])
    config = configuration("MutatingWebhookConfiguration", "m", webhook("add.example.com", hooks.client_config("/mutate")))
    assert (await client.post(MUTATING, config)).status == 201
    reply = await client.post(CONFIGMAPS, configmap(a="1"))
    assert reply.status == 201, reply.body
    assert reply.json()["data"] == {"a": "1", "added": "yes"}
    assert reply.warnings == ['299 - "mutated it"']
    (path, review, headers), = hooks.received
    request = review["request"]
    assert request["operation"] == "CREATE"
    assert request["oldObject"] is None
    assert request["object"]["data"] == {"a": "1"}
    assert request["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}
