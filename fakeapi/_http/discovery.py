"""Discovery and OpenAPI documents in the shapes real clients parse (docs/discovery.md).

``/version`` (indented, no trailing newline), ``/api``, ``/apis``, ``/apis/{g}``, ``/api/v1`` and
``/apis/{g}/{v}`` in the legacy formats: a plain ``application/json`` answer makes client-go fall
back from aggregated discovery. ``/openapi/v3`` lists one document per group-version, and each
document declares, for every resource, a PATCH operation with ``x-kubernetes-group-version-kind``
and a ``fieldValidation`` query parameter: that is what makes kubectl leave validation to the
server (``query_param_verifier_v3.go``) instead of downloading schemas.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from fakeapi._patching.goencode import encode
from fakeapi._state.registry import Registry
from fakeapi._state.releases import Release, kube_release
from fakeapi._state.resources import ResourceType

__all__ = [
    "api_group",
    "api_group_list",
    "api_resource_list",
    "api_versions",
    "openapi_v3_document",
    "openapi_v3_index",
    "version_info",
]


def version_info(release: Release) -> bytes:
    """``WriteRawJSON`` of the release's ``version.Info``: indented with two spaces and no trailing newline."""
    info = {
        "major": "1",
        "minor": str(release.minor),
        "gitVersion": f"{release.git_version}+fakeapi",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": release.go_version,
        "compiler": "gc",
        "platform": "linux/amd64",
    }
    return json.dumps(info, indent=2).encode()


def api_versions(server_address: str) -> dict[str, Any]:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }


def _group_versions(registry: Registry, group: str) -> list[dict[str, str]]:
    return [{"groupVersion": f"{group}/{version}", "version": version} for version in registry.versions_of(group)]


def api_group(registry: Registry, group: str) -> dict[str, Any] | None:
    versions = _group_versions(registry, group)
    if not versions:
        return None
    return {
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": group,
        "versions": versions,
        "preferredVersion": versions[0],
    }


def api_group_list(registry: Registry) -> dict[str, Any]:
    groups = []
    for group in registry.groups():
        if not group:
            continue
        versions = _group_versions(registry, group)
        groups.append({"name": group, "versions": versions, "preferredVersion": versions[0]})
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_resource_list(registry: Registry, group: str, version: str) -> dict[str, Any] | None:
    types = registry.types_in(group, version)
    if not types:
        return None
    resources: list[dict[str, Any]] = []
    if not any(rtype.custom for rtype in types):
        types = sorted(types, key=lambda rtype: rtype.plural)  # the installer sorts a group version's paths
    for rtype in types:
        resources.append(rtype.discovery_entry())
        resources.extend(rtype.subresource_entries())
    group_version = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources}


def _document_key(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def openapi_v3_index(registry: Registry) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for group in registry.groups():
        for version in registry.versions_of(group):
            key = _document_key(group, version)
            digest = hashlib.sha512(encode(openapi_v3_document(registry, group, version) or {})).hexdigest()[:128]
            paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={digest.upper()}"}
    return {"paths": paths}


def _operation(rtype: ResourceType, action: str) -> dict[str, Any]:
    parameters: list[dict[str, Any]] = [
        {"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
        {"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
    ]
    if action in ("patch", "put", "post"):
        parameters.append({"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": True}})
    return {
        "operationId": f"{action}{rtype.kind}",
        "parameters": parameters,
        "responses": {"200": {"description": "OK"}},
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": {"group": rtype.group, "kind": rtype.kind, "version": rtype.version},
    }


def _resource_paths(rtype: ResourceType) -> dict[str, Any]:
    prefix = f"/apis/{rtype.group}/{rtype.version}" if rtype.group else f"/api/{rtype.version}"
    scope = "/namespaces/{namespace}" if rtype.namespaced else ""
    collection = f"{prefix}{scope}/{rtype.plural}"
    verbs = set(rtype.verbs)
    collection_ops: dict[str, Any] = {}
    if "list" in verbs:
        collection_ops["get"] = _operation(rtype, "list")
    if "create" in verbs:
        collection_ops["post"] = _operation(rtype, "post")
    item_ops: dict[str, Any] = {}
    if "get" in verbs:
        item_ops["get"] = _operation(rtype, "get")
    if "update" in verbs:
        item_ops["put"] = _operation(rtype, "put")
    if "patch" in verbs:
        item_ops["patch"] = _operation(rtype, "patch")
    if "delete" in verbs:
        item_ops["delete"] = _operation(rtype, "delete")
    paths = {}
    if collection_ops:
        paths[collection] = collection_ops
    if item_ops:
        paths[collection + "/{name}"] = item_ops
    return paths


def openapi_v3_document(registry: Registry, group: str, version: str) -> dict[str, Any] | None:
    types = registry.types_in(group, version)
    if not types:
        return None
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    for rtype in types:
        paths.update(_resource_paths(rtype))
        schema = dict(rtype.schema or {"type": "object"})
        schema["x-kubernetes-group-version-kind"] = [
            {"group": rtype.group, "kind": rtype.kind, "version": rtype.version}
        ]
        reversed_group = ".".join(reversed(rtype.group.split("."))) if rtype.group else "io.k8s.api.core"
        schemas[f"{reversed_group}.{rtype.version}.{rtype.kind}"] = schema
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": kube_release(registry.kube_version).git_version},
        "paths": paths,
        "components": {"schemas": schemas},
    }
