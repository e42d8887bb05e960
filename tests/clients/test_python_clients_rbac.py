"""The Python clients as a restricted ServiceAccount under RBAC (docs/rbac.md), through the fixture's
``authorization`` marker: what the Role grants works, the rest is the apiserver's 403 as each
client surfaces it, and nothing refused is stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import kubernetes
import lightkube
import pytest
from kubernetes_asyncio import client as async_client
from kubernetes_asyncio import config as async_config
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import ConfigMap, Secret

from fakeapi.pytest_plugin import FakeAPI

RBAC = "rbac.authorization.k8s.io/v1"
ACCOUNT = "system:serviceaccount:default:reader"
OBJECTS: list[dict[str, Any]] = [
    {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "reader", "namespace": "default"}},
    {
        "apiVersion": RBAC,
        "kind": "Role",
        "metadata": {"name": "reader", "namespace": "default"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}],
    },
    {
        "apiVersion": RBAC,
        "kind": "RoleBinding",
        "metadata": {"name": "reader", "namespace": "default"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": "default"}],
    },
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "default"}},
]


def forbidden(verb: str, resource: str, name: str = "") -> str:
    what = f'{resource} "{name}"' if name else resource
    return (
        f'{what} is forbidden: User "{ACCOUNT}" cannot {verb} resource "{resource}" in API group "" '
        'in the namespace "default"'
    )


def account_kubeconfig(fakeapi: FakeAPI) -> Path:
    return fakeapi.kubeconfig(service_account="default/reader")


@pytest.mark.fakeapi(objects=OBJECTS, authorization="RBAC")
def test_the_official_client_reads_and_is_refused_the_rest(fakeapi: FakeAPI) -> None:
    api = kubernetes.client.CoreV1Api(kubernetes.config.new_client_from_config(str(account_kubeconfig(fakeapi))))
    assert [item.metadata.name for item in api.list_namespaced_config_map("default").items] == [
        "kube-root-ca.crt",
        "settings",
    ]
    with pytest.raises(kubernetes.client.ApiException) as refused:
        api.delete_namespaced_config_map("settings", "default")
    assert refused.value.status == 403
    assert json.loads(refused.value.body)["message"] == forbidden("delete", "configmaps", "settings")
    assert fakeapi.find("v1", "ConfigMap", "settings") is not None


@pytest.mark.fakeapi(objects=OBJECTS, authorization="RBAC")
@pytest.mark.asyncio
async def test_kubernetes_asyncio_is_refused_what_the_role_does_not_grant(fakeapi: FakeAPI) -> None:
    kubeconfig = account_kubeconfig(fakeapi)
    async with await async_config.new_client_from_config(config_file=str(kubeconfig)) as api_client:
        api = async_client.CoreV1Api(api_client)
        assert (await api.read_namespaced_config_map("settings", "default")).metadata.name == "settings"
        with pytest.raises(async_client.ApiException) as refused:
            await api.list_namespaced_secret("default")
    assert refused.value.status == 403
    assert json.loads(refused.value.body)["message"] == forbidden("list", "secrets")
    (entry,) = fakeapi.requests(resource="secrets")
    assert (entry.status, entry.user, entry.authorized) == (403, ACCOUNT, False)


@pytest.mark.fakeapi(objects=OBJECTS, authorization="RBAC")
def test_lightkube_is_refused_a_create_and_nothing_is_stored(fakeapi: FakeAPI) -> None:
    config = lightkube.KubeConfig.from_file(account_kubeconfig(fakeapi))
    with lightkube.Client(config=config) as api:
        settings = api.get(ConfigMap, "settings", namespace="default")
        assert settings.metadata is not None and settings.metadata.name == "settings"
        revision = fakeapi.server.revision
        with pytest.raises(lightkube.ApiError) as refused:
            api.create(Secret(metadata=ObjectMeta(name="token"), stringData={"a": "b"}), namespace="default")
    assert refused.value.status.code == 403
    assert refused.value.status.message == forbidden("create", "secrets")
    assert fakeapi.server.revision == revision and fakeapi.find("v1", "Secret", "token") is None
