"""The OpenAPI documents as kube-apiserver serves them (docs/discovery.md): the v3 index and its
hashes, one document per group version in kube-openapi v3's spelling, complete custom resource
schemas, the answers for unknown group versions and stale hashes, and ``/openapi/v2``."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

SCHEMAS = "#/components/schemas/"
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
WIDGET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "A widget.",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {"x": {"type": "integer"}, "port": {"x-kubernetes-int-or-string": True}},
        }
    },
}


async def _document(client: RawClient, key: str) -> dict[str, Any]:
    reply = await client.get(f"/openapi/v3/{key}")
    assert reply.status == 200, reply.body
    document: dict[str, Any] = reply.json()
    return document


async def _hash(client: RawClient, key: str) -> str:
    index = (await client.get("/openapi/v3")).json()
    url: str = index["paths"][key]["serverRelativeURL"]
    return url.split("?hash=")[1]


async def test_the_index_names_each_group_version_with_the_hash_of_its_document(client: RawClient) -> None:
    reply = await client.get("/openapi/v3")
    assert reply.status == 200
    assert reply.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert "Etag" not in reply.headers
    paths = reply.json()["paths"]
    assert {"api/v1", "apis/apps/v1", "apis/rbac.authorization.k8s.io/v1", "apis/autoscaling/v2"} <= set(paths)
    url = paths["apis/apps/v1"]["serverRelativeURL"]
    assert url.startswith("/openapi/v3/apis/apps/v1?hash=")
    document = await client.get(url)
    assert document.status == 200
    digest = hashlib.sha512(document.body).hexdigest().upper()
    assert url == f"/openapi/v3/apis/apps/v1?hash={digest}"
    assert document.headers["Etag"] == f'"{digest}"'
    assert document.headers["Cache-Control"] == "public, immutable"
    assert document.headers["Vary"] == "Accept"
    assert document.headers["Content-Type"] == "application/json"


async def test_a_stale_hash_redirects_and_a_known_etag_is_not_modified(client: RawClient) -> None:
    digest = await _hash(client, "api/v1")
    async with client.session.get(client.base + "/openapi/v3/api/v1?hash=0123", allow_redirects=False) as stale:
        assert stale.status == 301
        assert stale.headers["Location"] == f"/openapi/v3/api/v1?hash={digest}"
    unchanged = await client.get("/openapi/v3/api/v1", headers={"If-None-Match": f'"{digest}"'})
    assert (unchanged.status, unchanged.body) == (304, b"")
    plain = await client.get("/openapi/v3/api/v1")
    assert plain.status == 200
    assert plain.headers["Cache-Control"] == "no-cache, private"  # the outer filter's, docs/http-limits.md


async def test_an_unknown_group_version_is_a_bare_404(client: RawClient) -> None:
    for key in ("apis/example.com/v1", "apis/apps/v9", "apis/apps", "api/v2"):
        reply = await client.get(f"/openapi/v3/{key}")
        assert (reply.status, reply.body) == (404, b""), key


async def test_a_built_in_schema_is_spelled_as_kube_openapi_v3_writes_it(client: RawClient) -> None:
    schemas = (await _document(client, "api/v1"))["components"]["schemas"]
    pod = schemas["io.k8s.api.core.v1.Pod"]
    assert pod["description"].startswith("Pod is a collection of containers that can run on a host.")
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    assert pod["properties"]["metadata"] == {
        "allOf": [{"$ref": SCHEMAS + OBJECT_META}],
        "default": {},
        "description": "Standard object's metadata. More info: "
        "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    }
    assert pod["properties"]["kind"]["type"] == "string"
    assert "enum" not in pod["properties"]["kind"]
    containers = schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["items"] == {"allOf": [{"$ref": SCHEMAS + "io.k8s.api.core.v1.Container"}], "default": {}}
    assert (containers["x-kubernetes-list-type"], containers["x-kubernetes-list-map-keys"]) == ("map", ["name"])
    assert (containers["x-kubernetes-patch-strategy"], containers["x-kubernetes-patch-merge-key"]) == ("merge", "name")
    assert schemas["io.k8s.api.core.v1.ContainerPort"]["properties"]["containerPort"]["default"] == 0
    restart = schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["restartPolicy"]
    assert restart["enum"] == ["Always", "Never", "OnFailure"]
    assert restart["description"].endswith('\n\nPossible enum values:\n - `"Always"`\n - `"Never"`\n - `"OnFailure"`')
    capabilities = schemas["io.k8s.api.core.v1.Capabilities"]["properties"]["add"]
    assert capabilities["items"] == {"default": "", "type": "string"}
    assert schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] == {
        "format": "int-or-string",
        "oneOf": [{"type": "integer"}, {"type": "string"}],
    }
    assert OBJECT_META in schemas
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions" in schemas


async def test_each_resource_has_a_patch_operation_kubectl_can_check_for_field_validation(client: RawClient) -> None:
    document = await _document(client, "apis/apps/v1")
    patch = document["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert patch["operationId"] == "patchAppsV1NamespacedDeployment"
    assert patch["x-kubernetes-action"] == "patch"
    assert patch["x-kubernetes-group-version-kind"] == {"group": "apps", "kind": "Deployment", "version": "v1"}
    (validation,) = [param for param in patch["parameters"] if param["name"] == "fieldValidation"]
    assert validation["description"].startswith("fieldValidation instructs the server on how to handle objects")
    assert {key: value for key, value in validation.items() if key != "description"} == {
        "in": "query",
        "name": "fieldValidation",
        "schema": {"type": "string", "uniqueItems": True},
    }
    ok = patch["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": SCHEMAS + "io.k8s.api.apps.v1.Deployment"}
    scale = document["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]["get"]
    assert scale["x-kubernetes-group-version-kind"] == {"group": "autoscaling", "kind": "Scale", "version": "v1"}
    assert "io.k8s.api.autoscaling.v1.Scale" in document["components"]["schemas"]
    listing = document["paths"]["/apis/apps/v1/deployments"]["get"]
    assert listing["operationId"] == "listAppsV1DeploymentForAllNamespaces"


async def test_a_custom_resource_schema_has_type_meta_object_meta_and_a_list(client: RawClient) -> None:
    created = await client.post(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd("widgets", "Widget", schema=WIDGET_SCHEMA)
    )
    assert created.status == 201, created.body
    schemas = (await _document(client, "apis/example.com/v1"))["components"]["schemas"]
    widget = schemas["com.example.v1.Widget"]
    assert widget["description"] == "A widget."
    assert widget["x-kubernetes-group-version-kind"] == [{"group": "example.com", "kind": "Widget", "version": "v1"}]
    assert set(widget["properties"]) == {"apiVersion", "kind", "metadata", "spec"}
    assert widget["properties"]["spec"]["properties"]["port"] == {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "x-kubernetes-int-or-string": True,
    }
    assert widget["properties"]["metadata"]["allOf"] == [{"$ref": SCHEMAS + OBJECT_META}]
    assert widget["properties"]["apiVersion"]["description"].startswith("APIVersion defines the versioned schema")
    listing = schemas["com.example.v1.WidgetList"]
    assert listing["required"] == ["items"]
    assert listing["properties"]["items"]["items"] == {"$ref": SCHEMAS + "com.example.v1.Widget"}
    assert listing["x-kubernetes-group-version-kind"] == [
        {"group": "example.com", "kind": "WidgetList", "version": "v1"}
    ]
    assert OBJECT_META in schemas
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry" in schemas


async def test_the_hash_follows_the_crd(client: RawClient) -> None:
    path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    assert (await client.post(path, crd("widgets", "Widget", schema=WIDGET_SCHEMA))).status == 201
    first = await _hash(client, "apis/example.com/v1")
    apps = await _hash(client, "apis/apps/v1")
    stored = (await client.get(f"{path}/widgets.example.com")).json()
    stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["y"] = {
        "type": "string"
    }
    assert (await client.put(f"{path}/widgets.example.com", stored)).status == 200
    second = await _hash(client, "apis/example.com/v1")
    assert second != first
    assert await _hash(client, "apis/apps/v1") == apps
    assert (await client.delete(f"{path}/widgets.example.com")).status == 200
    index = (await client.get("/openapi/v3")).json()
    assert "apis/example.com/v1" not in index["paths"]


async def test_v2_answers_json_and_gnostic_protobuf(client: RawClient) -> None:
    as_json = await client.get("/openapi/v2", headers={"Accept": "application/json"})
    assert as_json.status == 200
    assert as_json.headers["Content-Type"] == "application/json"
    document = as_json.json()
    assert document["swagger"] == "2.0"
    metadata = document["definitions"]["io.k8s.api.core.v1.Pod"]["properties"]["metadata"]
    assert metadata["$ref"] == "#/definitions/" + OBJECT_META
    patch = document["paths"]["/api/v1/namespaces/{name}"]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {"group": "", "kind": "Namespace", "version": "v1"}
    assert any(param.get("name") == "fieldValidation" for param in patch["parameters"])
    etag = f'"{hashlib.sha512(as_json.body).hexdigest().upper()}"'
    assert as_json.headers["Etag"] == etag
    as_protobuf = await client.get(
        "/openapi/v2", headers={"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}
    )
    assert as_protobuf.status == 200
    assert as_protobuf.headers["Content-Type"] == "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
    assert as_protobuf.headers["Etag"] == etag
    assert as_protobuf.body.startswith(b"\x0a\x032.0")  # field 1, swagger: "2.0"
    refused = await client.get("/openapi/v2", headers={"Accept": "text/html"})
    assert refused.status == 406
