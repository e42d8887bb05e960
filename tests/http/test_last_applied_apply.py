"""Server-side apply by ``kubectl`` over what ``kubectl apply`` (client-side) made.

The apiserver lets the manager ``kubectl`` take, without ``force``, the fields another manager owns
when kubectl's ``last-applied-configuration`` annotation still records the live value there
(``lastAppliedManager``), and rewrites that annotation to what ``kubectl`` applied
(``lastAppliedUpdater``). docs/server-side-apply.md, "From client-side to server-side apply".
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
CSA = "kubectl-client-side-apply"


def configmap(data: dict[str, str], **annotations: str) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "cm", "namespace": "default"}
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data}


def last_applied(data: dict[str, str]) -> str:
    """What kubectl 1.32's client-side apply writes for ``configmap(data)``."""
    config = configmap(data)
    config["metadata"]["annotations"] = {}
    return json.dumps(config, sort_keys=True, separators=(",", ":")) + "\n"


async def client_side_apply(client: RawClient, data: dict[str, str], recorded: dict[str, str] | None = None) -> None:
    """The create ``kubectl apply`` sends: the object with its configuration in the annotation."""
    body = configmap(data, **{LAST_APPLIED: last_applied(data if recorded is None else recorded)})
    created = await client.post(f"{CONFIGMAPS}?fieldManager={CSA}", body)
    assert created.status == 201, created.body


async def apply(client: RawClient, manager: str, body: dict[str, Any], path: str = f"{CONFIGMAPS}/cm") -> Any:
    return await client.patch(f"{path}?fieldManager={manager}", body, content_type=APPLY)


def entries(obj: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(manager, operation, fieldsV1 as the server wrote them) of every entry, in order."""
    return [
        (entry["manager"], entry["operation"], json.dumps(entry["fieldsV1"], separators=(",", ":")))
        for entry in obj["metadata"]["managedFields"]
    ]


CSA_OWNS_ANNOTATION = '"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}'


async def test_kubectl_takes_the_fields_the_annotation_still_describes(client: RawClient) -> None:
    await client_side_apply(client, {"a": "1", "b": "2"})

    applied = await apply(client, "kubectl", configmap({"a": "3", "b": "2"}))

    assert applied.status == 200, applied.body
    obj = applied.json()
    assert obj["data"] == {"a": "3", "b": "2"}
    assert entries(obj) == [
        ("kubectl", "Apply", '{"f:data":{"f:a":{},"f:b":{}}}'),
        (CSA, "Update", '{"f:data":{".":{},"f:b":{}},' + CSA_OWNS_ANNOTATION + "}"),
    ]
    assert obj["metadata"]["annotations"] == {
        LAST_APPLIED: '{"apiVersion":"v1","data":{"a":"3","b":"2"},"kind":"ConfigMap",'
        '"metadata":{"name":"cm","namespace":"default"}}\n'
    }


async def test_another_manager_name_still_conflicts(client: RawClient) -> None:
    await client_side_apply(client, {"a": "1"})

    refused = await apply(client, "kubectl-ssa", configmap({"a": "3"}))

    assert refused.status == 409
    assert (
        refused.json()["message"]
        == 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a'
    )
    stored = (await client.get(f"{CONFIGMAPS}/cm")).json()
    assert stored["data"] == {"a": "1"}
    assert stored["metadata"]["annotations"][LAST_APPLIED] == last_applied({"a": "1"})


async def test_a_field_changed_since_the_annotation_was_written_conflicts(client: RawClient) -> None:
    await client_side_apply(client, {"a": "1"})
    edited = await client.patch(f"{CONFIGMAPS}/cm?fieldManager={CSA}", {"data": {"a": "9"}}, content_type=MERGE)
    assert edited.status == 200

    refused = await apply(client, "kubectl", configmap({"a": "3"}))

    assert refused.status == 409
    assert (
        refused.json()["message"]
        == 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a'
    )


async def test_only_the_conflicts_outside_the_annotation_are_reported(client: RawClient) -> None:
    await client_side_apply(client, {"a": "1"})
    added = await client.patch(f"{CONFIGMAPS}/cm?fieldManager=editor", {"data": {"c": "5"}}, content_type=MERGE)
    assert added.status == 200

    refused = await apply(client, "kubectl", configmap({"a": "3", "c": "6"}))

    assert refused.status == 409
    assert refused.json()["message"] == 'Apply failed with 1 conflict: conflict with "editor" using v1: .data.c'
    assert [cause["field"] for cause in refused.json()["details"]["causes"]] == [".data.c"]


async def test_the_annotation_allows_by_field_whoever_owns_it(client: RawClient) -> None:
    await client_side_apply(client, {"a": "1"}, recorded={"a": "1", "c": "5"})
    added = await client.patch(f"{CONFIGMAPS}/cm?fieldManager=editor", {"data": {"c": "5"}}, content_type=MERGE)
    assert added.status == 200

    applied = await apply(client, "kubectl", configmap({"a": "3", "c": "6"}))

    assert applied.status == 200, applied.body
    assert [manager for manager, _, _ in entries(applied.json())] == ["kubectl", CSA]


async def test_an_annotation_the_schema_refuses_allows_nothing(client: RawClient) -> None:
    await client_side_apply(client, {"a": "1"})
    undeclared = last_applied({"a": "1"})[:-2] + ',"spec":{}}\n'
    replaced = await client.patch(
        f"{CONFIGMAPS}/cm?fieldManager={CSA}",
        {"metadata": {"annotations": {LAST_APPLIED: undeclared}}},
        content_type=MERGE,
    )
    assert replaced.status == 200

    refused = await apply(client, "kubectl", configmap({"a": "3"}))

    assert refused.status == 409


async def test_without_the_annotation_kubectl_conflicts_like_anyone(client: RawClient) -> None:
    created = await client.post(f"{CONFIGMAPS}?fieldManager={CSA}", configmap({"a": "1"}))
    assert created.status == 201

    refused = await apply(client, "kubectl", configmap({"a": "3"}))

    assert refused.status == 409


async def test_a_create_by_kubectl_rewrites_an_annotation_it_sends(client: RawClient) -> None:
    body = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "annotations": {LAST_APPLIED: "stale", "note": "a<b&c"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "a", "image": "nginx"}]},
            },
        },
    }

    created = await apply(client, "kubectl", body, path=f"{DEPLOYMENTS}/web")

    assert created.status == 201, created.body
    assert created.json()["metadata"]["annotations"][LAST_APPLIED] == (
        '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{"note":"a\\u003cb\\u0026c"},'
        '"name":"web"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":'
        '{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx","name":"a"}]}}}}\n'
    )
    other = {**body, "metadata": {"name": "web2", "annotations": {LAST_APPLIED: "x"}}}
    kept = await apply(client, "kubectl-ssa", other, path=f"{DEPLOYMENTS}/web2")
    assert kept.json()["metadata"]["annotations"] == {LAST_APPLIED: "x"}


async def test_an_annotation_that_would_pass_256_kib_is_dropped(client: RawClient) -> None:
    big = "x" * 150_000
    body = configmap({"a": "1"}, **{LAST_APPLIED: "{}", "big": big})

    created = await apply(client, "kubectl", body)

    assert created.status == 201, created.body
    assert created.json()["metadata"]["annotations"] == {"big": big}
