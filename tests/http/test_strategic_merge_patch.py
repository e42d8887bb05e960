"""Strategic merge patches over HTTP: what the apiserver answers when the merged map does not
convert into the kind's Go type, and what it stores when it does.

The apiserver converts the merged map with ``FromUnstructuredWithValidation``
(docs/strategic-merge-patch.md): a 422 whose one cause, on field ``patch``, prints the patch map as
Go's ``%+v`` does and the converter's error, and nothing is stored or bumped; a result that
converts loses its unknown fields (each a warning, or a 422 under ``fieldValidation=Strict``) and
its omitempty zeros.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

SMP = "application/strategic-merge-patch+json"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
SECRETS = "/api/v1/namespaces/default/secrets"
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app", "image": "a"}]}},
    },
}
SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "default"}, "type": "Opaque"}


async def stored(client: RawClient, obj: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The object created, and its URL."""
    collection = DEPLOYMENTS if obj["kind"] == "Deployment" else SECRETS
    created = await client.post(collection, obj)
    assert created.status == 201, created.body
    return f"{collection}/{obj['metadata']['name']}", created.json()


@pytest.mark.parametrize(
    ("obj", "body", "value", "problem"),
    [
        (DEPLOYMENT, '{"spec":{"replicas":true}}', "map[spec:map[replicas:true]]", "unrecognized type: int32"),
        (DEPLOYMENT, '{"spec":{"replicas":1.5}}', "map[spec:map[replicas:1.5]]", "cannot convert float64 to int32"),
        (
            DEPLOYMENT,
            '{"metadata":{"labels":"a=b"}}',
            "map[metadata:map[labels:a=b]]",
            "cannot restore map from string",
        ),
        (
            DEPLOYMENT,
            '{"metadata":{"labels":{"n":1}}}',
            "map[metadata:map[labels:map[n:1]]]",
            "cannot convert int64 to string",
        ),
        (
            DEPLOYMENT,
            '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":{"a":"b"}}]}}}}',
            "map[spec:map[template:map[spec:map[containers:[map[image:map[a:b] name:app]]]]]]",
            "unrecognized type: string",
        ),
        (
            SECRET,
            '{"data":{"k":"not base64"}}',
            "map[data:map[k:not base64]]",
            "error decoding from json: illegal base64 data at input byte 3",
        ),
    ],
)
async def test_a_result_that_does_not_convert_is_a_422_naming_the_patch_and_changes_nothing(
    client: RawClient, obj: dict[str, Any], body: str, value: str, problem: str
) -> None:
    url, created = await stored(client, obj)
    reply = await client.patch(url, body.encode(), content_type=SMP)
    message = f'Invalid value: "{value}": {problem}'
    assert reply.status == 422
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f' "" is invalid: patch: {message}',
        "reason": "Invalid",
        "details": {"causes": [{"reason": "FieldValueInvalid", "message": message, "field": "patch"}]},
        "code": 422,
    }
    after = await client.get(url)
    assert after.json() == created, "a failed patch stores nothing and bumps nothing"


async def test_the_typed_round_trip_drops_unknown_fields_and_zeros_and_warns(client: RawClient) -> None:
    url, _ = await stored(client, DEPLOYMENT)
    body = (
        '{"spec":{"bogus":1,"paused":false,"template":{"spec":{"containers":'
        '[{"name":"app","ports":[],"command":[],"imagePullPolicyy":"x"}]}}}}'
    )
    reply = await client.patch(url, body.encode(), content_type=SMP)
    assert reply.status == 200, reply.body
    spec = reply.json()["spec"]
    assert "bogus" not in spec and "paused" not in spec
    (container,) = spec["template"]["spec"]["containers"]
    assert "ports" not in container and "command" not in container and "imagePullPolicyy" not in container
    assert reply.warnings == [
        '299 - "unknown field \\"spec.bogus\\""',
        '299 - "unknown field \\"spec.template.spec.containers[0].imagePullPolicyy\\""',
    ]
    assert (await client.get(url)).json() == reply.json()


async def test_strict_field_validation_refuses_unknown_fields_and_stores_nothing(client: RawClient) -> None:
    url, created = await stored(client, DEPLOYMENT)
    reply = await client.patch(url + "?fieldValidation=Strict", b'{"spec":{"bogus":1}}', content_type=SMP)
    assert (reply.status, reply.json()["message"]) == (
        422,
        ' "" is invalid: patch: Invalid value: "map[spec:map[bogus:1]]": strict decoding error: unknown field "spec.bogus"',
    )
    assert (await client.get(url)).json() == created


async def test_a_statefulset_merges_its_containers_by_name(client: RawClient) -> None:
    statefulset = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {
            "selector": {"matchLabels": {"app": "db"}},
            "serviceName": "db",
            "template": {
                "metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{"name": "db", "image": "db:1"}, {"name": "exporter", "image": "exp:1"}]},
            },
        },
    }
    url = "/apis/apps/v1/namespaces/default/statefulsets"
    assert (await client.post(url, statefulset)).status == 201
    body = b'{"spec":{"template":{"spec":{"containers":[{"name":"exporter","image":"exp:2"}]}}}}'
    reply = await client.patch(url + "/db", body, content_type=SMP)
    assert reply.status == 200, reply.body
    containers = reply.json()["spec"]["template"]["spec"]["containers"]
    assert [(c["name"], c["image"]) for c in containers] == [("db", "db:1"), ("exporter", "exp:2")]
