"""The built-in OpenAPI definitions read from kubernetes-validate, in the apiserver's OpenAPI spelling."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi._state.typed.openapi_schemas import builtin_definitions


def _walk(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_walk(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_walk(value))
    return found


def test_definitions_carry_descriptions_and_extensions() -> None:
    definitions = builtin_definitions("1.32")
    pod = definitions["io.k8s.api.core.v1.Pod"]
    assert pod["description"].startswith("Pod is a collection of containers")
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    assert pod["properties"]["metadata"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    assert pod["properties"]["kind"] == {
        "description": pod["properties"]["kind"]["description"],
        "type": "string",
    }
    containers = definitions["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-list-type"] == "map"
    assert containers["x-kubernetes-list-map-keys"] == ["name"]
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["items"] == {"$ref": "#/definitions/io.k8s.api.core.v1.Container"}


def test_json_schema_spellings_are_undone() -> None:
    definitions = builtin_definitions()
    for node in _walk(definitions):
        assert not isinstance(node.get("type"), list)
        ref = node.get("$ref")
        if isinstance(ref, str):
            assert ref.removeprefix("#/definitions/") in definitions
    assert definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] == {
        "format": "int-or-string",
        "type": "string",
    }
    assert definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"] == {"type": "string"}


def test_each_version_is_its_own_document() -> None:
    assert "io.k8s.api.resource.v1.ResourceClaim" not in builtin_definitions("1.32")
    assert "io.k8s.api.resource.v1.ResourceClaim" in builtin_definitions("1.34")


def test_a_version_without_schemas_is_a_lookup_error() -> None:
    with pytest.raises(LookupError, match=r"no schemas for Kubernetes 1\.9"):
        builtin_definitions("1.9")
