"""The fixtures from a user's test files: a fresh server per test, sync and async, kubeconfig the usual way."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import pytest

SYNC_TESTS = """
import json
import urllib.request

SEEN = []
SEEN_VERSIONS = []


def send(fakeapi, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(fakeapi.url + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request) as response:
        return response.status, json.loads(response.read())


def create_leftover(fakeapi):
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "leftover"}}
    status, created = send(fakeapi, "POST", "/api/v1/namespaces/default/configmaps", config_map)
    assert status == 201
    return created["metadata"]["resourceVersion"]


def test_writes(fakeapi):
    SEEN.append(fakeapi.url)
    SEEN_VERSIONS.append(create_leftover(fakeapi))
    assert fakeapi.get("v1", "ConfigMap", "leftover")["metadata"]["name"] == "leftover"


def test_starts_empty(fakeapi):
    SEEN.append(fakeapi.url)
    assert fakeapi.find("v1", "ConfigMap", "leftover") is None
    assert len(fakeapi.journal) == 0
    status, namespaces = send(fakeapi, "GET", "/api/v1/namespaces")
    names = sorted(item["metadata"]["name"] for item in namespaces["items"])
    assert names == ["default", "kube-node-lease", "kube-public", "kube-system"]


def test_one_server_for_the_session(fakeapi, fakeapi_server):
    assert set(SEEN) == {fakeapi.url} == {fakeapi_server.url}


def test_same_resource_versions_whatever_ran_before(fakeapi):
    assert [create_leftover(fakeapi)] == SEEN_VERSIONS
"""

ASYNC_TESTS = """
import pytest
from kubernetes_asyncio import client

CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"k": "v"}}


@pytest.mark.asyncio
async def test_async_client_reaches_the_fake(fakeapi, kube_api_client):
    await client.CoreV1Api(kube_api_client).create_namespaced_config_map("default", CONFIG_MAP)
    assert fakeapi.get("v1", "ConfigMap", "cm")["data"] == {"k": "v"}
    fakeapi.requests(verb="create", resource="configmaps", name="cm").assert_one(status=201)


@pytest.mark.asyncio
async def test_async_state_is_fresh(kube_api_client):
    listed = await client.CoreV1Api(kube_api_client).list_namespaced_config_map("default")
    assert [item.metadata.name for item in listed.items] == ["kube-root-ca.crt"]


@pytest.mark.asyncio
async def test_fakeapi_methods_from_a_coroutine(fakeapi):
    fakeapi.load(CONFIG_MAP)
    assert fakeapi.get("v1", "ConfigMap", "cm")["data"] == {"k": "v"}


def test_sync_beside_async(fakeapi):
    assert fakeapi.find("v1", "ConfigMap", "cm") is None
"""

KUBECONFIG_TESTS = """
import os
import sys

import kubernetes  # imported first: its default kubeconfig location is computed already

ORIGINAL = os.environ.get("KUBECONFIG")
CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}


def test_official_client_loads_kubeconfig_the_usual_way(fakeapi, fakeapi_kubeconfig):
    assert os.environ["KUBECONFIG"] == str(fakeapi_kubeconfig)
    kubernetes.config.load_kube_config()
    kubernetes.client.CoreV1Api().create_namespaced_config_map("default", CONFIG_MAP)
    fakeapi.requests(verb="create", resource="configmaps", name="cm").assert_one(status=201)


async def test_asyncio_client_imported_during_the_test(fakeapi, fakeapi_kubeconfig):
    assert "kubernetes_asyncio" not in sys.modules, "a plugin imported it first: this test needs a process without it"
    from kubernetes_asyncio import client, config

    await config.load_kube_config()
    async with client.ApiClient() as api:
        await client.CoreV1Api(api).create_namespaced_config_map("default", CONFIG_MAP)
    fakeapi.requests(verb="create", resource="configmaps", name="cm").assert_one(status=201)


def test_everything_is_as_it_was_after(fakeapi):
    from kubernetes.config import kube_config
    from kubernetes_asyncio.config import kube_config as async_kube_config

    assert os.environ.get("KUBECONFIG") == ORIGINAL
    assert kube_config.KUBE_CONFIG_DEFAULT_LOCATION == ORIGINAL
    assert async_kube_config.KUBE_CONFIG_DEFAULT_LOCATION == ORIGINAL
"""


def test_each_test_gets_an_empty_server_of_the_same_session(
    pytester: pytest.Pytester, ini: Callable[..., None]
) -> None:
    ini()
    pytester.makepyfile(test_sync=SYNC_TESTS)
    pytester.runpytest().assert_outcomes(passed=4)


@pytest.mark.parametrize("mode", ["strict", "auto"])
def test_async_tests_in_both_pytest_asyncio_modes(
    pytester: pytest.Pytester, ini: Callable[..., None], mode: str
) -> None:
    ini(asyncio_mode=mode)
    source = ASYNC_TESTS if mode == "strict" else ASYNC_TESTS.replace("@pytest.mark.asyncio\n", "")
    pytester.makepyfile(test_async=source)
    pytester.runpytest().assert_outcomes(passed=4)


def test_code_that_loads_kubeconfig_the_usual_way_talks_to_the_fake(
    pytester: pytest.Pytester, ini: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    ini(asyncio_mode="auto")
    pytester.makepyfile(test_kubeconfig=KUBECONFIG_TESTS)
    monkeypatch.setenv("KUBECONFIG", str(pytester.path / "user-kubeconfig"))
    # A subprocess, so that kubernetes_asyncio is imported for the first time inside a test.
    pytester.runpytest_subprocess().assert_outcomes(passed=3)


def test_the_outer_process_keeps_its_kubeconfig(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    ini()
    pytester.makepyfile(
        test_inner="""
        def test_points_at_the_fake(fakeapi_kubeconfig):
            import os
            assert os.environ["KUBECONFIG"] == str(fakeapi_kubeconfig)
        """
    )
    before = os.environ.get("KUBECONFIG")
    modules = {
        name: getattr(sys.modules[name], "KUBE_CONFIG_DEFAULT_LOCATION", None) for name in _kube_config_modules()
    }
    pytester.runpytest().assert_outcomes(passed=1)
    assert os.environ.get("KUBECONFIG") == before
    assert {name: getattr(sys.modules[name], "KUBE_CONFIG_DEFAULT_LOCATION", None) for name in modules} == modules


def _kube_config_modules() -> list[str]:
    return [
        name
        for name in ("kubernetes.config.kube_config", "kubernetes_asyncio.config.kube_config")
        if name in sys.modules
    ]


def test_server_options_are_an_overridable_fixture(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    ini()
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture(scope="session")
        def fakeapi_server_options():
            return {"host": "127.0.0.1", "bookmark_interval": 0.5}
        """
    )
    pytester.makepyfile(
        test_options="""
        def test_uses_them(fakeapi):
            assert fakeapi.server._state.config.bookmark_interval == 0.5
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_tls_and_token_auth_through_the_server_options(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    """HTTPS with the server's CA and checked tokens: the fixtures' kubeconfig and client still just work."""
    ini()
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture(scope="session")
        def fakeapi_server_options():
            return {"tls": True, "token_auth": True}
        """
    )
    pytester.makepyfile(
        test_secured="""
        import kubernetes
        import pytest
        from kubernetes_asyncio import client

        def test_the_kubeconfig_verifies_and_authenticates(fakeapi, fakeapi_kubeconfig):
            assert fakeapi.url.startswith("https://")
            kubernetes.config.load_kube_config()
            names = [ns.metadata.name for ns in kubernetes.client.CoreV1Api().list_namespace().items]
            assert "default" in names
            assert [entry.actor for entry in fakeapi.journal] == ["admin"]

        @pytest.mark.asyncio
        async def test_the_async_client_too(kube_api_client):
            namespaces = await client.CoreV1Api(kube_api_client).list_namespace()
            assert "kube-system" in [ns.metadata.name for ns in namespaces.items]

        def test_an_actor_token_names_the_actor(fakeapi):
            path = fakeapi.kubeconfig(token="replica-a")
            api = kubernetes.client.CoreV1Api(kubernetes.config.new_client_from_config(config_file=str(path)))
            api.list_namespaced_config_map("default")
            assert [entry.actor for entry in fakeapi.journal] == ["replica-a"]
        """
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=3)


BOOTSTRAP_TESTS = """
import urllib.request

WRITTEN = [("serviceaccounts", "default"), ("configmaps", "kube-root-ca.crt")] if EXPECTED else []


def delete(fakeapi, resource, name):
    path = f"/api/v1/namespaces/default/{resource}/{name}"
    with urllib.request.urlopen(urllib.request.Request(fakeapi.url + path, method="DELETE")) as response:
        assert response.status == 200


def test_removes_what_the_control_plane_wrote(fakeapi):
    delete(fakeapi, "services", "kubernetes")
    assert fakeapi.find("v1", "Service", "kubernetes") is None
    for resource, name in WRITTEN:
        delete(fakeapi, resource, name)


def test_finds_it_all_again(fakeapi):
    service = fakeapi.get("v1", "Service", "kubernetes")
    assert service["spec"]["ports"][0]["targetPort"] == fakeapi.server.port
    assert fakeapi.find("scheduling.k8s.io/v1", "PriorityClass", "system-node-critical", namespace="") is not None
    assert (fakeapi.find("v1", "ServiceAccount", "default") is not None) == EXPECTED
    assert (fakeapi.find("v1", "ConfigMap", "kube-root-ca.crt") is not None) == EXPECTED


def test_a_new_namespace_is_populated_as_configured(fakeapi):
    fakeapi.load({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    found = fakeapi.find("v1", "ServiceAccount", "default", namespace="team")
    assert (found is not None) == EXPECTED
"""


@pytest.mark.parametrize("setting", ["", "true", "false"])
def test_every_test_starts_from_what_the_control_plane_wrote(
    pytester: pytest.Pytester, ini: Callable[..., None], setting: str
) -> None:
    ini(**({"fakeapi_namespace_controllers": setting} if setting else {}))
    expected = setting != "false"
    pytester.makepyfile(test_bootstrap=f"EXPECTED = {expected}\n" + BOOTSTRAP_TESTS)
    pytester.runpytest().assert_outcomes(passed=3)
