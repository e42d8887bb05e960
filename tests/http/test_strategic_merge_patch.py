"""What a strategic merge patch whose result does not convert into the kind's Go type answers.

The apiserver converts the merged map with ``FromUnstructuredWithValidation``
(docs/strategic-merge-patch.md): a 422 whose one cause, on field ``patch``, prints the patch map as
Go's ``%+v`` does and the converter's error, and nothing is stored.
"""

from __future__ import annotations

from typing import Any

import pytest
from multidict import MultiDict

from fakeapi._http.negotiation import STRATEGIC_MERGE_PATCH
from fakeapi._http.options import parse_write_options
from fakeapi._http.patching import PatchContext, compute_patch
from fakeapi._state.kinds import builtin_type
from fakeapi.errors import APIError

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app", "image": "a"}]}},
    },
}
SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "default"}, "type": "Opaque"}


def patched(obj: dict[str, Any], body: str, query: dict[str, str] | None = None) -> Any:
    group, _, version = obj["apiVersion"].rpartition("/")
    options = parse_write_options("PatchOptions", MultiDict(query or {}), "kubectl/v1.32.4")
    context = PatchContext()
    result = compute_patch(
        builtin_type(group, version, obj["kind"]), STRATEGIC_MERGE_PATCH, body.encode(), options, context
    )(obj)
    return result, context.warnings


@pytest.mark.parametrize(
    ("obj", "body", "value", "problem"),
    [
        (DEPLOYMENT, '{"spec":{"replicas":true}}', "map[spec:map[replicas:true]]", "unrecognized type: int32"),
        (DEPLOYMENT, '{"spec":{"replicas":1.5}}', "map[spec:map[replicas:1.5]]", "cannot convert float64 to int32"),
        (
            DEPLOYMENT,
            '{"metadata":{"labels":"a=b"}}',
            "map[metadata:map[labels:a=b]]",
            "cannot restore map from string",
        ),
        (
            DEPLOYMENT,
            '{"metadata":{"labels":{"n":1}}}',
            "map[metadata:map[labels:map[n:1]]]",
            "cannot convert int64 to string",
        ),
        (
            DEPLOYMENT,
            '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":{"a":"b"}}]}}}}',
            "map[spec:map[template:map[spec:map[containers:[map[image:map[a:b] name:app]]]]]]",
            "unrecognized type: string",
        ),
        (
            SECRET,
            '{"data":{"k":"not base64"}}',
            "map[data:map[k:not base64]]",
            "error decoding from json: illegal base64 data at input byte 3",
        ),
    ],
)
def test_a_result_that_does_not_convert_is_a_422_naming_the_patch(
    obj: dict[str, Any], body: str, value: str, problem: str
) -> None:
    with pytest.raises(APIError) as caught:
        patched(obj, body)
    status = caught.value.status()
    message = f'Invalid value: "{value}": {problem}'
    assert (status["code"], status["reason"]) == (422, "Invalid")
    assert status["message"] == f' "" is invalid: patch: {message}'
    assert status["details"]["causes"] == [{"reason": "FieldValueInvalid", "message": message, "field": "patch"}]


def test_the_typed_round_trip_drops_unknown_fields_and_zeros_and_warns() -> None:
    body = '{"spec":{"bogus":1,"paused":false,"template":{"spec":{"containers":[{"name":"app","ports":[],"imagePullPolicyy":"x"}]}}}}'
    result, warnings = patched(DEPLOYMENT, body)
    assert "bogus" not in result["spec"] and "paused" not in result["spec"]
    assert result["spec"]["template"]["spec"]["containers"] == [{"name": "app", "image": "a", "resources": {}}]
    assert warnings == [
        'unknown field "spec.bogus"',
        'unknown field "spec.template.spec.containers[0].imagePullPolicyy"',
    ]


def test_strict_field_validation_refuses_unknown_fields() -> None:
    with pytest.raises(APIError) as caught:
        patched(DEPLOYMENT, '{"spec":{"bogus":1}}', {"fieldValidation": "Strict"})
    assert caught.value.status()["message"] == (
        ' "" is invalid: patch: Invalid value: "map[spec:map[bogus:1]]": strict decoding error: unknown field "spec.bogus"'
    )
