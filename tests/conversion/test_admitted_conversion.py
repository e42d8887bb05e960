"""Admission webhooks on a webhook-converted CRD: they see the request's version, the store keeps the
storage version (docs/admission.md, docs/conversion.md); and a conversion webhook's Service is found
through the same ``webhook_services`` map as an admission webhook's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from fakeapi.server import FakeAPIServer
from tests.admission.conftest import WebhookServer, allow, configuration, json_patch, webhook
from tests.conftest import RawClient
from tests.conversion.crds import CRDS, V1, V2, failed, job, webhook_crd
from tests.conversion.webhook_server import ConversionWebhook

pytestmark = pytest.mark.asyncio

MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"
VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"


@pytest_asyncio.fixture
async def admission_hooks() -> AsyncIterator[WebhookServer]:
    running = WebhookServer()
    await running.start()
    yield running
    await running.stop()


def _jobs_hook(name: str, hooks: WebhookServer, path: str, operations: list[str]) -> dict[str, Any]:
    return webhook(name, hooks.client_config(path), resources=["jobs"], groups=["example.com"], operations=operations)


async def test_a_create_is_admitted_at_the_request_version_and_stored_converted(
    client: RawClient, hook: ConversionWebhook, admission_hooks: WebhookServer
) -> None:
    admission_hooks.answers["/mutate"] = json_patch([{"op": "replace", "path": "/spec/b", "value": 5}])
    admission_hooks.answers["/validate"] = allow()
    mutating = configuration(
        "MutatingWebhookConfiguration", "m", _jobs_hook("m.example.com", admission_hooks, "/mutate", ["CREATE"])
    )
    validating = configuration(
        "ValidatingWebhookConfiguration", "v", _jobs_hook("v.example.com", admission_hooks, "/validate", ["CREATE"])
    )
    assert (await client.post(MUTATING, mutating)).status == 201
    assert (await client.post(VALIDATING, validating)).status == 201

    created = await client.post(V2, job("v2", b=1))
    assert created.status == 201, created.body
    assert created.json()["apiVersion"] == "example.com/v2"
    assert created.json()["spec"] == {"b": 5}
    seen = [(path, review["request"]) for path, review, _ in admission_hooks.received]
    assert [path for path, _ in seen] == ["/mutate", "/validate"]
    assert seen[0][1]["object"]["apiVersion"] == "example.com/v2" and seen[0][1]["object"]["spec"] == {"b": 1}
    assert seen[1][1]["object"]["apiVersion"] == "example.com/v2" and seen[1][1]["object"]["spec"] == {"b": 5}
    assert seen[0][1]["kind"] == {"group": "example.com", "version": "v2", "kind": "Job"}
    # Converted once admitted: encoded to the storage version, the stored object decoded back.
    assert [review["request"]["desiredAPIVersion"] for review in hook.reviews] == ["example.com/v1", "example.com/v2"]
    stored = await client.get(f"{V1}/job-1")
    assert stored.json()["spec"] == {"a": 5}


async def test_an_update_is_admitted_on_the_converted_object_and_a_refusal_stores_nothing(
    client: RawClient, hook: ConversionWebhook, admission_hooks: WebhookServer
) -> None:
    assert (await client.post(V1, job("v1", a=1))).status == 201
    admission_hooks.answers["/validate"] = allow(allowed=False, status={"message": "no", "code": 403})
    validating = configuration(
        "ValidatingWebhookConfiguration",
        "v",
        _jobs_hook("v.example.com", admission_hooks, "/validate", ["UPDATE", "DELETE"]),
    )
    assert (await client.post(VALIDATING, validating)).status == 201
    before = (await client.get(f"{V1}/job-1")).body

    refused = await client.patch(f"{V2}/job-1", {"spec": {"b": 2}}, content_type="application/merge-patch+json")
    assert refused.status == 403, refused.body
    request = admission_hooks.received[-1][1]["request"]
    assert request["oldObject"]["apiVersion"] == "example.com/v2" and request["oldObject"]["spec"] == {"b": 1}
    assert request["object"]["apiVersion"] == "example.com/v2" and request["object"]["spec"] == {"b": 2}
    assert (await client.get(f"{V1}/job-1")).body == before

    admission_hooks.answers["/validate"] = allow()
    patched = await client.patch(f"{V2}/job-1", {"spec": {"b": 3}}, content_type="application/merge-patch+json")
    assert patched.status == 200, patched.body
    assert patched.json()["spec"] == {"b": 3}
    assert (await client.get(f"{V1}/job-1")).json()["spec"] == {"a": 3}

    deleted = await client.delete(f"{V2}/job-1")
    assert deleted.status == 200, deleted.body
    request = admission_hooks.received[-1][1]["request"]
    assert request["operation"] == "DELETE"
    assert request["oldObject"]["apiVersion"] == "example.com/v2" and request["oldObject"]["spec"] == {"b": 3}
    assert (await client.get(f"{V1}/job-1")).status == 404


async def test_the_conversion_webhook_service_is_found_through_set_webhook_services() -> None:
    async with (
        ConversionWebhook(names=("converter.system.svc",)) as hook,
        FakeAPIServer() as server,
        aiohttp.ClientSession() as session,
    ):
        client = RawClient(session, server.url)
        service = {"namespace": "system", "name": "converter", "path": "/convert"}
        assert (await client.post(CRDS, webhook_crd({"service": service, "caBundle": hook.ca_bundle}))).status == 201
        assert (await client.post(V1, job("v1", a=1))).status == 201
        unmapped = await client.get(f"{V2}/job-1")
        assert unmapped.status == 500
        assert unmapped.body == failed(
            "conversion webhook for example.com/v1, Kind=Job failed: "
            'Post "https://converter.system.svc:443/convert?timeout=30s": service "converter" not found'
        )
        server.set_webhook_services({"system/converter": f"127.0.0.1:{hook.port}"})
        got = await client.get(f"{V2}/job-1")
        assert got.status == 200, got.body
        assert got.json()["spec"] == {"b": 1}
        assert hook.paths == ["/convert?timeout=30s"]
