"""The declared types of the admission composition environment, named as cel-go names them.

k8s.io/apiserver ``pkg/admission/plugin/cel/compile.go``: ``BuildRequestType`` (``kubernetes.AdmissionRequest``,
with ``kubernetes.GroupVersionKind``, ``kubernetes.GroupVersionResource`` and ``kubernetes.UserInfo``) and
``BuildNamespaceType`` (``kubernetes.Namespace`` and its ``NamespaceMetadata``, ``NamespaceSpec``,
``NamespaceStatus``, ``NamespaceCondition``). cel-expr-python's checker knows struct types only as protobuf
messages, so each becomes a proto2 message of the ``kubernetes`` package, and a compile error names them as
cel-go does. Protobuf has no map of lists: ``userInfo.extra`` is a map of ``google.protobuf.ListValue``, checked
as ``map(string, list(dyn))`` where cel-go has ``map(string, list(string))``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, duration_pb2, struct_pb2, timestamp_pb2

from fakeapi._cel import opaque

__all__ = ["NAMESPACE", "REQUEST", "admission_pool"]

REQUEST = "kubernetes.AdmissionRequest"
NAMESPACE = "kubernetes.Namespace"

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {"string": _F.TYPE_STRING, "bool": _F.TYPE_BOOL, "int": _F.TYPE_INT64}
_MESSAGES = {"timestamp": ".google.protobuf.Timestamp", "dyn": ".google.protobuf.Value"}
# message -> its fields, in cel-go's declaration order: (name, type); ``[T]`` a list, ``{T}`` a string-keyed map
_TYPES: dict[str, tuple[tuple[str, str], ...]] = {
    "GroupVersionKind": (("group", "string"), ("version", "string"), ("kind", "string")),
    "GroupVersionResource": (("group", "string"), ("version", "string"), ("resource", "string")),
    "UserInfo": (("username", "string"), ("uid", "string"), ("groups", "[string]"), ("extra", "{list}")),
    "AdmissionRequest": (
        ("kind", "GroupVersionKind"),
        ("resource", "GroupVersionResource"),
        ("subResource", "string"),
        ("requestKind", "GroupVersionKind"),
        ("requestResource", "GroupVersionResource"),
        ("requestSubResource", "string"),
        ("name", "string"),
        ("namespace", "string"),
        ("operation", "string"),
        ("userInfo", "UserInfo"),
        ("dryRun", "bool"),
        ("options", "dyn"),
    ),
    "NamespaceSpec": (("finalizers", "[string]"),),
    "NamespaceCondition": (
        ("status", "string"),
        ("type", "string"),
        ("lastTransitionTime", "timestamp"),
        ("message", "string"),
        ("reason", "string"),
    ),
    "NamespaceStatus": (("conditions", "[NamespaceCondition]"), ("phase", "string")),
    "NamespaceMetadata": (
        ("name", "string"),
        ("generateName", "string"),
        ("namespace", "string"),
        ("labels", "{string}"),
        ("annotations", "{string}"),
        ("UID", "string"),
        ("creationTimestamp", "timestamp"),
        ("deletionGracePeriodSeconds", "int"),
        ("deletionTimestamp", "timestamp"),
        ("generation", "int"),
        ("resourceVersion", "string"),
        ("finalizers", "[string]"),
    ),
    "Namespace": (("metadata", "NamespaceMetadata"), ("spec", "NamespaceSpec"), ("status", "NamespaceStatus")),
}


def _set_type(target: Any, type_name: str) -> None:
    if type_name in _SCALARS:
        target.type = _SCALARS[type_name]
    elif type_name == "list":
        target.type, target.type_name = _F.TYPE_MESSAGE, ".google.protobuf.ListValue"
    else:
        target.type = _F.TYPE_MESSAGE
        target.type_name = _MESSAGES.get(type_name, f".kubernetes.{type_name}")


def _file() -> descriptor_pb2.FileDescriptorProto:
    file = descriptor_pb2.FileDescriptorProto(
        name="fakeapi_cel_admission.proto",
        package="kubernetes",
        syntax="proto2",
        dependency=["google/protobuf/struct.proto", "google/protobuf/timestamp.proto"],
    )
    for message_name, fields in _TYPES.items():
        message = file.message_type.add(name=message_name)
        for number, (name, type_name) in enumerate(fields, start=1):
            added = message.field.add(name=name, number=number, json_name=name, label=_F.LABEL_OPTIONAL)
            if type_name.startswith("["):
                added.label = _F.LABEL_REPEATED
                _set_type(added, type_name[1:-1])
            elif type_name.startswith("{"):
                entry = message.nested_type.add(name=name[0].upper() + name[1:] + "Entry")
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
                _set_type(entry.field.add(name="value", number=2, label=_F.LABEL_OPTIONAL), type_name[1:-1])
                added.label = _F.LABEL_REPEATED
                added.type, added.type_name = _F.TYPE_MESSAGE, f".kubernetes.{message_name}.{entry.name}"
            else:
                _set_type(added, type_name)
    return file


@lru_cache(maxsize=1)
def admission_pool() -> descriptor_pool.DescriptorPool:
    """The descriptor pool of the composition environment's checker: these types and the opaque ones."""
    pool = descriptor_pool.DescriptorPool()
    for dependency in (struct_pb2, timestamp_pb2, duration_pb2):
        pool.AddSerializedFile(dependency.DESCRIPTOR.serialized_pb)
    opaque.add_to(pool)
    pool.Add(_file())
    return pool
