"""Server-side apply and managedFields with per-element ownership of map and set lists.

The managedFields bytes are those a 1.32 apiserver writes: a ``listType=map`` element is owned as
``k:{"name":"a"}`` with ``".": {}`` inside, a ``listType=set`` value as ``v:"x"``, an atomic map or
list whole; an Update also owns every map it added (``".": {}``), an Apply only what it applied.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
APPLY = "application/apply-patch+yaml"


def deployment(containers: list[dict[str, Any]], **metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", **metadata},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": containers}},
        },
    }


async def apply(client: RawClient, manager: str, body: dict[str, Any], *, force: bool = False) -> Any:
    query = f"?fieldManager={manager}" + ("&force=true" if force else "")
    return await client.patch(f"{DEPLOYMENTS}/web{query}", body, content_type=APPLY)


def fields_of(obj: dict[str, Any]) -> dict[str, str]:
    """Each manager's fieldsV1 as the bytes the server wrote them."""
    return {
        entry["manager"]: json.dumps(entry["fieldsV1"], separators=(",", ":"))
        for entry in obj["metadata"]["managedFields"]
    }


def container_fields(name: str) -> str:
    return '{"k:{\\"name\\":\\"' + name + '\\"}":{".":{},"f:image":{},"f:name":{}}}'


def applied_deployment_fields(containers: str, metadata: str = "") -> str:
    return (
        "{"
        + metadata
        + '"f:spec":{"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},'
        + '"f:spec":{"f:containers":'
        + containers
        + "}}}}"
    )


async def test_a_second_managers_container_survives_the_first_managers_reapply(client: RawClient) -> None:
    created = await apply(client, "a", deployment([{"name": "a", "image": "nginx:1.27"}]))
    assert created.status == 201
    added = await apply(client, "b", deployment([{"name": "b", "image": "busybox:1.36"}]))
    assert added.status == 200
    assert [c["name"] for c in added.json()["spec"]["template"]["spec"]["containers"]] == ["a", "b"]

    again = await apply(client, "a", deployment([{"name": "a", "image": "nginx:1.28"}]))

    assert again.status == 200
    containers = again.json()["spec"]["template"]["spec"]["containers"]
    assert [(c["name"], c["image"]) for c in containers] == [("a", "nginx:1.28"), ("b", "busybox:1.36")]
    assert fields_of(again.json()) == {
        "a": applied_deployment_fields(container_fields("a")),
        "b": applied_deployment_fields(container_fields("b")),
    }
    assert [entry["operation"] for entry in again.json()["metadata"]["managedFields"]] == ["Apply", "Apply"]


async def test_an_element_its_only_owner_leaves_out_is_removed(client: RawClient) -> None:
    await apply(client, "a", deployment([{"name": "a", "image": "nginx:1.27"}, {"name": "side", "image": "envoy"}]))
    await apply(client, "b", deployment([{"name": "b", "image": "busybox:1.36"}]))

    dropped = await apply(client, "a", deployment([{"name": "a", "image": "nginx:1.27"}]))

    names = [c["name"] for c in dropped.json()["spec"]["template"]["spec"]["containers"]]
    assert names == ["a", "b"]


async def test_a_conflict_names_the_element_field_as_the_apiserver_prints_it(client: RawClient) -> None:
    await apply(client, "a", deployment([{"name": "a", "image": "nginx:1.27"}]))
    body = deployment([{"name": "a", "image": "nginx:1.28"}, {"name": "b", "image": "busybox:1.36"}])

    refused = await apply(client, "b", body)

    assert (refused.status, refused.body) == (
        409,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Apply failed with 1 '
        b'conflict: conflict with \\"a\\": .spec.template.spec.containers[name=\\"a\\"].image","reason":"Conflict",'
        b'"details":{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \\"a\\"","field":'
        b'".spec.template.spec.containers[name=\\"a\\"].image"}]},"code":409}\n',
    )
    stored = (await client.get(f"{DEPLOYMENTS}/web")).json()
    assert [c["name"] for c in stored["spec"]["template"]["spec"]["containers"]] == ["a"]

    forced = await apply(client, "b", body, force=True)

    assert forced.status == 200
    assert fields_of(forced.json())["a"] == applied_deployment_fields('{"k:{\\"name\\":\\"a\\"}":{".":{},"f:name":{}}}')
    images = [c["image"] for c in forced.json()["spec"]["template"]["spec"]["containers"]]
    assert images == ["nginx:1.28", "busybox:1.36"]


async def test_finalizers_are_a_set_each_manager_owns_its_own(client: RawClient) -> None:
    await apply(client, "a", deployment([{"name": "a", "image": "nginx"}], finalizers=["example.com/a"]))
    both = await apply(client, "b", deployment([{"name": "a", "image": "nginx"}], finalizers=["example.com/b"]))
    assert both.json()["metadata"]["finalizers"] == ["example.com/a", "example.com/b"]
    assert fields_of(both.json())["b"] == applied_deployment_fields(
        '{"k:{\\"name\\":\\"a\\"}":{".":{},"f:image":{},"f:name":{}}}',
        '"f:metadata":{"f:finalizers":{"v:\\"example.com/b\\"":{}}},',
    )

    left = await apply(client, "a", deployment([{"name": "a", "image": "nginx"}]))

    assert left.json()["metadata"]["finalizers"] == ["example.com/b"]


async def test_an_update_owns_the_elements_and_maps_it_added(client: RawClient) -> None:
    body = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nginx", "labels": {"app": "nginx"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "nginx"}},
            "template": {
                "metadata": {"labels": {"app": "nginx"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx", "resources": {}}]},
            },
        },
    }

    created = await client.post(f"{DEPLOYMENTS}?fieldManager=kubectl-create", body)

    assert fields_of(created.json()) == {
        "kubectl-create": '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},'
        '"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},'
        '"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},'
        '"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},'
        '"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},'
        '"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},'
        '"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}'
    }

    patch = [
        {
            "op": "add",
            "path": "/spec/template/spec/containers/-",
            "value": {"name": "sidecar", "image": "envoy", "ports": [{"containerPort": 9901}]},
        }
    ]
    patched = await client.patch(f"{DEPLOYMENTS}/nginx?fieldManager=editor", patch)

    assert patched.status == 200
    assert fields_of(patched.json())["editor"] == (
        '{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"sidecar\\"}":{".":{},"f:image":{},'
        '"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":9901,\\"protocol\\":\\"TCP\\"}":'
        '{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{},"f:terminationMessagePath":{},'
        '"f:terminationMessagePolicy":{}}}}}}}'
    )


WIDGET_SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "ports": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
                        "required": ["name"],
                    },
                },
                "tags": {"type": "array", "items": {"type": "string"}},
            },
        }
    },
}


async def test_a_custom_resources_map_list_merges_per_key(client: RawClient) -> None:
    assert (
        await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd(schema=WIDGET_SCHEMA))
    ).status == 201
    jobs = "/apis/example.com/v1/namespaces/default/jobs"

    def job(ports: list[dict[str, Any]], tags: list[str]) -> dict[str, Any]:
        return {
            "apiVersion": "example.com/v1",
            "kind": "Job",
            "metadata": {"name": "j"},
            "spec": {"ports": ports, "tags": tags},
        }

    first = await client.patch(
        f"{jobs}/j?fieldManager=a", job([{"name": "http", "port": 80}], ["x"]), content_type=APPLY
    )
    assert first.status == 201
    second = await client.patch(
        f"{jobs}/j?fieldManager=b", job([{"name": "metrics", "port": 9090}], ["y"]), content_type=APPLY
    )

    assert second.status == 409
    assert second.json()["details"]["causes"] == [
        {"reason": "FieldManagerConflict", "message": 'conflict with "a"', "field": ".spec.tags"}
    ]
    merged = await client.patch(
        f"{jobs}/j?fieldManager=b", job([{"name": "metrics", "port": 9090}], ["x"]), content_type=APPLY
    )
    assert merged.json()["spec"] == {
        "ports": [{"name": "http", "port": 80}, {"name": "metrics", "port": 9090}],
        "tags": ["x"],
    }
    assert fields_of(merged.json())["b"] == (
        '{"f:spec":{"f:ports":{"k:{\\"name\\":\\"metrics\\"}":{".":{},"f:name":{},"f:port":{}}},"f:tags":{}}}'
    )


async def test_an_applied_list_the_schema_cannot_key_is_structured_merge_diffs_500(client: RawClient) -> None:
    body = deployment(
        [{"image": "nginx"}, {"name": "b", "image": "x"}, {"name": "b", "image": "y"}], namespace="default"
    )

    refused = await apply(client, "a", body)

    assert (refused.status, refused.body) == (
        500,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"failed to create typed '
        b"patch object (default/web; apps/v1, Kind=Deployment): .spec.template.spec.containers: element 0: "
        b'associative list with keys has an element that omits key field \\"name\\" (and doesn\'t have default '
        b'value)","code":500}\n',
    )
    duplicated = await apply(
        client, "a", deployment([{"name": "b", "image": "x"}, {"name": "b", "image": "y"}], finalizers=["f", "f"])
    )
    assert duplicated.json()["message"] == (
        "failed to create typed patch object (/web; apps/v1, Kind=Deployment): errors:\n"
        '  .metadata.finalizers: duplicate entries for key [="f"]\n'
        '  .spec.template.spec.containers: duplicate entries for key [name="b"]'
    )
    assert (await client.get(f"{DEPLOYMENTS}/web")).status == 404


async def test_an_apply_that_carries_managed_fields_is_refused(client: RawClient) -> None:
    body = deployment([{"name": "a", "image": "nginx"}], managedFields=[])

    refused = await apply(client, "a", body)

    assert (refused.status, refused.json()["reason"], refused.json()["message"]) == (
        400,
        "BadRequest",
        "metadata.managedFields must be nil",
    )
