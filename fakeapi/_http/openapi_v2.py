"""``/openapi/v2``: one Swagger 2.0 document of every group version, as JSON or gnostic protobuf.

kubectl 1.32 reads it when the v3 document of an object's group version has no PATCH operation
for the object's kind (a kind typo, ``kind: Deploymnet``): its field validation falls back to v2
(kubectl ``fallback_query_param_verifier.go``), finds no such kind there either, and leaves the
object to the REST mapping, which answers ``no matches for kind "Deploymnet" in version "apps/v1"``
and ``ensure CRDs are installed first``. Without a v2 document it stops at ``failed to download
openapi``. The document holds the same definitions and operations as the v3 ones
(:mod:`.openapi_definitions`, :mod:`.openapi_paths`) in v2's spelling: ``$ref`` as
``#/definitions/<name>`` beside its description, body parameters, a ``schema`` per response, and
the parameters listed where kube-openapi's v2 builder lists them (:mod:`.openapi_shared_parameters`).

A custom resource's schema is made for v2 as apiextensions-apiserver's builder does with
``V2: true``: a version that keeps unknown fields (``x-kubernetes-preserve-unknown-fields`` at its
root, or the CRD's ``preserveUnknownFields``) is only ``{"type": "object"}``, since kubectl would
reject every field v2 does not list; otherwise the v3-only keywords (``anyOf``, ``oneOf``, ``not``,
``nullable``) are dropped (``ToStructuralOpenAPIV2``).
"""

from __future__ import annotations

import functools
from typing import Any

from fakeapi._http.openapi_definitions import REF_PREFIX, group_version_definitions, kind_definition_name
from fakeapi._http.openapi_paths import Operation, group_version_operations
from fakeapi._http.openapi_protobuf import document_protobuf
from fakeapi._http.openapi_shared_parameters import hoisted, shared
from fakeapi._patching.godecode import decode
from fakeapi._patching.goencode import encode
from fakeapi._state.registry import Registry
from fakeapi._state.releases import kube_release
from fakeapi._state.resources import ResourceType

__all__ = ["openapi_v2_document"]

_V3_ONLY = frozenset({"anyOf", "oneOf", "not", "nullable"})


def _operation(operation: Operation) -> dict[str, Any]:
    group, version, kind = operation.gvk
    parameters: list[dict[str, Any]] = []
    if operation.body is not None:
        parameters.append(
            {
                "in": "body",
                "name": "body",
                **({"required": True} if operation.body_required else {}),
                "schema": {"$ref": REF_PREFIX + operation.body},
            }
        )
    for param in operation.parameters:
        parameters.append(
            {
                "description": param.description,
                "in": param.location,
                "name": param.name,
                **({"required": True} if param.location == "path" else {}),
                "type": param.type,
                "uniqueItems": True,
            }
        )
    responses: dict[str, Any] = {
        code: {"description": description, "schema": {"$ref": REF_PREFIX + definition}}
        for code, description, definition in operation.responses
    }
    responses["401"] = {"description": "Unauthorized"}
    return {
        "consumes": list(operation.consumes),
        "description": operation.description,
        "operationId": operation.operation_id,
        "parameters": parameters,
        "produces": list(operation.produces),
        "responses": responses,
        "schemes": ["https"],
        "tags": [operation.tag],
        "x-kubernetes-action": operation.action,
        "x-kubernetes-group-version-kind": {"group": group, "kind": kind, "version": version},
    }


def _v2_schema(node: Any) -> Any:
    if isinstance(node, list):
        return [_v2_schema(entry) for entry in node]
    if not isinstance(node, dict):
        return node
    return {
        key: value if key in ("enum", "default", "example") else _v2_schema(value)
        for key, value in node.items()
        if key not in _V3_ONLY
    }


def _custom_for_v2(registry: Registry, rtype: ResourceType, definitions: dict[str, Any]) -> None:
    name = kind_definition_name(registry, rtype.group, rtype.version, rtype.kind, custom=True)
    schema = definitions[name]
    if rtype.preserve_unknown_fields or (rtype.schema or {}).get("x-kubernetes-preserve-unknown-fields") is True:
        definitions[name] = {
            "type": "object",
            "x-kubernetes-group-version-kind": schema["x-kubernetes-group-version-kind"],
        }
        return
    properties = schema.get("properties") or {}
    definitions[name] = {
        **_v2_schema({key: value for key, value in schema.items() if key != "properties"}),
        "properties": {
            key: value if key in ("apiVersion", "kind", "metadata") else _v2_schema(value)
            for key, value in properties.items()
        },
    }


def _parts(registry: Registry, group: str, version: str) -> tuple[dict[str, Any], dict[str, Any]]:
    types = registry.types_in(group, version)
    operations: dict[str, dict[str, Any]] = {}
    for operation in group_version_operations(registry, types):
        operations.setdefault(operation.path, {})[operation.method] = _operation(operation)
    paths: dict[str, Any] = {}
    for path, by_method in operations.items():
        common, kept = hoisted(by_method)
        paths[path] = {**kept, "parameters": common} if common else kept
    definitions = dict(group_version_definitions(registry, types))
    for rtype in types:
        if rtype.custom:
            _custom_for_v2(registry, rtype, definitions)
    return paths, definitions


@functools.cache
def _builtin_parts(kube_version: str, group: str, version: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return _parts(Registry(kube_version), group, version)


def _custom_parts(registry: Registry) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    parts = []
    for group in registry.groups():
        for version in registry.versions_of(group):
            if any(rtype.custom for rtype in registry.types_in(group, version)):
                parts.append(_parts(registry, group, version))
    return parts


@functools.lru_cache(maxsize=4)
def _serialized(kube_version: str, custom: bytes) -> tuple[bytes, dict[str, Any]]:
    """The document's JSON bytes for the built-in group versions plus ``custom`` (their parts as JSON)."""
    registry = Registry(kube_version)
    paths: dict[str, Any] = {}
    definitions: dict[str, Any] = {}
    for group in registry.groups():
        for version in registry.versions_of(group):
            gv_paths, gv_definitions = _builtin_parts(kube_version, group, version)
            paths.update(gv_paths)
            definitions.update(gv_definitions)
    for gv_paths, gv_definitions in decode(custom):
        paths.update(gv_paths)
        definitions.update(gv_definitions)
    referring, parameters = shared(dict(sorted(paths.items())))
    document = {
        "definitions": dict(sorted(definitions.items())),
        "info": {"title": "Kubernetes", "version": kube_release(kube_version).git_version},
        "parameters": dict(sorted(parameters.items())),
        "paths": referring,
        "swagger": "2.0",
    }
    return encode(document), document


@functools.lru_cache(maxsize=4)
def _protobuf(kube_version: str, custom: bytes) -> bytes:
    return document_protobuf(_serialized(kube_version, custom)[1])


def openapi_v2_document(registry: Registry, *, protobuf: bool) -> tuple[bytes, bytes]:
    """The JSON bytes of the document (its ETag is computed from them) and the bytes to send.

    Built once per set of custom resource definitions: the built-in part never changes.
    """
    custom = encode(_custom_parts(registry))
    json_bytes, _ = _serialized(registry.kube_version, custom)
    return json_bytes, _protobuf(registry.kube_version, custom) if protobuf else json_bytes
