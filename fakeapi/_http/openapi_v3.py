"""``/openapi/v3``: the index of group versions and one OpenAPI 3.0 document per group version.

The index (kube-aggregator ``pkg/controllers/openapiv3/aggregator``, ``handleDiscovery``) maps
``api/v1`` and ``apis/<group>/<version>`` to a ``serverRelativeURL`` whose ``hash`` is the upper-case
hex SHA-512 of that document's bytes (kube-openapi ``pkg/handler3``, ``computeETag``), so a client
caches a document until the hash changes: a CRD stored, changed or deleted changes its group
version's hash. A document is ``openapi: 3.0.0`` with ``paths`` (:mod:`.openapi_paths`) and
``components.schemas`` (:mod:`.openapi_definitions`) spelled as kube-openapi's ``builder3`` writes
them: ``$ref`` points at ``#/components/schemas/<name>``, and a reference with anything beside it (a
description, a default) is wrapped in ``allOf``; ``IntOrString`` and ``Quantity`` are the ``oneOf``
their ``OpenAPIV3OneOfTypes`` declare. The built-in documents are built once per process, on the
first request for one; ``kubectl explain`` reads them, and kubectl's apply reads the PATCH
operation's ``fieldValidation`` parameter to leave validation to the server.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

from fakeapi._http.openapi_definitions import REF_PREFIX, group_version_definitions
from fakeapi._http.openapi_paths import Operation, group_version_operations
from fakeapi._patching.goencode import encode
from fakeapi._state.registry import Registry
from fakeapi._state.releases import kube_release
from fakeapi._state.typed.openapi_schemas import INT_OR_STRING, QUANTITY

__all__ = [
    "document_etag",
    "document_key",
    "encode_index",
    "etag",
    "openapi_v3_document",
    "openapi_v3_index",
    "parse_document_key",
]

_V3_PREFIX = "#/components/schemas/"
_ONE_OF: dict[str, list[dict[str, str]]] = {
    INT_OR_STRING: [{"type": "integer"}, {"type": "string"}],
    QUANTITY: [{"type": "string"}, {"type": "number"}],
}
_SCHEMA_MAPS = ("properties", "patternProperties", "definitions")
_ONE_SCHEMA = ("items", "additionalProperties", "not")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
_WATCH_TYPES = ("application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch")


def document_key(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def parse_document_key(key: str) -> tuple[str, str] | None:
    """``apis/apps/v1`` -> ``("apps", "v1")``, ``api/v1`` -> ``("", "v1")``; None for anything else."""
    parts = key.split("/")
    if len(parts) == 2 and parts[0] == "api" and parts[1]:
        return "", parts[1]
    if len(parts) == 3 and parts[0] == "apis" and parts[1] and parts[2]:
        return parts[1], parts[2]
    return None


def _v3_schema(node: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _v3_schema(entry) for name, entry in value.items()}
        elif key in _ONE_SCHEMA and isinstance(value, dict):
            out[key] = _v3_schema(value)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_v3_schema(entry) for entry in value]
        else:
            out[key] = value
    ref = out.pop("$ref", None)
    if isinstance(ref, str):
        target = {"$ref": _V3_PREFIX + ref.removeprefix(REF_PREFIX)}
        if not out:
            return target
        out["allOf"] = [target, *out.get("allOf", ())]
    return out


def _v3_definition(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    one_of = _ONE_OF.get(name)
    if one_of is not None:
        return {**{key: value for key, value in schema.items() if key != "type"}, "oneOf": one_of}
    return _v3_schema(schema)


def _content(definition: str, media_types: tuple[str, ...]) -> dict[str, Any]:
    return {media: {"schema": {"$ref": _V3_PREFIX + definition}} for media in media_types}


def _operation(operation: Operation) -> dict[str, Any]:
    group, version, kind = operation.gvk
    produces = operation.produces + (_WATCH_TYPES if operation.action == "list" else ())
    out: dict[str, Any] = {
        "description": operation.description,
        "operationId": operation.operation_id,
        "parameters": [
            {
                **({"description": param.description} if param.description else {}),
                "in": param.location,
                "name": param.name,
                **({"required": True} if param.location == "path" else {}),
                "schema": {"type": param.type, "uniqueItems": True},
            }
            for param in operation.parameters
        ],
        "responses": {
            code: {"content": _content(definition, produces), "description": description}
            for code, description, definition in operation.responses
        }
        | {"401": {"description": "Unauthorized"}},
        "tags": [operation.tag],
        "x-kubernetes-action": operation.action,
        "x-kubernetes-group-version-kind": {"group": group, "kind": kind, "version": version},
    }
    if operation.body is not None:
        out["requestBody"] = {
            "content": _content(operation.body, operation.consumes),
            "required": operation.body_required,
        }
    return out


def _build(registry: Registry, group: str, version: str) -> dict[str, Any] | None:
    types = registry.types_in(group, version)
    if not types:
        return None
    paths: dict[str, Any] = {}
    for operation in group_version_operations(registry, types):
        paths.setdefault(operation.path, {})[operation.method] = _operation(operation)
    definitions = group_version_definitions(registry, types)
    return {
        "components": {"schemas": {name: _v3_definition(name, schema) for name, schema in definitions.items()}},
        "info": {"title": "Kubernetes", "version": kube_release(registry.kube_version).git_version},
        "openapi": "3.0.0",
        "paths": paths,
    }


@functools.cache
def _builtin_bytes(kube_version: str, group: str, version: str) -> bytes | None:
    document = _build(Registry(kube_version), group, version)
    return None if document is None else encode(document)


def openapi_v3_document(registry: Registry, group: str, version: str) -> bytes | None:
    """The document of one group version as served, or None when nothing is served there."""
    types = registry.types_in(group, version)
    if not types:
        return None
    if not any(rtype.custom for rtype in types):
        return _builtin_bytes(registry.kube_version, group, version)
    document = _build(registry, group, version)
    return None if document is None else encode(document)


def etag(document: bytes) -> str:
    """kube-openapi's ``computeETag``: the upper-case hex SHA-512 of the bytes."""
    return hashlib.sha512(document).hexdigest().upper()


@functools.cache
def _builtin_etag(kube_version: str, group: str, version: str) -> str:
    return etag(_builtin_bytes(kube_version, group, version) or b"")


def document_etag(registry: Registry, group: str, version: str, document: bytes) -> str:
    """The ETag of a group version's ``document``; a built-in one's is computed once."""
    if any(rtype.custom for rtype in registry.types_in(group, version)):
        return etag(document)
    return _builtin_etag(registry.kube_version, group, version)


def encode_index(registry: Registry) -> bytes:
    """The index's bytes: Go's ``json.Marshal``, no trailing newline."""
    return encode(openapi_v3_index(registry))


def openapi_v3_index(registry: Registry) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for group in registry.groups():
        for version in registry.versions_of(group):
            document = openapi_v3_document(registry, group, version)
            if document is None:
                continue
            key = document_key(group, version)
            digest = document_etag(registry, group, version, document)
            paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={digest}"}
    return {"paths": dict(sorted(paths.items()))}
