"""The protobuf messages of the built-in kinds, derived from their Go structs.

Kubernetes generates each ``generated.proto`` from the Go types of ``k8s.io/api``: a field's number
and wire type are in its ``protobuf`` struct tag, its JSON name and presence in its ``json`` tag and
Go type. :func:`messages` reads them from :mod:`fakeapi._state.typed` (the structs of one
Kubernetes version) into one compact entry per message, its fields in Go struct order (the order
``encoding/json`` writes them), each as ``<number> <json name> <type><presence>``, separated by ``, ``:

- Types: ``s`` string, ``i32``/``i64`` varint integers, ``b`` bool, ``bytes`` (base64 in JSON),
  ``Time``, ``MicroTime``, ``Quantity``, ``IntOrString``, ``FieldsV1``, ``RawExtension`` (their JSON
  is their own ``MarshalJSON``), or the qualified name of another message (``core/v1.PodSpec``).
  ``[T]`` is a repeated field (a Go slice), ``{T}`` a map from string (repeated entries, key 1,
  value 2).
- Presence, which decides what Go's ``encoding/json`` writes for the decoded struct: no mark is a
  value field always written (a zero value if absent); ``?`` a value field with ``omitempty``
  (a zero scalar, an empty slice or map is left out; Go ignores ``omitempty`` on structs); ``*`` a
  pointer with ``omitempty`` (written exactly when present on the wire, zero or not); ``^`` a
  pointer without ``omitempty`` (``null`` when absent).
- The JSON name ``...`` is an embedded struct written inline (``json:",inline"``).

A named slice type used as a map value (``map[string]ExtraValue``) is a message of one repeated
field ``items`` whose JSON is that list; :func:`list_messages` names them. The entries were checked against the
tables read earlier from kubectl v1.32.4's compiled file descriptors and Go type information: the
176 messages those tables held come out identical.
"""

from __future__ import annotations

import functools

from fakeapi._state.typed import DEFAULT_KUBE_VERSION, GoStructs, go_structs

__all__ = ["ANY_VERSION_KINDS", "SPECIAL_TYPES", "list_messages", "messages"]

# DeleteOptions is accepted under any apiVersion, as every group version registers it
# (``metav1.AddToGroupVersion``).
ANY_VERSION_KINDS: dict[str, str] = {"DeleteOptions": "meta/v1.DeleteOptions"}

SPECIAL_TYPES = {
    "meta/v1.Time": "Time",
    "meta/v1.MicroTime": "MicroTime",
    "resource.Quantity": "Quantity",
    "intstr.IntOrString": "IntOrString",
    "meta/v1.FieldsV1": "FieldsV1",
    "runtime.RawExtension": "RawExtension",
}
_SCALARS = {"string": "s", "bool": "b", "int32": "i32", "int64": "i64", "[]byte": "bytes"}
_PRESENCE = {(True, True): "*", (True, False): "^", (False, True): "?", (False, False): ""}
# Its only field is a time.Duration, and no GA kind's message contains it.
_NOT_MESSAGES = frozenset({"meta/v1.Duration"})


def _token(structs: GoStructs, go_type: str) -> str:
    special = SPECIAL_TYPES.get(go_type) or SPECIAL_TYPES.get(structs.underlying(go_type))
    if special is not None:
        return special
    underlying = structs.underlying(go_type)
    if underlying in _SCALARS:
        return _SCALARS[underlying]
    if underlying in structs.structs:
        return underlying
    if underlying.startswith("[]") and go_type in structs.named:
        return go_type  # a named slice as a map value: a message of its own
    raise ValueError(f"no protobuf type for Go type {go_type}")


def _entry(structs: GoStructs, name: str) -> str:
    out = []
    for field in structs.structs[name]:
        if not field.proto:
            continue
        go_type = field.go_type.removeprefix("*")
        shape = structs.underlying(go_type)
        if shape.startswith("[]") and shape != "[]byte":
            written = f"[{_token(structs, shape[2:])}]"
        elif shape.startswith("map["):
            written = "{" + _token(structs, shape[shape.index("]") + 1 :]) + "}"
        else:
            written = _token(structs, go_type)
        presence = _PRESENCE[(field.pointer, field.omitempty)]
        out.append(f"{field.proto} {'...' if field.inline else field.json_name} {written}{presence}")
    return ", ".join(out)


@functools.cache
def messages(version: str = DEFAULT_KUBE_VERSION) -> dict[str, str]:
    """Every message of ``version``, by qualified name: each struct with protobuf fields, each list message."""
    structs = go_structs(version)
    entries = {
        name: _entry(structs, name)
        for name, fields in structs.structs.items()
        if name not in _NOT_MESSAGES
        and name not in SPECIAL_TYPES
        and any(f.proto for f in fields)
        and all(f.json_name or f.inline for f in fields if f.proto)  # runtime.Unknown has no JSON form
    }
    entries.update({name: "1 items [s]" for name in list_messages(version)})
    return entries


@functools.cache
def list_messages(version: str = DEFAULT_KUBE_VERSION) -> frozenset[str]:
    """Named slice types used as map values (``map[string]ExtraValue``): one repeated ``items`` field."""
    structs = go_structs(version)
    found = set()
    for fields in structs.structs.values():
        for field in fields:
            shape = structs.underlying(field.go_type.removeprefix("*"))
            if shape.startswith("map["):
                value = shape[shape.index("]") + 1 :]
                if value in structs.named and structs.underlying(value).startswith("[]"):
                    found.add(value)
    return frozenset(found)
