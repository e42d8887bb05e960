"""``/openapi/v2``'s parameters: their descriptions, and where kube-openapi's v2 builder lists them.

The expected bytes are those of Kubernetes' published ``api/openapi-spec/swagger.json`` for the
same operations: the shared parameter names (``body-78PwaGsr``, ``fieldManager-Qy4HdaTW``,
``pretty-tJGM1-ng``, ...) are a hash of each parameter, so they hold only if the texts are the
apiserver's to the byte (docs/openapi.md).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

PODS = "/api/v1/namespaces/{namespace}/pods"
WATCH = (
    "Watch for changes to the described resources and return them as a stream of add, update, and remove "
    "notifications. Specify resourceVersion."
)
PRETTY = (
    "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser "
    "or command-line HTTP tool (curl and wget)."
)
DRY_RUN = (
    b'{"description":"When present, indicates that modifications should not be persisted. An invalid or '
    b"unrecognized dryRun directive will result in an error response and no further processing of the request. "
    b'Valid values are: - All: all dry run stages will be processed","in":"query","name":"dryRun","type":"string",'
    b'"uniqueItems":true}'
)


async def v2(client: RawClient) -> tuple[bytes, dict[str, Any]]:
    answer = await client.get("/openapi/v2", headers={"Accept": "application/json"})
    assert answer.status == 200
    return answer.body, answer.json()


async def test_shared_parameters_carry_the_options_descriptions(client: RawClient) -> None:
    _, document = await v2(client)
    shared = document["parameters"]

    assert shared["watch-XNNPZGbK"] == {
        "description": WATCH,
        "in": "query",
        "name": "watch",
        "type": "boolean",
        "uniqueItems": True,
    }
    assert shared["pretty-tJGM1-ng"] == {
        "description": PRETTY,
        "in": "query",
        "name": "pretty",
        "type": "string",
        "uniqueItems": True,
    }
    assert shared["namespace-vgWSWtn3"] == {
        "description": "object name and auth scope, such as for teams and projects",
        "in": "path",
        "name": "namespace",
        "required": True,
        "type": "string",
        "uniqueItems": True,
    }
    assert shared["body-2Y1dVQaQ"] == {
        "in": "body",
        "name": "body",
        "schema": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"},
    }
    assert shared["body-78PwaGsr"] == {
        "in": "body",
        "name": "body",
        "required": True,
        "schema": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"},
    }
    assert shared["fieldManager-Qy4HdaTW"]["description"].endswith(
        "only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint."
    )
    assert shared["fieldManager-7c6nTn1T"]["description"].endswith(
        "This field is required for apply requests (application/apply-patch) but optional for non-apply patch "
        "types (JsonPatch, MergePatch, StrategicMergePatch)."
    )
    assert shared["force-tOGGb0Yi"]["type"] == "boolean"
    assert not any(name.startswith(("dryRun", "fieldValidation", "name-")) for name in shared)


async def test_a_pods_operations_list_their_parameters_as_the_apiserver_does(client: RawClient) -> None:
    body, document = await v2(client)
    item = document["paths"][PODS + "/{name}"]

    assert (
        b'"parameters":[{"description":"name of the Pod","in":"path","name":"name","required":true,"type":"string",'
        b'"uniqueItems":true},{"$ref":"#/parameters/namespace-vgWSWtn3"},{"$ref":"#/parameters/pretty-tJGM1-ng"}]'
        in body
    )
    assert "parameters" not in item["get"]
    patch = item["patch"]["parameters"]
    assert patch[0] == {"$ref": "#/parameters/body-78PwaGsr"}
    assert [param.get("$ref") or param["name"] for param in patch] == [
        "#/parameters/body-78PwaGsr",
        "dryRun",
        "#/parameters/fieldManager-7c6nTn1T",
        "fieldValidation",
        "#/parameters/force-tOGGb0Yi",
    ]
    assert (
        b'"operationId":"replaceCoreV1NamespacedPod","parameters":[{"in":"body","name":"body","required":true,'
        b'"schema":{"$ref":"#/definitions/io.k8s.api.core.v1.Pod"}},'
        + DRY_RUN + b',{"$ref":"#/parameters/fieldManager-Qy4HdaTW"},'
        in body
    )
    assert [param.get("$ref") or param["name"] for param in item["delete"]["parameters"]] == [
        "#/parameters/body-2Y1dVQaQ",
        "dryRun",
        "#/parameters/gracePeriodSeconds--K5HaBOS",
        "#/parameters/ignoreStoreReadErrorWithClusterBreakingPotential-QbNkfIqj",
        "#/parameters/orphanDependents-uRB25kX5",
        "#/parameters/propagationPolicy-6jk3prlO",
    ]


async def test_a_path_with_one_operation_lists_every_parameter_once_for_the_path(client: RawClient) -> None:
    _, document = await v2(client)
    item = document["paths"]["/api/v1/pods"]

    assert "parameters" not in item["get"]
    assert [param["$ref"].removeprefix("#/parameters/") for param in item["parameters"]] == [
        "allowWatchBookmarks-HC2hJt-J",
        "continue-QfD61s0i",
        "fieldSelector-xIcQKXFG",
        "labelSelector-5Zw57w4C",
        "limit-1NfNmdNH",
        "pretty-tJGM1-ng",
        "resourceVersion-5WAnf1kx",
        "resourceVersionMatch-t8XhRHeC",
        "sendInitialEvents-rLXlEK_k",
        "timeoutSeconds-yvYezaOC",
        "watch-XNNPZGbK",
    ]
    collection = document["paths"][PODS]["delete"]["parameters"]
    names = [param.get("$ref", "").removeprefix("#/parameters/").split("-")[0] or param["name"] for param in collection]
    assert names == [
        "body",
        "continue",
        "dryRun",
        "fieldSelector",
        "gracePeriodSeconds",
        "ignoreStoreReadErrorWithClusterBreakingPotential",
        "labelSelector",
        "limit",
        "orphanDependents",
        "propagationPolicy",
        "resourceVersion",
        "resourceVersionMatch",
        "sendInitialEvents",
        "timeoutSeconds",
    ]


async def test_a_custom_resource_has_the_routes_of_the_crd_builder(client: RawClient) -> None:
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object"}},
                }
            ],
        },
    }
    created = await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    assert created.status == 201
    _, document = await v2(client)
    widgets = "/apis/example.com/v1/namespaces/{namespace}/widgets"

    get = document["paths"][widgets + "/{name}"]["get"]
    (version,) = get["parameters"]
    assert version["$ref"].startswith("#/parameters/resourceVersion-")
    assert document["parameters"][version["$ref"].removeprefix("#/parameters/")]["description"] == (
        "resourceVersion sets a constraint on what resource versions a request may be served from. See "
        "https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\n"
        "Defaults to unset"
    )
    collection = document["paths"][widgets]["delete"]["parameters"]
    assert {"$ref": "#/parameters/watch-XNNPZGbK"} in collection
    assert not any(param.get("in") == "body" or "body-" in param.get("$ref", "") for param in collection)
    assert document["paths"][widgets]["post"]["consumes"] == ["application/json", "application/yaml"]


async def test_the_swagger_step_of_kubernetes_test_cmd(client: RawClient) -> None:
    """``run_swagger_tests`` of kubernetes' ``test/cmd/discovery.sh`` greps the v2 document for three texts."""
    body, _ = await v2(client)

    for text in (b"list of returned", b"List of services", b"Watch for changes to the described resources"):
        assert text in body, text
