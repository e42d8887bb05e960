"""Decoding a create/update body the way the apiserver's codec does, with its 400 messages.

The pipeline (``runtime/serializer/json``, ``customresource_handler.go``, ``handlers/rest.go``):
YAML is converted to JSON; ``apiVersion`` and ``kind`` are read first (a failure there is
``the object provided is unrecognized (must be of type Foo): <err> (<summary>)``); a missing kind
is ``Object 'Kind' is missing in '<body>'``; then the whole body is decoded strictly (duplicate
fields) and ``metadata`` as a typed ObjectMeta; a custom resource of this CRD is pruned to its
schema and every dropped field is an ``unknown field "<path>"``. Under ``fieldValidation=Warn``
(the default) strict problems become warnings; under ``Strict`` they are
``Foo in version "v1" cannot be handled as a Foo: strict decoding error: ...``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fakeapi._patching.godecode import GoNumberRangeError, decode
from fakeapi._patching.goscanner import GoSyntaxError
from fakeapi._patching.jsonpatch import json_kind
from fakeapi._patching.predecode import PreDecodeError, predecode_merge_patch
from fakeapi._patching.yamltojson import YAMLToJSONError, yaml_to_json
from fakeapi._state import schema
from fakeapi._state.conversion import CRDConversion
from fakeapi._state.resources import ResourceType
from fakeapi._state.typed import GoStructs
from fakeapi._state.typed.converting import convert_unstructured
from fakeapi._state.typed.decoding import TypedError, TypedObject, decode_typed, go_type_name
from fakeapi.errors import APIError

__all__ = ["DecodedBody", "check_object_meta", "convert_patched", "decode_object_body"]

PROTOBUF = "application/vnd.kubernetes.protobuf"
_SUMMARY_LENGTH = 30
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_STRING_FIELDS = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion")
_TIME_FIELDS = ("creationTimestamp", "deletionTimestamp")
_INT_FIELDS = ("generation", "deletionGracePeriodSeconds")
_MAP_FIELDS = ("labels", "annotations")
_KNOWN_META = set(_STRING_FIELDS) | set(_TIME_FIELDS) | set(_INT_FIELDS) | set(_MAP_FIELDS)
_KNOWN_META |= {"finalizers", "ownerReferences", "managedFields"}
# The exact type each known field has when it decodes without a word (the common case, checked in one pass).
_PLAIN_META_TYPES: dict[str, type] = {
    **dict.fromkeys(_STRING_FIELDS + _TIME_FIELDS, str),
    **dict.fromkeys(_INT_FIELDS, int),
    **dict.fromkeys(_MAP_FIELDS, dict),
    "finalizers": list,
    "ownerReferences": list,
    "managedFields": list,
}


@dataclass
class DecodedBody:
    obj: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


def _summary(body: bytes) -> str:
    if not body:
        return "<empty>"
    head = body[:_SUMMARY_LENGTH]
    more = " ..." if len(body) > _SUMMARY_LENGTH else ""
    if body.startswith(b"{"):
        return head.decode("utf-8", "replace") + more
    return head.hex() + more


def _unrecognized(rtype: ResourceType, problem: str, body: bytes) -> APIError:
    return APIError.bad_request(
        f"the object provided is unrecognized (must be of type {rtype.kind}): {problem} ({_summary(body)})"
    )


def _cannot_handle(rtype: ResourceType, kind: str, version: str, problem: str) -> APIError:
    return APIError.bad_request(f'{kind} in version "{version}" cannot be handled as a {rtype.kind}: {problem}')


def decode_object_body(
    rtype: ResourceType, body: bytes, media_type: str, field_validation: str, structs: GoStructs
) -> DecodedBody:
    """The body as the apiserver decodes it into ``rtype``, with ``structs`` the server's Go types."""
    if media_type == PROTOBUF:
        return _finish_decoding(rtype, _decode_protobuf(rtype, body, structs), None, body, field_validation, structs)
    original = body
    if media_type == "application/yaml":
        try:
            body = yaml_to_json(body)
        except YAMLToJSONError as error:
            raise _unrecognized(rtype, str(error), original) from None
    try:
        value = decode(body)
    except GoSyntaxError as error:
        raise _unrecognized(rtype, f"couldn't get version/kind; json parse error: {error}", original) from None
    except GoNumberRangeError as error:
        value = _decode_type_meta_only(rtype, body, original)
        raise _cannot_handle(rtype, value.get("kind", ""), _version_of(value), str(error)) from None
    return _finish_decoding(rtype, value, body, original, field_validation, structs)


def _decode_protobuf(rtype: ResourceType, body: bytes, structs: GoStructs) -> dict[str, Any]:
    """A Kubernetes protobuf body (what kubectl's typed generators send) as its JSON form."""
    # Imported on the first protobuf body: building its message tables is most of the import.
    from fakeapi._http.protobuf import ProtobufError, decode_protobuf

    try:
        return decode_protobuf(body, api_version=rtype.api_version, kind=rtype.kind, kube_version=structs.version)
    except ProtobufError as error:
        if error.kind:
            version = error.api_version.rsplit("/", 1)[-1]
            raise _cannot_handle(rtype, error.kind, version, str(error)) from None
        raise _unrecognized(rtype, str(error), body) from None


def _finish_decoding(
    rtype: ResourceType, value: Any, body: bytes | None, original: bytes, field_validation: str, structs: GoStructs
) -> DecodedBody:
    """From the decoded value on: type meta, strict checks, ObjectMeta, the CRD schema.

    ``body`` is the JSON text (None for protobuf, which cannot repeat a field name).
    """
    as_decoded = value  # the strict check counts the body's keys against this, before any is added
    if not isinstance(value, dict):
        if value is None:
            raise _unrecognized(
                rtype, f"Object 'Kind' is missing in '{(body or original).decode('utf-8', 'replace')}'", original
            )
        target = (
            'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
        )
        raise _unrecognized(
            rtype,
            f"couldn't get version/kind; json parse error: json: cannot unmarshal {json_kind(value)} into Go value of type {target}",
            original,
        )
    for key in ("apiVersion", "kind"):
        if key in value and value[key] is not None and not isinstance(value[key], str):
            raise _unrecognized(
                rtype,
                f"couldn't get version/kind; json parse error: json: cannot unmarshal {json_kind(value[key])} "
                f"into Go struct field .{key} of type string",
                original,
            )
    if not rtype.custom:
        # A typed decode fills a missing kind and apiVersion from the type it decodes into.
        value = {
            **value,
            "apiVersion": value.get("apiVersion") or rtype.api_version,
            "kind": value.get("kind") or rtype.kind,
        }
    api_version = value.get("apiVersion") or ""
    if api_version.count("/") > 1:
        raise _unrecognized(rtype, f"unexpected GroupVersion string: {api_version}", original)
    kind = value.get("kind") or ""
    if not kind:
        raise _unrecognized(
            rtype, f"Object 'Kind' is missing in '{(body or original).decode('utf-8', 'replace')}'", original
        )
    version = _version_of(value)
    strict: list[str] = []
    if body is not None:
        try:
            strict.extend(predecode_merge_patch(body, as_decoded).strict_errors)
        except PreDecodeError as error:
            raise _cannot_handle(rtype, kind, version, str(error)) from None
    if not rtype.custom:
        value, unknown, problem = coerce_builtin(rtype, value, structs)
        if problem is not None:
            raise _cannot_handle(rtype, kind, version, problem)
        strict.extend(unknown)
    value, unknown = check_object_meta(value, lambda problem: _cannot_handle(rtype, kind, version, problem))
    if rtype.custom:
        strict.extend(unknown)
    value, pruned, problem = coerce_custom_resource(rtype, value)
    if problem is not None:
        raise _cannot_handle(rtype, kind, version, problem)
    strict.extend(pruned)
    if strict and field_validation == "Strict":
        raise _cannot_handle(rtype, kind, version, "strict decoding error: " + ", ".join(strict))
    return DecodedBody(value, strict if field_validation == "Warn" else [])


def coerce_builtin(
    rtype: ResourceType, value: dict[str, Any], structs: GoStructs
) -> tuple[dict[str, Any], list[str], str | None]:
    """The typed decode of a built-in kind (``runtime.Decode`` into its Go type, then the conversion to
    the resource's internal type): the object as Go writes it back, the strict errors, and the error
    text when it does not decode (docs/typed-decoding.md)."""
    wanted = structs.kind_struct(rtype.api_version, rtype.kind)
    if wanted is None:
        return value, [], None  # not a k8s.io/api kind (CustomResourceDefinition, APIService)
    api_version, kind = value.get("apiVersion") or "", value.get("kind") or ""
    struct = structs.kind_struct(api_version, kind)
    if struct is None:
        return (
            value,
            [],
            (
                f"no kind {_go_quote(kind)} is registered for version {_go_quote(api_version)} "
                f'in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"'
            ),
        )
    try:
        typed = decode_typed(structs, struct, value)
    except TypedError as error:
        return value, [], str(error)
    if wanted.rsplit(".", 1)[-1] != struct.rsplit(".", 1)[-1]:
        internal = _INTERNAL_PACKAGES.get(rtype.group, rtype.group.split(".")[0])
        return value, [], f"converting ({go_type_name(struct)}) to ({internal}.{rtype.kind}): unknown conversion"
    return typed.value, typed.unknown, None


def convert_patched(
    rtype: ResourceType, value: dict[str, Any], structs: GoStructs, *, collect_unknown: bool
) -> tuple[TypedObject, str | None] | None:
    """A strategic merge patch's result converted into the resource's Go type
    (``FromUnstructuredWithValidation``): the typed object, or the converter's error text; None for
    a kind outside ``k8s.io/api``, which keeps the map as merged."""
    struct = structs.kind_struct(rtype.api_version, rtype.kind)
    if struct is None:
        return None
    try:
        return convert_unstructured(structs, struct, value, unknown=collect_unknown), None
    except TypedError as error:
        return TypedObject(value), str(error)


# The package of a group's internal types (``k8s.io/kubernetes/pkg/apis/<package>``), where it is not
# the group's first label; events.k8s.io Events are core Events inside the apiserver.
_INTERNAL_PACKAGES = {"": "core", "events.k8s.io": "core", "rbac.authorization.k8s.io": "rbac"}


def _go_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def coerce_custom_resource(rtype: ResourceType, value: dict[str, Any]) -> tuple[dict[str, Any], list[str], str | None]:
    """The CR decoder's schema steps (``unstructuredSchemaCoercer.apply`` and the defaulter).

    Only an object of this CRD's group and kind is touched: pruned to the schema of the version its
    ``apiVersion`` names (each dropped field an ``unknown field`` strict error), non-nullable nulls
    dropped, defaults applied. Returns the object, the strict errors, and the text of an
    embedded-resource coercion error, if any.
    """
    api_version = value.get("apiVersion") or ""
    group = api_version.split("/")[0] if "/" in api_version else ""
    if not rtype.custom or value.get("kind") != rtype.kind or group != rtype.group:
        return value, [], None
    version_schema = _schema_of(rtype, _version_of(value))
    strict: list[str] = []
    if not rtype.preserve_unknown_fields:
        value, pruned = schema.prune(value, version_schema)
        strict = [f'unknown field "{path}"' for path in pruned if not path.startswith("metadata.")]
    problem = schema.embedded_coercion_error(value, version_schema)
    if problem is not None:
        return value, strict, f"{problem.field}: {problem.message}"
    value = schema.drop_nulls_without_defaults(value, version_schema)
    value = schema.apply_defaults(value, version_schema)
    return value, strict, None


def _schema_of(rtype: ResourceType, version: str) -> Any:
    """The schema the CR codec coerces a body with: that of the version the body names, served or not,
    and none (everything but ``apiVersion``, ``kind`` and ``metadata`` pruned) for a version the CRD does
    not have (``structuralSchemas[gv.Version]``; docs/conversion.md, "A body at another version")."""
    if version == rtype.version:
        return rtype.schema
    conversion = rtype.conversion
    if not isinstance(conversion, CRDConversion):
        return rtype.schema
    return conversion.schemas.get(version) if version in conversion.versions else None


def _version_of(value: dict[str, Any]) -> str:
    api_version = value.get("apiVersion") or ""
    return api_version.rsplit("/", 1)[-1] if isinstance(api_version, str) else ""


def _decode_type_meta_only(rtype: ResourceType, body: bytes, original: bytes) -> dict[str, Any]:
    """apiVersion and kind of a body that otherwise fails to decode (a huge number elsewhere)."""
    import re

    found: dict[str, Any] = {}
    for key in ("apiVersion", "kind"):
        match = re.search(rb'"' + key.encode() + rb'"\s*:\s*"([^"\\]*)"', body)
        if match:
            found[key] = match.group(1).decode("utf-8", "replace")
    if not found.get("kind"):
        raise _unrecognized(
            rtype, f"Object 'Kind' is missing in '{(body or original).decode('utf-8', 'replace')}'", original
        )
    return found


def check_object_meta(value: dict[str, Any], fail: Any) -> tuple[dict[str, Any], list[str]]:
    """``metadata`` decoded as a typed ObjectMeta: wrong types fail, unknown keys are dropped and reported."""
    if "metadata" not in value or value["metadata"] is None:
        return value, []
    metadata = value["metadata"]
    if not isinstance(metadata, dict):
        raise fail(f"json: cannot unmarshal {json_kind(metadata)} into Go value of type v1.ObjectMeta")
    unknown = (
        []
        if metadata.keys() <= _KNOWN_META
        else [f'unknown field "metadata.{key}"' for key in sorted(metadata) if key not in _KNOWN_META]
    )
    if not _plainly_typed(metadata):
        _check_meta_types(metadata, fail)
    for key in _TIME_FIELDS:
        item = metadata.get(key)
        if isinstance(item, str) and not _RFC3339.match(item):
            raise fail(f'parsing time "{item}" as "2006-01-02T15:04:05Z07:00": cannot parse "{item}" as "2006"')
    cleaned: dict[str, Any] = {}
    for key, item in metadata.items():
        if key not in _KNOWN_META or item is None:
            continue
        if key in _MAP_FIELDS and None in item.values():
            # A null map value decodes into Go's zero string. A map without one stays the very same
            # object, so that update validation can tell it was validated when it was stored.
            item = {k: ("" if v is None else v) for k, v in item.items()}
        if not item and (key in _INT_FIELDS or isinstance(item, (str, list, dict))):
            continue  # every ObjectMeta field is omitempty: "", [], {} and 0 are dropped
        cleaned[key] = item
    return {**value, "metadata": cleaned}, unknown


def _plainly_typed(metadata: dict[str, Any]) -> bool:
    """Whether every known field holds exactly its Go type (map values and finalizers strings, no nulls
    inside them): then :func:`_check_meta_types` has nothing to say."""
    for key, item in metadata.items():
        expected = _PLAIN_META_TYPES.get(key)
        if expected is None or item is None:
            continue
        if type(item) is not expected:
            return False
        if isinstance(item, dict) and not all(type(entry) is str for entry in item.values()):
            return False
        if isinstance(item, list) and key == "finalizers" and not all(type(entry) is str for entry in item):
            return False
    return True


def _check_meta_types(metadata: dict[str, Any], fail: Any) -> None:
    """The first field, in the order of Go's checks here, that does not decode into ObjectMeta's type."""
    for key in _STRING_FIELDS + _TIME_FIELDS:
        item = metadata.get(key)
        if item is not None and not isinstance(item, str):
            target = "v1.Time" if key in _TIME_FIELDS else "string"
            raise fail(
                f"json: cannot unmarshal {json_kind(item)} into Go struct field ObjectMeta.{key} of type {target}"
            )
    for key in _INT_FIELDS:
        item = metadata.get(key)
        if item is not None and (isinstance(item, bool) or not isinstance(item, int)):
            raise fail(f"json: cannot unmarshal {json_kind(item)} into Go struct field ObjectMeta.{key} of type int64")
    for key in _MAP_FIELDS:
        item = metadata.get(key)
        if item is None:
            continue
        if not isinstance(item, dict):
            raise fail(
                f"json: cannot unmarshal {json_kind(item)} into Go struct field ObjectMeta.{key} of type map[string]string"
            )
        for entry in item.values():
            if entry is not None and not isinstance(entry, str):
                raise fail(
                    f"json: cannot unmarshal {json_kind(entry)} into Go struct field ObjectMeta.{key} of type string"
                )
    finalizers = metadata.get("finalizers")
    if finalizers is not None:
        if not isinstance(finalizers, list):
            raise fail(
                f"json: cannot unmarshal {json_kind(finalizers)} into Go struct field ObjectMeta.finalizers of type []string"
            )
        for entry in finalizers:
            if entry is not None and not isinstance(entry, str):
                raise fail(
                    f"json: cannot unmarshal {json_kind(entry)} into Go struct field ObjectMeta.finalizers of type string"
                )
    for key in ("ownerReferences", "managedFields"):
        item = metadata.get(key)
        if item is not None and not isinstance(item, list):
            element = "v1.OwnerReference" if key == "ownerReferences" else "v1.ManagedFieldsEntry"
            raise fail(
                f"json: cannot unmarshal {json_kind(item)} into Go struct field ObjectMeta.{key} of type []{element}"
            )
