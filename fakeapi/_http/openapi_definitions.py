"""Which definitions a group version's OpenAPI documents hold, in OpenAPI v2 spelling.

A built-in group version holds its kinds, their lists, the kinds its subresources answer with and
the ``meta/v1`` types its operations name (``DeleteOptions``, ``Status``, ``WatchEvent``, ``Patch``),
with every definition these reach through ``$ref``: the apiserver's builder collects them the same
way from the routes (kube-openapi ``pkg/builder3``). The definitions come from
:func:`fakeapi._state.typed.openapi_schemas.builtin_definitions`, with what openapi-gen writes from
the Go types put back in (kubernetes-validate drops it): the ``default`` (a field's ``+default``
marker; else ``{}`` on a non-pointer struct field, the zero value on a non-pointer scalar field
without ``omitempty``; and on the elements of a list or map of non-pointer structs or scalars), and
for a field of an ``+enum`` type its ``enum`` and "Possible enum values"
(:mod:`fakeapi._state.typed.markers`).

A custom resource's definitions are built as apiextensions-apiserver's builder builds them
(``pkg/controller/openapi/builder/builder.go``, ``buildKubeNative`` and ``buildListSchema``): the
version's ``openAPIV3Schema``, ``x-kubernetes-int-or-string`` unfolded into its ``anyOf``
(``pkg/apiserver/schema/unfold.go``), with ``apiVersion`` and ``kind`` from ``TypeMeta`` and
``metadata`` as a reference to ``ObjectMeta``; a schema-less version is just ``{"type": "object"}``. Both carry
``x-kubernetes-group-version-kind``; the names reverse the group (``com.example.v1.Widget``).
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from fakeapi._state.registry import Registry
from fakeapi._state.resources import ResourceType
from fakeapi._state.typed.markers import GoMarkers, go_markers
from fakeapi._state.typed.openapi_schemas import builtin_definitions
from fakeapi._state.typed.structs import GoStructs, go_structs

__all__ = [
    "META",
    "REF_PREFIX",
    "group_version_definitions",
    "kind_definition_name",
]

REF_PREFIX = "#/definitions/"
META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_OBJECT_META = META + "ObjectMeta"
_LIST_META = META + "ListMeta"
# What the operations of every group version refer to (request and response bodies).
_OPERATION_TYPES = (META + "DeleteOptions", META + "Status", META + "WatchEvent", META + "Patch")
_SCALE = "io.k8s.api.autoscaling.v1.Scale"
_OBJECT_META_DESCRIPTION = (
    "Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
_LIST_META_DESCRIPTION = (
    "Standard list metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
_SCALARS: dict[str, Any] = {"string": "", "integer": 0, "number": 0, "boolean": False}


def _ref(name: str) -> str:
    return REF_PREFIX + name


def _referenced(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF_PREFIX):
            found.add(ref[len(REF_PREFIX) :])
        for value in node.values():
            _referenced(value, found)
    elif isinstance(node, list):
        for value in node:
            _referenced(value, found)


def _closure(roots: list[str], definitions: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    pending = [name for name in roots if name in definitions]
    while pending:
        name = pending.pop()
        if name in out:
            continue
        out[name] = definitions[name]
        found: set[str] = set()
        _referenced(out[name], found)
        pending.extend(sorted(found - out.keys()))
    return dict(sorted(out.items()))


def _go_name(definition: str) -> str:
    """``io.k8s.api.apps.v1.DaemonSetSpec`` -> ``apps/v1.DaemonSetSpec``, as :mod:`.structs` names it."""
    for prefix in ("io.k8s.api.", "io.k8s.apimachinery.pkg.apis.", "io.k8s.apimachinery.pkg."):
        if definition.startswith(prefix):
            rest = definition[len(prefix) :]
            parts = rest.split(".")
            if len(parts) == 3:
                return f"{parts[0]}/{parts[1]}.{parts[2]}"
            return rest
    return definition


def _is_struct(definitions: dict[str, dict[str, Any]], schema: dict[str, Any]) -> bool:
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return False
    return "properties" in definitions.get(ref.removeprefix(REF_PREFIX), {})


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _enum_description(description: str, values: tuple[tuple[str, str], ...]) -> str:
    lines = sorted(f" - `{_quoted(value)}` {comment}".rstrip() for value, comment in values)
    text = "Possible enum values:\n" + "\n".join(lines)
    return f"{description}\n\n{text}" if description else text


def _enum_values(values: tuple[tuple[str, str], ...]) -> list[str]:
    return sorted((value for value, _ in values), key=_quoted)


def _with_enum(prop: dict[str, Any], go_type: str, enums: dict[str, tuple[tuple[str, str], ...]]) -> dict[str, Any]:
    """A field of an ``+enum`` type, or a list or map of one, as openapi-gen writes it."""
    values = enums.get(go_type.removeprefix("*"))
    if values:
        return {
            **prop,
            "description": _enum_description(prop.get("description", ""), values),
            "enum": _enum_values(values),
        }
    for prefix, key in (("[]", "items"), ("map[string]", "additionalProperties")):
        inner = prop.get(key)
        if go_type.startswith(prefix) and isinstance(inner, dict):
            values = enums.get(go_type[len(prefix) :].removeprefix("*"))
            if values:
                return {**prop, key: {**inner, "enum": _enum_values(values)}}
    return prop


def _zero(schema: Any) -> Any:
    """The zero value openapi-gen writes as a scalar's default, or None for anything else."""
    if not isinstance(schema, dict) or "$ref" in schema:
        return None
    return _SCALARS.get(schema.get("type", ""))


def _with_go_facts(
    definitions: dict[str, dict[str, Any]], structs: GoStructs, markers: GoMarkers, name: str, schema: dict[str, Any]
) -> dict[str, Any]:
    go_name = _go_name(name)
    fields = structs.fields_by_name(go_name)
    properties = schema.get("properties")
    if not fields or not isinstance(properties, dict):
        return schema
    explicit = markers.defaults.get(go_name, {})
    out = dict(schema)
    out["properties"] = dict(properties)
    for key, prop in properties.items():
        field = fields.get(key)
        if field is None:
            continue
        prop = _with_enum(prop, field.go_type, markers.enums)
        go_type = structs.underlying(field.go_type)
        collection = go_type.startswith(("[]", "map["))
        if key in explicit:
            prop = {**prop, "default": explicit[key]}
        elif field.pointer:
            pass
        elif _is_struct(definitions, prop) and not collection:
            prop = {**prop, "default": {}}
        elif not collection and not field.omitempty and _zero(prop) is not None:
            prop = {**prop, "default": _zero(prop)}
        for prefix, inner in (("[]", "items"), ("map[string]", "additionalProperties")):
            element = prop.get(inner)
            if not go_type.startswith(prefix) or not isinstance(element, dict):
                continue
            element_type = structs.underlying(go_type[len(prefix) :])
            if element_type.startswith(("*", "[]", "map[")):
                continue
            if _is_struct(definitions, element):
                prop = {**prop, inner: {**element, "default": {}}}
            elif _zero(element) is not None:
                prop = {**prop, inner: {**element, "default": _zero(element)}}
        out["properties"][key] = prop
    return out


@functools.cache
def _builtin(kube_version: str) -> dict[str, dict[str, Any]]:
    definitions = builtin_definitions(kube_version)
    try:
        structs = go_structs(kube_version)
        markers = go_markers(kube_version)
    except FileNotFoundError:
        return definitions
    return {name: _with_go_facts(definitions, structs, markers, name, schema) for name, schema in definitions.items()}


@functools.cache
def _builtin_kinds(kube_version: str) -> dict[tuple[str, str, str], str]:
    kinds: dict[tuple[str, str, str], str] = {}
    for name, schema in builtin_definitions(kube_version).items():
        for gvk in schema.get("x-kubernetes-group-version-kind") or ():
            key = (gvk.get("group", ""), gvk.get("version", ""), gvk.get("kind", ""))
            if name.endswith("." + key[2]) and key not in kinds:
                kinds[key] = name
    return kinds


def kind_definition_name(registry: Registry, group: str, version: str, kind: str, *, custom: bool) -> str:
    """The definition a kind's objects are described by: the apiserver's name, or the reversed group."""
    if not custom:
        found = _builtin_kinds(registry.kube_version).get((group, version, kind))
        if found is not None:
            return found
    return ".".join([*reversed(group.split(".")), version, kind]) if group else f"io.k8s.api.core.{version}.{kind}"


def _type_meta(definitions: dict[str, dict[str, Any]]) -> dict[str, Any]:
    # TypeMeta's two fields, with its descriptions; every built-in kind embeds them alike.
    properties = definitions["io.k8s.api.core.v1.Pod"]["properties"]
    return {"apiVersion": properties["apiVersion"], "kind": properties["kind"]}


_INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]


def _unfold(node: Any) -> None:
    """``Structural.Unfold``: an ``x-kubernetes-int-or-string`` node gets its ``anyOf`` spelled out."""
    if not isinstance(node, dict):
        return
    for key in ("properties", "patternProperties"):
        for child in (node.get(key) or {}).values():
            _unfold(child)
    for key in ("items", "additionalProperties"):
        _unfold(node.get(key))
    if node.get("x-kubernetes-int-or-string") is not True:
        return
    all_of = node.get("allOf") or [{}]
    if node.get("anyOf") == _INT_OR_STRING_ANY_OF or (
        isinstance(all_of[0], dict) and all_of[0].get("anyOf") == _INT_OR_STRING_ANY_OF
    ):
        return
    if node.get("anyOf") is None:
        node["anyOf"] = copy.deepcopy(_INT_OR_STRING_ANY_OF)
    else:
        node["allOf"] = [{"anyOf": copy.deepcopy(_INT_OR_STRING_ANY_OF)}, *(node.get("allOf") or [])]


def _custom_kind(rtype: ResourceType, type_meta: dict[str, Any]) -> dict[str, Any]:
    gvk = [{"group": rtype.group, "kind": rtype.kind, "version": rtype.version}]
    if not rtype.schema:
        return {"type": "object", "x-kubernetes-group-version-kind": gvk}
    schema = copy.deepcopy(rtype.schema)
    _unfold(schema)
    properties = schema.setdefault("properties", {})
    properties["metadata"] = {"$ref": _ref(_OBJECT_META), "description": _OBJECT_META_DESCRIPTION}
    properties.update(type_meta)
    schema["properties"] = dict(sorted(properties.items()))
    schema["x-kubernetes-group-version-kind"] = gvk
    return schema


def _custom_list(rtype: ResourceType, kind_name: str, type_meta: dict[str, Any]) -> dict[str, Any]:
    return {
        "description": f"{rtype.list_kind} is a list of {rtype.kind}",
        "properties": {
            "apiVersion": type_meta["apiVersion"],
            "items": {
                "description": (
                    f"List of {rtype.plural}. More info: "
                    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
                ),
                "items": {"$ref": _ref(kind_name)},
                "type": "array",
            },
            "kind": type_meta["kind"],
            "metadata": {"$ref": _ref(_LIST_META), "description": _LIST_META_DESCRIPTION},
        },
        "required": ["items"],
        "x-kubernetes-group-version-kind": [{"group": rtype.group, "kind": rtype.list_kind, "version": rtype.version}],
    }


def group_version_definitions(registry: Registry, types: list[ResourceType]) -> dict[str, dict[str, Any]]:
    """Every definition the documents of one group version (``types``) hold, sorted by name."""
    builtin = _builtin(registry.kube_version)
    roots = list(_OPERATION_TYPES)
    own: dict[str, dict[str, Any]] = {}
    type_meta = _type_meta(builtin)
    for rtype in types:
        name = kind_definition_name(registry, rtype.group, rtype.version, rtype.kind, custom=rtype.custom)
        if rtype.custom:
            own[name] = _custom_kind(rtype, type_meta)
            own[name + "List"] = _custom_list(rtype, name, type_meta)
            roots.extend([_OBJECT_META, _LIST_META])
            if "scale" in rtype.subresources:
                roots.append(_SCALE)
            continue
        roots.extend([name, name + "List"])
        for sub in rtype.subresource_table:
            if sub.kind:
                roots.append(
                    kind_definition_name(
                        registry,
                        rtype.group if sub.group is None else sub.group,
                        sub.version or rtype.version,
                        sub.kind,
                        custom=False,
                    )
                )
    definitions = _closure(roots, builtin)
    definitions.update(own)
    for schema in own.values():
        found: set[str] = set()
        _referenced(schema, found)
        definitions.update(_closure(sorted(found - own.keys()), builtin))
    return dict(sorted(definitions.items()))
