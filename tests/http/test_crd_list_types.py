"""``x-kubernetes-list-type: set`` and ``map`` lists refused with duplicates (docs/validation.md, "List types").

Each refusal is asserted on the exact Status bytes, and on the object being left as it was stored.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
JOBS = "/apis/example.com/v1/namespaces/default/jobs"
APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"

PORT = {"type": "object", "required": ["port"], "properties": {"port": {"type": "integer"}, "name": {"type": "string"}}}
PAIR = {"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
SET_OF_STRINGS = {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}
SPEC = {
    "type": "object",
    "properties": {
        "tags": SET_OF_STRINGS,
        "numbers": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "number"}},
        "ports": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["port"],
            "items": PORT,
        },
        "pairs": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["a", "b"],
            "items": PAIR,
        },
        "groups": {"type": "array", "items": SET_OF_STRINGS},
        "points": {
            "type": "array",
            "x-kubernetes-list-type": "set",
            "items": {"type": "object", "properties": {"x": {"type": "number"}}},
        },
        "byName": {"type": "object", "additionalProperties": SET_OF_STRINGS},
    },
}
SCHEMA = {
    "type": "object",
    "properties": {"spec": SPEC, "status": {"type": "object", "properties": {"tags": SET_OF_STRINGS}}},
}


def job(name: str = "job-1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": name}, "spec": spec}


def invalid(name: str, *causes: tuple[str, str]) -> bytes:
    """The 422 Status of a Job whose field errors are ``(field, body)`` pairs, as the apiserver writes it."""
    texts = [f"{where}: {what}" for where, what in causes]
    joined = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    status = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'Job.example.com "{name}" is invalid: {joined}',
        "reason": "Invalid",
        "details": {
            "name": name,
            "group": "example.com",
            "kind": "Job",
            "causes": [
                {
                    "reason": "FieldValueDuplicate" if what.startswith("Duplicate") else _reason(what),
                    "message": what,
                    "field": where,
                }
                for where, what in causes
            ],
        },
        "code": 422,
    }
    return json.dumps(status, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def _reason(body: str) -> str:
    return {"Required value": "FieldValueRequired"}.get(body, "FieldValueInvalid")


async def setup(client: RawClient, schema: dict[str, Any] = SCHEMA) -> None:
    reply = await client.post(CRDS, crd(schema=schema))
    assert reply.status == 201, reply.body


async def test_a_set_reports_the_second_occurrence_of_each_repeated_item(client: RawClient) -> None:
    await setup(client)
    refused = await client.post(JOBS, job(tags=["a", "b", "a", "a", "b", "c"]))
    assert refused.status == 422
    assert refused.body == invalid(
        "job-1", ("spec.tags[2]", 'Duplicate value: "a"'), ("spec.tags[4]", 'Duplicate value: "b"')
    )
    assert (await client.get(f"{JOBS}/job-1")).status == 404


async def test_numbers_in_a_set_are_equal_only_with_the_same_go_type(client: RawClient) -> None:
    await setup(client)
    # 1 decodes as int64 and 1.0 as float64: different map keys in Go; 1.5 twice is a duplicate.
    refused = await client.post(
        JOBS,
        b'{"apiVersion":"example.com/v1","kind":"Job","metadata":{"name":"job-1"},"spec":{"numbers":[1,1.0,1.5,1.50]}}',
    )
    assert refused.body == invalid("job-1", ("spec.numbers[3]", "Duplicate value: 1.5"))
    created = await client.post(
        JOBS, b'{"apiVersion":"example.com/v1","kind":"Job","metadata":{"name":"job-2"},"spec":{"numbers":[1,1.0]}}'
    )
    assert created.status == 201, created.body


async def test_objects_in_a_set_are_equal_when_their_json_is(client: RawClient) -> None:
    await setup(client)
    # As JSON, 1 and 1.0 are both written 1: the objects are the same item.
    refused = await client.post(
        JOBS,
        b'{"apiVersion":"example.com/v1","kind":"Job","metadata":{"name":"job-1"},'
        b'"spec":{"points":[{"x":1},{"x":2},{"x":1.0}]}}',
    )
    assert refused.body == invalid("job-1", ("spec.points[2]", 'Duplicate value: map[string]interface {}{"x":1}'))


async def test_a_map_list_reports_repeated_keys_as_go_maps(client: RawClient) -> None:
    await setup(client)
    refused = await client.post(
        JOBS,
        job(
            ports=[{"port": 80, "name": "a"}, {"port": 443}, {"port": 80, "name": "b"}],
            pairs=[{"a": "x", "b": 1}, {"a": "y", "b": 1}, {"b": 1, "a": "x"}],
        ),
    )
    assert refused.status == 422
    assert refused.body == invalid(
        "job-1",
        ("spec.ports[2]", 'Duplicate value: map[string]interface {}{"port":80}'),
        ("spec.pairs[2]", 'Duplicate value: map[string]interface {}{"a":"x", "b":1}'),
    )
    assert (await client.get(JOBS)).json()["items"] == []


async def test_map_items_without_their_key_share_the_empty_key(client: RawClient) -> None:
    await setup(client)
    refused = await client.post(JOBS, job(ports=[{"name": "a"}, {"port": 1}, {"name": "b"}]))
    # The schema's required key is reported first; the list type then sees two items with no key.
    assert refused.body == invalid(
        "job-1",
        ("spec.ports[0].port", "Required value"),
        ("spec.ports[2].port", "Required value"),
        ("spec.ports[2]", "Duplicate value: map[string]interface {}{}"),
    )


async def test_an_item_of_a_map_list_must_be_an_object(client: RawClient) -> None:
    await setup(client)
    refused = await client.post(JOBS, job(ports=[{"port": 1}, "x", {"port": 1}]))
    # The schema's type error, then the list type's, which stops there: the repeated key 1 goes unreported.
    assert refused.body == (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Job.example.com \\"job-1\\" '
        b'is invalid: [spec.ports[1]: Invalid value: \\"string\\": spec.ports[1] in body must be of type object: '
        b'\\"string\\", spec.ports[1]: Invalid value: \\"x\\": must be an object for an array of list-type map]",'
        b'"reason":"Invalid","details":{"name":"job-1","group":"example.com","kind":"Job","causes":[{"reason":'
        b'"FieldValueTypeInvalid","message":"Invalid value: \\"string\\": spec.ports[1] in body must be of type '
        b'object: \\"string\\"","field":"spec.ports[1]"},{"reason":"FieldValueInvalid","message":"Invalid value: '
        b'\\"x\\": must be an object for an array of list-type map","field":"spec.ports[1]"}]},"code":422}\n'
    )


async def test_nested_lists_and_map_values_are_checked_too(client: RawClient) -> None:
    await setup(client)
    refused = await client.post(JOBS, job(groups=[["a"], ["b", "b"]], byName={"x": ["c", "c"]}))
    assert refused.body == invalid(
        "job-1",
        ("spec.groups[1][1]", 'Duplicate value: "b"'),
        ("spec.byName[x][1]", 'Duplicate value: "c"'),
    )


async def test_put_merge_patch_and_status_writes_are_refused_and_change_nothing(client: RawClient) -> None:
    await setup(client)
    created = await client.post(JOBS, job(tags=["a"]))
    assert created.status == 201, created.body
    stored = await client.get(f"{JOBS}/job-1")
    replaced = await client.put(f"{JOBS}/job-1", {**created.json(), "spec": {"tags": ["a", "a"]}})
    assert replaced.body == invalid("job-1", ("spec.tags[1]", 'Duplicate value: "a"'))
    patched = await client.patch(f"{JOBS}/job-1", {"spec": {"tags": ["b", "b"]}}, content_type=MERGE)
    assert patched.body == invalid("job-1", ("spec.tags[1]", 'Duplicate value: "b"'))
    status = await client.patch(f"{JOBS}/job-1/status", {"status": {"tags": ["c", "c"]}}, content_type=MERGE)
    assert status.body == invalid("job-1", ("status.tags[1]", 'Duplicate value: "c"'))
    assert (await client.get(f"{JOBS}/job-1")).body == stored.body


async def test_an_applied_configuration_with_duplicates_fails_in_the_field_manager(client: RawClient) -> None:
    await setup(client)
    applied = await client.patch(f"{JOBS}/job-1?fieldManager=tool", job(tags=["a", "a"]), content_type=APPLY)
    # ``ObjectToTyped`` refuses duplicates in the applied object before any validation: a plain 500.
    assert applied.status == 500
    assert applied.body == (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"failed to create typed '
        b'patch object (/job-1; example.com/v1, Kind=Job): .spec.tags: duplicate entries for key [=\\"a\\"]",'
        b'"code":500}\n'
    )
    assert (await client.get(f"{JOBS}/job-1")).status == 404


async def test_an_object_that_already_breaks_a_list_type_ratchets_as_a_whole(client: RawClient) -> None:
    loose = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "more": {"type": "array", "items": {"type": "string"}},
                },
            },
            "status": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}},
        },
    }
    await setup(client, loose)
    created = await client.post(JOBS, job(tags=["a", "a"]))
    assert created.status == 201, created.body
    definition = (await client.get(f"{CRDS}/jobs.example.com")).json()
    strict = json.loads(json.dumps(loose))
    for where in (strict["properties"]["spec"]["properties"], strict["properties"]["status"]["properties"]):
        for name in where:
            where[name]["x-kubernetes-list-type"] = "set"
    definition["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = strict
    assert (await client.put(f"{CRDS}/jobs.example.com", definition)).status == 200

    # The stored object already has a duplicate: no list-type error is reported for the update, not even
    # for a new duplicate elsewhere (upstream skips the check when the old object fails it).
    kept = await client.patch(f"{JOBS}/job-1", {"spec": {"more": ["b", "b"]}}, content_type=MERGE)
    assert kept.status == 200, kept.body
    status = await client.patch(f"{JOBS}/job-1/status", {"status": {"tags": ["c", "c"]}}, content_type=MERGE)
    assert status.status == 200, status.body
    # Once the stored object is clean, a duplicate is refused again.
    cleaned = await client.patch(f"{JOBS}/job-1", {"spec": {"tags": ["a"], "more": ["b"]}}, content_type=MERGE)
    assert cleaned.status == 200, cleaned.body
    cleaned_status = await client.patch(f"{JOBS}/job-1/status", {"status": {"tags": ["c"]}}, content_type=MERGE)
    assert cleaned_status.status == 200, cleaned_status.body
    again = await client.patch(f"{JOBS}/job-1", {"spec": {"tags": ["a", "a"]}}, content_type=MERGE)
    assert again.body == invalid("job-1", ("spec.tags[1]", 'Duplicate value: "a"'))
    # A new object gets no such allowance.
    refused = await client.post(JOBS, job("job-2", tags=["a", "a"]))
    assert refused.body == invalid("job-2", ("spec.tags[1]", 'Duplicate value: "a"'))
