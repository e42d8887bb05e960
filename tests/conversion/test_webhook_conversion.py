"""CRD conversion by webhook over HTTP: what a client of a non-storage version sees (docs/conversion.md)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient, crd
from tests.conversion.crds import CRDS, SOURCE, V1, V2, failed, job, webhook_crd
from tests.conversion.webhook_server import ConversionWebhook, answering, converting

pytestmark = pytest.mark.asyncio


async def test_a_write_in_the_other_version_is_stored_in_the_storage_version(
    client: RawClient, hook: ConversionWebhook
) -> None:
    created = await client.post(V2, job("v2", b=1))
    assert created.status == 201, created.body
    assert created.json()["apiVersion"] == "example.com/v2"
    assert created.json()["spec"] == {"b": 1}
    stored = await client.get(f"{V1}/job-1")
    assert stored.json()["spec"] == {"a": 1}
    assert stored.json()["metadata"]["resourceVersion"] == created.json()["metadata"]["resourceVersion"]
    # Encoded to the storage version, then the written object decoded back for the answer.
    assert [review["request"]["desiredAPIVersion"] for review in hook.reviews] == ["example.com/v1", "example.com/v2"]
    sent = hook.reviews[0]
    assert list(sent) == ["kind", "apiVersion", "request", "response"]
    assert sent["apiVersion"] == "apiextensions.k8s.io/v1"
    assert sent["response"] == {"uid": "", "convertedObjects": None, "result": {"metadata": {}}}
    assert "resourceVersion" not in sent["request"]["objects"][0]["metadata"]
    assert hook.paths == ["/convert?timeout=30s", "/convert?timeout=30s"]


async def test_reads_lists_and_patches_convert_each_object(client: RawClient, hook: ConversionWebhook) -> None:
    for name in ("a", "b"):
        assert (await client.post(V1, job("v1", name, a=name))).status == 201
    assert hook.reviews == []
    got = await client.get(f"{V2}/a")
    assert got.json()["spec"] == {"b": "a"} and got.json()["apiVersion"] == "example.com/v2"
    listed = await client.get(V2)
    assert [item["spec"] for item in listed.json()["items"]] == [{"b": "a"}, {"b": "b"}]
    assert listed.json()["apiVersion"] == "example.com/v2"
    assert [len(review["request"]["objects"]) for review in hook.reviews] == [1, 1, 1]
    patched = await client.patch(f"{V2}/a", {"spec": {"b": "z"}}, content_type="application/merge-patch+json")
    assert patched.status == 200, patched.body
    assert patched.json()["spec"] == {"b": "z"}
    assert (await client.get(f"{V1}/a")).json()["spec"] == {"a": "z"}


async def test_a_failed_conversion_fails_a_get_and_a_list_with_the_webhook_message(
    client: RawClient, hook: ConversionWebhook
) -> None:
    assert (await client.post(V1, job("v1", a=1))).status == 201

    async def refuse(review: dict[str, Any]) -> web.StreamResponse:
        uid = review["request"]["uid"]
        response = {"uid": uid, "result": {"status": "Failure", "message": "cannot convert a"}}
        return web.json_response({"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": response})

    hook.answer = refuse
    expected = failed(f"conversion webhook for {SOURCE} failed: cannot convert a")
    got = await client.get(f"{V2}/job-1")
    assert (got.status, got.body) == (500, expected)
    listed = await client.get(V2)
    assert (listed.status, listed.body) == (500, expected)
    patched = await client.patch(f"{V2}/job-1", {"spec": {"b": 2}}, content_type="application/merge-patch+json")
    assert (patched.status, patched.body) == (500, expected)
    deleted = await client.delete(f"{V2}/job-1")
    assert (deleted.status, deleted.body) == (500, expected)
    # Nothing changed; the storage version is read without the webhook.
    kept = await client.get(f"{V1}/job-1")
    assert (kept.status, kept.json()["spec"]) == (200, {"a": 1})


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (
            answering(b"garbage"),
            "failed: couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of value",
        ),
        (
            answering(b"oops", status=500, content_type="text/plain"),
            'failed: an error on the server ("oops") has prevented the request from succeeding',
        ),
        (answering(b"", status=404), "failed: the server could not find the requested resource"),
        (
            answering(b'{"response":{}}'),
            "failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, Kind=",
        ),
        (
            answering(b'{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}'),
            "failed: no response provided",
        ),
        (
            answering(b'{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"nope"}}'),
            'failed: expected response.uid="{uid}", got "nope"',
        ),
    ],
)
async def test_a_webhook_answering_wrong_fails_the_read_with_the_apiservers_text(
    client: RawClient, hook: ConversionWebhook, answer: Any, problem: str
) -> None:
    assert (await client.post(V1, job("v1", a=1))).status == 201
    hook.answer = answer
    got = await client.get(f"{V2}/job-1")
    uid = hook.reviews[-1]["request"]["uid"]
    assert (got.status, got.body) == (500, failed(f"conversion webhook for {SOURCE} {problem}".replace("{uid}", uid)))


async def test_an_unsuccessful_result_without_message_and_a_wrong_count(
    client: RawClient, hook: ConversionWebhook
) -> None:
    assert (await client.post(V1, job("v1", a=1))).status == 201

    def with_response(**response: Any) -> Any:
        async def answer(review: dict[str, Any]) -> web.StreamResponse:
            body = {"uid": review["request"]["uid"], **response}
            return web.json_response(
                {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "response": body}
            )

        return answer

    hook.answer = with_response(result={})
    got = await client.get(f"{V2}/job-1")
    assert got.body == failed(f"conversion webhook for {SOURCE} failed: response.result.status was '', not 'Success'")
    hook.answer = with_response(result={"status": "Success"}, convertedObjects=[])
    got = await client.get(f"{V2}/job-1")
    assert got.body == failed(f"conversion webhook for {SOURCE} returned 0 objects, expected 1")


async def test_metadata_the_webhook_changes_is_restored_but_labels_and_identity(
    client: RawClient, hook: ConversionWebhook
) -> None:
    assert (await client.post(V1, job("v1", a=1))).status == 201

    def changing(**metadata: Any) -> Any:
        async def answer(review: dict[str, Any]) -> web.StreamResponse:
            obj = review["request"]["objects"][0]
            converted = {**obj, "apiVersion": "example.com/v2", "metadata": {**obj["metadata"], **metadata}}
            response = {
                "uid": review["request"]["uid"],
                "result": {"status": "Success"},
                "convertedObjects": [converted],
            }
            return web.json_response(
                {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "response": response}
            )

        return answer

    hook.answer = changing(labels={"tier": "gold"}, generation=7)
    got = (await client.get(f"{V2}/job-1")).json()
    assert got["metadata"]["labels"] == {"tier": "gold"}
    assert got["metadata"]["generation"] == 1
    hook.answer = changing(name="other")
    renamed = await client.get(f"{V2}/job-1")
    assert renamed.body == failed(
        f"conversion webhook for {SOURCE} returned invalid object: must have the same name: job-1 != other"
    )
    hook.answer = changing(labels={"bad key": "x"})
    bad = await client.get(f"{V2}/job-1")
    assert bad.status == 500
    assert bad.json()["message"].startswith(
        f'conversion webhook for {SOURCE} returned invalid metadata: metadata.labels: Invalid value: "bad key"'
    )


async def test_a_write_whose_conversion_fails_stores_nothing(client: RawClient, hook: ConversionWebhook) -> None:
    hook.answer = answering(b"garbage")
    created = await client.post(V2, job("v2", b=1))
    assert created.status == 500
    assert created.json()["message"].startswith("conversion webhook for example.com/v2, Kind=Job failed: ")
    assert (await client.get(f"{V1}/job-1")).status == 404


async def test_an_unreachable_webhook(server: FakeAPIServer, hook: ConversionWebhook) -> None:
    async with aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        closed = ConversionWebhook()
        async with closed:
            url, port = closed.url, closed.port
        definition = webhook_crd({"url": url, "caBundle": hook.ca_bundle})
        assert (await client.post(CRDS, definition)).status == 201
        assert (await client.post(V1, job("v1", a=1))).status == 201
        got = await client.get(f"{V2}/job-1")
        assert got.body == failed(
            f'conversion webhook for {SOURCE} failed: Post "{url}?timeout=30s": '
            f"dial tcp 127.0.0.1:{port}: connect: connection refused"
        )


async def test_an_untrusted_certificate(server: FakeAPIServer, hook: ConversionWebhook) -> None:
    async with aiohttp.ClientSession() as session, ConversionWebhook() as other:
        client = RawClient(session, server.url)
        assert (await client.post(CRDS, webhook_crd({"url": hook.url, "caBundle": other.ca_bundle}))).status == 201
        assert (await client.post(V1, job("v1", a=1))).status == 201
        got = await client.get(f"{V2}/job-1")
        assert got.body == failed(
            f'conversion webhook for {SOURCE} failed: Post "{hook.url}?timeout=30s": '
            "tls: failed to verify certificate: x509: certificate signed by unknown authority"
        )


async def test_a_service_reference_reaches_the_mapped_address(server: FakeAPIServer, hook: ConversionWebhook) -> None:
    async with aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        service = {"namespace": "system", "name": "converter", "path": "/convert"}
        definition = webhook_crd({"service": service, "caBundle": hook.ca_bundle}, review_versions=("v1beta1", "v1"))
        assert (await client.post(CRDS, definition)).status == 201
        assert (await client.post(V1, job("v1", a=1))).status == 201
        got = await client.get(f"{V2}/job-1")
        assert got.status == 200, got.body
        assert got.json()["spec"] == {"b": 1}
        assert hook.reviews[-1]["apiVersion"] == "apiextensions.k8s.io/v1beta1"


async def test_an_unmapped_service(server: FakeAPIServer, hook: ConversionWebhook) -> None:
    async with aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        service = {"namespace": "system", "name": "missing", "port": 8443}
        assert (await client.post(CRDS, webhook_crd({"service": service}))).status == 201
        assert (await client.post(V1, job("v1", a=1))).status == 201
        got = await client.get(f"{V2}/job-1")
        assert got.body == failed(
            f'conversion webhook for {SOURCE} failed: Post "https://missing.system.svc:8443?timeout=30s": '
            'service "missing" not found'
        )


async def test_a_watch_of_the_other_version_gets_converted_events_then_the_error(
    server: FakeAPIServer, client: RawClient, hook: ConversionWebhook
) -> None:
    assert (await client.post(V1, job("v1", a=1))).status == 201
    async with aiohttp.ClientSession() as session, session.get(server.url + V2 + "?watch=1") as stream:
        first = json.loads(await stream.content.readline())
        assert (first["type"], first["object"]["apiVersion"], first["object"]["spec"]) == (
            "ADDED",
            "example.com/v2",
            {"b": 1},
        )
        hook.answer = answering(b"garbage")
        assert (await client.post(V1, job("v1", "job-2", a=2))).status == 201
        error = json.loads(await stream.content.readline())
        problem = (
            f"conversion webhook for {SOURCE} failed: couldn't get version/kind; json parse error: "
            "invalid character 'g' looking for beginning of value"
        )
        assert error == {
            "type": "ERROR",
            "object": {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": f"Internal error occurred: {problem}",
                "reason": "InternalError",
                "details": {"causes": [{"message": problem}]},
                "code": 500,
            },
        }
        assert await stream.content.readline() == b""


async def test_spec_conversion_is_defaulted_and_validated(server: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        definition = webhook_crd({"url": "http://x/y?z=1"}, review_versions=("v2", "v2"))
        refused = await client.post(CRDS, definition)
        assert refused.status == 422
        assert refused.json()["message"] == (
            'CustomResourceDefinition.apiextensions.k8s.io "jobs.example.com" is invalid: ['
            "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL "
            "scheme; desired format: https://host[/path], spec.conversion.webhookClientConfig.url: Invalid value: "
            '"z=1": query parameters are not permitted in the URL, spec.conversion.conversionReviewVersions[1]: '
            'Invalid value: "v2": duplicate version, spec.conversion.conversionReviewVersions: Invalid value: '
            '[]string{"v2", "v2"}: must include at least one of v1, v1beta1]'
        )
        # ValidateWebhookService takes (namespace, name) and is called with (name, namespace): a missing
        # name is reported as the namespace (pkg/util/webhook/validation.go, v0.32.0).
        unnamed = webhook_crd({"service": {"namespace": "default", "path": "/x//y"}})
        refused = await client.post(CRDS, unnamed)
        assert refused.status == 422
        assert refused.json()["message"] == (
            'CustomResourceDefinition.apiextensions.k8s.io "jobs.example.com" is invalid: ['
            "spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required, "
            'spec.conversion.webhookClientConfig.service.path: Invalid value: "/x//y": segment[1] may not be empty]'
        )
        plain = crd(versions=["v1", "v2"])
        created = await client.post(CRDS, plain)
        assert created.json()["spec"]["conversion"] == {"strategy": "None"}
        assert created.json()["status"]["storedVersions"] == ["v1"]
        status = created.json()
        status["status"]["storedVersions"] = ["v2"]
        pruned = await client.put(f"{CRDS}/jobs.example.com/status", status)
        assert pruned.status == 422
        assert pruned.json()["message"].endswith(
            'status.storedVersions: Invalid value: []string{"v2"}: must have the storage version v1'
        )


async def test_a_write_waiting_for_the_webhook_does_not_hold_the_store(
    client: RawClient, hook: ConversionWebhook
) -> None:
    created = (await client.post(V1, job("v1", a=1, c=0))).json()
    seen_by_put = (await client.get(f"{V2}/job-1")).json()
    interleaved: list[int] = []

    async def write_meanwhile(review: dict[str, Any]) -> web.StreamResponse:
        if review["request"]["desiredAPIVersion"] == "example.com/v1" and not interleaved:
            # Another client writes while the apiserver waits for this answer.
            other = await client.patch(f"{V1}/job-1", {"spec": {"c": 1}}, content_type="application/merge-patch+json")
            interleaved.append(other.status)
        return await converting(review)

    hook.answer = write_meanwhile
    stale = await client.put(f"{V2}/job-1", {**seen_by_put, "spec": {"b": 5, "c": 0}})
    assert interleaved == [200]
    assert stale.status == 409
    assert stale.json()["reason"] == "Conflict"
    assert (await client.get(f"{V1}/job-1")).json()["spec"] == {"a": 1, "c": 1}

    interleaved.clear()
    patched = await client.patch(f"{V2}/job-1", {"spec": {"b": 7}}, content_type="application/merge-patch+json")
    assert interleaved == [200]
    assert patched.status == 200, patched.body
    # The patch is applied again to what the other client wrote.
    assert patched.json()["spec"] == {"b": 7, "c": 1}
    assert created["metadata"]["uid"] == patched.json()["metadata"]["uid"]


async def test_a_webhook_that_does_not_answer_in_time(hook: ConversionWebhook) -> None:
    released = asyncio.Event()

    async def hang(review: dict[str, Any]) -> web.StreamResponse:
        await released.wait()
        return await converting(review)

    hook.answer = hang
    async with FakeAPIServer(webhook_timeout=0.2) as server, aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        assert (await client.post(CRDS, webhook_crd({"url": hook.url, "caBundle": hook.ca_bundle}))).status == 201
        assert (await client.post(V1, job("v1", a=1))).status == 201
        got = await client.get(f"{V2}/job-1")
        released.set()
        assert got.body == failed(
            f'conversion webhook for {SOURCE} failed: Post "{hook.url}?timeout=200ms": context deadline exceeded'
        )


async def test_deletecollection_lists_converted_before_deleting(client: RawClient, hook: ConversionWebhook) -> None:
    for name in ("a", "b"):
        assert (await client.post(V1, job("v1", name, a=name))).status == 201
    hook.answer = answering(b"garbage")
    refused = await client.delete(V2)
    assert refused.status == 500
    assert [item["metadata"]["name"] for item in (await client.get(V1)).json()["items"]] == ["a", "b"]
    hook.answer = converting
    removed = await client.delete(V2)
    assert removed.status == 200, removed.body
    assert [(item["apiVersion"], item["spec"]) for item in removed.json()["items"]] == [
        ("example.com/v2", {"b": "a"}),
        ("example.com/v2", {"b": "b"}),
    ]
    assert (await client.get(V1)).json()["items"] == []
