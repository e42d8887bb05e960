"""An OpenAPI v2 document in gnostic's protobuf, as ``/openapi/v2`` answers kubectl.

client-go's ``OpenAPISchema`` (``discovery/discovery_client.go``) asks for
``application/com.github.proto-openapi.spec.v2@v1.0+protobuf`` and unmarshals the answer into
gnostic's ``openapi_v2.Document`` (google/gnostic-models ``openapiv2/OpenAPIv2.proto``); it has no
JSON fallback. kube-openapi makes those bytes from the JSON document with gnostic's compiler
(``pkg/handler``, ``ToProtoBinary``), which holds every value that is not a plain field (a default,
an enum entry, a vendor extension) as an ``Any`` whose ``yaml`` is the value's text; kubectl reads
extensions by parsing that text, and JSON text is YAML. proto3 leaves out empty and zero fields.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

from fakeapi._patching.goencode import encode

__all__ = ["document_protobuf"]

_VARINT = 0
_FIXED64 = 1
_BYTES = 2


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


class _Message:
    """The bytes of one message, written field by field in field-number order."""

    def __init__(self) -> None:
        self._out = bytearray()

    def bytes_field(self, number: int, value: bytes) -> None:
        self._out += _varint(number << 3 | _BYTES) + _varint(len(value)) + value

    def string(self, number: int, value: Any) -> None:
        if isinstance(value, str) and value:
            self.bytes_field(number, value.encode())

    def strings(self, number: int, values: Any) -> None:
        for value in values or ():
            self.bytes_field(number, str(value).encode())

    def boolean(self, number: int, value: Any) -> None:
        if value is True:
            self._out += _varint(number << 3 | _VARINT) + b"\x01"

    def integer(self, number: int, value: Any) -> None:
        if isinstance(value, int) and not isinstance(value, bool) and value:
            self._out += _varint(number << 3 | _VARINT) + _varint(value)

    def double(self, number: int, value: Any) -> None:
        if isinstance(value, int | float) and not isinstance(value, bool) and value:
            self._out += _varint(number << 3 | _FIXED64) + struct.pack("<d", float(value))

    def message(self, number: int, value: bytes | None) -> None:
        if value is not None:
            self.bytes_field(number, value)

    def messages(self, number: int, values: Iterable[bytes]) -> None:
        for value in values:
            self.bytes_field(number, value)

    def done(self) -> bytes:
        return bytes(self._out)


def _any(value: Any) -> bytes:
    message = _Message()
    message.string(2, encode(value).decode())
    return message.done()


def _named_any(name: str, value: Any) -> bytes:
    message = _Message()
    message.string(1, name)
    message.message(2, _any(value))
    return message.done()


def _extensions(node: dict[str, Any]) -> list[bytes]:
    return [_named_any(key, value) for key, value in node.items() if key.startswith("x-")]


def _named(name: str, value: bytes) -> bytes:
    message = _Message()
    message.string(1, name)
    message.message(2, value)
    return message.done()


def _schema(node: dict[str, Any]) -> bytes:
    m = _Message()
    m.string(1, node.get("$ref"))
    m.string(2, node.get("format"))
    m.string(3, node.get("title"))
    m.string(4, node.get("description"))
    if "default" in node:
        m.message(5, _any(node["default"]))
    m.double(6, node.get("multipleOf"))
    m.double(7, node.get("maximum"))
    m.boolean(8, node.get("exclusiveMaximum"))
    m.double(9, node.get("minimum"))
    m.boolean(10, node.get("exclusiveMinimum"))
    for number, key in ((11, "maxLength"), (12, "minLength")):
        m.integer(number, node.get(key))
    m.string(13, node.get("pattern"))
    for number, key in ((14, "maxItems"), (15, "minItems")):
        m.integer(number, node.get(key))
    m.boolean(16, node.get("uniqueItems"))
    for number, key in ((17, "maxProperties"), (18, "minProperties")):
        m.integer(number, node.get(key))
    m.strings(19, node.get("required"))
    m.messages(20, (_any(value) for value in node.get("enum") or ()))
    additional = node.get("additionalProperties")
    if isinstance(additional, dict):
        m.message(21, _one(1, _schema(additional)))
    elif isinstance(additional, bool):
        # A oneof member is written even when false: field 2 of AdditionalPropertiesItem, a varint.
        m.message(21, b"\x10\x01" if additional else b"\x10\x00")
    kinds = node.get("type")
    if kinds:
        type_item = _Message()
        type_item.strings(1, [kinds] if isinstance(kinds, str) else kinds)
        m.message(22, type_item.done())
    items = node.get("items")
    if isinstance(items, dict | list):
        items_item = _Message()
        items_item.messages(1, (_schema(entry) for entry in ([items] if isinstance(items, dict) else items)))
        m.message(23, items_item.done())
    m.messages(24, (_schema(entry) for entry in node.get("allOf") or ()))
    properties = node.get("properties")
    if isinstance(properties, dict):
        props = _Message()
        props.messages(1, (_named(name, _schema(entry)) for name, entry in properties.items()))
        m.message(25, props.done())
    m.string(26, node.get("discriminator"))
    m.boolean(27, node.get("readOnly"))
    docs = node.get("externalDocs")
    if isinstance(docs, dict):
        external = _Message()
        external.string(1, docs.get("description"))
        external.string(2, docs.get("url"))
        m.message(29, external.done())
    if "example" in node:
        m.message(30, _any(node["example"]))
    m.messages(31, _extensions(node))
    return m.done()


def _one(number: int, value: bytes) -> bytes:
    message = _Message()
    message.message(number, value)
    return message.done()


def _parameter(param: dict[str, Any]) -> bytes:
    """A ``Parameter``: its body or non-body member."""
    m = _Message()
    if param.get("in") == "body":
        m.string(1, param.get("description"))
        m.string(2, param.get("name"))
        m.string(3, "body")
        m.boolean(4, param.get("required"))
        m.message(5, _schema(param.get("schema") or {}))
        return _one(1, m.done())
    m.boolean(1, param.get("required"))
    m.string(2, param.get("in"))
    m.string(3, param.get("description"))
    m.string(4, param.get("name"))
    if param.get("in") == "query":
        m.string(6, param.get("type"))
        m.boolean(20, param.get("uniqueItems"))
        sub = 3
    else:
        m.string(5, param.get("type"))
        m.boolean(19, param.get("uniqueItems"))
        sub = 4
    return _one(2, _one(sub, m.done()))


def _parameters_item(param: dict[str, Any]) -> bytes:
    """A ``ParametersItem``: a parameter, or a ``JsonReference`` to one of the document's."""
    if "$ref" in param:
        return _one(2, _one(1, str(param["$ref"]).encode()))
    return _one(1, _parameter(param))


def _operation(op: dict[str, Any]) -> bytes:
    m = _Message()
    m.strings(1, op.get("tags"))
    m.string(3, op.get("description"))
    m.string(5, op.get("operationId"))
    m.strings(6, op.get("produces"))
    m.strings(7, op.get("consumes"))
    m.messages(8, (_parameters_item(param) for param in op.get("parameters") or ()))
    responses = _Message()
    for code, response in (op.get("responses") or {}).items():
        body = _Message()
        body.string(1, response.get("description"))
        if isinstance(response.get("schema"), dict):
            body.message(2, _one(1, _schema(response["schema"])))
        responses.message(1, _named(code, _one(1, body.done())))
    m.message(9, responses.done())
    m.strings(10, op.get("schemes"))
    m.messages(13, _extensions(op))
    return m.done()


_METHODS = (("get", 2), ("put", 3), ("post", 4), ("delete", 5), ("options", 6), ("head", 7), ("patch", 8))


def document_protobuf(document: dict[str, Any]) -> bytes:
    """The gnostic ``openapi_v2.Document`` bytes of a v2 document (``swagger``, ``info``, ``paths``,
    ``definitions``, ``parameters``)."""
    m = _Message()
    m.string(1, document.get("swagger"))
    info = _Message()
    info.string(1, document.get("info", {}).get("title"))
    info.string(2, document.get("info", {}).get("version"))
    m.message(2, info.done())
    paths = _Message()
    for path, item in (document.get("paths") or {}).items():
        path_item = _Message()
        for method, number in _METHODS:
            if method in item:
                path_item.message(number, _operation(item[method]))
        path_item.messages(9, (_parameters_item(param) for param in item.get("parameters") or ()))
        paths.message(2, _named(path, path_item.done()))
    m.message(8, paths.done())
    definitions = _Message()
    definitions.messages(
        1, (_named(name, _schema(schema)) for name, schema in (document.get("definitions") or {}).items())
    )
    m.message(9, definitions.done())
    shared = document.get("parameters")
    if shared:
        parameters = _Message()
        parameters.messages(1, (_named(name, _parameter(param)) for name, param in shared.items()))
        m.message(10, parameters.done())
    return m.done()
