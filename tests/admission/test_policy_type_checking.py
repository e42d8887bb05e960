"""``status.typeChecking`` and ``status.observedGeneration`` of ValidatingAdmissionPolicies, as the status
controller writes them after a write that raises the generation (docs/admission-policies.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.admission.policy_objects import POLICIES, policy, rule
from tests.conftest import CRD_GROUP, RawClient, crd

pytestmark = pytest.mark.asyncio

DEPLOYMENTS = [rule(["deployments"], ["apps"], apiVersions=["v1"])]
MISSPELT = (
    "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicaz'\n"
    " | object.spec.replicaz > 1\n"
    " | ...........^\n"
)


async def _created(client: RawClient, body: dict[str, Any]) -> dict[str, Any]:
    reply = await client.post(POLICIES, body)
    assert reply.status == 201, reply.body
    found: dict[str, Any] = (await client.get(f"{POLICIES}/{body['metadata']['name']}")).json()
    return found


async def test_an_undefined_field_is_warned_with_its_field_ref(client: RawClient) -> None:
    body = policy(
        "replicas",
        {"expression": "object.spec.replicas > 1", "messageExpression": "'at ' + object.metadata.name"},
        {"expression": "object.spec.replicaz > 1", "messageExpression": "string(object.spec.template.spec.nodeNam)"},
        rules=DEPLOYMENTS,
    )
    stored = await _created(client, body)
    assert stored["status"] == {
        "observedGeneration": 1,
        "typeChecking": {
            "expressionWarnings": [
                {"fieldRef": "spec.validations[1].expression", "warning": MISSPELT},
                {
                    "fieldRef": "spec.validations[1].messageExpression",
                    "warning": "apps/v1, Kind=Deployment: ERROR: <input>:1:33: undefined field 'nodeNam'\n"
                    " | string(object.spec.template.spec.nodeNam)\n | " + "." * 32 + "^\n",
                },
            ]
        },
    }
    status_entry = [entry for entry in stored["metadata"]["managedFields"] if entry.get("subresource") == "status"]
    assert status_entry == [
        {
            "manager": "validatingadmissionpolicy-status",
            "operation": "Apply",
            "apiVersion": "admissionregistration.k8s.io/v1",
            "time": status_entry[0]["time"],
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:status": {"f:observedGeneration": {}, "f:typeChecking": {"f:expressionWarnings": {}}}},
            "subresource": "status",
        }
    ]


async def test_a_correct_policy_gets_an_empty_type_checking(client: RawClient) -> None:
    stored = await _created(
        client,
        policy(
            "fine",
            {"expression": "object.spec.replicas <= variables.most && has(object.metadata.labels)"},
            rules=DEPLOYMENTS,
            variables=[{"name": "most", "expression": "5"}],
        ),
    )
    assert stored["status"] == {"observedGeneration": 1, "typeChecking": {}}


async def test_variables_are_typed_from_the_schema(client: RawClient) -> None:
    stored = await _created(
        client,
        policy(
            "vars",
            {"expression": "variables.spec.paused == true"},
            {"expression": "variables.spec.pausd == true"},
            rules=DEPLOYMENTS,
            variables=[{"name": "spec", "expression": "object.spec"}],
        ),
    )
    assert [warning["fieldRef"] for warning in stored["status"]["typeChecking"]["expressionWarnings"]] == [
        "spec.validations[1].expression"
    ]


async def test_observed_generation_follows_the_generation(client: RawClient) -> None:
    body = policy("gen", {"expression": "object.spec.replicaz > 1"}, rules=DEPLOYMENTS)
    first = await _created(client, body)
    assert first["metadata"]["generation"] == 1 and first["status"]["observedGeneration"] == 1
    assert first["status"]["typeChecking"]["expressionWarnings"][0]["warning"] == MISSPELT

    fixed = {**first, "spec": {**first["spec"], "validations": [{"expression": "object.spec.replicas > 1"}]}}
    del fixed["status"]
    replaced = await client.put(f"{POLICIES}/gen", fixed)
    assert replaced.status == 200, replaced.body
    assert replaced.json()["metadata"]["generation"] == 2
    second = (await client.get(f"{POLICIES}/gen")).json()
    # The controller applies ``typeChecking: {}``; its earlier ``expressionWarnings`` are pruned, and the map they
    # emptied goes with them, as structured-merge-diff's removal leaves an emptied map null (docs/server-side-apply.md).
    assert second["status"] == {"observedGeneration": 2}
    assert int(second["metadata"]["resourceVersion"]) > int(replaced.json()["metadata"]["resourceVersion"])

    # A write that keeps the generation (a label) is not checked again.
    labelled = await client.patch(
        f"{POLICIES}/gen", {"metadata": {"labels": {"a": "b"}}}, content_type="application/merge-patch+json"
    )
    assert labelled.status == 200
    third = (await client.get(f"{POLICIES}/gen")).json()
    assert third["metadata"]["resourceVersion"] == labelled.json()["metadata"]["resourceVersion"]


async def test_watchers_see_the_status_write_as_modified(client: RawClient) -> None:
    created = await client.post(POLICIES, policy("watched", {"expression": "true"}, rules=DEPLOYMENTS))
    since = created.json()["metadata"]["resourceVersion"]
    assert created.json()["status"] == {}
    url = f"{client.base}{POLICIES}?watch=1&resourceVersion={since}"
    async with client.session.get(url) as response:
        event = json.loads(await response.content.readline())
    assert event["type"] == "MODIFIED"
    assert event["object"]["status"] == {"observedGeneration": 1, "typeChecking": {}}
    assert int(event["object"]["metadata"]["resourceVersion"]) > int(since)


async def test_a_wildcard_rule_is_not_type_checked(client: RawClient) -> None:
    stored = await _created(
        client,
        policy(
            "wild",
            {"expression": "object.spec.replicaz > 1"},
            rules=[
                rule(["deployments"], ["apps"], apiVersions=["*"]),
                rule(["*"], ["apps"], apiVersions=["v1"]),
                rule(["deployments/scale"], ["apps"], apiVersions=["v1"]),
            ],
        ),
    )
    assert stored["status"] == {"observedGeneration": 1, "typeChecking": {}}


async def test_every_kind_of_the_rules_is_checked_in_order(client: RawClient) -> None:
    stored = await _created(
        client,
        policy(
            "two",
            {"expression": "object.spec.replicas > 1"},
            rules=[rule(["statefulsets", "deployments"], ["apps"], apiVersions=["v1"]), rule(["configmaps"])],
        ),
    )
    # ConfigMap's rule has apiVersions "*": only the two apps kinds are checked, and StatefulSet has replicas.
    assert stored["status"]["typeChecking"] == {}
    stored = await _created(
        client,
        policy(
            "three",
            {"expression": "object.data.size() > 0"},
            rules=[
                rule(["statefulsets", "deployments"], ["apps"], apiVersions=["v1"]),
                rule(["configmaps"], apiVersions=["v1"]),
            ],
        ),
    )
    [warning] = stored["status"]["typeChecking"]["expressionWarnings"]
    assert warning["warning"] == (
        "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'data'\n"
        " | object.data.size() > 0\n | ......^\n"
        "\n"
        "apps/v1, Kind=StatefulSet: ERROR: <input>:1:7: undefined field 'data'\n"
        " | object.data.size() > 0\n | ......^\n"
    )


async def test_a_custom_kind_is_checked_against_its_schema(client: RawClient) -> None:
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer"}}}},
    }
    created = await client.post(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd("widgets", "Widget", schema=schema)
    )
    assert created.status == 201
    stored = await _created(
        client,
        policy(
            "widgets",
            {"expression": "object.spec.size > 1 && object.metadata.labels.size() < 3"},
            {"expression": "object.spec.size == 'big'"},
            {"expression": "object.spec.color == 'red'"},
            rules=[rule(["widgets"], [CRD_GROUP], apiVersions=["v1"])],
        ),
    )
    assert stored["status"]["typeChecking"] == {
        "expressionWarnings": [
            {
                "fieldRef": "spec.validations[1].expression",
                "warning": f"{CRD_GROUP}/v1, Kind=Widget: ERROR: <input>:1:18: found no matching overload for "
                "'_==_' applied to '(int, string)'\n | object.spec.size == 'big'\n | .................^\n",
            },
            {
                "fieldRef": "spec.validations[2].expression",
                "warning": f"{CRD_GROUP}/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'color'\n"
                " | object.spec.color == 'red'\n | ...........^\n",
            },
        ]
    }


async def test_params_are_typed_by_the_param_kind(client: RawClient) -> None:
    stored = await _created(
        client,
        policy(
            "params",
            {"expression": "params.data.max == '1'"},
            {"expression": "params.spec.max == '1'"},
            rules=DEPLOYMENTS,
            paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        ),
    )
    assert stored["status"]["typeChecking"] == {
        "expressionWarnings": [
            {
                "fieldRef": "spec.validations[1].expression",
                "warning": "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'spec'\n"
                " | params.spec.max == '1'\n | ......^\n",
            }
        ]
    }
    # A param kind without a schema leaves ``params`` undeclared.
    stored = await _created(
        client,
        policy(
            "unknown-params",
            {"expression": "params.x == 1"},
            rules=DEPLOYMENTS,
            paramKind={"apiVersion": "example.com/v1", "kind": "Nothing"},
        ),
    )
    assert stored["status"]["typeChecking"]["expressionWarnings"] == [
        {
            "fieldRef": "spec.validations[0].expression",
            "warning": "apps/v1, Kind=Deployment: ERROR: <input>:1:1: undeclared reference to 'params' "
            "(in container '')\n | params.x == 1\n | ^\n",
        }
    ]


async def test_a_status_write_below_the_generation_is_checked_again(client: RawClient) -> None:
    first = await _created(client, policy("again", {"expression": "object.spec.replicaz > 1"}, rules=DEPLOYMENTS))
    lowered = {**first, "status": {"observedGeneration": 0}}
    reply = await client.put(f"{POLICIES}/again/status", lowered)
    assert reply.status == 200, reply.body
    assert reply.json()["status"] == {}  # a zero observedGeneration is omitted
    current = (await client.get(f"{POLICIES}/again")).json()
    assert current["status"]["observedGeneration"] == 1
    assert current["status"]["typeChecking"]["expressionWarnings"][0]["warning"] == MISSPELT


async def test_a_core_kind_is_named_with_an_empty_group(client: RawClient) -> None:
    stored = await _created(
        client,
        policy("core", {"expression": "object.spec == null"}, rules=[rule(["configmaps"], apiVersions=["v1"])]),
    )
    assert stored["status"]["typeChecking"]["expressionWarnings"] == [
        {
            "fieldRef": "spec.validations[0].expression",
            "warning": "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'spec'\n"
            " | object.spec == null\n | ......^\n",
        }
    ]
