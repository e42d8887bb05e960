"""The pytest fixture with a test's own webhook server beside it (the example of docs/admission.md)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import aiohttp
import pytest

from fakeapi.pytest_plugin import FakeAPI
from tests.admission.conftest import WebhookServer, allow, configuration, webhook


@pytest.mark.asyncio
async def test_a_webhook_served_by_the_test_refuses_through_the_fixture(fakeapi: FakeAPI, hooks: WebhookServer) -> None:
    hooks.answers["/validate"] = allow(allowed=False, status={"code": 403, "message": "not in this test"})
    fakeapi.load(
        configuration(
            "ValidatingWebhookConfiguration", "policy", webhook("policy.example.com", hooks.client_config("/validate"))
        )
    )
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}
    path = f"{fakeapi.url}/api/v1/namespaces/default/configmaps"
    async with aiohttp.ClientSession() as session, session.post(path, json=cm) as reply:
        assert reply.status == 403
        body: dict[str, Any] = await reply.json()
    assert body["message"] == 'admission webhook "policy.example.com" denied the request: not in this test'
    fakeapi.requests(verb="create", resource="configmaps").assert_one(status=403)


def test_the_next_test_starts_without_the_configuration_and_with_http_calls(fakeapi: FakeAPI) -> None:
    assert fakeapi.find("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "policy", "") is None
    data = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}).encode()
    request = urllib.request.Request(f"{fakeapi.url}/api/v1/namespaces/default/configmaps", data=data, method="POST")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request) as response:
        assert response.status == 201
