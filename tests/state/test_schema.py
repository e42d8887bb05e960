"""A CRD's openAPIV3Schema applied to custom resources: pruning, null dropping, defaulting, validation.

The schema below is shaped like a controller-gen CRD: nested objects, an array of objects, a map with an
additionalProperties schema, an int-or-string, a preserve-unknown-fields subtree and two embedded resources.
Expected paths, objects and messages are the apiserver's (see the module docstring of
``fakeapi._state.schema`` for the Go sources).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi._patching.godecode import decode
from fakeapi._state.schema import (
    apply_defaults,
    drop_nulls_without_defaults,
    embedded_coercion_error,
    prune,
    validate,
)
from fakeapi.errors import Cause

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["image"],
            "properties": {
                "image": {"type": "string", "minLength": 3, "maxLength": 12, "pattern": "^[a-z][a-z0-9./:-]*$"},
                "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1},
                "ratio": {"type": "number", "minimum": 0.5, "maximum": 2.5, "exclusiveMaximum": True},
                "step": {"type": "number", "multipleOf": 0.25, "exclusiveMinimum": True, "minimum": 0},
                "even": {"type": "integer", "multipleOf": 2},
                "big": {"type": "number", "maximum": 1000000},
                "mode": {"type": "string", "enum": ["fast", "safe"], "default": "safe"},
                "level": {"type": "integer", "enum": [1, 2, 3]},
                "port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                "suspend": {"type": "boolean"},
                "note": {"type": "string", "nullable": True},
                "tags": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "string", "maxLength": 5}},
                "ids": {"type": "array", "uniqueItems": True, "items": {"type": "integer"}},
                "env": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name"],
                        "properties": {
                            "name": {"type": "string"},
                            "value": {"type": "string", "default": ""},
                        },
                    },
                },
                "limits": {
                    "type": "object",
                    "maxProperties": 2,
                    "additionalProperties": {"type": "integer", "minimum": 0},
                },
                "selector": {"type": "object", "minProperties": 1, "additionalProperties": {"type": "string"}},
                "config": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {"retry": {"type": "object", "properties": {"count": {"type": "integer"}}}},
                },
                "template": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True,
                },
                "child": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer"}}}},
                },
                "schedule": {
                    "type": "object",
                    "default": {},
                    "properties": {
                        "at": {"type": "string", "format": "date-time"},
                        "day": {"type": "string", "format": "date"},
                        "zone": {"type": "string", "default": "UTC"},
                    },
                },
                "owner": {"type": "string", "format": "uuid"},
                "address": {"type": "string", "format": "ipv4"},
                "address6": {"type": "string", "format": "ipv6"},
                "contact": {"type": "string", "format": "email-ish"},
            },
        },
        "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
    },
}


def resource(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Job",
        "metadata": {"name": "job-1"},
        "spec": {"image": "busybox", **spec},
    }


# -- pruning -------------------------------------------------------------------------------------------

PRUNE_CASES = [
    pytest.param(resource(), resource(), [], id="known-fields-kept"),
    pytest.param(
        resource(foo=1, bar={"x": 1}),
        resource(),
        ["spec.bar", "spec.foo"],
        id="unknown-spec-fields-sorted",
    ),
    pytest.param(
        {**resource(), "extra": True, "status": {"phase": "Done", "reason": "x"}},
        {**resource(), "status": {"phase": "Done"}},
        ["extra", "status.reason"],
        id="root-and-status-unknowns",
    ),
    pytest.param(
        resource(env=[{"name": "A", "bogus": 1}, {"name": "B"}, {"name": "C", "x": {"y": 1}}]),
        resource(env=[{"name": "A"}, {"name": "B"}, {"name": "C"}]),
        ["spec.env[0].bogus", "spec.env[2].x"],
        id="array-of-objects-indexed-paths",
    ),
    pytest.param(
        resource(limits={"cpu": 1, "mem": 2}),
        resource(limits={"cpu": 1, "mem": 2}),
        [],
        id="additional-properties-keep-keys",
    ),
    pytest.param(
        resource(config={"anything": {"deep": [1, 2]}, "retry": {"count": 3, "backoff": "x"}}),
        resource(config={"anything": {"deep": [1, 2]}, "retry": {"count": 3}}),
        ["spec.config.retry.backoff"],
        id="preserve-unknown-fields-keeps-unknown-prunes-known",
    ),
    pytest.param(
        resource(replicas="three", suspend="yes"),
        resource(replicas="three", suspend="yes"),
        [],
        id="wrong-types-are-not-pruned",
    ),
    pytest.param(
        {**resource(), "metadata": {"name": "job-1", "labels": {"a": "b"}, "zz": 1, "foo": {"x": 1}}},
        {**resource(), "metadata": {"name": "job-1", "labels": {"a": "b"}}},
        ["metadata.foo", "metadata.zz"],
        id="root-metadata-unknown-keys",
    ),
    pytest.param(
        {
            **resource(),
            "metadata": {
                "name": "job-1",
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u", "weird": 1}],
            },
        },
        {
            **resource(),
            "metadata": {
                "name": "job-1",
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u"}],
            },
        },
        ["metadata.ownerReferences[0].weird"],
        id="root-metadata-nested-unknown",
    ),
    pytest.param(
        {**resource(zzz=1), "metadata": {"name": "job-1", "aaa": 1}, "data": 1},
        {**resource(), "metadata": {"name": "job-1"}},
        ["metadata.aaa", "data", "spec.zzz"],
        id="metadata-paths-come-first",
    ),
    pytest.param(
        resource(
            template={
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "p", "labels": {}, "generation": 0, "bogus": 1, "creationTimestamp": None},
                "spec": {"anything": True},
            }
        ),
        resource(template={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"anything": True}}),
        ["spec.template.metadata.bogus"],
        id="embedded-resource-metadata-round-trip",
    ),
    pytest.param(
        resource(child={"apiVersion": "v1", "kind": "Pod", "spec": {"size": 1, "other": 2}, "status": {}}),
        resource(child={"apiVersion": "v1", "kind": "Pod", "spec": {"size": 1}}),
        ["spec.child.spec.other", "spec.child.status"],
        id="embedded-resource-keeps-type-meta-prunes-the-rest",
    ),
    pytest.param(
        resource(child={"apiVersion": "v1", "kind": "Pod", "metadata": None}),
        resource(child={"apiVersion": "v1", "kind": "Pod", "metadata": {}}),
        [],
        id="embedded-null-metadata-becomes-empty",
    ),
    pytest.param(
        resource(child={"kind": "Pod", "metadata": {"ownerReferences": [{"name": "o", "controller": None}]}}),
        resource(
            child={
                "kind": "Pod",
                "metadata": {"ownerReferences": [{"apiVersion": "", "kind": "", "name": "o", "uid": ""}]},
            }
        ),
        [],
        id="embedded-owner-reference-required-fields-come-back",
    ),
]


@pytest.mark.parametrize(("obj", "expected", "paths"), PRUNE_CASES)
def test_prune(obj: dict[str, Any], expected: dict[str, Any], paths: list[str]) -> None:
    before = copy.deepcopy(obj)
    pruned, reported = prune(obj, SCHEMA)
    assert pruned == expected
    assert reported == paths
    assert obj == before


def test_prune_without_schema_keeps_only_type_meta_and_metadata() -> None:
    pruned, reported = prune(resource(), None)
    assert pruned == {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "job-1"}}
    assert reported == ["spec"]


def test_prune_below_a_schemaless_array_empties_its_objects() -> None:
    schema = {"type": "object", "properties": {"list": {"type": "array"}}}
    pruned, reported = prune({"list": [{"a": 1}, 2]}, schema, root=False)
    assert pruned == {"list": [{}, 2]}
    assert reported == ["list[0].a"]


EMBEDDED_ERROR_CASES = [
    pytest.param(resource(child={"apiVersion": "v1", "kind": "Pod"}), None, id="strings-pass"),
    pytest.param(
        resource(child={"apiVersion": "v1", "kind": 5}),
        Cause("FieldValueInvalid", "Invalid value: 5: must be a string", "spec.child.kind"),
        id="kind-not-a-string",
    ),
    pytest.param(
        resource(template={"apiVersion": True, "kind": "Pod"}),
        Cause("FieldValueInvalid", "Invalid value: true: must be a string", "spec.template.apiVersion"),
        id="apiversion-not-a-string",
    ),
    pytest.param(
        resource(child={"apiVersion": "v1", "kind": "Pod", "metadata": "x"}),
        Cause(
            "FieldValueInvalid",
            'Invalid value: "x": json: cannot unmarshal string into Go value of type v1.ObjectMeta',
            "spec.child.metadata",
        ),
        id="metadata-not-an-object",
    ),
    pytest.param({**resource(), "kind": 5}, None, id="root-type-meta-is-not-coerced-here"),
]


@pytest.mark.parametrize(("obj", "expected"), EMBEDDED_ERROR_CASES)
def test_embedded_coercion_error(obj: dict[str, Any], expected: Cause | None) -> None:
    assert embedded_coercion_error(obj, SCHEMA) == expected


# -- nulls and defaults ----------------------------------------------------------------------------------

NULL_CASES = [
    pytest.param(resource(suspend=None), resource(), id="non-nullable-null-dropped"),
    pytest.param(resource(note=None), resource(note=None), id="nullable-null-kept"),
    pytest.param(resource(mode=None), resource(mode=None), id="defaulted-null-kept-for-defaulting"),
    pytest.param(resource(tags=["a", None]), resource(tags=["a", None]), id="nulls-in-arrays-kept"),
    pytest.param(resource(limits={"cpu": None}), resource(limits={}), id="additional-properties-null-dropped"),
    pytest.param(resource(config={"free": None}), resource(config={"free": None}), id="unknown-under-preserve-kept"),
    pytest.param(resource(env=[{"name": None}]), resource(env=[{}]), id="inside-array-items"),
]


@pytest.mark.parametrize(("obj", "expected"), NULL_CASES)
def test_drop_nulls_without_defaults(obj: dict[str, Any], expected: dict[str, Any]) -> None:
    before = copy.deepcopy(obj)
    assert drop_nulls_without_defaults(obj, SCHEMA) == expected
    assert obj == before


DEFAULTS = {"replicas": 1, "mode": "safe", "schedule": {"zone": "UTC"}}

DEFAULT_CASES = [
    pytest.param(resource(), resource(**DEFAULTS), id="absent-fields-take-defaults-top-down"),
    pytest.param(
        resource(replicas=3, mode="fast", schedule={"zone": "CET"}),
        resource(replicas=3, mode="fast", schedule={"zone": "CET"}),
        id="present-values-kept",
    ),
    pytest.param(resource(mode=None), resource(**DEFAULTS), id="non-nullable-null-defaulted"),
    pytest.param(
        resource(env=[{"name": "A"}, {"name": "B", "value": "x"}]),
        resource(env=[{"name": "A", "value": ""}, {"name": "B", "value": "x"}], **DEFAULTS),
        id="array-items-defaulted",
    ),
    pytest.param(
        resource(schedule={"at": "2024-01-01T00:00:00Z"}),
        resource(**{**DEFAULTS, "schedule": {"at": "2024-01-01T00:00:00Z", "zone": "UTC"}}),
        id="nested-object-defaulted",
    ),
]


@pytest.mark.parametrize(("obj", "expected"), DEFAULT_CASES)
def test_apply_defaults(obj: dict[str, Any], expected: dict[str, Any]) -> None:
    before = copy.deepcopy(obj)
    assert apply_defaults(obj, SCHEMA) == expected
    assert obj == before


def test_defaults_are_copies() -> None:
    first = apply_defaults(resource(), SCHEMA)
    first["spec"]["schedule"]["zone"] = "changed"
    assert apply_defaults(resource(), SCHEMA)["spec"]["schedule"] == {"zone": "UTC"}


# -- validation ----------------------------------------------------------------------------------------


def invalid(field: str, value: str, detail: str) -> Cause:
    return Cause("FieldValueInvalid", f"Invalid value: {value}: {detail}", field)


def type_invalid(field: str, expected: str, observed: str) -> Cause:
    return Cause(
        "FieldValueTypeInvalid",
        f'Invalid value: "{observed}": {field} in body must be of type {expected}: "{observed}"',
        field,
    )


def format_invalid(field: str, format_name: str, value: str) -> Cause:
    return Cause(
        "FieldValueTypeInvalid",
        f'Invalid value: "{value}": {field} in body must be of type {format_name}: "{value}"',
        field,
    )


VALIDATE_CASES = [
    pytest.param({}, [], id="valid"),
    pytest.param({"replicas": "3"}, [type_invalid("spec.replicas", "integer", "string")], id="type-integer"),
    pytest.param({"suspend": 1}, [type_invalid("spec.suspend", "boolean", "integer")], id="type-boolean"),
    pytest.param({"tags": "a"}, [type_invalid("spec.tags", "array", "string")], id="type-array"),
    pytest.param({"limits": []}, [type_invalid("spec.limits", "object", "array")], id="type-object"),
    pytest.param({"replicas": 2.0}, [], id="integral-float-is-an-integer"),
    pytest.param({"replicas": 2.5}, [type_invalid("spec.replicas", "integer", "number")], id="fraction-is-not"),
    pytest.param({"ratio": 1}, [], id="integer-is-a-number"),
    pytest.param({"port": 8080}, [], id="int-or-string-int"),
    pytest.param({"port": "http"}, [], id="int-or-string-string"),
    pytest.param({"port": True}, [type_invalid("spec.port", "integer,string", "boolean")], id="int-or-string-bool"),
    pytest.param({"note": None}, [], id="nullable-null"),
    pytest.param({"tags": [None]}, [type_invalid("spec.tags[0]", "string", "null")], id="non-nullable-null"),
    pytest.param(
        {"image": "ab"},
        [invalid("spec.image", '"ab"', "spec.image in body should be at least 3 chars long")],
        id="min-length",
    ),
    pytest.param(
        {"image": "busybox-12345678"},
        [Cause("FieldValueTooLong", "Too long: may not be more than 12 bytes", "spec.image")],
        id="max-length-reported-before-pattern",
    ),
    pytest.param(
        {"image": "Busybox"},
        [invalid("spec.image", '"Busybox"', "spec.image in body should match '^[a-z][a-z0-9./:-]*$'")],
        id="pattern",
    ),
    pytest.param(
        {"replicas": 0},
        [invalid("spec.replicas", "0", "spec.replicas in body should be greater than or equal to 1")],
        id="minimum",
    ),
    pytest.param(
        {"replicas": 20},
        [invalid("spec.replicas", "20", "spec.replicas in body should be less than or equal to 10")],
        id="maximum",
    ),
    pytest.param(
        {"ratio": 2.5},
        [invalid("spec.ratio", "2.5", "spec.ratio in body should be less than 2.5")],
        id="exclusive-maximum",
    ),
    pytest.param(
        {"ratio": 0.25},
        [invalid("spec.ratio", "0.25", "spec.ratio in body should be greater than or equal to 0.5")],
        id="float-minimum",
    ),
    pytest.param(
        {"step": 0},
        [invalid("spec.step", "0", "spec.step in body should be greater than 0")],
        id="exclusive-minimum",
    ),
    pytest.param(
        {"step": 0.3},
        [invalid("spec.step", "0.3", "spec.step in body should be a multiple of 0.25")],
        id="multiple-of-float",
    ),
    pytest.param({"step": 0.75}, [], id="multiple-of-float-ok"),
    pytest.param(
        {"even": 3},
        [invalid("spec.even", "3", "spec.even in body should be a multiple of 2")],
        id="multiple-of-integer",
    ),
    pytest.param(
        {"big": 2000000.0},
        [invalid("spec.big", "2e+06", "spec.big in body should be less than or equal to 1e+06")],
        id="float-bounds-print-like-go",
    ),
    pytest.param(
        {"big": 2000000},
        [invalid("spec.big", "2000000", "spec.big in body should be less than or equal to 1000000")],
        id="integer-bounds-print-as-int64",
    ),
    pytest.param(
        {"mode": "slow"},
        [Cause("FieldValueNotSupported", 'Unsupported value: "slow": supported values: "fast", "safe"', "spec.mode")],
        id="enum-string",
    ),
    pytest.param(
        {"level": 7},
        [Cause("FieldValueNotSupported", 'Unsupported value: 7: supported values: "1", "2", "3"', "spec.level")],
        id="enum-integer",
    ),
    pytest.param({"level": 2.0}, [], id="enum-float-converted-to-int64"),
    pytest.param(
        {"tags": []},
        [invalid("spec.tags", "0", "spec.tags in body should have at least 1 items")],
        id="min-items",
    ),
    pytest.param(
        {"tags": ["a", "b", "c", "d"]},
        [Cause("FieldValueTooMany", "Too many: 4: must have at most 3 items", "spec.tags")],
        id="max-items",
    ),
    pytest.param(
        {"tags": ["ok", "toolong"]},
        [Cause("FieldValueTooLong", "Too long: may not be more than 5 bytes", "spec.tags[1]")],
        id="items-schema-indexed-path",
    ),
    pytest.param(
        {"ids": [1, 2, 1]},
        [invalid("spec.ids", '""', "spec.ids in body shouldn't contain duplicates")],
        id="unique-items",
    ),
    pytest.param({"ids": [1, 1.0]}, [], id="unique-items-compare-int64-and-float64-apart"),
    pytest.param(
        {"env": [{"name": "A"}, {"value": "x"}]},
        [Cause("FieldValueRequired", "Required value", "spec.env[1].name")],
        id="required-in-array-item",
    ),
    pytest.param(
        {"limits": {"cpu": -1}},
        [invalid("spec.limits.cpu", "-1", "spec.limits.cpu in body should be greater than or equal to 0")],
        id="additional-properties-schema",
    ),
    pytest.param(
        {"limits": {"a": 1, "b": 2, "c": 3}},
        [Cause("FieldValueTooMany", "Too many: 3: must have at most 2 items", "spec.limits")],
        id="max-properties",
    ),
    pytest.param(
        {"selector": {}},
        [invalid("spec.selector", "0", "spec.selector in body should have at least 1 properties")],
        id="min-properties",
    ),
    pytest.param(
        {"config": {"retry": {"count": "x"}, "free": "anything"}},
        [type_invalid("spec.config.retry.count", "integer", "string")],
        id="known-fields-under-preserve-validated",
    ),
    pytest.param({"schedule": {"at": "2024-02-29T23:59:59.5+01:00", "day": "2024-02-29"}}, [], id="formats-ok"),
    pytest.param(
        {"schedule": {"at": "2024-01-01 10:00:00"}},
        [format_invalid("spec.schedule.at", "date-time", "2024-01-01 10:00:00")],
        id="format-date-time",
    ),
    pytest.param(
        {"schedule": {"day": "2023-02-29"}},
        [format_invalid("spec.schedule.day", "date", "2023-02-29")],
        id="format-date",
    ),
    pytest.param(
        {"owner": "not-a-uuid"},
        [format_invalid("spec.owner", "uuid", "not-a-uuid")],
        id="format-uuid",
    ),
    pytest.param({"owner": "0F8FAD5B-D9CB-469F-A165-70867728950E"}, [], id="format-uuid-upper-case"),
    pytest.param(
        {"address": "10.0.0.256", "address6": "10.0.0.1"},
        [format_invalid("spec.address", "ipv4", "10.0.0.256"), format_invalid("spec.address6", "ipv6", "10.0.0.1")],
        id="format-ip",
    ),
    pytest.param({"contact": "anything"}, [], id="unsupported-format-stripped"),
    pytest.param(
        {"owner": 5},
        [
            Cause(
                "FieldValueTypeInvalid",
                'Invalid value: "int64": spec.owner in body must be of type uuid: "int64"',
                "spec.owner",
            )
        ],
        id="format-on-a-number-names-the-go-type",
    ),
    pytest.param(
        {"replicas": "x", "mode": 5, "tags": []},
        [
            type_invalid("spec.replicas", "integer", "string"),
            type_invalid("spec.mode", "string", "integer"),
            Cause("FieldValueNotSupported", 'Unsupported value: 5: supported values: "fast", "safe"', "spec.mode"),
            invalid("spec.tags", "0", "spec.tags in body should have at least 1 items"),
        ],
        id="every-validator-runs",
    ),
]


@pytest.mark.parametrize(("spec", "expected"), VALIDATE_CASES)
def test_validate(spec: dict[str, Any], expected: list[Cause]) -> None:
    assert validate(resource(**spec), SCHEMA) == expected


def test_validate_reports_missing_required_and_root_types() -> None:
    obj = {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {}, "status": []}
    assert validate(obj, SCHEMA) == [
        Cause("FieldValueRequired", "Required value", "spec.image"),
        type_invalid("status", "object", "array"),
    ]


def test_validate_enum_on_a_nullable_field_rejects_null() -> None:
    schema = {"type": "object", "properties": {"tier": {"type": "string", "nullable": True, "enum": ["a", None]}}}
    assert validate({"tier": None}, schema) == [
        Cause("FieldValueNotSupported", 'Unsupported value: null: supported values: "a", "null"', "tier")
    ]


def test_validate_json_one_point_zero_against_integer() -> None:
    # The apiserver decodes 1.0 to a float64; kube-openapi accepts a float64 with an integral value as an integer.
    obj = decode(b'{"apiVersion":"example.com/v1","kind":"Job","spec":{"image":"busybox","replicas":1.0}}')
    assert validate(obj, SCHEMA) == []


EMBEDDED_CASES = [
    pytest.param({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}, [], id="valid"),
    pytest.param(
        {"metadata": {}},
        [
            Cause("FieldValueRequired", "Required value", "spec.child.apiVersion"),
            Cause("FieldValueRequired", "Required value", "spec.child.kind"),
        ],
        id="type-meta-required",
    ),
    pytest.param(
        {"apiVersion": "a/b/c", "kind": ""},
        [
            invalid("spec.child.apiVersion", '"a/b/c"', "unexpected GroupVersion string: a/b/c"),
            invalid("spec.child.kind", '""', "must not be empty"),
        ],
        id="type-meta-values",
    ),
    pytest.param(
        {"apiVersion": "v1", "kind": "My_Kind"},
        [
            invalid(
                "spec.child.kind",
                '"My_Kind"',
                "may have mixed case, but should otherwise match: a lowercase RFC 1035 label must consist of lower "
                "case alphanumeric characters or '-', start with an alphabetic character, and end with an "
                "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
                "'[a-z]([-a-z0-9]*[a-z0-9])?')",
            )
        ],
        id="kind-dns-1035",
    ),
    pytest.param(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a/b", "labels": {"k": "bad value"}}},
        [
            invalid("spec.child.metadata.name", '"a/b"', "may not contain '/'"),
            invalid(
                "spec.child.metadata.labels",
                '"bad value"',
                "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ),
        ],
        id="embedded-metadata",
    ),
]


@pytest.mark.parametrize(("child", "expected"), EMBEDDED_CASES)
def test_validate_embedded_resource(child: dict[str, Any], expected: list[Cause]) -> None:
    assert validate(resource(child=child), SCHEMA) == expected


def test_embedded_errors_follow_schema_errors() -> None:
    obj = resource(replicas="x", child={"kind": "Pod"})
    assert validate(obj, SCHEMA) == [
        type_invalid("spec.replicas", "integer", "string"),
        Cause("FieldValueRequired", "Required value", "spec.child.apiVersion"),
    ]


def test_no_schema_validates_nothing() -> None:
    assert validate(resource(replicas="x"), None) == []


# -- copy on write ---------------------------------------------------------------------------------------

PRESERVE_SCHEMA: dict[str, Any] = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}

ALL_INPUTS = [
    pytest.param(case.values[0], id=f"{kind}-{case.id}")
    for kind, cases in (("prune", PRUNE_CASES), ("nulls", NULL_CASES), ("defaults", DEFAULT_CASES))
    for case in cases
] + [pytest.param(resource(**dict(case.values[0])), id=f"validate-{case.id}") for case in VALIDATE_CASES]  # type: ignore[call-overload]


@pytest.mark.parametrize("obj", ALL_INPUTS)
@pytest.mark.parametrize("schema", [SCHEMA, PRESERVE_SCHEMA, None], ids=["structural", "preserve", "none"])
def test_no_function_changes_its_input(obj: dict[str, Any], schema: dict[str, Any] | None) -> None:
    before = copy.deepcopy(obj)
    pruned, _ = prune(obj, schema)
    prune(obj, schema, root=False)
    embedded_coercion_error(obj, schema)
    drop_nulls_without_defaults(obj, schema)
    apply_defaults(obj, schema)
    validate(obj, schema)
    # The server's pipeline: each step's result shares what it did not change with the original object.
    validate(apply_defaults(drop_nulls_without_defaults(pruned, schema), schema), schema)
    assert obj == before


CONFORMING = resource(
    replicas=2,
    mode="fast",
    schedule={"zone": "CET"},
    env=[{"name": "A", "value": "1"}],
    config={"free": {"x": None}, "retry": {"count": 1}},
    template={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"anything": True}},
    child={"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": {"size": 1}},
    note=None,
)


@pytest.mark.parametrize(
    ("obj", "schema"),
    [
        pytest.param(CONFORMING, SCHEMA, id="structural"),
        pytest.param({**resource(foo={"x": [1, None]}), "status": {"y": 1}}, PRESERVE_SCHEMA, id="preserve"),
        pytest.param({**CONFORMING, "status": {"phase": "Done"}}, SCHEMA, id="structural-with-status"),
    ],
)
def test_nothing_to_change_returns_the_same_object(obj: dict[str, Any], schema: dict[str, Any]) -> None:
    assert validate(obj, schema) == []
    assert embedded_coercion_error(obj, schema) is None
    pruned, reported = prune(obj, schema)
    assert reported == []
    assert pruned is obj
    assert drop_nulls_without_defaults(obj, schema) is obj
    assert apply_defaults(obj, schema) is obj


def test_no_schema_returns_the_same_object() -> None:
    obj = resource(suspend=None)
    assert drop_nulls_without_defaults(obj, None) is obj
    assert apply_defaults(obj, None) is obj
    bare = {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "job-1"}}
    assert prune(bare, None) == (bare, [])
    assert prune(bare, None)[0] is bare


def test_preserve_unknown_fields_root_prunes_only_root_metadata() -> None:
    obj = {**resource(anything={"deep": [1, {"x": None}]}), "metadata": {"name": "job-1", "bogus": 1}, "extra": 2}
    pruned, reported = prune(obj, PRESERVE_SCHEMA)
    assert pruned == {**obj, "metadata": {"name": "job-1"}}
    assert reported == ["metadata.bogus"]
    assert pruned["spec"] is obj["spec"]


def test_a_change_copies_only_the_containers_on_its_path() -> None:
    obj = {**resource(env=[{"name": "A"}, {"name": "B", "value": "x"}]), "status": {"phase": "Done"}}
    defaulted = apply_defaults(obj, SCHEMA)
    assert defaulted["spec"]["env"][0] == {"name": "A", "value": ""}
    assert defaulted["spec"]["env"][1] is obj["spec"]["env"][1]
    assert defaulted["status"] is obj["status"]
    assert defaulted["metadata"] is obj["metadata"]
    pruned, _ = prune({**obj, "status": {"phase": "Done", "reason": "x"}}, SCHEMA)
    assert pruned["spec"] is obj["spec"]


def test_unknown_keys_inside_owner_references_and_managed_fields_are_reported_and_dropped() -> None:
    owner = {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u", "zzz": 1}
    entry = {"manager": "m", "operation": "Update", "extra": True}
    obj = {**resource(), "metadata": {"name": "job-1", "ownerReferences": [owner], "managedFields": [entry]}}
    pruned, reported = prune(obj, PRESERVE_SCHEMA)
    assert reported == ["metadata.managedFields[0].extra", "metadata.ownerReferences[0].zzz"]
    assert pruned["metadata"] == {
        "name": "job-1",
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u"}],
        "managedFields": [{"manager": "m", "operation": "Update"}],
    }
    known_owner = {key: value for key, value in owner.items() if key != "zzz"}
    clean = {**resource(), "metadata": {"name": "job-1", "ownerReferences": [known_owner]}}
    kept, none = prune(clean, PRESERVE_SCHEMA)
    assert none == [] and kept["metadata"] is clean["metadata"]
