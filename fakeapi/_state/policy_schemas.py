"""The OpenAPI schema of a kind, as the policy type checker's schema resolver finds it.

kube-controller-manager's ValidatingAdmissionPolicy status controller resolves a kind's schema with
k8s.io/apiserver ``pkg/cel/openapi/resolver``: ``DefinitionsSchemaResolver`` first (the built-in types'
definitions compiled into it, found by their ``x-kubernetes-group-version-kind``), then
``ClientDiscoveryResolver`` (the ``/openapi/v3`` document of the kind's group version, which is how a custom
resource is found). Either replaces every ``$ref`` (also one wrapped in ``allOf``) in properties,
``additionalProperties`` and ``items`` by the schema it names (``populateRefs``); a reference back to a schema
being resolved is ``{"type": "object"}``. A custom resource's published schema is its version's
``openAPIV3Schema`` with ``apiVersion``, ``kind`` and ``metadata`` as ``ObjectMeta`` (docs/discovery.md).

The CEL adaptor (``pkg/cel/openapi``, ``isXIntOrString``) takes a node of format ``int-or-string`` (how
built-in types spell it) as ``x-kubernetes-int-or-string``; the resolved schema says so with the extension,
the spelling :mod:`fakeapi._cel.declarations` reads. See docs/admission-policies.md.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable
from typing import Any

from fakeapi._state.resources import ResourceType
from fakeapi._state.typed.openapi_schemas import builtin_definitions

__all__ = ["resolve_schema"]

_REF_PREFIX = "#/definitions/"
_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_INT_OR_STRING_FORMAT = "int-or-string"

GVK = tuple[str, str, str]


@functools.cache
def _builtin_by_kind(kube_version: str) -> dict[GVK, str]:
    """``NewDefinitionsSchemaResolver``: every group-version-kind a definition names, to that definition."""
    found: dict[GVK, str] = {}
    for name, schema in builtin_definitions(kube_version).items():
        for gvk in schema.get("x-kubernetes-group-version-kind") or ():
            found[(gvk.get("group", ""), gvk.get("version", ""), gvk.get("kind", ""))] = name
    return found


def _ref_of(schema: dict[str, Any]) -> str | None:
    """``refOf``: the schema's reference, or one wrapped in ``allOf``."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return ref
    for wrapped in schema.get("allOf") or ():
        if isinstance(wrapped, dict):
            inner = _ref_of(wrapped)
            if inner is not None:
                return inner
    return None


def _populated(schema: dict[str, Any], definitions: dict[str, dict[str, Any]], visited: set[str]) -> dict[str, Any]:
    """``populateRefs``: ``schema`` with its references replaced, recursively, in a new tree."""
    ref = _ref_of(schema)
    leave: str | None = None
    if ref is not None:
        if ref in visited:
            return {"type": "object"}
        resolved = definitions.get(ref.removeprefix(_REF_PREFIX))
        if resolved is None:
            raise LookupError(ref)
        visited.add(ref)
        leave = ref
        schema = resolved
    try:
        result = dict(schema)
        properties = schema.get("properties")
        if isinstance(properties, dict):
            result["properties"] = {
                name: _populated(prop, definitions, visited) if isinstance(prop, dict) else prop
                for name, prop in properties.items()
            }
        for key in ("additionalProperties", "items"):
            child = schema.get(key)
            if isinstance(child, dict):
                result[key] = _populated(child, definitions, visited)
        if result.get("format") == _INT_OR_STRING_FORMAT:
            result["x-kubernetes-int-or-string"] = True
        return result
    finally:
        if leave is not None:
            visited.discard(leave)


@functools.cache
def _builtin_schema(kube_version: str, gvk: GVK) -> dict[str, Any] | None:
    name = _builtin_by_kind(kube_version).get(gvk)
    if name is None:
        return None
    definitions = builtin_definitions(kube_version)
    try:
        return _populated(definitions[name], definitions, {_REF_PREFIX + name})
    except LookupError:
        return None


def _custom_schema(rtype: ResourceType, kube_version: str) -> dict[str, Any]:
    """The kind's schema in its group version's ``/openapi/v3`` document, references resolved."""
    if not rtype.schema:
        return {"type": "object"}
    definitions = builtin_definitions(kube_version)
    pod = definitions["io.k8s.api.core.v1.Pod"]["properties"]
    schema = copy.deepcopy(rtype.schema)
    properties = dict(schema.get("properties") or {})
    properties["metadata"] = {"$ref": _REF_PREFIX + _OBJECT_META}
    properties["apiVersion"] = pod["apiVersion"]
    properties["kind"] = pod["kind"]
    schema["properties"] = properties
    return _populated(schema, definitions, set())


def resolve_schema(served: Iterable[ResourceType], kube_version: str, gvk: GVK) -> dict[str, Any] | None:
    """``DefinitionsSchemaResolver.Combine(ClientDiscoveryResolver).ResolveSchema``; None: ``ErrSchemaNotFound``.

    ``served`` are the resource types the server serves (a custom resource is found only at a served version).
    """
    builtin = _builtin_schema(kube_version, gvk)
    if builtin is not None:
        return builtin
    for rtype in served:
        if rtype.custom and (rtype.group, rtype.version, rtype.kind) == gvk:
            return _custom_schema(rtype, kube_version)
    return None
