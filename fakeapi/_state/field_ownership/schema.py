"""The structured-merge-diff schema of a kind: which maps are structs, which lists merge per element.

The apiserver's field manager converts each kind's OpenAPI schema with kube-openapi
``pkg/schemaconv`` (``ToSchemaFromOpenAPI``, ``openapi.go`` and ``smd.go``) into
structured-merge-diff atoms; server-side apply and managedFields walk objects with them. The rules
reproduced here (docs/server-side-apply.md):

- ``type: object`` is a map; its ``properties`` are struct fields, ``additionalProperties`` its
  element type; with neither (or under ``x-kubernetes-preserve-unknown-fields``) its elements are
  *deduced*. ``x-kubernetes-map-type: atomic`` makes it owned whole, ``granular`` per field.
- ``type: array`` is a list: ``x-kubernetes-list-type`` ``atomic`` (owned whole), ``set``
  (per value) or ``map`` (per element, keyed by ``x-kubernetes-list-map-keys``); without it, a
  ``x-kubernetes-patch-strategy: merge`` list is keyed by its ``x-kubernetes-patch-merge-key`` (a
  set without one); anything else is atomic.
- no ``type`` is any of scalar, list and map, chosen by the value; Quantity is a scalar and
  RawExtension is owned whole.
- a deduced value: scalars, atomic lists, maps per field.

Built-in kinds read the definitions of :func:`builtin_definitions`; a custom resource reads its
CRD's ``openAPIV3Schema`` with ``metadata`` as the built-in ``ObjectMeta``. The built-in
definitions carry no ``default``; the two list-map key fields that have one (``protocol`` of
``ContainerPort`` and ``ServicePort``, ``+default="TCP"`` in k8s.io/api ``core/v1/types.go``) are
stated below, since a key left out takes its default.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fakeapi._state.typed.openapi_schemas import builtin_definitions
from fakeapi._state.typed.structs import DEFAULT_KUBE_VERSION

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType

__all__ = ["Atom", "ListType", "MapType", "kind_atom"]

_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"
_REF_PREFIX = "#/definitions/"
_KEY_DEFAULTS: dict[str, dict[str, Any]] = {
    "io.k8s.api.core.v1.ContainerPort": {"protocol": "TCP"},
    "io.k8s.api.core.v1.ServicePort": {"protocol": "TCP"},
}


@dataclass(eq=False, slots=True)
class ListType:
    atomic: bool
    keys: tuple[str, ...] = ()
    element: Atom | None = None
    key_defaults: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False, slots=True)
class MapType:
    atomic: bool
    fields: dict[str, Atom] = field(default_factory=dict)
    element: Atom | None = None


class Atom:
    """One schema node: any of scalar, list and map; its parts are built on first use."""

    __slots__ = ("_built", "_definitions", "_list", "_map", "_node", "_override", "_preserve", "_scalar")

    def __init__(
        self, definitions: dict[str, dict[str, Any]], node: dict[str, Any], preserve: bool, override: str = ""
    ) -> None:
        self._definitions = definitions
        self._node = node
        self._preserve = preserve
        self._override = override
        self._built = False
        self._scalar = False
        self._list: ListType | None = None
        self._map: MapType | None = None

    @property
    def scalar(self) -> bool:
        self._build()
        return self._scalar

    @property
    def list(self) -> ListType | None:
        self._build()
        return self._list

    @property
    def map(self) -> MapType | None:
        self._build()
        return self._map

    def _build(self) -> None:
        if self._built:
            return
        self._built = True
        node = self._node
        preserve = self._preserve or node.get("x-kubernetes-preserve-unknown-fields") is True
        kind = node.get("type")
        if isinstance(kind, list):
            kind = next((entry for entry in kind if entry != "null"), "")
        if not kind and ("properties" in node or "additionalProperties" in node):
            kind = "object"
        if kind in ("", None):
            self._scalar = True
            self._list = self._list_of(node, preserve)
            self._map = self._map_of(node, preserve)
        elif kind == "object":
            self._map = self._map_of(node, preserve)
        elif kind == "array":
            self._list = self._list_of(node, preserve)
        else:
            self._scalar = True
        if self._override and self._map is not None:
            self._map.atomic = self._override == "atomic"

    def _child(self, node: Any, preserve: bool) -> Atom:
        return _atom_of(self._definitions, node if isinstance(node, dict) else {}, preserve)

    def _map_of(self, node: dict[str, Any], preserve: bool) -> MapType:
        properties = node.get("properties") or {}
        fields = {name: self._child(member, preserve) for name, member in properties.items()}
        extra = node.get("additionalProperties")
        element: Atom | None = None
        if isinstance(extra, dict):
            element = self._child(extra, preserve)
        elif extra is True or (extra is None and (preserve or not properties)):
            element = DEDUCED
        return MapType(atomic=node.get("x-kubernetes-map-type") == "atomic", fields=fields, element=element)

    def _list_of(self, node: dict[str, Any], preserve: bool) -> ListType:
        items = node.get("items")
        element = self._child(items, preserve) if isinstance(items, dict) else UNTYPED
        list_type = node.get("x-kubernetes-list-type")
        keys: tuple[str, ...] = ()
        if list_type is not None:
            atomic = list_type not in ("set", "map")
            if list_type == "map":
                keys = tuple(str(key) for key in node.get("x-kubernetes-list-map-keys") or ())
        elif node.get("x-kubernetes-patch-strategy") in ("merge", "merge,retainKeys"):
            atomic = False
            merge_key = node.get("x-kubernetes-patch-merge-key")
            keys = (merge_key,) if isinstance(merge_key, str) else ()
        else:
            atomic = True
        defaults = _key_defaults(self._definitions, items if isinstance(items, dict) else {}, keys)
        return ListType(atomic=atomic, keys=keys, element=element, key_defaults=defaults)


def _key_defaults(
    definitions: dict[str, dict[str, Any]], items: dict[str, Any], keys: tuple[str, ...]
) -> dict[str, Any]:
    ref = _ref_name(items)
    if ref:
        return {key: value for key, value in _KEY_DEFAULTS.get(ref, {}).items() if key in keys}
    properties = items.get("properties") or {}
    return {key: properties[key]["default"] for key in keys if "default" in (properties.get(key) or {})}


def _ref_name(node: dict[str, Any]) -> str:
    ref = node.get("$ref")
    if not ref and isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
        ref = node["allOf"][0].get("$ref")
    return str(ref).removeprefix(_REF_PREFIX) if isinstance(ref, str) else ""


def _fixed(scalar: bool, list_type: ListType | None, map_type: MapType | None) -> Atom:
    atom = Atom({}, {}, False)
    atom._built = True
    atom._scalar, atom._list, atom._map = scalar, list_type, map_type
    return atom


# ``__untyped_atomic_`` and ``__untyped_deduced_`` of schemaconv.
UNTYPED = _fixed(True, None, None)
UNTYPED._list = ListType(atomic=True, element=UNTYPED)
UNTYPED._map = MapType(atomic=True, element=UNTYPED)
DEDUCED = _fixed(True, ListType(atomic=True, element=UNTYPED), None)
DEDUCED._map = MapType(atomic=False, element=DEDUCED)
_QUANTITY_ATOM = _fixed(True, None, None)

_named: dict[tuple[int, str], Atom] = {}


def _atom_of(definitions: dict[str, dict[str, Any]], node: dict[str, Any], preserve: bool) -> Atom:
    ref = _ref_name(node)
    if not ref:
        return Atom(definitions, node, preserve)
    override = node.get("x-kubernetes-map-type")
    named = _named_atom(definitions, ref)
    if isinstance(override, str) and override in ("atomic", "granular"):
        return Atom(definitions, definitions.get(ref, {}), False, override)
    return named


def _named_atom(definitions: dict[str, dict[str, Any]], name: str) -> Atom:
    if name == _QUANTITY:
        return _QUANTITY_ATOM
    if name == _RAW_EXTENSION:
        return UNTYPED
    cached = _named.get((id(definitions), name))
    if cached is None:
        cached = _named[(id(definitions), name)] = Atom(definitions, definitions.get(name, {}), False)
    return cached


@functools.cache
def _builtin_kinds(version: str) -> dict[tuple[str, str, str], str]:
    found: dict[tuple[str, str, str], str] = {}
    for name, definition in builtin_definitions(version).items():
        for gvk in definition.get("x-kubernetes-group-version-kind") or ():
            found.setdefault((gvk.get("group", ""), gvk.get("version", ""), gvk.get("kind", "")), name)
    return found


_custom: dict[int, tuple[dict[str, Any] | None, Atom]] = {}


def kind_atom(rtype: ResourceType) -> Atom:
    """The root atom of a resource type's objects; all-deduced for a kind with no schema."""
    definitions = builtin_definitions()
    if not rtype.custom:
        name = _builtin_kinds(DEFAULT_KUBE_VERSION).get((rtype.group, rtype.version, rtype.kind))
        return _named_atom(definitions, name) if name else DEDUCED
    cached = _custom.get(id(rtype))
    if cached is not None and cached[0] is rtype.schema:
        return cached[1]
    schema = rtype.schema
    if not isinstance(schema, dict):
        atom = DEDUCED
    else:
        properties = dict(schema.get("properties") or {})
        properties["apiVersion"] = {"type": "string"}
        properties["kind"] = {"type": "string"}
        properties["metadata"] = {"$ref": _REF_PREFIX + _OBJECT_META}
        atom = Atom(definitions, {**schema, "type": "object", "properties": properties}, rtype.preserve_unknown_fields)
    _custom[id(rtype)] = (rtype.schema, atom)
    return atom
