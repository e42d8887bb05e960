"""A write waiting on a webhook holds nothing: another write commits meanwhile, and the waiting one
is computed again from what is stored, or refused as a conflict when it named the old version."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from fakeapi import WebhookAnswer, WebhookCall
from fakeapi.server import FakeAPIServer
from tests.admission.conftest import configuration, webhook
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"


class HeldWebhook:
    """Answers every call with allowed, except that the first waits until :meth:`release`."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.first_arrived = asyncio.Event()
        self._release = asyncio.Event()

    def release(self) -> None:
        self._release.set()

    async def __call__(self, call: WebhookCall) -> WebhookAnswer:
        request = json.loads(call.body)["request"]
        self.requests.append(request)
        if len(self.requests) == 1:
            self.first_arrived.set()
            await self._release.wait()
        review = {
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "response": {"uid": request["uid"], "allowed": True},
        }
        return WebhookAnswer(200, "application/json", json.dumps(review).encode())


async def setup(server: FakeAPIServer, client: RawClient) -> HeldWebhook:
    held = HeldWebhook()
    server.set_webhook_caller(held)
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}
    assert (await client.post(CONFIGMAPS, cm)).status == 201
    config = configuration(
        "ValidatingWebhookConfiguration",
        "v",
        webhook("v.example.com", {"url": "https://hooks.example/"}, operations=["UPDATE"]),
    )
    assert (await client.post(VALIDATING, config)).status == 201
    return held


async def test_a_patch_waiting_on_a_webhook_is_computed_again_after_another_write(
    server: FakeAPIServer, client: RawClient
) -> None:
    held = await setup(server, client)
    merge = "application/merge-patch+json"
    first = asyncio.ensure_future(client.patch(f"{CONFIGMAPS}/cm", {"data": {"first": "x"}}, merge))
    await held.first_arrived.wait()
    second = await client.patch(f"{CONFIGMAPS}/cm", {"data": {"second": "y"}}, merge)
    assert second.status == 200
    held.release()
    reply = await first
    assert reply.status == 200
    assert reply.json()["data"] == {"a": "1", "first": "x", "second": "y"}
    assert int(reply.json()["metadata"]["resourceVersion"]) == int(second.json()["metadata"]["resourceVersion"]) + 1
    assert [r["object"]["data"] for r in held.requests] == [
        {"a": "1", "first": "x"},
        {"a": "1", "second": "y"},
        {"a": "1", "first": "x", "second": "y"},
    ]
    assert held.requests[2]["oldObject"]["data"] == {"a": "1", "second": "y"}


async def test_an_update_naming_the_version_it_read_is_a_conflict_after_another_write(
    server: FakeAPIServer, client: RawClient
) -> None:
    held = await setup(server, client)
    stored = (await client.get(f"{CONFIGMAPS}/cm")).json()
    first = asyncio.ensure_future(client.put(f"{CONFIGMAPS}/cm", {**stored, "data": {"a": "first"}}))
    await held.first_arrived.wait()
    assert (await client.put(f"{CONFIGMAPS}/cm", {**stored, "data": {"a": "second"}})).status == 200
    held.release()
    reply = await first
    assert reply.status == 409
    assert reply.json()["message"] == (
        'Operation cannot be fulfilled on configmaps "cm": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )
    assert (await client.get(f"{CONFIGMAPS}/cm")).json()["data"] == {"a": "second"}
