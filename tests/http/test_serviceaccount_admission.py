"""ServiceAccount admission on pod create (docs/bootstrap.md), as a client sees it over HTTP."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

PODS = "/api/v1/namespaces/default/pods"
ACCOUNTS = "/api/v1/namespaces/default/serviceaccounts"
MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_VOLUME_SOURCE = {
    "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {
            "downwardAPI": {
                "items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]
            }
        },
    ],
    "defaultMode": 420,
}


def pod(name: str = "p", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "image": "nginx"}], **spec},
    }


def account(name: str, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}, **fields}


async def test_a_pod_gets_the_default_account_and_its_token_volume(client: RawClient) -> None:
    created = await client.post(PODS, pod(initContainers=[{"name": "init", "image": "busybox"}]))
    assert created.status == 201
    spec = created.json()["spec"]
    assert (spec["serviceAccountName"], spec["serviceAccount"]) == ("default", "default")
    (volume,) = spec["volumes"]
    assert re.fullmatch(r"kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}", volume["name"])
    assert volume["projected"] == TOKEN_VOLUME_SOURCE
    mount = {"name": volume["name"], "readOnly": True, "mountPath": MOUNT_PATH}
    assert spec["containers"][0]["volumeMounts"] == [mount]
    assert spec["initContainers"][0]["volumeMounts"] == [mount]
    stored = (await client.get(f"{PODS}/p")).json()
    assert stored["spec"] == spec


async def test_the_deprecated_service_account_field_names_the_account(client: RawClient) -> None:
    assert (await client.post(ACCOUNTS, account("builder"))).status == 201
    created = await client.post(PODS, pod(serviceAccount="builder"))
    assert created.status == 201
    spec = created.json()["spec"]
    assert (spec["serviceAccountName"], spec["serviceAccount"]) == ("builder", "builder")


async def test_a_missing_account_is_forbidden_and_nothing_is_stored(client: RawClient) -> None:
    refused = await client.post(PODS, pod(serviceAccountName="ghost"))
    assert refused.status == 403
    assert refused.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'pods "p" is forbidden: error looking up service account default/ghost: '
        'serviceaccount "ghost" not found',
        "reason": "Forbidden",
        "details": {"name": "p", "kind": "pods"},
        "code": 403,
    }
    assert (await client.get(f"{PODS}/p")).status == 404


async def test_the_refusal_names_the_generate_name_and_comes_before_validation(client: RawClient) -> None:
    body = pod(serviceAccountName="ghost", containers=[])
    body["metadata"] = {"generateName": "web-"}
    refused = await client.post(PODS, body)
    assert refused.status == 403
    assert refused.json()["message"] == (
        'pods "web-" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found'
    )


async def test_a_missing_namespace_is_not_found_first(client: RawClient) -> None:
    refused = await client.post("/api/v1/namespaces/nowhere/pods", pod())
    assert refused.status == 404
    assert refused.json()["message"] == 'namespaces "nowhere" not found'


async def test_automount_false_on_the_pod_or_the_account_mounts_nothing(client: RawClient) -> None:
    assert (await client.post(ACCOUNTS, account("quiet", automountServiceAccountToken=False))).status == 201
    for name, spec in (
        ("pod-says-no", {"automountServiceAccountToken": False}),
        ("account-says-no", {"serviceAccountName": "quiet"}),
    ):
        created = (await client.post(PODS, pod(name, **spec))).json()["spec"]
        assert "volumes" not in created
        assert "volumeMounts" not in created["containers"][0]
    overriding = (
        await client.post(PODS, pod("pod-says-yes", serviceAccountName="quiet", automountServiceAccountToken=True))
    ).json()
    assert overriding["spec"]["volumes"][0]["name"].startswith("kube-api-access-")


async def test_an_existing_token_volume_and_mount_are_kept(client: RawClient) -> None:
    own_mount = {"name": "mine", "mountPath": MOUNT_PATH}
    body = pod(
        volumes=[{"name": "kube-api-access-given", "emptyDir": {}}, {"name": "mine", "emptyDir": {}}],
        containers=[{"name": "a", "image": "nginx", "volumeMounts": [own_mount]}, {"name": "b", "image": "nginx"}],
    )
    spec = (await client.post(PODS, body)).json()["spec"]
    assert [v["name"] for v in spec["volumes"]] == ["kube-api-access-given", "mine"]
    assert spec["containers"][0]["volumeMounts"] == [own_mount]
    assert spec["containers"][1]["volumeMounts"] == [
        {"name": "kube-api-access-given", "readOnly": True, "mountPath": MOUNT_PATH}
    ]


async def test_the_accounts_image_pull_secrets_are_copied_unless_the_pod_has_some(client: RawClient) -> None:
    registry = account("puller", imagePullSecrets=[{"name": "registry"}])
    assert (await client.post(ACCOUNTS, registry)).status == 201
    inherited = (await client.post(PODS, pod("a", serviceAccountName="puller"))).json()["spec"]
    assert inherited["imagePullSecrets"] == [{"name": "registry"}]
    own = (await client.post(PODS, pod("b", serviceAccountName="puller", imagePullSecrets=[{"name": "own"}]))).json()
    assert own["spec"]["imagePullSecrets"] == [{"name": "own"}]


async def test_a_mirror_pod_is_left_alone_or_refused(client: RawClient) -> None:
    mirror = pod("static")
    mirror["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "hash"}
    created = await client.post(PODS, mirror)
    assert created.status == 201
    assert "serviceAccountName" not in created.json()["spec"]
    assert "volumes" not in created.json()["spec"]
    for name, spec, reason in (
        ("named", {"serviceAccountName": "default"}, "a mirror pod may not reference service accounts"),
        (
            "secret",
            {"volumes": [{"name": "s", "secret": {"secretName": "x"}}]},
            "a mirror pod may not reference secrets",
        ),
    ):
        body = pod(name, **spec)
        body["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "hash"}
        refused = await client.post(PODS, body)
        assert (refused.status, refused.json()["message"]) == (403, f'pods "{name}" is forbidden: {reason}')


async def test_a_deployments_template_is_not_admitted_but_gets_the_alias(client: RawClient) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"serviceAccountName": "ghost", "containers": [{"name": "web", "image": "nginx"}]},
            },
        },
    }
    created = await client.post("/apis/apps/v1/namespaces/default/deployments", deployment)
    assert created.status == 201
    template = created.json()["spec"]["template"]["spec"]
    assert (template["serviceAccountName"], template["serviceAccount"]) == ("ghost", "ghost")
    assert "volumes" not in template
