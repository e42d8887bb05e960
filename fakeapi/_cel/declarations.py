"""The CEL type of each node of a structural schema, as k8s.io/apiserver ``pkg/cel/common/schemas.go``
(``SchemaDeclType``) derives it, declared to the type checker as protobuf message types.

apiextensions-apiserver compiles every rule against the type its schema gives ``self``: an object is a
struct whose fields are its escaped properties (:mod:`.escaping`), ``additionalProperties`` a
``map(string, V)``, an array ``list(E)``, ``integer`` ``int``, ``number`` ``double``, a string ``string`` or,
by its format, ``bytes`` (``byte``), ``duration`` or ``timestamp`` (``date``, ``date-time``), and
``x-kubernetes-int-or-string`` ``dyn``. A node CEL cannot see (no type, an array without items) hides the
property that holds it. The root of a resource, and an embedded resource, also has ``apiVersion``, ``kind``
and ``metadata.name``/``metadata.generateName`` (``WithTypeAndObjectMeta``).

The checker of cel-expr-python knows struct types only as protobuf messages, so each object becomes a
proto2 message (presence kept, so ``has()`` checks it). Protobuf cannot nest a list or a map directly in a
list or a map; there the inner value is a ``google.protobuf.ListValue`` or ``Struct``, which CEL reads as
``list(dyn)`` and ``map(string, dyn)``: a rule on such a value is checked less strictly than cel-go checks it
(docs/cel.md). The checked program is used for its errors and its result type only; evaluation runs on
plain values (:mod:`.values`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, descriptor_pool, duration_pb2, struct_pb2, timestamp_pb2

from fakeapi._cel import opaque
from fakeapi._cel.escaping import SELECTABLE_RESERVED, escape

__all__ = ["Declared", "declare", "declare_in_file"]

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS: dict[str, tuple[int, cel.Type]] = {
    "int": (_F.TYPE_INT64, cel.Type.INT),
    "double": (_F.TYPE_DOUBLE, cel.Type.DOUBLE),
    "bool": (_F.TYPE_BOOL, cel.Type.BOOL),
    "string": (_F.TYPE_STRING, cel.Type.STRING),
    "bytes": (_F.TYPE_BYTES, cel.Type.BYTES),
}
_WELL_KNOWN: dict[str, tuple[str, cel.Type]] = {
    "timestamp": (".google.protobuf.Timestamp", cel.Type.TIMESTAMP),
    "duration": (".google.protobuf.Duration", cel.Type.DURATION),
    "dyn": (".google.protobuf.Value", cel.Type.DYN),
}
_FORMATS = {"byte": "bytes", "duration": "duration", "date": "timestamp", "date-time": "timestamp"}
_packages = itertools.count(1)


@dataclass(eq=False)
class Declared:
    """The CEL view of one schema node: its kind, its CEL type, and what values of it are made of."""

    kind: str
    schema: Mapping[str, Any]
    cel_type: Any = None
    # object: escaped field name -> (property name, its declaration)
    fields: dict[str, tuple[str, Declared]] = field(default_factory=dict)
    # list: the items; map: the values
    element: Declared | None = None
    message: str = ""
    string_format: str = ""
    # Whether values need no conversion (:mod:`.values`), decided on first use.
    as_written: bool | None = None


class _Builder:
    """Collects the message types of one schema in one proto file of a fresh package."""

    def __init__(self) -> None:
        self.package = f"fakeapi_cel_{next(_packages)}"
        self.file = descriptor_pb2.FileDescriptorProto(
            name=f"{self.package}.proto",
            package=self.package,
            syntax="proto2",
            dependency=[
                "google/protobuf/struct.proto",
                "google/protobuf/timestamp.proto",
                "google/protobuf/duration.proto",
            ],
        )
        self.count = 0

    def node(self, schema: Mapping[str, Any], resource_root: bool) -> Declared | None:
        if schema.get("x-kubernetes-int-or-string") is True:
            return Declared("dyn", schema, cel.Type.DYN)
        if resource_root:
            schema = _with_type_and_object_meta(schema)
        kind = schema.get("type")
        if kind == "array":
            items = schema.get("items")
            if not isinstance(items, Mapping):
                return None
            element = self.node(items, items.get("x-kubernetes-embedded-resource") is True)
            if element is None:
                return None
            return Declared("list", schema, cel.Type.List(element.cel_type), element=element)
        if kind == "object":
            extra = schema.get("additionalProperties")
            if isinstance(extra, Mapping):
                element = self.node(extra, extra.get("x-kubernetes-embedded-resource") is True)
                if element is None:
                    return None
                return Declared("map", schema, cel.Type.Map(cel.Type.STRING, element.cel_type), element=element)
            return self._object(schema)
        if kind == "string":
            string_format = schema.get("format")
            named = _FORMATS.get(string_format) if isinstance(string_format, str) else None
            if named is not None:
                declared = Declared(named, schema, _WELL_KNOWN[named][1] if named != "bytes" else cel.Type.BYTES)
                declared.string_format = string_format or ""
                return declared
            return Declared("string", schema, cel.Type.STRING)
        scalar = {"boolean": "bool", "number": "double", "integer": "int"}.get(kind if isinstance(kind, str) else "")
        if scalar is not None:
            return Declared(scalar, schema, _SCALARS[scalar][1])
        return None

    def _object(self, schema: Mapping[str, Any]) -> Declared:
        self.count += 1
        name = f"Object{self.count}"
        message = self.file.message_type.add(name=name)
        declared = Declared("object", schema, cel.Type(f"{self.package}.{name}"), message=f"{self.package}.{name}")
        properties = schema.get("properties")
        number = 0
        for prop_name, prop in properties.items() if isinstance(properties, Mapping) else ():
            if not isinstance(prop, Mapping):
                continue
            child = self.node(prop, prop.get("x-kubernetes-embedded-resource") is True)
            escaped = escape(prop_name)
            if child is None or escaped is None:
                continue
            number += 1
            declared.fields[escaped] = (prop_name, child)
            self._add_field(message, name, escaped, number, child)
            if escaped == f"__{prop_name}__" and prop_name in SELECTABLE_RESERVED:
                # cel-go also selects such a field by its plain name after a dot (``self.spec.if``).
                number += 1
                declared.fields[prop_name] = (prop_name, child)
                self._add_field(message, name, prop_name, number, child)
        return declared

    def _add_field(self, message: Any, owner: str, name: str, number: int, child: Declared) -> None:
        if child.kind == "map":
            entry_name = _camel(name) + "Entry"
            entry = message.nested_type.add(name=entry_name)
            entry.options.map_entry = True
            entry.field.add(name="key", number=1, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
            assert child.element is not None
            self._member(entry, "value", 2, child.element, _F.LABEL_OPTIONAL)
            entry_type = f".{self.package}.{owner}.{entry_name}"
            message.field.add(
                name=name,
                number=number,
                type=_F.TYPE_MESSAGE,
                type_name=entry_type,
                label=_F.LABEL_REPEATED,
                json_name=name,
            )
        elif child.kind == "list":
            assert child.element is not None
            self._member(message, name, number, child.element, _F.LABEL_REPEATED)
        else:
            self._member(message, name, number, child, _F.LABEL_OPTIONAL)

    def _member(self, message: Any, name: str, number: int, child: Declared, label: int) -> None:
        """A field holding one value of ``child``; a list or a map there is a ListValue or a Struct."""
        if child.kind in _SCALARS:
            message.field.add(name=name, number=number, type=_SCALARS[child.kind][0], label=label, json_name=name)
            return
        if child.kind == "object":
            type_name = "." + child.message
        elif child.kind == "list":
            type_name = ".google.protobuf.ListValue"
        elif child.kind == "map":
            type_name = ".google.protobuf.Struct"
        else:
            type_name = _WELL_KNOWN[child.kind][0]
        message.field.add(
            name=name, number=number, type=_F.TYPE_MESSAGE, type_name=type_name, label=label, json_name=name
        )

    def pool(self) -> descriptor_pool.DescriptorPool:
        pool = descriptor_pool.DescriptorPool()
        for dependency in (struct_pb2, timestamp_pb2, duration_pb2):
            pool.AddSerializedFile(dependency.DESCRIPTOR.serialized_pb)
        opaque.add_to(pool)
        pool.Add(self.file)
        return pool


def _camel(name: str) -> str:
    """protobuf's ``ToCamelCase``: a map field's entry type must be named after the field."""
    result: list[str] = []
    upper = True
    for char in name:
        if char == "_":
            upper = True
        else:
            result.append(char.upper() if upper else char)
            upper = False
    return "".join(result)


def _typed(schema: Any, kind: str) -> bool:
    return isinstance(schema, Mapping) and schema.get("type") == kind


def _with_type_and_object_meta(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``WithTypeAndObjectMeta``: a resource's root always shows apiVersion, kind and metadata's names.

    A schema that declares all of them (metadata with name and generateName) is kept as it is; otherwise those
    three are declared anew, metadata with only name and generateName.
    """
    string = {"type": "string"}
    properties = dict(schema.get("properties") or {})
    metadata = properties.get("metadata")
    meta_properties = metadata.get("properties") if isinstance(metadata, Mapping) else None
    if (
        _typed(properties.get("kind"), "string")
        and _typed(properties.get("apiVersion"), "string")
        and _typed(metadata, "object")
        and isinstance(meta_properties, Mapping)
        and _typed(meta_properties.get("name"), "string")
        and _typed(meta_properties.get("generateName"), "string")
    ):
        return schema
    properties["kind"] = string
    properties["apiVersion"] = string
    properties["metadata"] = {"type": "object", "properties": {"name": string, "generateName": string}}
    return {**schema, "properties": properties}


def declare(schema: Mapping[str, Any], resource_root: bool) -> tuple[Declared | None, descriptor_pool.DescriptorPool]:
    """The declaration of ``schema``'s root and the descriptor pool its message types live in."""
    builder = _Builder()
    declared = builder.node(schema, resource_root)
    return declared, builder.pool()


def declare_in_file(schema: Mapping[str, Any], resource_root: bool) -> tuple[Declared | None, Any]:
    """The declaration of ``schema``'s root and the proto file (a ``FileDescriptorProto``) of its message types,
    for an environment that declares other types beside them (a policy's ``object`` and ``params``)."""
    builder = _Builder()
    declared = builder.node(schema, resource_root)
    return declared, builder.file
