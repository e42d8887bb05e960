"""CRD validation rules (x-kubernetes-validations) over HTTP: the 422s and warnings a client sees (docs/cel.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
JOBS = "/apis/example.com/v1/namespaces/default/jobs"
MERGE = "application/merge-patch+json"


def schema(*rules: dict[str, Any], **spec_properties: Any) -> dict[str, Any]:
    properties = spec_properties or {
        "minReplicas": {"type": "integer"},
        "maxReplicas": {"type": "integer"},
        "size": {"type": "string"},
    }
    return {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": properties, "x-kubernetes-validations": list(rules)},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        },
    }


def job(name: str = "job-1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": name}, "spec": spec}


async def setup(client: RawClient, *rules: dict[str, Any]) -> None:
    reply = await client.post(CRDS, crd(schema=schema(*rules)))
    assert reply.status == 201, reply.body


def invalid(name: str, message: str, causes: list[tuple[str, str, str]]) -> bytes:
    body = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "Invalid",
        "details": {
            "name": name,
            "group": "example.com",
            "kind": "Job",
            "causes": [{"reason": r, "message": m, "field": f} for r, m, f in causes],
        },
        "code": 422,
    }
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    # Go's encoder escapes <, > and & for HTML.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode() + b"\n"


async def test_a_rule_that_fails_refuses_the_create_with_the_default_message(client: RawClient) -> None:
    await setup(client, {"rule": "self.minReplicas <= self.maxReplicas"})
    reply = await client.post(JOBS, job(minReplicas=3, maxReplicas=2))
    assert reply.status == 422
    detail = 'Invalid value: "object": failed rule: self.minReplicas <= self.maxReplicas'
    assert reply.body == invalid(
        "job-1", f'Job.example.com "job-1" is invalid: spec: {detail}', [("FieldValueInvalid", detail, "spec")]
    )
    assert (await client.get(f"{JOBS}/job-1")).status == 404
    ok = await client.post(JOBS, job(minReplicas=1, maxReplicas=2))
    assert ok.status == 201, ok.body


async def test_message_reason_and_field_path_shape_the_error(client: RawClient) -> None:
    await setup(
        client,
        {
            "rule": "self.minReplicas > 0",
            "messageExpression": "'minReplicas must be positive, not ' + (self.minReplicas == 0 ? 'zero' : 'less')",
            "reason": "FieldValueForbidden",
            "fieldPath": ".minReplicas",
        },
        {"rule": "self.maxReplicas < 10", "message": "too many", "reason": "FieldValueRequired"},
    )
    reply = await client.post(JOBS, job(minReplicas=0, maxReplicas=10))
    assert reply.status == 422
    assert reply.json()["details"]["causes"] == [
        {
            "reason": "FieldValueForbidden",
            "message": "Forbidden: minReplicas must be positive, not zero",
            "field": "spec.minReplicas",
        },
        {"reason": "FieldValueRequired", "message": "Required value: too many", "field": "spec"},
    ]


async def test_a_transition_rule_runs_only_on_update(client: RawClient) -> None:
    await setup(client, {"rule": "self.size == oldSelf.size", "message": "size is immutable"})
    created = await client.post(JOBS, job(size="small"))
    assert created.status == 201, created.body
    changed = await client.patch(f"{JOBS}/job-1", {"spec": {"size": "large"}}, content_type=MERGE)
    assert changed.status == 422
    assert (
        changed.json()["message"]
        == 'Job.example.com "job-1" is invalid: spec: Invalid value: "object": size is immutable'
    )
    assert (await client.get(f"{JOBS}/job-1")).json()["spec"]["size"] == "small"
    same = await client.patch(f"{JOBS}/job-1", {"metadata": {"labels": {"a": "b"}}}, content_type=MERGE)
    assert same.status == 200, same.body


async def test_an_unchanged_invalid_field_is_ratcheted_into_a_warning(client: RawClient) -> None:
    await setup(client)
    assert (await client.post(JOBS, job(minReplicas=3, maxReplicas=2))).status == 201
    rules = schema({"rule": "self.minReplicas <= self.maxReplicas"})
    current = (await client.get(f"{CRDS}/jobs.example.com")).json()
    current["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = rules
    assert (await client.put(f"{CRDS}/jobs.example.com", current)).status == 200
    relabelled = await client.patch(f"{JOBS}/job-1", {"metadata": {"labels": {"a": "b"}}}, content_type=MERGE)
    assert relabelled.status == 200, relabelled.body
    assert relabelled.headers.get("Warning") == (
        '299 - "spec: Invalid value: \\"object\\": failed rule: self.minReplicas <= self.maxReplicas"'
    )
    touched = await client.patch(f"{JOBS}/job-1", {"spec": {"minReplicas": 4}}, content_type=MERGE)
    assert touched.status == 422


async def test_status_writes_and_dry_runs_are_checked_too(client: RawClient) -> None:
    reply = await client.post(
        CRDS,
        crd(
            schema={
                "type": "object",
                "properties": {
                    "status": {
                        "type": "object",
                        "properties": {"phase": {"type": "string"}},
                        "x-kubernetes-validations": [{"rule": "self.phase != 'Bad'"}],
                    }
                },
            }
        ),
    )
    assert reply.status == 201, reply.body
    assert (await client.post(JOBS, {**job(), "spec": None})).status == 201
    bad = await client.patch(f"{JOBS}/job-1/status", {"status": {"phase": "Bad"}}, content_type=MERGE)
    assert bad.status == 422
    assert bad.json()["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: \"object\": failed rule: self.phase != 'Bad'",
            "field": "status",
        }
    ]
    dry = await client.post(f"{JOBS}?dryRun=All", {**job("job-2"), "status": {"phase": "Bad"}})
    assert dry.status == 201


async def test_an_evaluation_error_is_a_field_error_not_a_500(client: RawClient) -> None:
    rules = ({"rule": "self.minReplicas <= self.maxReplicas"}, {"rule": "self.tags[self.minReplicas] == 'x'"})
    properties = {
        "minReplicas": {"type": "integer"},
        "maxReplicas": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
    }
    reply = await client.post(CRDS, crd(schema=schema(*rules, **properties)))
    assert reply.status == 201, reply.body
    missing = await client.post(JOBS, job(maxReplicas=2, tags=["x"]))
    assert missing.status == 422
    assert [cause["message"] for cause in missing.json()["details"]["causes"]] == [
        'Invalid value: "object": no such key: minReplicas evaluating rule: self.minReplicas <= self.maxReplicas',
        "Invalid value: \"object\": no such key: minReplicas evaluating rule: self.tags[self.minReplicas] == 'x'",
    ]
    out_of_range = await client.post(JOBS, job(minReplicas=5, maxReplicas=6, tags=["x"]))
    assert out_of_range.json()["details"]["causes"][0]["message"] == (
        "Invalid value: \"object\": index out of bounds: 5 evaluating rule: self.tags[self.minReplicas] == 'x'"
    )


async def test_schema_errors_block_the_rules(client: RawClient) -> None:
    await setup(client, {"rule": "self.minReplicas <= self.maxReplicas"})
    reply = await client.post(JOBS, job(minReplicas="three", maxReplicas=2))
    assert reply.status == 422
    assert reply.json()["details"]["causes"][-1] == {
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "null": some validation rules were not checked because the object was invalid; '
        "correct the existing errors to complete validation",
        "field": "<nil>",
    }


async def test_a_crd_whose_rule_does_not_compile_is_refused(client: RawClient) -> None:
    reply = await client.post(CRDS, crd(schema=schema({"rule": "self.minReplicass <= self.maxReplicas"})))
    assert reply.status == 422
    prefix = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
    detail = (
        "compilation failed: ERROR: <input>:1:5: undefined field 'minReplicass'\n"
        " | self.minReplicass <= self.maxReplicas\n"
        " | ....^"
    )
    value = (
        'apiextensions.ValidationRule{Rule:"self.minReplicass <= self.maxReplicas", Message:"", MessageExpression:"", '
        'Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}'
    )
    assert reply.json()["details"]["causes"] == [
        {"reason": "FieldValueInvalid", "message": f"Invalid value: {value}: {detail}", "field": prefix}
    ]
    assert reply.json()["message"] == (
        f'CustomResourceDefinition.apiextensions.k8s.io "jobs.example.com" is invalid: {prefix}: Invalid value: {value}: {detail}'
    )
    assert (await client.get(f"{CRDS}/jobs.example.com")).status == 404


async def test_a_crd_rule_must_be_bool_and_its_fields_well_formed(client: RawClient) -> None:
    reply = await client.post(
        CRDS,
        crd(
            schema=schema(
                {"rule": "self.size"},
                {"rule": "true", "reason": "Nope", "fieldPath": ".nothing"},
                {"rule": "self.size == 'a'", "optionalOldSelf": True},
                {"rule": "true", "message": " "},
            )
        ),
    )
    assert reply.status == 422
    causes = [(c["field"].rsplit(".", 2)[-2:], c["message"]) for c in reply.json()["details"]["causes"]]
    assert causes == [
        (
            ["x-kubernetes-validations[1]", "reason"],
            'Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", '
            '"FieldValueInvalid", "FieldValueRequired"',
        ),
        (["x-kubernetes-validations[1]", "fieldPath"], 'Invalid value: ".nothing": fieldPath must be a valid path'),
        (["x-kubernetes-validations[3]", "message"], 'Invalid value: " ": message must be non-empty if specified'),
    ]
    fixed = await client.post(
        CRDS, crd(schema=schema({"rule": "self.size"}, {"rule": "self.size == 'a'", "optionalOldSelf": True}))
    )
    assert fixed.status == 422
    assert [c["message"].rsplit(": ", 1)[-1] for c in fixed.json()["details"]["causes"]] == [
        "cel expression must evaluate to a bool",
        "may not be set if oldSelf is not used in rule",
    ]


async def test_a_crd_whose_rules_cost_too_much_is_refused(client: RawClient) -> None:
    unbounded = {"tags": {"type": "array", "items": {"type": "string"}}}
    expensive = {"rule": "self.tags.all(x, self.tags.all(y, x == y))"}
    refused = await client.post(CRDS, crd(schema=schema(expensive, **unbounded)))
    assert refused.status == 422
    hint = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    rule = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
    assert refused.json()["details"]["causes"] == [
        {
            "reason": "FieldValueForbidden",
            "message": f"Forbidden: estimated rule cost exceeds budget by factor of more than 100x {hint}",
            "field": rule,
        },
        {
            "reason": "FieldValueForbidden",
            "message": "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
            "field": rule,
        },
        {
            "reason": "FieldValueForbidden",
            "message": "Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema "
            f"exceeds budget by factor of more than 100x {hint}",
            "field": "spec.validation.openAPIV3Schema",
        },
    ]
    bounded = {"tags": {"type": "array", "maxItems": 100, "items": {"type": "string", "maxLength": 63}}}
    admitted = await client.post(CRDS, crd(schema=schema(expensive, **bounded)))
    assert admitted.status == 201, admitted.body


async def test_every_kind_of_write_runs_the_rules(client: RawClient) -> None:
    await setup(client, {"rule": "self.minReplicas <= self.maxReplicas", "message": "out of order"})
    created = (await client.post(JOBS, job(minReplicas=1, maxReplicas=2))).json()
    detail = 'Invalid value: "object": out of order'
    put = await client.put(f"{JOBS}/job-1", {**created, "spec": {"minReplicas": 3, "maxReplicas": 2}})
    json_patch = await client.patch(
        f"{JOBS}/job-1",
        [{"op": "replace", "path": "/spec/minReplicas", "value": 5}],
        content_type="application/json-patch+json",
    )
    applied = await client.patch(
        f"{JOBS}/job-1?fieldManager=tester&force=true",
        {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "job-1"}, "spec": {"minReplicas": 9}},
        content_type="application/apply-patch+yaml",
    )
    dry_update = await client.patch(f"{JOBS}/job-1?dryRun=All", {"spec": {"maxReplicas": 0}}, content_type=MERGE)
    for reply in (put, json_patch, applied, dry_update):
        assert reply.status == 422, reply.body
        assert reply.json()["details"]["causes"] == [
            {"reason": "FieldValueInvalid", "message": detail, "field": "spec"}
        ]
    assert (await client.get(f"{JOBS}/job-1")).json()["spec"] == {"minReplicas": 1, "maxReplicas": 2}
    new_by_apply = await client.patch(
        f"{JOBS}/job-2?fieldManager=tester",
        {
            "apiVersion": "example.com/v1",
            "kind": "Job",
            "metadata": {"name": "job-2"},
            "spec": {"minReplicas": 2, "maxReplicas": 1},
        },
        content_type="application/apply-patch+yaml",
    )
    assert new_by_apply.status == 422
    assert new_by_apply.json()["details"]["causes"][0]["message"] == detail


async def test_schema_validation_ratchets_an_unchanged_invalid_field_too(client: RawClient) -> None:
    await setup(client)
    assert (await client.post(JOBS, job(size="a-very-long-size", minReplicas=1))).status == 201
    current = (await client.get(f"{CRDS}/jobs.example.com")).json()
    tightened = schema(size={"type": "string", "maxLength": 5}, minReplicas={"type": "integer"})
    current["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = tightened
    assert (await client.put(f"{CRDS}/jobs.example.com", current)).status == 200
    other_field = await client.patch(f"{JOBS}/job-1", {"spec": {"minReplicas": 2}}, content_type=MERGE)
    assert other_field.status == 200, other_field.body
    same_field = await client.patch(f"{JOBS}/job-1", {"spec": {"size": "still-too-long"}}, content_type=MERGE)
    assert same_field.status == 422
    assert same_field.json()["details"]["causes"] == [
        {"reason": "FieldValueTooLong", "message": "Too long: may not be more than 5 bytes", "field": "spec.size"}
    ]
    # A /status write checks the status alone against the schema (the rules still see the whole object).
    status_write = await client.patch(f"{JOBS}/job-1/status", {"status": {"a": 1}}, content_type=MERGE)
    assert status_write.status == 200, status_write.body


async def test_a_pattern_that_backtracks_elsewhere_answers_at_once(client: RawClient) -> None:
    # RE2, as in Go: '(a+)+$' on many a's and a '!' is linear, not exponential; and a bad literal pattern
    # is refused with Go's words when the CRD is written.
    rules = ({"rule": "self.size.find('(a+)+$') == '' && !self.size.matches('(a+)+$')"},)
    assert (await client.post(CRDS, crd(schema=schema(*rules)))).status == 201
    assert (await client.post(JOBS, job(size="a" * 3000 + "!"))).status == 201
    bad = await client.post(
        CRDS, crd(plural="gadgets", kind="Gadget", schema=schema({"rule": "self.size.find('a**') == ''"}))
    )
    assert bad.status == 422
    assert bad.json()["details"]["causes"][0]["message"].endswith(
        ": program instantiation failed: error parsing regexp: invalid nested repetition operator: `**`"
    )


async def test_rules_under_all_of_run_on_the_node(client: RawClient) -> None:
    spec = {
        "type": "object",
        "properties": {"minReplicas": {"type": "integer"}, "maxReplicas": {"type": "integer"}},
        "allOf": [{"x-kubernetes-validations": [{"rule": "self.minReplicas <= self.maxReplicas"}]}],
    }
    created = await client.post(CRDS, crd(schema={"type": "object", "properties": {"spec": spec}}))
    assert created.status == 201, created.body
    refused = await client.post(JOBS, job(minReplicas=2, maxReplicas=1))
    assert refused.status == 422
    assert refused.json()["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": 'Invalid value: "object": failed rule: self.minReplicas <= self.maxReplicas',
            "field": "spec",
        }
    ]


async def test_cel_bind_is_not_offered_to_crd_rules(client: RawClient) -> None:
    # Kubernetes 1.32 gives rules no bindings library: cel.bind is an undeclared name, as in the apiserver.
    refused = await client.post(CRDS, crd(schema=schema({"rule": "cel.bind(x, self.minReplicas, x > 0)"})))
    assert refused.status == 422
    message = refused.json()["details"]["causes"][0]["message"]
    assert message.endswith(
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'cel' (in container '')\n"
        " | cel.bind(x, self.minReplicas, x > 0)\n"
        " | ^\n"
        "ERROR: <input>:1:9: undeclared reference to 'bind' (in container '')\n"
        " | cel.bind(x, self.minReplicas, x > 0)\n"
        " | ........^\n"
        "ERROR: <input>:1:10: undeclared reference to 'x' (in container '')\n"
        " | cel.bind(x, self.minReplicas, x > 0)\n"
        " | .........^\n"
        "ERROR: <input>:1:31: undeclared reference to 'x' (in container '')\n"
        " | cel.bind(x, self.minReplicas, x > 0)\n"
        " | ..............................^"
    ), message


async def test_an_optional_old_self_rule_runs_on_create_and_update(client: RawClient) -> None:
    never_down = {
        "rule": "!oldSelf.hasValue() || oldSelf.value().minReplicas <= self.minReplicas",
        "optionalOldSelf": True,
        "message": "minReplicas may not go down",
    }
    typo = {**never_down, "rule": "!oldSelf.hasValue() || oldSelf.value().minReplica <= self.minReplicas"}
    refused = await client.post(CRDS, crd(schema=schema(typo)))
    assert refused.status == 422
    assert refused.json()["details"]["causes"][0]["message"].endswith(
        "compilation failed: ERROR: <input>:1:39: undefined field 'minReplica'\n"
        " | !oldSelf.hasValue() || oldSelf.value().minReplica <= self.minReplicas\n"
        " | ......................................^"
    )
    await setup(client, never_down)
    assert (await client.post(JOBS, job(minReplicas=2))).status == 201
    down = await client.patch(f"{JOBS}/job-1", {"spec": {"minReplicas": 1}}, content_type=MERGE)
    assert down.status == 422
    assert down.json()["details"]["causes"][0]["message"] == 'Invalid value: "object": minReplicas may not go down'
    up = await client.patch(f"{JOBS}/job-1", {"spec": {"minReplicas": 3}}, content_type=MERGE)
    assert up.status == 200, up.body
