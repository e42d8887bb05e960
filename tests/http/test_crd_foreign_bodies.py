"""A custom resource body of another version, group or kind than its endpoint's (docs/conversion.md,
"A body at another version"): the exact refusal of a create, an update, a patch and an apply, and nothing
stored or changed after it.

The CRD has v1 (storage, ``spec.a``), v2 (served, ``spec.b``) and v3 (not served, ``spec.c``); v9 it does not
have. Every body is sent to the v1 endpoint.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
V1 = "/apis/example.com/v1/namespaces/default/jobs"
APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"


def _spec_schema(field: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {field: {"type": "integer"}}}},
    }


def job(api_version: str, name: str = "job-1", kind: str = "Job") -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, "spec": {"a": 1, "b": 2, "c": 3}}


def bad_request(message: str) -> bytes:
    status = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "BadRequest",
        "code": 400,
    }
    return json.dumps(status, separators=(",", ":")).encode() + b"\n"


def not_at_v1(api_version: str) -> bytes:
    return bad_request(
        f"the API version in the data ({api_version}) does not match the expected API version (example.com/v1)"
    )


async def setup(client: RawClient) -> None:
    definition = crd(schema=_spec_schema("a"), versions=["v1", "v2", "v3"])
    versions = definition["spec"]["versions"]
    versions[1]["schema"] = {"openAPIV3Schema": _spec_schema("b")}
    versions[2]["schema"] = {"openAPIV3Schema": _spec_schema("c")}
    versions[2]["served"] = False
    reply = await client.post(CRDS, definition)
    assert reply.status == 201, reply.body


# The fields the version a body names does not have: its schema prunes them, v9 having none.
UNKNOWN = {"v2": ["spec.a", "spec.c"], "v3": ["spec.a", "spec.b"], "v9": ["spec"]}


@pytest.mark.parametrize("version", ["v2", "v3", "v9"])
async def test_a_create_at_another_version_is_refused_after_that_versions_pruning(
    client: RawClient, version: str
) -> None:
    await setup(client)
    api_version = f"example.com/{version}"
    warned = await client.post(V1, job(api_version))
    assert (warned.status, warned.body) == (400, not_at_v1(api_version))
    assert warned.warnings == [f'299 - "unknown field \\"{path}\\""' for path in UNKNOWN[version]]
    strict = await client.post(f"{V1}?fieldValidation=Strict", job(api_version))
    unknown = ", ".join(f'unknown field "{path}"' for path in UNKNOWN[version])
    assert strict.body == bad_request(
        f'Job in version "{version}" cannot be handled as a Job: strict decoding error: {unknown}'
    )
    # A body that only has what its version knows reaches the version check under Strict too.
    bare = {"apiVersion": api_version, "kind": "Job", "metadata": {"name": "job-1"}}
    assert (await client.post(f"{V1}?fieldValidation=Strict", bare)).body == not_at_v1(api_version)
    assert (await client.get(V1)).json()["items"] == []


async def test_a_create_of_another_group_or_kind_is_refused(client: RawClient) -> None:
    await setup(client)
    other_group = await client.post(f"{V1}?fieldValidation=Strict", job("other.io/v1"))
    # Not this CRD's group and kind: the CR decoder leaves it alone, so no field is unknown.
    assert (other_group.body, other_group.warnings) == (not_at_v1("other.io/v1"), [])
    core = await client.post(V1, job("v1"))
    assert core.body == not_at_v1("v1")
    other_kind = await client.post(V1, job("example.com/v1", kind="Other"))
    assert other_kind.status == 422
    assert other_kind.body == (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Other.example.com '
        b'\\"job-1\\" is invalid: kind: Invalid value: \\"Other\\": must be Job","reason":"Invalid","details":'
        b'{"name":"job-1","group":"example.com","kind":"Other","causes":[{"reason":"FieldValueInvalid","message":'
        b'"Invalid value: \\"Other\\": must be Job","field":"kind"}]},"code":422}\n'
    )
    assert (await client.get(V1)).json()["items"] == []


async def test_an_update_at_another_version_changes_nothing(client: RawClient) -> None:
    await setup(client)
    created = await client.post(V1, {**job("example.com/v1"), "spec": {"a": 1}})
    assert created.status == 201, created.body
    stored = (await client.get(f"{V1}/job-1")).body
    revision = created.json()["metadata"]["resourceVersion"]
    for api_version in ("example.com/v2", "example.com/v3", "example.com/v9", "other.io/v1"):
        body = {**job(api_version), "metadata": {"name": "job-1", "resourceVersion": revision}}
        replaced = await client.put(f"{V1}/job-1", body)
        assert (replaced.status, replaced.body) == (400, not_at_v1(api_version))
    strict = await client.put(
        f"{V1}/job-1?fieldValidation=Strict",
        {**job("example.com/v9"), "metadata": {"name": "job-1", "resourceVersion": revision}},
    )
    assert strict.body == bad_request(
        'Job in version "v9" cannot be handled as a Job: strict decoding error: unknown field "spec"'
    )
    patched = await client.patch(f"{V1}/job-1", {"apiVersion": "example.com/v9"}, content_type=MERGE)
    # A patch result at another version is decoded as it is and refused by the type check of validation.
    assert patched.status == 422
    assert patched.warnings == ['299 - "unknown field \\"spec\\""']
    assert patched.json()["message"] == (
        'Job.example.com "job-1" is invalid: apiVersion: Invalid value: "example.com/v9": must be example.com/v1'
    )
    assert (await client.get(f"{V1}/job-1")).body == stored


@pytest.mark.parametrize(
    ("api_version", "kind", "shown"),
    [
        ("example.com/v2", "Job", "example.com/v2, Kind=Job"),
        ("example.com/v3", "Job", "example.com/v3, Kind=Job"),
        ("example.com/v9", "Job", "example.com/v9, Kind=Job"),
        ("other.io/v1", "Job", "other.io/v1, Kind=Job"),
        ("example.com/v1", "Other", "example.com/v1, Kind=Other"),
        ("v1", "Job", "/v1, Kind=Job"),
        ("a/b/c", "Job", "/, Kind="),
    ],
)
async def test_an_apply_of_another_type_is_refused_by_the_field_manager(
    client: RawClient, api_version: str, kind: str, shown: str
) -> None:
    await setup(client)
    created = await client.patch(
        f"{V1}/job-1?fieldManager=tool", job("example.com/v1", name="job-1") | {"spec": {"a": 1}}, content_type=APPLY
    )
    assert created.status == 201, created.body
    stored = (await client.get(f"{V1}/job-1")).body
    for name in ("job-1", "job-2"):  # an update, and a create
        applied = await client.patch(
            f"{V1}/{name}?fieldManager=tool", job(api_version, name=name, kind=kind), content_type=APPLY
        )
        assert (applied.status, applied.body) == (400, bad_request(f"invalid object type: {shown}"))
    assert (await client.get(f"{V1}/job-1")).body == stored
    assert (await client.get(f"{V1}/job-2")).status == 404


async def test_the_apply_type_check_holds_for_status_and_for_built_in_kinds(client: RawClient) -> None:
    await setup(client)
    assert (await client.post(V1, {**job("example.com/v1"), "spec": {"a": 1}})).status == 201
    stored = (await client.get(f"{V1}/job-1")).body
    status = await client.patch(
        f"{V1}/job-1/status?fieldManager=tool", {**job("example.com/v2"), "status": {"x": 1}}, content_type=APPLY
    )
    assert status.body == bad_request("invalid object type: example.com/v2, Kind=Job")
    assert (await client.get(f"{V1}/job-1")).body == stored
    config_map = {"apiVersion": "apps/v1", "kind": "ConfigMap", "metadata": {"name": "settings"}}
    applied = await client.patch(
        "/api/v1/namespaces/default/configmaps/settings?fieldManager=tool", config_map, content_type=APPLY
    )
    assert applied.body == bad_request("invalid object type: apps/v1, Kind=ConfigMap")
    assert (await client.get("/api/v1/namespaces/default/configmaps/settings")).status == 404
