"""The Kubernetes library's own CEL types, as protobuf messages the C++ runtime can carry.

cel-go's Kubernetes library defines opaque types (``kubernetes.Quantity``, ``kubernetes.URL``, ``net.IP``,
``net.CIDR``). cel-cpp carries a value of a type it does not know only as a protobuf message, so each is a
message of that same full name, which keeps cel-go's type names in compile errors (``found no matching overload
for 'isLessThan' applied to '(kubernetes.Quantity, int)'``). Each message holds one canonical text, so that
``==`` compares as cel-go's ``Equal`` does: a quantity by value (``200M == 0.2G``), an address and a prefix by
address and length, a URL by its text. The field's name starts with ``__`` so that no rule means to name it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from fakeapi._cel.authorizer_types import add_runtime_types

__all__ = ["FILES", "OPAQUE_TYPES", "add_to", "opaque", "runtime_pool", "text_of"]

# message full name -> proto package, message name
OPAQUE_TYPES = {
    "kubernetes.Quantity": ("kubernetes", "Quantity"),
    "kubernetes.URL": ("kubernetes", "URL"),
    "net.IP": ("net", "IP"),
    "net.CIDR": ("net", "CIDR"),
    "kubernetes.NamedFormat": ("kubernetes", "NamedFormat"),
}
_FIELD = "__fakeapi_canonical"


def _files() -> list[descriptor_pb2.FileDescriptorProto]:
    files: dict[str, descriptor_pb2.FileDescriptorProto] = {}
    for package, name in OPAQUE_TYPES.values():
        file = files.get(package)
        if file is None:
            file = files[package] = descriptor_pb2.FileDescriptorProto(
                name=f"fakeapi_cel_{package}.proto", package=package, syntax="proto3"
            )
        message = file.message_type.add(name=name)
        message.field.add(
            name=_FIELD,
            number=1,
            type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
            label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
        )
    return list(files.values())


FILES = _files()


def add_to(pool: descriptor_pool.DescriptorPool) -> None:
    """Declare the opaque types in ``pool``."""
    for file in FILES:
        pool.Add(file)


@lru_cache(maxsize=1)
def _runtime_pool() -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    add_to(pool)
    # The authorizer library's values (:mod:`.authorizer_types`) are messages of the same runtime.
    add_runtime_types(pool)
    return pool


def runtime_pool() -> descriptor_pool.DescriptorPool:
    """The pool the runtime environment is built on: the values the library returns belong to it."""
    return _runtime_pool()


@lru_cache(maxsize=8)
def _message_class(full_name: str) -> Any:
    return message_factory.GetMessageClass(_runtime_pool().FindMessageTypeByName(full_name))


def opaque(full_name: str, canonical: str) -> Any:
    """A value of an opaque type, carried by its canonical text."""
    return _message_class(full_name)(**{_FIELD: canonical})


def text_of(value: Any) -> str:
    """The canonical text an opaque value carries."""
    return str(getattr(value, _FIELD))
