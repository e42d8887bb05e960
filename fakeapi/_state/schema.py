"""A custom resource's ``openAPIV3Schema`` applied as kube-apiserver 1.32 applies it, as pure functions.

The request pipeline for a CR body, step by step (apiextensions-apiserver ``customresource_handler.go``,
``unstructuredSchemaCoercer.apply``, then the versioning decoder's defaulter, then the strategy):

- :func:`prune`: unknown keys of the root ``metadata`` (``objectmeta.GetObjectMetaWithOptions``: kjson strict
  paths, reported first), then ``pruning.PruneWithOptions`` (``schema/pruning/algorithm.go``; its paths
  sorted), then the ObjectMeta round trip of embedded resources (``objectmeta.CoerceWithOptions``,
  ``schema/objectmeta/algorithm.go``; its paths sorted). The list is in that order: the order of the
  ``unknown field "<path>"`` warnings and strict-decoding errors.
- :func:`embedded_coercion_error`: the decode error ``CoerceWithOptions`` raises for an embedded resource
  whose ``apiVersion``/``kind`` is not a string or whose ``metadata`` is not an object (a 400, not a 422).
- :func:`drop_nulls_without_defaults`: ``defaulting.PruneNonNullableNullsWithoutDefaults`` (``prunenulls.go``).
- :func:`apply_defaults`: ``defaulting.Default`` (``schema/defaulting/algorithm.go``).
- :func:`validate`: kube-openapi's ``SchemaValidator`` (``pkg/validation/validate``: the type, string,
  format, number, slice, enum and object validators, in that order per node, every one of them run)
  mapped to field errors by ``kubeOpenAPIResultToFieldErrors`` (``apiserver/validation/validation.go``),
  followed by the embedded-resource checks of ``objectmeta.Validate`` (``schema/objectmeta/validation.go``).

Go iterates maps in random order, so the apiserver reports sibling properties in no fixed order; here
properties follow the schema's order and data keys the document's. Messages use Go's spellings: ``%q``
strings, ``%v`` floats (``1e+06``), ``%#v`` maps and slices.
"""

from __future__ import annotations

import copy
import datetime
import ipaddress
import math
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from fakeapi._patching.godecode import normalize
from fakeapi._patching.goencode import encode
from fakeapi._patching.gostrconv import quote
from fakeapi._state.validation import (
    ANNOTATIONS_TOTAL_LIMIT,
    go_value,
    validate_label_value,
    validate_name,
    validate_qualified_name,
)
from fakeapi.errors import Cause

__all__ = [
    "Schema",
    "apply_defaults",
    "drop_nulls_without_defaults",
    "embedded_coercion_error",
    "prune",
    "validate",
]

Schema = Mapping[str, Any]

_TYPE_META_AND_METADATA = frozenset({"apiVersion", "kind", "metadata"})
_OBJECT_META_FIELDS = frozenset(
    {
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "ownerReferences",
        "finalizers",
        "managedFields",
    }
)
_OWNER_REFERENCE_FIELDS = ("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")
_MANAGED_FIELDS_ENTRY_FIELDS = ("manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource")
_META_ENTRY_FIELDS = {"ownerReferences": _OWNER_REFERENCE_FIELDS, "managedFields": _MANAGED_FIELDS_ENTRY_FIELDS}

# apiextensions-apiserver validation/formats.go: every other format is stripped before validation. Names are
# compared with go-openapi's normalisation (dashes removed), so `date-time` is `datetime`.
_SUPPORTED_FORMATS = frozenset(
    {
        "bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3", "uuid4",
        "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor", "byte", "password",
        "date", "duration", "datetime",
    }
)  # fmt: skip
_DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_MESSAGE = (
    "a lowercase RFC 1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
_MAX_JSON_INTEGER = float((1 << 53) - 1)


# -- schema accessors (the parts of a Structural schema each algorithm reads) -------------------------


def _properties(schema: Schema) -> Mapping[str, Schema]:
    properties = schema.get("properties")
    return properties if isinstance(properties, Mapping) else {}


def _additional(schema: Schema) -> tuple[bool, Schema | None]:
    """Whether ``additionalProperties`` is set, and its schema (``true`` has none)."""
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping):
        return True, extra
    return extra is True, None


def _items(schema: Schema | None) -> Schema | None:
    items = None if schema is None else schema.get("items")
    return items if isinstance(items, Mapping) else None


def _child(schema: Schema, key: str) -> tuple[bool, Schema | None]:
    properties = _properties(schema)
    if key in properties:
        return True, properties[key]
    return _additional(schema)


def _flag(schema: Schema, name: str) -> bool:
    return schema.get(name) is True


def _key_path(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


# -- pruning --------------------------------------------------------------------------------------------


def prune(obj: dict[str, Any], schema: Schema | None, *, root: bool = True) -> tuple[dict[str, Any], list[str]]:
    """The object with unknown fields removed, and their paths in the order the apiserver reports them."""
    pruned = copy.deepcopy(obj)
    unknown: list[str] = []
    if root and isinstance(pruned.get("metadata"), dict):
        pruned["metadata"] = _known_object_meta(pruned["metadata"], "metadata", unknown)
    node: Schema | None = schema
    if root:
        node = {**(schema or {}), "x-kubernetes-embedded-resource": True}
    by_schema: list[str] = []
    _prune(pruned, node, "", by_schema)
    unknown.extend(sorted(by_schema))
    embedded: list[str] = []
    _coerce_embedded(pruned, schema, "", embedded)
    unknown.extend(sorted(embedded))
    return pruned, unknown


def _prune(value: Any, schema: Schema | None, path: str, out: list[str]) -> None:
    if schema is not None and _flag(schema, "x-kubernetes-preserve-unknown-fields"):
        _skip_prune(value, schema, path, out)
        return
    if isinstance(value, dict):
        if schema is None:
            for key in list(value):
                out.append(_key_path(path, key))
                del value[key]
            return
        embedded = _flag(schema, "x-kubernetes-embedded-resource")
        for key in list(value):
            if embedded and key in _TYPE_META_AND_METADATA:
                continue
            known, child = _child(schema, key)
            if known:
                _prune(value[key], child, _key_path(path, key), out)
                continue
            # Root type meta is restored after pruning, so dropping it is not worth a warning.
            if key not in _TYPE_META_AND_METADATA or path:
                out.append(_key_path(path, key))
            del value[key]
    elif isinstance(value, list):
        items = _items(schema)
        for index, item in enumerate(value):
            _prune(item, items, f"{path}[{index}]", out)


def _skip_prune(value: Any, schema: Schema | None, path: str, out: list[str]) -> None:
    """Below ``x-kubernetes-preserve-unknown-fields``: unknown keys stay, known ones are still pruned inside."""
    if schema is None:
        return
    if isinstance(value, dict):
        embedded = _flag(schema, "x-kubernetes-embedded-resource")
        for key, item in value.items():
            if embedded and key in _TYPE_META_AND_METADATA:
                continue
            known, child = _child(schema, key)
            if known:
                _prune(item, child, _key_path(path, key), out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _skip_prune(item, _items(schema), f"{path}[{index}]", out)


def _known_object_meta(meta: dict[str, Any], prefix: str, out: list[str]) -> dict[str, Any]:
    """Decode into ``metav1.ObjectMeta``: keys it lacks are dropped; kjson names them in sorted-key order."""
    for key in sorted(meta):
        if key not in _OBJECT_META_FIELDS:
            out.append(f"{prefix}.{key}")
            continue
        fields = _META_ENTRY_FIELDS.get(key)
        entries = meta[key]
        if fields is None or not isinstance(entries, list):
            continue
        for index, entry in enumerate(entries):
            if isinstance(entry, dict):
                out.extend(f"{prefix}.{key}[{index}].{name}" for name in sorted(entry) if name not in fields)
    known: dict[str, Any] = {}
    for key, value in meta.items():
        if key not in _OBJECT_META_FIELDS:
            continue
        fields = _META_ENTRY_FIELDS.get(key)
        if fields is not None and isinstance(value, list):
            value = [
                {name: item for name, item in entry.items() if name in fields} if isinstance(entry, dict) else entry
                for entry in value
            ]
        known[key] = value
    return known


def _coerce_embedded(value: Any, schema: Schema | None, path: str, out: list[str]) -> None:
    if schema is None:
        return
    if isinstance(value, dict):
        if _flag(schema, "x-kubernetes-embedded-resource") and "metadata" in value:
            meta = value["metadata"]
            if isinstance(meta, dict) or meta is None:
                value["metadata"] = _object_meta_round_trip(
                    _known_object_meta(meta or {}, _key_path(path, "metadata"), out)
                )
        properties = _properties(schema)
        present, extra = _additional(schema)
        for key, item in value.items():
            if key in properties:
                _coerce_embedded(item, properties[key], _key_path(path, key), out)
            elif present:
                _coerce_embedded(item, extra, f"{path}[{key}]", out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _coerce_embedded(item, _items(schema), f"{path}[{index}]", out)


def _object_meta_round_trip(meta: dict[str, Any]) -> dict[str, Any]:
    """``SetObjectMeta`` (``ToUnstructured`` honours ``omitempty``) minus a zero ``creationTimestamp``."""
    result: dict[str, Any] = {}
    for key, value in meta.items():
        if value is None or value == "" or value == {} or value == []:
            continue
        if key == "generation" and value == 0 and not isinstance(value, bool):
            continue
        if key == "ownerReferences" and isinstance(value, list):
            value = [_owner_reference_round_trip(entry) for entry in value]
        elif key == "managedFields" and isinstance(value, list):
            value = [
                {name: item for name, item in entry.items() if item is not None and item != ""}
                if isinstance(entry, dict)
                else entry
                for entry in value
            ]
        result[key] = value
    return result


def _owner_reference_round_trip(entry: Any) -> Any:
    if not isinstance(entry, dict):
        return entry
    # apiVersion, kind, name and uid have no omitempty: they come back even when empty.
    result: dict[str, Any] = {"apiVersion": "", "kind": "", "name": "", "uid": ""}
    result.update({name: item for name, item in entry.items() if item is not None})
    return result


def embedded_coercion_error(obj: dict[str, Any], schema: Schema | None) -> Cause | None:
    """The first field error ``CoerceWithOptions`` stops at, on the pruned object; ``None`` if it passes.

    The apiserver returns it as a decode error: 400 ``<Kind> in version "<v>" cannot be handled as a <Kind>:
    <field>: <message>``.
    """
    return _first_coercion_error(obj, schema, "")


def _first_coercion_error(value: Any, schema: Schema | None, path: str) -> Cause | None:
    if schema is None:
        return None
    if isinstance(value, dict):
        properties = _properties(schema)
        present, extra = _additional(schema)
        for key, item in value.items():
            if _flag(schema, "x-kubernetes-embedded-resource"):
                problem = _type_meta_coercion_error(key, item, _key_path(path, key))
                if problem is not None:
                    return problem
            if key in properties:
                problem = _first_coercion_error(item, properties[key], _key_path(path, key))
            elif present:
                problem = _first_coercion_error(item, extra, f"{path}[{key}]")
            else:
                continue
            if problem is not None:
                return problem
    elif isinstance(value, list):
        for index, item in enumerate(value):
            problem = _first_coercion_error(item, _items(schema), f"{path}[{index}]")
            if problem is not None:
                return problem
    return None


def _type_meta_coercion_error(key: str, value: Any, path: str) -> Cause | None:
    if key in ("apiVersion", "kind") and not isinstance(value, str):
        return _invalid(path, value, "must be a string")
    if key == "metadata" and not isinstance(value, dict) and value is not None:
        detail = f"json: cannot unmarshal {_json_kind(value)} into Go value of type v1.ObjectMeta"
        return _invalid(path, value, detail)
    return None


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "string" if isinstance(value, str) else "array"


# -- nulls and defaults -----------------------------------------------------------------------------


def _nullable(schema: Schema) -> bool:
    return _flag(schema, "nullable")


def drop_nulls_without_defaults(obj: dict[str, Any], schema: Schema | None) -> dict[str, Any]:
    """Map values that are ``null`` where the schema is neither nullable nor defaulted are removed."""
    result = copy.deepcopy(obj)
    _drop_nulls(result, schema)
    return result


def _drop_nulls(value: Any, schema: Schema | None) -> None:
    if isinstance(value, dict):
        for key in list(value):
            child = _child(schema, key)[1] if schema is not None else None
            item = value[key]
            if item is None and child is not None and not _nullable(child) and child.get("default") is None:
                del value[key]
            else:
                _drop_nulls(item, child)
    elif isinstance(value, list):
        items = _items(schema)
        for item in value:
            _drop_nulls(item, items)


def apply_defaults(obj: dict[str, Any], schema: Schema | None) -> dict[str, Any]:
    """Absent fields, and ``null`` in non-nullable ones, take the schema's ``default``, top down."""
    result = copy.deepcopy(obj)
    _default(result, schema)
    return result


def _non_nullable_null(value: Any, schema: Schema | None) -> bool:
    return value is None and schema is not None and not _nullable(schema)


def _default(value: Any, schema: Schema | None) -> None:
    if schema is None:
        return
    if isinstance(value, dict):
        properties = _properties(schema)
        for key, prop in properties.items():
            default = prop.get("default")
            if default is not None and (key not in value or _non_nullable_null(value[key], prop)):
                value[key] = copy.deepcopy(default)
        present, extra = _additional(schema)
        for key in list(value):
            if key in properties:
                _default(value[key], properties[key])
            elif present:
                if extra is not None and _non_nullable_null(value[key], extra):
                    value[key] = copy.deepcopy(extra.get("default"))
                _default(value[key], extra)
    elif isinstance(value, list):
        items = _items(schema)
        for index, item in enumerate(value):
            if items is not None and _non_nullable_null(item, items):
                value[index] = copy.deepcopy(items.get("default"))
            _default(value[index], items)


# -- Go spellings of values ---------------------------------------------------------------------------


def _go_float(value: float) -> str:
    """``fmt`` ``%v`` of a float64: shortest digits, ``%e`` when the exponent is < -4 or >= 6 (``1e+06``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(float(value))).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0") or "0"
    power = point - 1
    if power < -4 or power >= 6:
        head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{head}e{'-' if power < 0 else '+'}{abs(power):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _go_syntax(value: Any) -> str:
    """``%#v`` of a decoded JSON value."""
    if isinstance(value, dict):
        inner = ", ".join(f"{quote(key)}:{_go_syntax(value[key])}" for key in sorted(value))
        return "map[string]interface {}{" + inner + "}"
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_go_syntax(item) for item in value) + "}"
    if value is None:
        return "interface {}(nil)"
    return _go_value(value)


def _go_value(value: Any) -> str:
    """How ``field.Error`` prints a bad value."""
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, (dict, list)):
        return _go_syntax(value)
    return go_value(value)


def _invalid(path: str, value: Any, detail: str) -> Cause:
    return Cause("FieldValueInvalid", f"Invalid value: {_go_value(value)}: {detail}", path)


# -- kube-openapi validation ----------------------------------------------------------------------------


def validate(obj: dict[str, Any], schema: Schema | None) -> list[Cause]:
    """The schema's field errors for a pruned, defaulted object, then those of its embedded resources."""
    if schema is None:
        return []
    causes: list[Cause] = []
    _validate_value(obj, schema, "", causes)
    _validate_embedded(obj, schema, "", causes)
    return causes


def _field(name: str) -> str:
    # kubeOpenAPIResultToFieldErrors: the kube-openapi name minus one leading dot.
    return name[1:] if name.startswith(".") else name


def _types(schema: Schema) -> list[str]:
    if _flag(schema, "x-kubernetes-int-or-string"):
        return ["integer", "string"]
    kind = schema.get("type")
    return [kind] if isinstance(kind, str) and kind else []


def _format(schema: Schema) -> str:
    name = schema.get("format")
    if isinstance(name, str) and name.replace("-", "") in _SUPPORTED_FORMATS:
        return name
    return ""


def _validate_value(value: Any, schema: Schema, path: str, causes: list[Cause]) -> None:
    types = _types(schema)
    format_name = _format(schema)
    if value is None:
        if types and "null" not in types and not _nullable(schema):
            causes.append(_type_invalid(path, ",".join(types), "null"))
        _check_enum(value, schema, path, causes)
        return
    if types or format_name:
        _check_type(value, types, format_name, path, causes)
    if isinstance(value, str):
        _check_string(value, schema, path, causes)
        _check_format(value, format_name, path, causes)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _check_number(value, schema, path, causes)
    elif isinstance(value, list):
        _check_list(value, schema, path, causes)
    _check_enum(value, schema, path, causes)
    if isinstance(value, dict):
        _check_object(value, schema, path, causes)


def _type_invalid(path: str, type_name: str, observed: str) -> Cause:
    message = f"{path} in body must be of type {type_name}: {quote(observed)}"
    return Cause("FieldValueTypeInvalid", f"Invalid value: {quote(observed)}: {message}", _field(path))


def _json_type(value: Any) -> tuple[str, str]:
    """kube-openapi's ``schemaInfoForType``: the JSON type and format of a decoded Go value."""
    if isinstance(value, bool):
        return "boolean", ""
    if isinstance(value, int):
        return "integer", "int64"
    if isinstance(value, float):
        return "number", "float64"
    if isinstance(value, str):
        return "string", ""
    return ("array", "") if isinstance(value, list) else ("object", "")


def _is_json_integer(value: float) -> bool:
    """go-openapi/swag ``IsFloat64AJSONInteger`` as Kubernetes 1.32 vendors it (relative error below 1e-9).

    ``float64(uint64(f))`` truncates positive values, while negative ones land near 2^64, so only
    positive near-integers pass the relative check.
    """
    if not math.isfinite(value) or abs(value) > _MAX_JSON_INTEGER:
        return False
    if value.is_integer():
        return True
    if value < 1:
        return False
    truncated = float(math.trunc(value))
    return (value - truncated) / (value + truncated) < 1e-9


def _check_type(value: Any, types: list[str], format_name: str, path: str, causes: list[Cause]) -> None:
    observed, observed_format = _json_type(value)
    float_int = observed == "number" and "integer" in types and _is_json_integer(value)
    int_float = observed == "integer" and "number" in types
    scalar = not isinstance(value, (str, list))
    if scalar and format_name and not (observed in types or observed_format == format_name or float_int or int_float):
        causes.append(_type_invalid(path, format_name, observed_format))
        return
    if format_name and not scalar and "number" not in types and "integer" not in types:
        return
    if not (observed in types or float_int or int_float):
        causes.append(_type_invalid(path, ",".join(types), observed))


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    # RE2 spells end-of-text \z; Python 3.11 spells it \Z.
    return re.compile(pattern.replace("\\z", "\\Z"))


def _check_string(value: str, schema: Schema, path: str, causes: list[Cause]) -> None:
    # Only the first failing keyword is reported (kube-openapi's stringValidator returns early).
    max_length = schema.get("maxLength")
    if isinstance(max_length, int) and len(value) > max_length:
        unit = "byte" if max_length == 1 else "bytes"
        causes.append(Cause("FieldValueTooLong", f"Too long: may not be more than {max_length} {unit}", _field(path)))
        return
    min_length = schema.get("minLength")
    if isinstance(min_length, int) and len(value) < min_length:
        causes.append(_invalid(_field(path), value, f"{path} in body should be at least {min_length} chars long"))
        return
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern and not _compiled(pattern).search(value):
        causes.append(_invalid(_field(path), value, f"{path} in body should match '{pattern}'"))


_UUID = r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?%s[0-9a-f]{3}-?%s[0-9a-f]{3}-?[0-9a-f]{12}$"
_UUID_PATTERNS = {
    "uuid": re.compile(_UUID % ("[0-9a-f]", "[0-9a-f]")),
    "uuid3": re.compile(_UUID % ("3", "[0-9a-f]")),
    "uuid4": re.compile(_UUID % ("4", "[89ab]")),
    "uuid5": re.compile(_UUID % ("5", "[89ab]")),
}
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME_OF_DAY = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))")


def _is_date(text: str) -> bool:
    """``time.Parse("2006-01-02", s)``."""
    match = _DATE.fullmatch(text)
    if match is None:
        return False
    try:
        datetime.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return False
    return True


def _is_date_time(text: str) -> bool:
    """strfmt ``IsDateTime``: lower-cased, split at ``t``, a date, then ``hh:mm:ss[.frac](z|±hh:mm)``."""
    parts = text.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    match = _TIME_OF_DAY.fullmatch(parts[1])
    return match is not None and match[1] <= "23" and match[2] <= "59" and match[3] <= "59"


def _is_ip(text: str, separator: str) -> bool:
    """govalidator ``IsIPv4``/``IsIPv6``: ``net.ParseIP`` succeeds and the text holds ``.`` / ``:``."""
    if separator not in text or "%" in text:
        return False
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _matches(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    return lambda text: pattern.match(text) is not None


_FORMAT_CHECKS: dict[str, Callable[[str], bool]] = {
    **{name: _matches(pattern) for name, pattern in _UUID_PATTERNS.items()},
    "date": _is_date,
    "datetime": _is_date_time,
    "ipv4": lambda text: _is_ip(text, "."),
    "ipv6": lambda text: _is_ip(text, ":"),
}


def _check_format(value: str, format_name: str, path: str, causes: list[Cause]) -> None:
    check = _FORMAT_CHECKS.get(format_name.replace("-", ""))
    if check is not None and not check(value):
        message = f"{path} in body must be of type {format_name}: {quote(value)}"
        causes.append(Cause("FieldValueTypeInvalid", f"Invalid value: {quote(value)}: {message}", _field(path)))


def _go_int64(value: float) -> int:
    """Go's float64 -> int64 conversion: truncation, and amd64's minimum int64 when out of range."""
    if not math.isfinite(value) or not -(2.0**63) <= value < 2.0**63:
        return -(1 << 63)
    return math.trunc(value)


def _check_number(value: float, schema: Schema, path: str, causes: list[Cause]) -> None:
    # kube-openapi's numberValidator: multipleOf, minimum, maximum, in that order. Integers are checked
    # against the bound converted to int64 (truncated), floats against the float64 bound.
    integer = isinstance(value, int)
    field_path = _field(path)
    factor = schema.get("multipleOf")
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if integer:
            whole = _go_int64(float(factor))
            if whole != 0 and value % whole != 0:
                causes.append(_invalid(field_path, value, f"{path} in body should be a multiple of {whole}"))
        elif not _is_multiple(float(value), float(factor)):
            shown = _go_float(float(factor))
            causes.append(_invalid(field_path, value, f"{path} in body should be a multiple of {shown}"))
    for keyword, exclusive_keyword, below in (
        ("minimum", "exclusiveMinimum", True),
        ("maximum", "exclusiveMaximum", False),
    ):
        bound = schema.get(keyword)
        if not isinstance(bound, (int, float)) or isinstance(bound, bool):
            continue
        exclusive = _flag(schema, exclusive_keyword)
        limit: float = _go_int64(float(bound)) if integer else float(bound)
        shown = str(limit) if integer else _go_float(limit)
        if below and (value <= limit if exclusive else value < limit):
            relation = "greater than" if exclusive else "greater than or equal to"
        elif not below and (value >= limit if exclusive else value > limit):
            relation = "less than" if exclusive else "less than or equal to"
        else:
            continue
        causes.append(_invalid(field_path, value, f"{path} in body should be {relation} {shown}"))


def _is_multiple(value: float, factor: float) -> bool:
    quotient = (1 / factor * value) if factor < 1 else (value / factor)
    return _is_json_integer(quotient)


def _go_equal(left: Any, right: Any) -> bool:
    """``reflect.DeepEqual`` of decoded JSON: an int64 never equals a float64, nor a bool a number."""
    if type(left) is not type(right) and not (isinstance(left, float) and isinstance(right, float)):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(_go_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_go_equal(item, right[key]) for key, item in left.items())
    return bool(left == right)


def _check_list(value: list[Any], schema: Schema, path: str, causes: list[Cause]) -> None:
    items = _items(schema)
    if items is not None:
        for index, item in enumerate(value):
            _validate_value(item, items, f"{path}[{index}]", causes)
    size = len(value)
    min_items = schema.get("minItems")
    if isinstance(min_items, int) and size < min_items:
        causes.append(_invalid(_field(path), size, f"{path} in body should have at least {min_items} items"))
    max_items = schema.get("maxItems")
    if isinstance(max_items, int) and size > max_items:
        causes.append(_too_many(path, size, max_items))
    if _flag(schema, "uniqueItems"):
        seen: list[Any] = []
        for item in value:
            if any(_go_equal(item, earlier) for earlier in seen):
                causes.append(_invalid(_field(path), "", f"{path} in body shouldn't contain duplicates"))
                break
            seen.append(item)


def _too_many(path: str, actual: int, maximum: int) -> Cause:
    unit = "item" if maximum == 1 else "items"
    return Cause("FieldValueTooMany", f"Too many: {actual}: must have at most {maximum} {unit}", _field(path))


def _enum_matches(value: Any, allowed: Any) -> bool:
    """``reflect.Value.Convert`` to the enum value's type, then ``DeepEqual``; Go converts int64 to a
    one-rune string and truncates float64 to int64."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(allowed, bool):
        return isinstance(value, bool) and value == allowed
    if isinstance(allowed, str):
        if isinstance(value, int) and number:
            valid = 0 <= value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF
            return (chr(value) if valid else "\ufffd") == allowed
        return isinstance(value, str) and value == allowed
    if isinstance(allowed, int):
        if isinstance(value, float):
            return _go_int64(value) == allowed
        return number and value == allowed
    if isinstance(allowed, float):
        return number and float(value) == allowed
    return _go_equal(value, allowed)


def _check_enum(value: Any, schema: Schema, path: str, causes: list[Cause]) -> None:
    allowed = schema.get("enum")
    if not isinstance(allowed, list) or not allowed:
        return
    if value is not None and any(option is not None and _enum_matches(value, option) for option in allowed):
        return
    # Non-string enum values are listed in their JSON spelling.
    texts = [
        option if isinstance(option, str) else encode(normalize(copy.deepcopy(option))).decode() for option in allowed
    ]
    message = f"Unsupported value: {_go_value(value)}: supported values: " + ", ".join(quote(text) for text in texts)
    causes.append(Cause("FieldValueNotSupported", message, _field(path)))


def _check_object(value: dict[str, Any], schema: Schema, path: str, causes: list[Cause]) -> None:
    count = len(value)
    min_properties = schema.get("minProperties")
    if isinstance(min_properties, int) and count < min_properties:
        detail = f"{path} in body should have at least {min_properties} properties"
        causes.append(_invalid(_field(path), count, detail))
        return
    max_properties = schema.get("maxProperties")
    if isinstance(max_properties, int) and count > max_properties:
        causes.append(_too_many(path, count, max_properties))
        return
    properties = _properties(schema)
    extra = _additional(schema)[1]
    if extra is not None:
        for key, item in value.items():
            if key not in properties:
                _validate_value(item, extra, f"{path}.{key}", causes)
    for name, prop in properties.items():
        if name in value:
            _validate_value(value[name], prop, _key_path(path, name), causes)
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        if name not in value:
            causes.append(Cause("FieldValueRequired", "Required value", _field(f"{path}.{name}")))


# -- embedded resources (objectmeta.Validate) ---------------------------------------------------------------


def _validate_embedded(value: Any, schema: Schema | None, path: str, causes: list[Cause]) -> None:
    if schema is None:
        return
    if isinstance(value, dict):
        if _flag(schema, "x-kubernetes-embedded-resource"):
            causes.extend(_embedded_resource_causes(value, path))
        properties = _properties(schema)
        present, extra = _additional(schema)
        for key, item in value.items():
            if key in properties:
                _validate_embedded(item, properties[key], _key_path(path, key), causes)
            elif present:
                _validate_embedded(item, extra, f"{path}[{key}]", causes)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _validate_embedded(item, _items(schema), f"{path}[{index}]", causes)


def _embedded_resource_causes(resource: dict[str, Any], path: str) -> list[Cause]:
    causes = [
        Cause("FieldValueRequired", "Required value", _key_path(path, key))
        for key in ("apiVersion", "kind")
        if key not in resource
    ]
    for key, value in resource.items():
        where = _key_path(path, key)
        if key in ("apiVersion", "kind") and not isinstance(value, str):
            causes.append(_invalid(where, value, "must be a string"))
        elif key in ("apiVersion", "kind") and not value:
            causes.append(_invalid(where, value, "must not be empty"))
        elif key == "apiVersion" and value != "/" and value.count("/") > 1:
            causes.append(_invalid(where, value, f"unexpected GroupVersion string: {value}"))
        elif key == "kind":
            problems = _dns1035_problems(value.lower())
            if problems:
                detail = "may have mixed case, but should otherwise match: " + ",".join(problems)
                causes.append(_invalid(where, value, detail))
        elif key == "metadata" and isinstance(value, dict):
            causes.extend(_embedded_meta_causes(value, where))
    return causes


def _dns1035_problems(value: str) -> list[str]:
    problems = []
    if len(value) > 63:
        problems.append("must be no more than 63 characters")
    if not re.fullmatch(_DNS1035_LABEL, value):
        problems.append(
            f"{_DNS1035_MESSAGE} (e.g. 'my-name',  or 'abc-123', regex used for validation is '{_DNS1035_LABEL}')"
        )
    return problems


def _path_segment_problems(name: str, *, prefix: bool) -> list[str]:
    """``path.ValidatePathSegmentName``: embedded names need only be usable as one URL path segment."""
    if not prefix and name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{part}'" for part in ("/", "%") if part in name]


def _embedded_meta_causes(meta: dict[str, Any], path: str) -> list[Cause]:
    """``ValidateObjectMeta`` with path-segment names: generateName, name, namespace, labels, annotations."""
    causes = []
    generate_name = meta.get("generateName")
    if isinstance(generate_name, str) and generate_name:
        for problem in _path_segment_problems(generate_name, prefix=True):
            causes.append(_invalid(f"{path}.generateName", generate_name, problem))
    name = meta.get("name") or "fakename"
    if isinstance(name, str):
        for problem in _path_segment_problems(name, prefix=False):
            causes.append(_invalid(f"{path}.name", name, problem))
    namespace = meta.get("namespace")
    if isinstance(namespace, str) and namespace:
        for problem in validate_name(namespace, dns_label=True):
            causes.append(_invalid(f"{path}.namespace", namespace, problem))
    labels = meta.get("labels")
    for key, value in (labels if isinstance(labels, dict) else {}).items():
        causes.extend(_invalid(f"{path}.labels", key, problem) for problem in validate_qualified_name(key))
        if isinstance(value, str):
            causes.extend(_invalid(f"{path}.labels", value, problem) for problem in validate_label_value(value))
    annotations = meta.get("annotations")
    total = 0
    for key, value in (annotations if isinstance(annotations, dict) else {}).items():
        causes.extend(_invalid(f"{path}.annotations", key, problem) for problem in validate_qualified_name(key.lower()))
        total += len(key.encode()) + len(str(value).encode())
    if total > ANNOTATIONS_TOTAL_LIMIT:
        limit = f"Too long: may not be more than {ANNOTATIONS_TOTAL_LIMIT} bytes"
        causes.append(Cause("FieldValueTooLong", limit, f"{path}.annotations"))
    return causes
