"""The types of the CEL authorizer library, named as k8s.io/apiserver names them (``pkg/cel/library/authz.go``).

Upstream declares five object types: ``kubernetes.authorization.Authorizer``, ``PathCheck``, ``GroupCheck``,
``ResourceCheck`` and ``Decision``. Their values are Go structs with no field a CEL expression can select, and
the type provider does not know them, so selecting anything from one is cel-go's ``unexpected failed
resolution of '<type>'`` (:mod:`.texts`). cel-expr-python knows struct types only as protobuf messages, so each
type is declared twice under its upstream name:

- to the type checker, as a message with no field at all, so that a compile error names the type as cel-go
  does and nothing can be selected from it;
- to the runtime, as a message holding what the value is built from (the user, the group, the resource, the
  decision), which the library's functions read and write. ``Authorizer`` also carries the request's
  ``ResourceCheck`` as a field: the runtime program is compiled without checking, where the variable
  ``authorizer.requestResource`` can only be read as a field of ``authorizer``.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool

__all__ = [
    "AUTHORIZER",
    "DECISION",
    "GROUP_CHECK",
    "PATH_CHECK",
    "RESOURCE_CHECK",
    "add_checking_types",
    "add_runtime_types",
]

_PACKAGE = "kubernetes.authorization"
AUTHORIZER = f"{_PACKAGE}.Authorizer"
PATH_CHECK = f"{_PACKAGE}.PathCheck"
GROUP_CHECK = f"{_PACKAGE}.GroupCheck"
RESOURCE_CHECK = f"{_PACKAGE}.ResourceCheck"
DECISION = f"{_PACKAGE}.Decision"

_F = descriptor_pb2.FieldDescriptorProto
_USER = (("username", "string"), ("groups", "[string]"))
# message -> its runtime fields: (name, type); ``[T]`` repeated
_RUNTIME_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "ResourceCheck": (
        *_USER,
        ("group", "string"),
        ("resource", "string"),
        ("subresource", "string"),
        ("namespace", "string"),
        ("name", "string"),
        ("fieldSelector", "string"),
        ("labelSelector", "string"),
    ),
    "Authorizer": (*_USER, ("requestResource", "ResourceCheck")),
    "PathCheck": (*_USER, ("path", "string")),
    "GroupCheck": (*_USER, ("group", "string")),
    "Decision": (("allowed", "bool"), ("reason", "string"), ("error", "string")),
}
_SCALARS = {"string": _F.TYPE_STRING, "bool": _F.TYPE_BOOL}


def _file(name: str, with_fields: bool) -> descriptor_pb2.FileDescriptorProto:
    file = descriptor_pb2.FileDescriptorProto(name=name, package=_PACKAGE, syntax="proto3")
    for message_name, fields in _RUNTIME_FIELDS.items():
        message = file.message_type.add(name=message_name)
        for number, (field_name, type_name) in enumerate(fields if with_fields else (), start=1):
            added = message.field.add(name=field_name, number=number, json_name=field_name, label=_F.LABEL_OPTIONAL)
            if type_name.startswith("["):
                added.label = _F.LABEL_REPEATED
                type_name = type_name[1:-1]
            if type_name in _SCALARS:
                added.type = _SCALARS[type_name]
            else:
                added.type, added.type_name = _F.TYPE_MESSAGE, f".{_PACKAGE}.{type_name}"
    return file


_CHECKING_FILE = _file("fakeapi_cel_authorization_checked.proto", with_fields=False)
_RUNTIME_FILE = _file("fakeapi_cel_authorization.proto", with_fields=True)


def _add_once(pool: descriptor_pool.DescriptorPool, file: descriptor_pb2.FileDescriptorProto) -> None:
    try:
        pool.FindFileByName(file.name)
    except KeyError:
        pool.Add(file)


def add_checking_types(pool: descriptor_pool.DescriptorPool) -> None:
    """Declare the five types, with no field, in a type checker's pool (once)."""
    _add_once(pool, _CHECKING_FILE)


def add_runtime_types(pool: descriptor_pool.DescriptorPool) -> None:
    """Declare the five types, with what their values hold, in a runtime's pool (once)."""
    _add_once(pool, _RUNTIME_FILE)
