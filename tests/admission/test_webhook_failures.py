"""A webhook that cannot be reached, answers late, or answers wrong: the apiserver's error, nothing stored."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from fakeapi.server import FakeAPIServer
from tests.admission.conftest import WebhookServer, allow, configuration, json_patch, store_unvalidated, webhook
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}


def internal(text: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f"Internal error occurred: {text}",
        "reason": "InternalError",
        "details": {"causes": [{"message": text}]},
        "code": 500,
    }


async def register(client: RawClient, kind: str, *webhooks: dict[str, Any]) -> None:
    path = VALIDATING if kind == "ValidatingWebhookConfiguration" else MUTATING
    reply = await client.post(path, configuration(kind, "config", *webhooks))
    assert reply.status == 201, reply.body


async def refused_create(client: RawClient) -> dict[str, Any]:
    reply = await client.post(CONFIGMAPS, CONFIGMAP)
    assert reply.status == 500, reply.body
    assert (await client.get(f"{CONFIGMAPS}/cm")).status == 404
    body: dict[str, Any] = reply.json()
    return body


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def test_a_refused_connection_fails_closed_with_the_dial_error(client: RawClient) -> None:
    port = closed_port()
    await register(
        client,
        "ValidatingWebhookConfiguration",
        webhook("down.example.com", {"url": f"https://127.0.0.1:{port}/check/"}),
    )
    url = f"https://127.0.0.1:{port}/check?timeout=10s"
    assert await refused_create(client) == internal(
        f'failed calling webhook "down.example.com": failed to call webhook: Post "{url}": '
        f"dial tcp 127.0.0.1:{port}: connect: connection refused"
    )


async def test_failure_policy_ignore_lets_the_write_through(client: RawClient) -> None:
    port = closed_port()
    down = {"url": f"https://127.0.0.1:{port}/"}
    await register(client, "MutatingWebhookConfiguration", webhook("m.example.com", down, failurePolicy="Ignore"))
    await register(client, "ValidatingWebhookConfiguration", webhook("v.example.com", down, failurePolicy="Ignore"))
    assert (await client.post(CONFIGMAPS, CONFIGMAP)).status == 201


async def test_a_slow_webhook_times_out_after_its_timeout_seconds(client: RawClient, hooks: WebhookServer) -> None:
    never = asyncio.Event()

    async def hang(request: dict[str, Any]) -> web.StreamResponse:
        await never.wait()
        raise AssertionError("unreachable")

    hooks.answers["/slow"] = hang
    await register(
        client,
        "ValidatingWebhookConfiguration",
        webhook("slow.example.com", hooks.client_config("/slow"), timeoutSeconds=1),
    )
    assert await refused_create(client) == internal(
        f'failed calling webhook "slow.example.com": failed to call webhook: '
        f'Post "{hooks.url("/slow")}?timeout=1s": context deadline exceeded'
    )
    never.set()


def answer_json(value: Any) -> tuple[int, str, bytes]:
    return 200, "application/json", json.dumps(value).encode()


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (
            (200, "application/json", b"garbage"),
            "failed to call webhook: couldn't get version/kind; json parse error: "
            "invalid character 'g' looking for beginning of value",
        ),
        (
            answer_json({"response": {"allowed": True}}),
            'received invalid webhook response: expected response.uid="{uid}", got ""',
        ),
        (
            answer_json({"response": {"uid": "{uid}", "allowed": True}}),
            "received invalid webhook response: expected webhook response of admission.k8s.io/v1, "
            "Kind=AdmissionReview, got /, Kind=",
        ),
        (
            answer_json({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}),
            "received invalid webhook response: webhook response was absent",
        ),
        (
            answer_json(
                {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"allowed": "yes"}}
            ),
            "failed to call webhook: json: cannot unmarshal string into Go struct field "
            "AdmissionResponse.response.allowed of type bool",
        ),
        (
            (500, "text/plain", b"boom"),
            'failed to call webhook: an error on the server ("boom") has prevented the request from succeeding',
        ),
        (
            (404, "application/json", b"{}"),
            "failed to call webhook: the server could not find the requested resource",
        ),
        (
            (
                503,
                "application/json",
                json.dumps(
                    {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "overloaded"}
                ).encode(),
            ),
            "failed to call webhook: overloaded",
        ),
    ],
)
async def test_an_answer_that_is_no_admission_review_fails_closed(
    client: RawClient, hooks: WebhookServer, answer: tuple[int, str, bytes], problem: str
) -> None:
    status, content_type, body = answer

    def respond(request: dict[str, Any]) -> web.StreamResponse:
        text = body.replace(b"{uid}", request["uid"].encode())
        return web.Response(status=status, body=text, content_type=content_type)

    hooks.answers["/bad"] = respond
    await register(client, "ValidatingWebhookConfiguration", webhook("bad.example.com", hooks.client_config("/bad")))
    refused = await refused_create(client)
    uid = hooks.received[0][1]["request"]["uid"]
    assert refused == internal(f'failed calling webhook "bad.example.com": {problem.replace("{uid}", uid)}')


async def test_a_validating_webhook_may_not_patch(client: RawClient, hooks: WebhookServer) -> None:
    hooks.answers["/v"] = json_patch([{"op": "remove", "path": "/data"}])
    await register(client, "ValidatingWebhookConfiguration", webhook("v.example.com", hooks.client_config("/v")))
    assert await refused_create(client) == internal(
        'failed calling webhook "v.example.com": received invalid webhook response: '
        "validating webhook may not return response.patch"
    )


async def test_a_patch_that_is_not_a_json_patch_is_an_internal_error(client: RawClient, hooks: WebhookServer) -> None:
    not_a_list = base64.b64encode(json.dumps({"op": "add"}).encode()).decode()
    hooks.answers["/m"] = allow(patchType="JSONPatch", patch=not_a_list)
    await register(client, "MutatingWebhookConfiguration", webhook("m.example.com", hooks.client_config("/m")))
    assert await refused_create(client) == internal(
        "json: cannot unmarshal object into Go value of type jsonpatch.Patch"
    )


async def test_a_dry_run_refuses_webhooks_with_side_effects(
    server: FakeAPIServer, client: RawClient, hooks: WebhookServer
) -> None:
    hooks.answers["/v"] = allow()
    hook = webhook("v.example.com", hooks.client_config("/v"), sideEffects="Unknown")
    store_unvalidated(server, configuration("ValidatingWebhookConfiguration", "config", hook))
    reply = await client.post(f"{CONFIGMAPS}?dryRun=All", CONFIGMAP)
    assert reply.status == 400
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'admission webhook "v.example.com" does not support dry run',
        "reason": "BadRequest",
        "code": 400,
    }
    assert hooks.received == []
    assert (await client.post(CONFIGMAPS, CONFIGMAP)).status == 201


async def test_warnings_reach_the_client_even_when_the_write_is_refused(
    client: RawClient, hooks: WebhookServer
) -> None:
    hooks.answers["/v"] = allow(allowed=False, warnings=["careful"], status={"message": "no"})
    await register(client, "ValidatingWebhookConfiguration", webhook("v.example.com", hooks.client_config("/v")))
    reply = await client.post(CONFIGMAPS, CONFIGMAP)
    assert reply.status == 400
    assert reply.warnings == ['299 - "careful"']


async def test_a_service_reference_reaches_the_address_it_is_mapped_to() -> None:
    hooks = WebhookServer("hooks.default.svc")
    await hooks.start()
    hooks.answers["/svc"] = allow(allowed=False, status={"message": "via the service"})
    services = {"default/hooks:8443": f"127.0.0.1:{hooks.port}"}
    try:
        async with FakeAPIServer(webhook_services=services) as server, aiohttp.ClientSession() as session:
            client = RawClient(session, server.url)
            reference = {"service": {"namespace": "default", "name": "hooks", "port": 8443, "path": "/svc"}}
            await register(
                client,
                "ValidatingWebhookConfiguration",
                webhook("svc.example.com", {**reference, "caBundle": hooks.ca_bundle}),
            )
            missing = await client.post(CONFIGMAPS, CONFIGMAP)
            url = "https://hooks.default.svc:8443/svc?timeout=10s"
            assert missing.json()["message"] == (
                'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: '
                f'Post "{url}": service "hooks" not found'
            )
            service = {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "hooks"},
                "spec": {"ports": [{"port": 8443}]},
            }
            assert (await client.post("/api/v1/namespaces/default/services", service)).status == 201
            refused = await client.post(CONFIGMAPS, CONFIGMAP)
            assert (
                refused.json()["message"] == 'admission webhook "svc.example.com" denied the request: via the service'
            )
            ((_, _, headers),) = hooks.received
            assert headers["Host"] == "hooks.default.svc:8443"
            assert server.errors == []
    finally:
        await hooks.stop()


async def test_a_certificate_for_another_name_is_go_s_hostname_error(hooks: WebhookServer) -> None:
    hooks.answers["/x"] = allow()
    async with FakeAPIServer(webhook_services={"default/hooks": f"127.0.0.1:{hooks.port}"}) as server:
        async with aiohttp.ClientSession() as session:
            client = RawClient(session, server.url)
            service = {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "hooks"},
                "spec": {"ports": [{"port": 443}]},
            }
            assert (await client.post("/api/v1/namespaces/default/services", service)).status == 201
            reference = {
                "service": {"namespace": "default", "name": "hooks", "path": "/x"},
                "caBundle": hooks.ca_bundle,
            }
            await register(client, "ValidatingWebhookConfiguration", webhook("x.example.com", reference))
            body = await refused_create(client)
        assert body["message"].endswith(
            'Post "https://hooks.default.svc:443/x?timeout=10s": tls: failed to verify certificate: x509: '
            "certificate is valid for localhost, kubernetes, kubernetes.default, kubernetes.default.svc, not hooks.default.svc"
        )
        assert hooks.received == []


async def test_a_certificate_no_bundle_vouches_for_is_unknown_authority(
    client: RawClient, hooks: WebhookServer
) -> None:
    hooks.answers["/x"] = allow()
    other = WebhookServer()
    await register(
        client,
        "ValidatingWebhookConfiguration",
        webhook("x.example.com", {"url": hooks.url("/x"), "caBundle": other.ca_bundle}),
    )
    body = await refused_create(client)
    assert body["message"].endswith(
        f'Post "{hooks.url("/x")}?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority'
    )


async def test_a_webhook_knowing_no_admission_review_version_fails_closed(
    server: FakeAPIServer, client: RawClient, hooks: WebhookServer
) -> None:
    hooks.answers["/v"] = allow()
    hook = webhook("v.example.com", hooks.client_config("/v"), admissionReviewVersions=["v2"])
    store_unvalidated(server, configuration("ValidatingWebhookConfiguration", "config", hook))
    assert await refused_create(client) == internal(
        'failed calling webhook "v.example.com": could not create admission objects: '
        "webhook does not accept known AdmissionReview versions (v1, v1beta1)"
    )
    assert hooks.received == []


async def test_a_v1beta1_webhook_gets_a_v1beta1_review_and_is_checked_less(
    client: RawClient, hooks: WebhookServer
) -> None:
    patch = base64.b64encode(json.dumps([{"op": "add", "path": "/data/b", "value": "2"}]).encode()).decode()
    hooks.answers["/m"] = lambda request: web.json_response({"response": {"allowed": True, "patch": patch}})
    await register(
        client,
        "MutatingWebhookConfiguration",
        webhook("m.example.com", hooks.client_config("/m"), admissionReviewVersions=["v1beta1", "v1"]),
    )
    reply = await client.post(CONFIGMAPS, CONFIGMAP)
    assert reply.status == 201, reply.body
    assert reply.json()["data"] == {"a": "1", "b": "2"}
    ((_, review, _),) = hooks.received
    assert review["apiVersion"] == "admission.k8s.io/v1beta1"


async def test_a_service_without_the_port_is_the_resolvers_error(client: RawClient) -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hooks"}, "spec": {"ports": [{"port": 80}]}}
    assert (await client.post("/api/v1/namespaces/default/services", service)).status == 201
    reference = {"service": {"namespace": "default", "name": "hooks", "port": 8443}}
    await register(client, "ValidatingWebhookConfiguration", webhook("svc.example.com", reference))
    assert await refused_create(client) == internal(
        'failed calling webhook "svc.example.com": failed to call webhook: '
        'Post "https://hooks.default.svc:8443/?timeout=10s": no service port 8443 found for service "hooks"'
    )


async def test_a_service_nothing_here_serves_is_refused_at_its_cluster_ip(client: RawClient) -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hooks"}, "spec": {"ports": [{"port": 443}]}}
    created = await client.post("/api/v1/namespaces/default/services", service)
    cluster_ip = created.json()["spec"]["clusterIP"]
    reference = {"service": {"namespace": "default", "name": "hooks", "path": "/v"}}
    await register(client, "ValidatingWebhookConfiguration", webhook("svc.example.com", reference))
    assert await refused_create(client) == internal(
        'failed calling webhook "svc.example.com": failed to call webhook: '
        f'Post "https://hooks.default.svc:443/v?timeout=10s": dial tcp {cluster_ip}:443: connect: connection refused'
    )
