"""Webhooks that answer wrong: each malformed review or converted object refused with the apiserver's
text, the v1beta1 review's lighter checks, a webhook serving plain HTTP (docs/conversion.md)."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient
from tests.conversion.crds import CRDS, SOURCE, V1, V2, failed, job, webhook_crd
from tests.conversion.webhook_server import ConversionWebhook, answering, converting

pytestmark = pytest.mark.asyncio


def review_answering(response: Any, **review: Any) -> Any:
    async def answer(sent: dict[str, Any]) -> web.StreamResponse:
        body = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "response": response, **review}
        return web.json_response(body)

    return answer


def converted(**changes: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "example.com/v2", "kind": "Job", "metadata": {"name": "job-1"}}
    return {**obj, **changes}


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (review_answering([]), "failed: no response provided"),
        (review_answering({"result": "x"}), 'failed: expected response.uid="{uid}", got ""'),
        (
            answering(b"[1]"),
            "failed: couldn't get version/kind; json parse error: json: cannot unmarshal array into "
            'Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string '
            '"json:\\"kind,omitempty\\"" }',
        ),
        (
            answering(b'{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1beta1"}'),
            "failed: converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown conversion",
        ),
        (
            answering(b"", status=200),
            "failed: 0-length response with status code: 200 and content type: application/json",
        ),
        (
            answering(b'{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no way"}', status=403),
            "failed: no way",
        ),
    ],
)
async def test_malformed_reviews(client: RawClient, hook: ConversionWebhook, answer: Any, message: str) -> None:
    assert (await client.post(V1, job("v1", a=1))).status == 201
    hook.answer = answer
    got = await client.get(f"{V2}/job-1")
    uid = hook.reviews[-1]["request"]["uid"]
    assert (got.status, got.body) == (500, failed(f"conversion webhook for {SOURCE} {message}".replace("{uid}", uid)))


@pytest.mark.parametrize(
    ("objects", "message"),
    [
        ([None], "unexpected end of JSON input"),
        ([5], "json: cannot unmarshal number into Go value of type map[string]interface {}"),
        ([{"apiVersion": "example.com/v2"}], "Object 'Kind' is missing in '{\"apiVersion\":\"example.com/v2\"}'"),
        (
            [converted(apiVersion="example.com/v3")],
            f"conversion webhook for {SOURCE} returned invalid object at "
            "index 0: invalid groupVersion (expected example.com/v2, received example.com/v3)",
        ),
        (
            [converted(kind="Other")],
            f"conversion webhook for {SOURCE} returned invalid object at index 0: invalid "
            "kind (expected Job, received Other)",
        ),
        (
            [converted(metadata=[])],
            f"conversion webhook for {SOURCE} returned invalid object: must have the same name: job-1 != ",
        ),
        (
            [{k: v for k, v in converted().items() if k != "metadata"}],
            f"conversion webhook for {SOURCE} returned invalid object: must have the same name: job-1 != ",
        ),
        (
            [converted(metadata={"name": "job-1", "namespace": "default", "uid": "{uid}", "labels": "x"})],
            f"conversion webhook for {SOURCE} returned invalid metadata: invalid metadata.labels of type string in "
            "converted object",
        ),
        (
            [converted(metadata={"name": "job-1", "namespace": "default", "uid": "{uid}", "annotations": {"a": 1}})],
            f"conversion webhook for {SOURCE} returned invalid metadata: metadata.annotations[a] must be a string, but "
            "is int64 in converted object",
        ),
        ([converted(), converted()], f"conversion webhook for {SOURCE} returned 2 objects, expected 1"),
    ],
)
async def test_malformed_converted_objects(
    client: RawClient, hook: ConversionWebhook, objects: list[Any], message: str
) -> None:
    created = (await client.post(V1, job("v1", a=1))).json()
    uid = created["metadata"]["uid"]
    shown = json.loads(json.dumps(objects).replace("{uid}", uid))

    async def answer(review: dict[str, Any]) -> web.StreamResponse:
        response = {"uid": review["request"]["uid"], "result": {"status": "Success"}, "convertedObjects": shown}
        return web.json_response(
            {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "response": response}
        )

    hook.answer = answer
    got = await client.get(f"{V2}/job-1")
    assert (got.status, got.body) == (500, failed(message))


async def test_a_v1beta1_review_is_not_checked_for_its_kind_or_uid(
    server: FakeAPIServer, hook: ConversionWebhook
) -> None:
    async with aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        definition = webhook_crd({"url": hook.url, "caBundle": hook.ca_bundle}, review_versions=("v1beta1",))
        assert (await client.post(CRDS, definition)).status == 201
        assert (await client.post(V1, job("v1", a=1))).status == 201

        async def answer(review: dict[str, Any]) -> web.StreamResponse:
            obj = review["request"]["objects"][0]
            response = {
                "uid": "anything",
                "result": {"status": "Success"},
                "convertedObjects": [{**obj, "apiVersion": "example.com/v2"}],
            }
            return web.json_response({"response": response})

        hook.answer = answer
        got = await client.get(f"{V2}/job-1")
        assert got.status == 200, got.body
        assert hook.reviews[-1]["apiVersion"] == "apiextensions.k8s.io/v1beta1"


async def test_a_webhook_serving_plain_http(server: FakeAPIServer) -> None:
    app = web.Application()
    app.router.add_post("/{tail:.*}", converting_request)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        url = f"https://127.0.0.1:{runner.addresses[0][1]}/convert"
        async with aiohttp.ClientSession() as session:
            client = RawClient(session, server.url)
            assert (await client.post(CRDS, webhook_crd({"url": url}))).status == 201
            assert (await client.post(V1, job("v1", a=1))).status == 201
            got = await client.get(f"{V2}/job-1")
            assert got.body == failed(
                f'conversion webhook for {SOURCE} failed: Post "{url}?timeout=30s": '
                "http: server gave HTTP response to HTTPS client"
            )
    finally:
        await runner.cleanup()


async def converting_request(request: web.Request) -> web.StreamResponse:
    return await converting(json.loads(await request.read()))
