"""Bad and hostile requests: the apiserver's status code and body, and nothing stored changes.

Each case sends one request at a server holding one custom resource, then checks the answer
(code, reason, message) and that the store's revision and the object are exactly as before.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient, crd

JOBS = "/apis/example.com/v1/namespaces/default/jobs"
ITEM = f"{JOBS}/job-1"
GENERIC_422 = "the server rejected our request due to an error in our request"
BIG = (
    b'{"apiVersion":"example.com/v1","kind":"Job","metadata":{"name":"big"},"spec":{"x":"'
    + b"a" * (3 * 1024 * 1024)
    + b'"}}'
)
DEEP_PATCH = b'[{"op":"add","path":"/spec/d","value":' + b"[" * 20000 + b"]" * 20000 + b"}]"
JOB = {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "job-1"}, "spec": {"a": 1}}

# (id, method, path, body, content type, expected code, expected message or None, extra headers)
CASES: list[tuple[str, str, str, Any, str | None, int, str | None, dict[str, str]]] = [
    (
        "invalid-json",
        "POST",
        JOBS,
        b"{bad",
        "application/json",
        400,
        "the object provided is unrecognized (must be of type Job): couldn't get version/kind; json parse error: "
        "invalid character 'b' looking for beginning of object key string ({bad)",
        {},
    ),
    (
        "empty-body",
        "POST",
        JOBS,
        b"",
        "application/json",
        400,
        "the object provided is unrecognized (must be of type Job): couldn't get version/kind; json parse error: "
        "unexpected end of JSON input (<empty>)",
        {},
    ),
    ("array-body", "POST", JOBS, b"[1,2]", "application/json", 400, None, {}),
    (
        "null-body",
        "POST",
        JOBS,
        b"null",
        "application/json",
        400,
        "the object provided is unrecognized (must be of type Job): Object 'Kind' is missing in 'null' (6e756c6c)",
        {},
    ),
    (
        "no-kind",
        "POST",
        JOBS,
        b"{}",
        "application/json",
        400,
        "the object provided is unrecognized (must be of type Job): Object 'Kind' is missing in '{}' ({})",
        {},
    ),
    (
        "text-plain-create",
        "POST",
        JOBS,
        json.dumps(JOB).encode(),
        "text/plain",
        415,
        "the body of the request was in an unknown format - accepted media types include: application/json, "
        "application/yaml, application/vnd.kubernetes.protobuf",
        {},
    ),
    (
        "patch-no-content-type",
        "PATCH",
        ITEM,
        b"[]",
        None,
        415,
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
        {},
    ),
    ("smp-on-custom-resource", "PATCH", ITEM, b"{}", "application/strategic-merge-patch+json", 415, None, {}),
    ("body-over-3mib", "POST", JOBS, BIG, "application/json", 413, "Request entity too large: limit is 3145728", {}),
    (
        "patch-over-3mib",
        "PATCH",
        ITEM,
        b"[" + b" " * (3 * 1024 * 1024) + b"]",
        "application/json-patch+json",
        413,
        "Request entity too large: limit is 3145728",
        {},
    ),
    (
        "10001-operations",
        "PATCH",
        ITEM,
        json.dumps([{"op": "test", "path": "/spec/a", "value": 1}] * 10001).encode(),
        "application/json-patch+json",
        413,
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
        {},
    ),
    (
        "nesting-20000-patch",
        "PATCH",
        ITEM,
        DEEP_PATCH,
        "application/json-patch+json",
        400,
        "error decoding patch: invalid character '[' exceeded max depth",
        {},
    ),
    ("nesting-20000-create", "POST", JOBS, b"[" * 20000 + b"]" * 20000, "application/json", 400, None, {}),
    (
        "number-out-of-range-json-patch",
        "PATCH",
        ITEM,
        b'[{"op":"add","path":"/spec/n","value":1e400}]',
        "application/json-patch+json",
        400,
        "error decoding patch: json: cannot unmarshal number 1e400 into Go struct field jsonPatchOp.value of type float64",
        {},
    ),
    (
        "number-out-of-range-merge",
        "PATCH",
        ITEM,
        b'{"spec":{"n":1e400}}',
        "application/merge-patch+json",
        400,
        "error decoding patch: json: cannot unmarshal number 1e400 into Go value of type float64",
        {},
    ),
    (
        "stale-resource-version-put",
        "PUT",
        ITEM,
        {**JOB, "metadata": {"name": "job-1", "resourceVersion": "1"}},
        "application/json",
        409,
        None,
        {},
    ),
    (
        "missing-resource-version-put",
        "PUT",
        ITEM,
        JOB,
        "application/json",
        422,
        'jobs.example.com "job-1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
        {},
    ),
    (
        "stale-resource-version-merge",
        "PATCH",
        ITEM,
        {"metadata": {"resourceVersion": "1"}},
        "application/merge-patch+json",
        409,
        None,
        {},
    ),
    (
        "stale-resource-version-test",
        "PATCH",
        ITEM,
        [{"op": "test", "path": "/metadata/resourceVersion", "value": "1"}],
        "application/json-patch+json",
        422,
        GENERIC_422,
        {},
    ),
    (
        "numeric-resource-version-test",
        "PATCH",
        ITEM,
        [{"op": "test", "path": "/metadata/resourceVersion", "value": 1}],
        "application/json-patch+json",
        422,
        GENERIC_422,
        {},
    ),
    ("bad-uid-precondition", "DELETE", ITEM, {"preconditions": {"uid": "nope"}}, "application/json", 409, None, {}),
    (
        "bad-rv-precondition",
        "DELETE",
        ITEM,
        {"preconditions": {"resourceVersion": "1"}},
        "application/json",
        409,
        None,
        {},
    ),
    (
        "bad-label-selector",
        "GET",
        JOBS + "?labelSelector=a%20b",
        None,
        None,
        400,
        "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
        {},
    ),
    (
        "unsupported-field-selector",
        "GET",
        JOBS + "?fieldSelector=spec.a%3D1",
        None,
        None,
        400,
        "field label not supported: spec.a",
        {},
    ),
    (
        "bad-field-selector",
        "GET",
        JOBS + "?fieldSelector=nonsense",
        None,
        None,
        400,
        "invalid selector: 'nonsense'; can't understand 'nonsense'",
        {},
    ),
    ("unknown-custom-resource", "GET", "/apis/example.com/v1/namespaces/default/widgets", None, None, 404, None, {}),
    ("unknown-group", "GET", "/apis/nope.example/v1/things", None, None, 404, None, {}),
    (
        "unknown-builtin-resource",
        "GET",
        "/api/v1/namespaces/default/widgets",
        None,
        None,
        404,
        "the server could not find the requested resource",
        {},
    ),
    (
        "name-differs-put",
        "PUT",
        ITEM,
        {**JOB, "metadata": {"name": "other", "resourceVersion": "1"}},
        "application/json",
        400,
        "the name of the object (other) does not match the name on the URL (job-1)",
        {},
    ),
    (
        "name-differs-patch",
        "PATCH",
        ITEM,
        {"metadata": {"name": "other"}},
        "application/merge-patch+json",
        400,
        "the name of the object (other) does not match the name on the URL (job-1)",
        {},
    ),
    (
        "namespace-differs",
        "POST",
        JOBS,
        {**JOB, "metadata": {"name": "x", "namespace": "kube-system"}},
        "application/json",
        400,
        "the namespace of the provided object does not match the namespace sent on the request",
        {},
    ),
    (
        "patch-not-json",
        "PATCH",
        ITEM,
        b"not json",
        "application/json-patch+json",
        400,
        "error decoding patch: invalid character 'o' in literal null (expecting 'u')",
        {},
    ),
    (
        "patch-object-not-array",
        "PATCH",
        ITEM,
        b"{}",
        "application/json-patch+json",
        400,
        "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp",
        {},
    ),
    (
        "patch-op-number",
        "PATCH",
        ITEM,
        b'[{"op":1}]',
        "application/json-patch+json",
        400,
        "error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string",
        {},
    ),
    ("merge-null", "PATCH", ITEM, b"null", "application/merge-patch+json", 400, "Invalid JSON Patch", {}),
    (
        "merge-array",
        "PATCH",
        ITEM,
        b"[]",
        "application/merge-patch+json",
        400,
        "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}",
        {},
    ),
    ("remove-kind", "PATCH", ITEM, [{"op": "remove", "path": "/kind"}], "application/json-patch+json", 422, None, {}),
    (
        "patch-missing-object",
        "PATCH",
        JOBS + "/nope",
        [],
        "application/json-patch+json",
        404,
        'jobs.example.com "nope" not found',
        {},
    ),
    ("already-exists", "POST", JOBS, JOB, "application/json", 409, 'jobs.example.com "job-1" already exists', {}),
    (
        "missing-namespace",
        "POST",
        "/apis/example.com/v1/namespaces/nowhere/jobs",
        JOB,
        "application/json",
        404,
        'namespaces "nowhere" not found',
        {},
    ),
    ("invalid-name", "POST", JOBS, {**JOB, "metadata": {"name": "Not_Valid"}}, "application/json", 422, None, {}),
    (
        "wrong-api-version",
        "POST",
        JOBS,
        {**JOB, "apiVersion": "other.io/v1"},
        "application/json",
        400,
        "the API version in the data (other.io/v1) does not match the expected API version (example.com/v1)",
        {},
    ),
    (
        "kind-mismatch",
        "POST",
        JOBS,
        {**JOB, "kind": "Other", "metadata": {"name": "x"}},
        "application/json",
        422,
        'Other.example.com "x" is invalid: kind: Invalid value: "Other": must be Job',
        {},
    ),
    (
        "panic-in-json-patch",
        "PATCH",
        ITEM,
        b'[{"op":"add","path":"/spec/l","value":[1,null]},{"op":"test","path":"/spec/l","value":[1,null]}]',
        "application/json-patch+json",
        500,
        None,
        {},
    ),
    (
        "bad-dry-run",
        "POST",
        JOBS + "?dryRun=Sometimes",
        {**JOB, "metadata": {"name": "x"}},
        "application/json",
        422,
        'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Sometimes"}: supported values: "All"',
        {},
    ),
    (
        "bad-field-validation",
        "PATCH",
        ITEM + "?fieldValidation=Loose",
        [],
        "application/json-patch+json",
        422,
        None,
        {},
    ),
    ("garbage-continue", "GET", JOBS + "?continue=%40%40", None, None, 400, None, {}),
    (
        "resource-version-on-create",
        "POST",
        JOBS,
        {**JOB, "metadata": {"name": "x", "resourceVersion": "5"}},
        "application/json",
        500,
        "resourceVersion should not be set on objects to be created",
        {},
    ),
    (
        "not-acceptable",
        "GET",
        ITEM,
        None,
        None,
        406,
        "only the following media types are accepted: application/json, application/yaml, "
        "application/vnd.kubernetes.protobuf",
        {"Accept": "text/html"},
    ),
    ("put-on-collection", "PUT", JOBS, JOB, "application/json", 400, "name must be provided", {}),
]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("method", "path", "body", "content_type", "code", "message", "headers"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
async def test_hostile_request_gets_the_apiserver_answer_and_changes_nothing(
    server: FakeAPIServer,
    client: RawClient,
    method: str,
    path: str,
    body: Any,
    content_type: str | None,
    code: int,
    message: str | None,
    headers: dict[str, str],
) -> None:
    assert (await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd())).status == 201
    assert (await client.post(JOBS, JOB)).status == 201
    before_revision = server.revision
    before = (await client.get(ITEM)).body

    reply = await client.request(method, path, body, content_type=content_type, headers=headers)

    assert reply.status == code, reply.body[:500]
    if path.startswith("/apis/example.com/v1/namespaces/default/widgets") or path.startswith("/apis/nope"):
        assert reply.body == b"404 page not found\n"
    elif code == 500 and message is None:
        assert reply.body == b"This request caused apiserver to panic. Look in the logs for details.\n"
    else:
        status = reply.json()
        assert status["kind"] == "Status" and status["status"] == "Failure" and status["code"] == code
        if message is not None:
            assert status["message"] == message
    assert server.revision == before_revision
    assert (await client.get(ITEM)).body == before
    assert (await client.get("/version")).status == 200


def test_there_are_at_least_38_hostile_cases() -> None:
    assert len(CASES) >= 38
