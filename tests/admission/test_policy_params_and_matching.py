"""ValidatingAdmissionPolicies: params read from the store, which writes a policy and a binding match, and the
configuration errors (docs/admission-policies.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.admission.policy_objects import CONFIGMAPS, binding, configmap, install, policy, rule
from tests.conftest import RawClient, crd

pytestmark = pytest.mark.asyncio

CONFIGMAP_PARAMS = {"apiVersion": "v1", "kind": "ConfigMap"}
AT_MOST = {
    "expression": "!has(object.data) || object.data.size() <= int(params.data.max)",
    "messageExpression": "'at most ' + params.data.max + ' by ' + params.metadata.name",
}
SECRETS = "/api/v1/namespaces/default/secrets"


def limits(name: str, maximum: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return configmap(name, labels, max=maximum)


def secret(name: str = "s", labels: dict[str, str] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "Secret", "metadata": metadata}


def denied(binding_name: str, message: str, policy_name: str = "p") -> str:
    return f"ValidatingAdmissionPolicy '{policy_name}' with binding '{binding_name}' denied request: {message}"


def secret_policy(**spec: Any) -> dict[str, Any]:
    return policy("p", AT_MOST, rules=[rule(["secrets"])], paramKind=CONFIGMAP_PARAMS, **spec)


async def test_a_param_by_name_is_read_from_the_store(client: RawClient) -> None:
    assert (await client.post(CONFIGMAPS, limits("limits", "1"))).status == 201
    ref = {"name": "limits", "namespace": "default", "parameterNotFoundAction": "Deny"}
    await install(client, secret_policy(), binding("b", "p", paramRef=ref))
    assert (await client.post(SECRETS, {**secret("one"), "data": {"a": "eA=="}})).status == 201
    refused = await client.post(SECRETS, {**secret("two"), "data": {"a": "eA==", "b": "eA=="}})
    assert refused.status == 422
    assert refused.json()["message"] == 'secrets "two" is forbidden: ' + denied("b", "at most 1 by limits")


async def test_a_missing_param_denies_under_deny_and_admits_under_allow(client: RawClient) -> None:
    ref = {"name": "absent", "parameterNotFoundAction": "Deny"}
    await install(client, secret_policy(), binding("deny-b", "p", paramRef=ref))
    refused = await client.post(SECRETS, secret())
    assert refused.status == 422
    assert refused.json()["details"]["causes"] == [
        {
            "message": denied(
                "deny-b",
                "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
            )
        }
    ]
    allow = {"name": "absent", "parameterNotFoundAction": "Allow"}
    reply = await client.put(
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/deny-b",
        binding("deny-b", "p", paramRef=allow),
    )
    assert reply.status == 200, reply.body
    assert (await client.post(SECRETS, secret())).status == 201


async def test_a_selector_evaluates_every_param_it_selects(client: RawClient) -> None:
    for name, maximum in (("limit-a", "0"), ("limit-b", "0"), ("other", "0")):
        labels = {"kind": "limit"} if name.startswith("limit") else None
        assert (await client.post(CONFIGMAPS, limits(name, maximum, labels))).status == 201
    ref = {"selector": {"matchLabels": {"kind": "limit"}}, "parameterNotFoundAction": "Deny"}
    await install(client, secret_policy(), binding("warn-b", "p", ["Warn"], paramRef=ref))
    created = await client.post(SECRETS, {**secret(), "data": {"a": "eA=="}})
    assert created.status == 201
    assert created.warnings == [
        "299 - \"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'warn-b': at most 0 by limit-a\"",
        "299 - \"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'warn-b': at most 0 by limit-b\"",
    ]


async def test_a_param_kind_the_server_does_not_serve_follows_the_failure_policy(client: RawClient) -> None:
    missing = {"apiVersion": "example.com/v1", "kind": "Limits"}
    ref = {"name": "x", "parameterNotFoundAction": "Allow"}
    await install(client, policy("p", AT_MOST, paramKind=missing), binding("b", "p", paramRef=ref))
    refused = await client.post(CONFIGMAPS, configmap())
    assert refused.status == 422
    assert refused.json()["message"] == (
        "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: "
        "failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limits'"
    )
    await install(
        client, policy("q", AT_MOST, paramKind=missing, failurePolicy="Ignore"), binding("c", "q", paramRef=ref)
    )
    await client.delete("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/p")
    assert (await client.post(CONFIGMAPS, configmap())).status == 201


async def test_a_namespaced_param_for_a_cluster_scoped_write_needs_a_namespace(client: RawClient) -> None:
    ref = {"name": "limits", "parameterNotFoundAction": "Deny"}
    await install(
        client,
        policy("p", {"expression": "true"}, rules=[rule(["namespaces"])], paramKind=CONFIGMAP_PARAMS),
        binding("b", "p", paramRef=ref),
    )
    refused = await client.post(
        "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}}
    )
    assert refused.status == 422
    assert refused.json()["message"] == 'namespaces "n" is forbidden: ' + denied(
        "b",
        "failed to configure binding: cannot use namespaced paramRef in policy binding that matches "
        "cluster-scoped resources",
    )


async def test_namespace_and_object_selectors(client: RawClient) -> None:
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "strict", "labels": {"mode": "strict"}}}
    assert (await client.post("/api/v1/namespaces", namespace)).status == 201
    deny_all = policy(
        "p",
        {"expression": "false", "message": "no"},
        matchConstraints={"resourceRules": [rule()], "objectSelector": {"matchLabels": {"guarded": "yes"}}},
    )
    resources = {"namespaceSelector": {"matchLabels": {"mode": "strict"}}}
    await install(client, deny_all, binding("b", "p", matchResources=resources))
    strict = "/api/v1/namespaces/strict/configmaps"
    assert (await client.post(CONFIGMAPS, configmap("a", {"guarded": "yes"}))).status == 201
    assert (await client.post(strict, configmap("b"))).status == 201
    refused = await client.post(strict, configmap("c", {"guarded": "yes"}))
    assert refused.status == 422
    assert refused.json()["message"] == 'configmaps "c" is forbidden: ' + denied("b", "no")


async def test_excluded_resources_and_resource_names(client: RawClient) -> None:
    deny_all = policy(
        "p",
        {"expression": "false", "message": "no"},
        matchConstraints={
            "resourceRules": [rule(["configmaps", "secrets"], resourceNames=["guarded"])],
            "excludeResourceRules": [rule(["secrets"])],
        },
    )
    await install(client, deny_all, binding("b", "p"))
    assert (await client.post(CONFIGMAPS, configmap("free"))).status == 201
    assert (await client.post(SECRETS, secret("guarded"))).status == 201
    assert (await client.post(CONFIGMAPS, configmap("guarded"))).status == 422


async def test_equivalent_matching_sees_the_object_at_the_rule_version(client: RawClient) -> None:
    created = await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd(versions=["v2", "v1"]))
    assert created.status == 201
    check = {
        "expression": "object.apiVersion == 'example.com/v1' && request.kind.version == 'v1' && "
        "request.resource.version == 'v1' && request.requestKind.version == 'v2'",
        "message": "seen at v1",
    }
    v1_jobs = [rule(["jobs"], ["example.com"], apiVersions=["v1"])]
    never = {"expression": "false", "message": "exact matched"}
    await install(
        client,
        policy("equivalent", check, rules=v1_jobs),
        binding("be", "equivalent", ["Warn"]),
        policy("exact", never, rules=v1_jobs, matchConstraints={"resourceRules": v1_jobs, "matchPolicy": "Exact"}),
        binding("bx", "exact"),
    )
    job = {"apiVersion": "example.com/v2", "kind": "Job", "metadata": {"name": "j"}}
    reply = await client.post("/apis/example.com/v2/namespaces/default/jobs", job)
    assert reply.status == 201, reply.body
    assert reply.warnings == []
    refused = await client.post(
        "/apis/example.com/v1/namespaces/default/jobs",
        {**job, "apiVersion": "example.com/v1", "metadata": {"name": "k"}},
    )
    assert refused.status == 422
    assert refused.json()["message"] == 'jobs.example.com "k" is forbidden: ' + denied("bx", "exact matched", "exact")


async def test_the_plugin_switch_turns_policies_off() -> None:
    from fakeapi.server import FakeAPIServer

    async with FakeAPIServer(disable_admission_plugins=["ValidatingAdmissionPolicy"]) as running:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            client = RawClient(session, running.url)
            await install(client, policy("p", {"expression": "false"}), binding("b", "p"))
            assert (await client.post(CONFIGMAPS, configmap())).status == 201


async def test_a_binding_configuration_error_is_ignored_under_ignore(client: RawClient) -> None:
    ref = {"name": "absent", "parameterNotFoundAction": "Deny"}
    await install(client, secret_policy(failurePolicy="Ignore"), binding("b", "p", paramRef=ref))
    assert (await client.post(SECRETS, secret())).status == 201


async def test_a_policy_without_param_kind_ignores_the_param_ref(client: RawClient) -> None:
    ref = {"name": "absent", "parameterNotFoundAction": "Deny"}
    never = {"expression": "false", "message": "evaluated once"}
    await install(client, policy("p", never, rules=[rule(["secrets"])]), binding("b", "p", paramRef=ref))
    refused = await client.post(SECRETS, secret())
    assert refused.status == 422
    assert refused.json()["details"]["causes"] == [{"message": denied("b", "evaluated once")}]
