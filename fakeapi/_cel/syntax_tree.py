"""The checked syntax tree of a compiled rule, read from cel-cpp's serialized ``cel.expr.CheckedExpr``.

Cost estimation walks the tree the type checker produced: every node's kind, its type, and the overloads a
call resolved to. cel-expr-python exposes the tree only as ``Expression.serialize()``, a
``google.protobuf.Any`` holding a ``cel.expr.CheckedExpr`` (cel-spec ``proto/cel/expr/checked.proto`` and
``syntax.proto``). The messages it needs are declared here to protobuf, field numbers as cel-spec gives them,
and the tree is read into plain :class:`Node` objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory

__all__ = ["Checked", "Node", "TypeInfo", "read_checked"]

_F = descriptor_pb2.FieldDescriptorProto
_OPTIONAL, _REPEATED = _F.LABEL_OPTIONAL, _F.LABEL_REPEATED


def _message(file: Any, name: str, fields: list[tuple[str, int, int, str, int]], oneofs: dict[str, list[str]]) -> Any:
    message = file.message_type.add(name=name)
    for oneof in oneofs:
        message.oneof_decl.add(name=oneof)
    owners = {member: index for index, members in enumerate(oneofs.values()) for member in members}
    for field_name, number, kind, type_name, label in fields:
        added = message.field.add(name=field_name, number=number, type=kind, label=label)
        if type_name:
            added.type_name = type_name
        if field_name in owners:
            added.oneof_index = owners[field_name]
    return message


def _map_entry(parent: Any, name: str, key_kind: int, value_kind: int, value_type: str) -> None:
    entry = parent.nested_type.add(name=name)
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=key_kind, label=_OPTIONAL)
    value = entry.field.add(name="value", number=2, type=value_kind, label=_OPTIONAL)
    if value_type:
        value.type_name = value_type


@lru_cache(maxsize=1)
def _classes() -> dict[str, Any]:
    file = descriptor_pb2.FileDescriptorProto(name="fakeapi_cel_expr.proto", package="fakeapi.celexpr", syntax="proto3")
    msg, s, i64, i32, u64, b, d, by, enum = (
        _F.TYPE_MESSAGE,
        _F.TYPE_STRING,
        _F.TYPE_INT64,
        _F.TYPE_INT32,
        _F.TYPE_UINT64,
        _F.TYPE_BOOL,
        _F.TYPE_DOUBLE,
        _F.TYPE_BYTES,
        _F.TYPE_INT32,
    )
    p = ".fakeapi.celexpr."
    _message(
        file,
        "Constant",
        [
            ("null_value", 1, enum, "", _OPTIONAL),
            ("bool_value", 2, b, "", _OPTIONAL),
            ("int64_value", 3, i64, "", _OPTIONAL),
            ("uint64_value", 4, u64, "", _OPTIONAL),
            ("double_value", 5, d, "", _OPTIONAL),
            ("string_value", 6, s, "", _OPTIONAL),
            ("bytes_value", 7, by, "", _OPTIONAL),
        ],
        {
            "kind": [
                "null_value",
                "bool_value",
                "int64_value",
                "uint64_value",
                "double_value",
                "string_value",
                "bytes_value",
            ]
        },
    )
    _message(file, "Ident", [("name", 1, s, "", _OPTIONAL)], {})
    _message(
        file,
        "Select",
        [
            ("operand", 1, msg, p + "Expr", _OPTIONAL),
            ("field", 2, s, "", _OPTIONAL),
            ("test_only", 3, b, "", _OPTIONAL),
        ],
        {},
    )
    _message(
        file,
        "Call",
        [
            ("target", 1, msg, p + "Expr", _OPTIONAL),
            ("function", 2, s, "", _OPTIONAL),
            ("args", 3, msg, p + "Expr", _REPEATED),
        ],
        {},
    )
    _message(
        file,
        "CreateList",
        [("elements", 1, msg, p + "Expr", _REPEATED), ("optional_indices", 2, i32, "", _REPEATED)],
        {},
    )
    _message(
        file,
        "Entry",
        [
            ("id", 1, i64, "", _OPTIONAL),
            ("field_key", 2, s, "", _OPTIONAL),
            ("map_key", 3, msg, p + "Expr", _OPTIONAL),
            ("value", 4, msg, p + "Expr", _OPTIONAL),
            ("optional_entry", 5, b, "", _OPTIONAL),
        ],
        {"key_kind": ["field_key", "map_key"]},
    )
    _message(
        file,
        "CreateStruct",
        [("message_name", 1, s, "", _OPTIONAL), ("entries", 2, msg, p + "Entry", _REPEATED)],
        {},
    )
    _message(
        file,
        "Comprehension",
        [
            ("iter_var", 1, s, "", _OPTIONAL),
            ("iter_range", 2, msg, p + "Expr", _OPTIONAL),
            ("accu_var", 3, s, "", _OPTIONAL),
            ("accu_init", 4, msg, p + "Expr", _OPTIONAL),
            ("loop_condition", 5, msg, p + "Expr", _OPTIONAL),
            ("loop_step", 6, msg, p + "Expr", _OPTIONAL),
            ("result", 7, msg, p + "Expr", _OPTIONAL),
            ("iter_var2", 8, s, "", _OPTIONAL),
        ],
        {},
    )
    _message(
        file,
        "Expr",
        [
            ("id", 2, i64, "", _OPTIONAL),
            ("const_expr", 3, msg, p + "Constant", _OPTIONAL),
            ("ident_expr", 4, msg, p + "Ident", _OPTIONAL),
            ("select_expr", 5, msg, p + "Select", _OPTIONAL),
            ("call_expr", 6, msg, p + "Call", _OPTIONAL),
            ("list_expr", 7, msg, p + "CreateList", _OPTIONAL),
            ("struct_expr", 8, msg, p + "CreateStruct", _OPTIONAL),
            ("comprehension_expr", 9, msg, p + "Comprehension", _OPTIONAL),
        ],
        {
            "expr_kind": [
                "const_expr",
                "ident_expr",
                "select_expr",
                "call_expr",
                "list_expr",
                "struct_expr",
                "comprehension_expr",
            ]
        },
    )
    type_fields = [
        ("dyn", 1, msg, p + "Empty", _OPTIONAL),
        ("null", 2, enum, "", _OPTIONAL),
        ("primitive", 3, enum, "", _OPTIONAL),
        ("wrapper", 4, enum, "", _OPTIONAL),
        ("well_known", 5, enum, "", _OPTIONAL),
        ("list_type", 6, msg, p + "ListType", _OPTIONAL),
        ("map_type", 7, msg, p + "MapType", _OPTIONAL),
        ("function", 8, msg, p + "Empty", _OPTIONAL),
        ("message_type", 9, s, "", _OPTIONAL),
        ("type_param", 10, s, "", _OPTIONAL),
        ("type", 11, msg, p + "Type", _OPTIONAL),
        ("error", 12, msg, p + "Empty", _OPTIONAL),
        ("abstract_type", 14, msg, p + "AbstractType", _OPTIONAL),
    ]
    _message(file, "Empty", [], {})
    _message(file, "Type", type_fields, {"type_kind": [name for name, *_ in type_fields]})
    _message(file, "ListType", [("elem_type", 1, msg, p + "Type", _OPTIONAL)], {})
    _message(
        file,
        "MapType",
        [("key_type", 1, msg, p + "Type", _OPTIONAL), ("value_type", 2, msg, p + "Type", _OPTIONAL)],
        {},
    )
    _message(
        file,
        "AbstractType",
        [("name", 1, s, "", _OPTIONAL), ("parameter_types", 2, msg, p + "Type", _REPEATED)],
        {},
    )
    _message(file, "Reference", [("name", 1, s, "", _OPTIONAL), ("overload_id", 3, s, "", _REPEATED)], {})
    checked = _message(
        file,
        "CheckedExpr",
        [
            ("reference_map", 2, msg, p + "CheckedExpr.ReferenceMapEntry", _REPEATED),
            ("type_map", 3, msg, p + "CheckedExpr.TypeMapEntry", _REPEATED),
            ("expr", 4, msg, p + "Expr", _OPTIONAL),
        ],
        {},
    )
    _map_entry(checked, "ReferenceMapEntry", i64, msg, p + "Reference")
    _map_entry(checked, "TypeMapEntry", i64, msg, p + "Type")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"fakeapi.celexpr.{name}"))
        for name in ("CheckedExpr",)
    }


_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "any", 2: "timestamp", 3: "duration"}


@dataclass(frozen=True)
class TypeInfo:
    """A checked type: its kind (cel-go's ``types.Kind`` names) and its parameters."""

    kind: str
    name: str = ""
    parameters: tuple[TypeInfo, ...] = ()


def _type(message: Any) -> TypeInfo:
    which = message.WhichOneof("type_kind")
    if which == "primitive":
        return TypeInfo(_PRIMITIVES.get(message.primitive, "dyn"))
    if which == "well_known":
        return TypeInfo(_WELL_KNOWN.get(message.well_known, "dyn"))
    if which == "wrapper":
        return TypeInfo(_PRIMITIVES.get(message.wrapper, "dyn"))
    if which == "list_type":
        return TypeInfo("list", "list", (_type(message.list_type.elem_type),))
    if which == "map_type":
        return TypeInfo("map", "map", (_type(message.map_type.key_type), _type(message.map_type.value_type)))
    if which == "message_type":
        return TypeInfo("struct", message.message_type)
    if which == "type_param":
        return TypeInfo("type_param", message.type_param)
    if which == "abstract_type":
        parameters = tuple(_type(item) for item in message.abstract_type.parameter_types)
        return TypeInfo("opaque", message.abstract_type.name, parameters)
    if which == "null":
        return TypeInfo("null")
    if which == "type":
        return TypeInfo("type")
    return TypeInfo("dyn")


@dataclass
class Node:
    """One expression of the tree."""

    id: int
    kind: str
    # literal: the value; ident: the name; select: the field; call: the function
    value: Any = None
    children: list[Node] = field(default_factory=list)
    target: Node | None = None
    test_only: bool = False
    # comprehension parts, by name
    parts: dict[str, Any] = field(default_factory=dict)


def _node(message: Any) -> Node:
    which = message.WhichOneof("expr_kind")
    if which == "const_expr":
        constant = message.const_expr
        kind = constant.WhichOneof("kind")
        return Node(message.id, "literal", (kind, getattr(constant, kind) if kind else None))
    if which == "ident_expr":
        return Node(message.id, "ident", message.ident_expr.name)
    if which == "select_expr":
        select = message.select_expr
        return Node(message.id, "select", select.field, [_node(select.operand)], test_only=select.test_only)
    if which == "call_expr":
        call = message.call_expr
        target = _node(call.target) if call.HasField("target") else None
        return Node(message.id, "call", call.function, [_node(arg) for arg in call.args], target=target)
    if which == "list_expr":
        return Node(message.id, "list", None, [_node(item) for item in message.list_expr.elements])
    if which == "struct_expr":
        struct = message.struct_expr
        entries = []
        for entry in struct.entries:
            if entry.WhichOneof("key_kind") == "map_key":
                entries.append(_node(entry.map_key))
            entries.append(_node(entry.value))
        return Node(message.id, "map" if not struct.message_name else "struct", struct.message_name, entries)
    if which == "comprehension_expr":
        comp = message.comprehension_expr
        parts = {
            "iter_var": comp.iter_var,
            "iter_var2": comp.iter_var2,
            "accu_var": comp.accu_var,
            "iter_range": _node(comp.iter_range),
            "accu_init": _node(comp.accu_init),
            "loop_condition": _node(comp.loop_condition),
            "loop_step": _node(comp.loop_step),
            "result": _node(comp.result),
        }
        return Node(message.id, "comprehension", None, parts=parts)
    return Node(message.id, "unspecified")


@dataclass
class Checked:
    root: Node
    types: dict[int, TypeInfo]
    overloads: dict[int, list[str]]


def read_checked(serialized: bytes) -> Checked:
    """The tree, types and resolved overloads of a checked program's ``serialize()``."""
    wrapper = any_pb2.Any()
    wrapper.ParseFromString(serialized)
    checked = _classes()["CheckedExpr"]()
    checked.ParseFromString(wrapper.value)
    types = {key: _type(value) for key, value in checked.type_map.items()}
    overloads = {key: list(value.overload_id) for key, value in checked.reference_map.items()}
    return Checked(_node(checked.expr), types, overloads)
