"""Built-in bodies decoded into their Go types: the errors, the dropped fields and the values as Go writes them back."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
PODS = "/api/v1/namespaces/default/pods"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"


def configmap(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, **fields}


def deployment(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
            **spec,
        },
    }


async def rejected(client: RawClient, path: str, body: Any, message: str) -> None:
    before = (await client.get(path)).json()
    reply = await client.post(path, body)
    assert (reply.status, reply.json()["reason"], reply.json()["message"]) == (400, "BadRequest", message)
    after = (await client.get(path)).json()
    assert after == before, "a rejected body stores nothing"


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"data": {"a": 1}}, "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"),
        ({"data": [1]}, "json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string"),
        ({"immutable": "yes"}, "json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool"),
        ({"binaryData": {"k": "not base64"}}, "illegal base64 data at input byte 3"),
        (
            {"metadata": {"name": 5}},
            "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string",
        ),
    ],
)
async def test_a_wrong_json_type_is_gos_unmarshal_error(
    client: RawClient, fields: dict[str, Any], problem: str
) -> None:
    await rejected(
        client,
        CONFIGMAPS,
        configmap(**fields),
        f'ConfigMap in version "v1" cannot be handled as a ConfigMap: {problem}',
    )


async def test_errors_deep_in_a_pod_name_the_innermost_struct_and_the_whole_path(client: RawClient) -> None:
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": "notalist"}}
    await rejected(
        client,
        PODS,
        body,
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field '
        "PodSpec.spec.containers of type []v1.Container",
    )
    body["spec"] = {"containers": [{"name": "c", "image": "busybox", "ports": [{"containerPort": 1.5}]}]}
    await rejected(
        client,
        PODS,
        body,
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number 1.5 into Go struct field '
        "ContainerPort.spec.containers.ports.containerPort of type int32",
    )


async def test_a_body_of_another_kind_is_refused(client: RawClient) -> None:
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "c"}, "stringData": {"a": "b"}}
    await rejected(
        client,
        CONFIGMAPS,
        secret,
        'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): '
        "unknown conversion",
    )
    unknown = {"apiVersion": "v1", "kind": "Widget", "metadata": {"name": "c"}}
    await rejected(
        client,
        CONFIGMAPS,
        unknown,
        'Widget in version "v1" cannot be handled as a ConfigMap: no kind "Widget" is registered for version "v1" '
        'in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"',
    )


async def test_unknown_fields_follow_field_validation(client: RawClient) -> None:
    strict = await client.post(f"{DEPLOYMENTS}?fieldValidation=Strict", deployment(bogus=1))
    assert strict.status == 400
    assert strict.json()["message"] == (
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.bogus"'
    )
    body = deployment()
    body["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    warned = await client.post(DEPLOYMENTS, body)
    assert warned.status == 201
    assert warned.warnings == ['299 - "unknown field \\"spec.template.spec.containers[0].imagePullPolicyy\\""']
    assert "imagePullPolicyy" not in warned.json()["spec"]["template"]["spec"]["containers"][0]
    ignored = await client.post(
        f"{DEPLOYMENTS}?fieldValidation=Ignore", {**deployment(bogus=1), "metadata": {"name": "b"}}
    )
    assert (ignored.status, ignored.warnings) == (201, [])
    assert "bogus" not in ignored.json()["spec"]


async def test_omitempty_drops_empties_and_pointers_keep_their_zero(client: RawClient) -> None:
    created = await client.post(CONFIGMAPS, configmap(data={}, binaryData={}, immutable=False))
    assert created.status == 201
    stored = created.json()
    assert "data" not in stored and "binaryData" not in stored
    assert stored["immutable"] is False
    assert not any("f:data" in str(entry["fieldsV1"]) for entry in stored["metadata"]["managedFields"])
    scaled = await client.post(DEPLOYMENTS, deployment(replicas=0, paused=False, minReadySeconds=0))
    spec = scaled.json()["spec"]
    assert spec["replicas"] == 0
    assert "paused" not in spec and "minReadySeconds" not in spec


async def test_quantities_times_and_bytes_are_written_back_canonically(client: RawClient) -> None:
    resources = {"limits": {"cpu": "1000m", "memory": "1024Mi"}, "requests": {"cpu": 0.5, "memory": "0.5Gi"}}
    body = deployment()
    body["spec"]["template"]["spec"]["containers"][0]["resources"] = resources
    created = await client.post(DEPLOYMENTS, body)
    assert created.status == 201, created.body
    assert created.json()["spec"]["template"]["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "1", "memory": "1Gi"},
        "requests": {"cpu": "500m", "memory": "512Mi"},
    }
    binary = await client.post(CONFIGMAPS, configmap(binaryData={"k": "aGVs\nbG8="}))
    assert binary.json()["binaryData"] == {"k": "aGVsbG8="}
    lease = {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": "l"},
        "spec": {"renewTime": "2026-01-02T03:04:05.123456+02:00", "leaseDurationSeconds": 15},
    }
    renewed = await client.post("/apis/coordination.k8s.io/v1/namespaces/default/leases", lease)
    assert renewed.json()["spec"]["renewTime"] == "2026-01-02T01:04:05.123456Z"
    bad = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "q"}}
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": {"hard": {"cpu": "lots"}}}
    refused = await client.post("/api/v1/namespaces/default/resourcequotas", quota)
    assert refused.status == 400
    assert refused.json()["message"] == (
        'ResourceQuota in version "v1" cannot be handled as a ResourceQuota: quantities must match the regular '
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )
    assert (await client.post(CONFIGMAPS, bad)).status == 201


async def test_a_patch_that_breaks_the_type_is_invalid_and_changes_nothing(client: RawClient) -> None:
    await client.post(CONFIGMAPS, configmap(data={"a": "b"}))
    reply = await client.patch(f"{CONFIGMAPS}/c", {"data": {"a": 1}}, content_type="application/merge-patch+json")
    assert reply.status == 422
    assert reply.json()["details"]["causes"][0]["message"].endswith(
        "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"
    )
    assert (await client.get(f"{CONFIGMAPS}/c")).json()["data"] == {"a": "b"}


async def test_extreme_quantities_are_what_go_makes_of_them(client: RawClient) -> None:
    hard = {
        # No digit is lost: inf.Dec holds any number of them.
        "a": "9" * 10_000,
        # A binary suffix's amount is capped at the int64 maximum ("The max is just a simple cap"),
        # which is no multiple of 1024, so it is written without a suffix.
        "b": "99999999999999999999Ki",
        "c": "-99999999999999999999Ki",
        # The exponent is ParseInt(..., 64) kept as int32: 99999999999 keeps its low 32 bits,
        # 1215752191; 1e1215752191 goes out with an exponent that is a multiple of 3.
        "d": "1e99999999999",
    }
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "extreme"}, "spec": {"hard": hard}}
    created = await client.post("/api/v1/namespaces/default/resourcequotas", quota)

    assert created.status == 201, created.body[:300]
    assert created.json()["spec"]["hard"] == {
        "a": "9" * 10_000,
        "b": "9223372036854775807",
        "c": "-9223372036854775807",
        "d": "10e1215752190",
    }
    for suffix in ("e٣", "e" + "9" * 30):  # not an ASCII digit; past int64
        quota = {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "q"},
            "spec": {"hard": {"x": "1" + suffix}},
        }
        refused = await client.post("/api/v1/namespaces/default/resourcequotas", quota)
        assert refused.status == 400, suffix
