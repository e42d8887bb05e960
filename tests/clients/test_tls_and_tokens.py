"""HTTPS with the server's own CA, and bearer tokens, as clients find them (docs/authentication.md).

kubectl, kubernetes, kubernetes_asyncio, kr8s and lightkube load the kubeconfig the server writes
and verify it with no flags; the kubeconfig authenticates with a bearer token (kr8s refuses
username/password kubeconfigs); under ``token_auth`` only issued tokens are accepted, with the
apiserver's 401 and 403 answers, and a token issued for an actor names that actor in the journal and
at the gate.
"""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
import yaml

from fakeapi.server import FakeAPIServer, GateDecision, GateRequest
from tests.cli.serving import READ_TIMEOUT, Background, ServeProcess, console_script, home_env, require_tool

UNAUTHORIZED = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "Unauthorized",
    "reason": "Unauthorized",
    "code": 401,
}


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[FakeAPIServer]:
    server = FakeAPIServer(tls=True, token_auth=True).start_in_thread()
    try:
        yield server
    finally:
        server.stop_thread()
    assert server.errors == []


def _kubectl(kubeconfig: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    binary = require_tool("kubectl", "driving the real kubectl against an HTTPS fakeapi")
    return subprocess.run(
        [binary, "--kubeconfig", str(kubeconfig), "--cache-dir", str(home / "cache"), *args],
        capture_output=True,
        text=True,
        timeout=READ_TIMEOUT,
        env=home_env(home),
    )


def test_the_kubeconfig_carries_a_bearer_token_and_the_ca(secured: FakeAPIServer, tmp_path: Path) -> None:
    config = yaml.safe_load(secured.kubeconfig(tmp_path / "kc").read_text())
    cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
    assert cluster["server"] == secured.url and secured.url.startswith("https://127.0.0.1:")
    assert base64.b64decode(cluster["certificate-authority-data"]) == secured.ca_certificate
    assert set(user) == {"token"} and user["token"] == secured.token_for("admin") != "admin"


def test_plain_servers_write_a_token_kubeconfig_too(tmp_path: Path) -> None:
    server = FakeAPIServer()
    config = yaml.safe_load(server.kubeconfig(tmp_path / "kc").read_text())
    assert config["users"][0]["user"] == {"token": "admin"}
    assert "certificate-authority-data" not in config["clusters"][0]["cluster"]


def test_kubectl_verifies_the_server_with_no_flags(secured: FakeAPIServer, tmp_path: Path) -> None:
    kubeconfig = secured.kubeconfig(tmp_path / "kc")
    created = _kubectl(kubeconfig, tmp_path, "create", "configmap", "tls", "--from-literal=a=b")
    assert (created.returncode, created.stdout, created.stderr) == (0, "configmap/tls created\n", "")
    listed = _kubectl(kubeconfig, tmp_path, "get", "configmaps", "-o", "name")
    assert (listed.returncode, listed.stdout) == (0, "configmap/kube-root-ca.crt\nconfigmap/tls\n")
    assert {entry.actor for entry in secured.journal} == {"admin"}


def test_kubectl_with_a_token_the_server_did_not_issue_is_unauthorized(secured: FakeAPIServer, tmp_path: Path) -> None:
    kubeconfig = secured.kubeconfig(tmp_path / "kc")
    config = yaml.safe_load(kubeconfig.read_text())
    config["users"][0]["user"]["token"] = "guessed"
    kubeconfig.write_text(yaml.safe_dump(config))
    result = _kubectl(kubeconfig, tmp_path, "get", "configmaps")
    assert result.returncode == 1
    assert (
        "error: You must be logged in to the server (the server has asked for the client to provide credentials)"
        in result.stderr
    )
    assert {entry.status for entry in secured.journal} == {401}


def test_the_python_clients_verify_the_server_with_the_kubeconfig(secured: FakeAPIServer, tmp_path: Path) -> None:
    import kubernetes

    kubeconfig = secured.kubeconfig(tmp_path / "kc", token="replica-a")
    api = kubernetes.client.CoreV1Api(kubernetes.config.new_client_from_config(config_file=str(kubeconfig)))
    assert "default" in [ns.metadata.name for ns in api.list_namespace().items]

    async def asynchronously() -> list[str]:
        from kubernetes_asyncio import client, config

        async with await config.new_client_from_config(config_file=str(kubeconfig)) as api_client:
            namespaces = await client.CoreV1Api(api_client).list_namespace()
        return [ns.metadata.name for ns in namespaces.items]

    assert "kube-system" in asyncio.run(asynchronously())
    assert {entry.actor for entry in secured.journal} == {"replica-a"}


def test_kr8s_loads_the_kubeconfig_and_lists_and_gets(tmp_path: Path) -> None:
    import kr8s

    for options in ({}, {"tls": True, "token_auth": True}):
        server = FakeAPIServer(**options).start_in_thread()  # type: ignore[arg-type]
        try:
            server.load({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "seen"}, "data": {"a": "b"}})
            api = kr8s.api(kubeconfig=str(server.kubeconfig(tmp_path / f"kc-{len(options)}")))
            listed = list(api.get("configmaps", namespace="default"))
            names = [cm.name for cm in listed if isinstance(cm, kr8s.objects.ConfigMap)]
            assert (len(listed), names) == (2, ["kube-root-ca.crt", "seen"])
            got = kr8s.objects.ConfigMap.get("seen", namespace="default", api=api)
            assert got.raw["data"] == {"a": "b"}
            assert server.errors == []
        finally:
            server.stop_thread()


def test_lightkube_loads_the_kubeconfig_and_lists(secured: FakeAPIServer, tmp_path: Path) -> None:
    from lightkube import Client, KubeConfig
    from lightkube.resources.core_v1 import Namespace

    client = Client(config=KubeConfig.from_file(secured.kubeconfig(tmp_path / "kc")))
    assert "kube-public" in [ns.metadata.name for ns in client.list(Namespace) if ns.metadata]


@pytest.mark.asyncio
async def test_unauthenticated_requests_get_the_apiservers_answers() -> None:
    async with FakeAPIServer(token_auth=True) as server, aiohttp.ClientSession() as session:
        configmaps = f"{server.url}/api/v1/namespaces/default/configmaps"
        basic = {"Authorization": "Basic " + base64.b64encode(b"admin:fakeapi").decode()}
        for headers in ({"Authorization": "Bearer guessed"}, {"Authorization": "bearer admin"}):
            async with session.get(configmaps, headers=headers) as response:
                assert (response.status, await response.json()) == (401, UNAUTHORIZED)
        for headers in ({}, basic, {"Authorization": "Bearer "}):  # no bearer token at all: anonymous
            async with session.get(configmaps, headers=headers) as response:
                assert response.status == 403
                assert await response.json() == {
                    "kind": "Status",
                    "apiVersion": "v1",
                    "metadata": {},
                    "status": "Failure",
                    "message": 'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" '
                    'in API group "" in the namespace "default"',
                    "reason": "Forbidden",
                    "details": {"kind": "configmaps"},
                    "code": 403,
                }
        async with session.get(f"{server.url}/api", headers=basic) as response:
            assert response.status == 403
            assert (await response.json())["message"] == 'forbidden: User "system:anonymous" cannot get path "/api"'
        async with session.get(f"{server.url}/version") as response:
            assert response.status == 200  # system:public-info-viewer
        headers = {"Authorization": f"Bearer {server.token_for('admin')}"}
        async with session.get(configmaps, headers=headers) as response:
            assert response.status == 200
        assert server.find("v1", "ConfigMap", "x") is None
        assert server.errors == []


@pytest.mark.asyncio
async def test_without_token_auth_basic_auth_is_ignored_and_everything_allowed() -> None:
    async with FakeAPIServer() as server, aiohttp.ClientSession() as session:
        basic = {"Authorization": "Basic " + base64.b64encode(b"anyone:anything").decode()}
        async with session.get(f"{server.url}/api/v1/namespaces", headers=basic) as response:
            assert response.status == 200
        assert [entry.actor for entry in server.journal] == [None]


@pytest.mark.asyncio
async def test_an_issued_token_names_its_actor_in_the_journal_and_at_the_gate(tmp_path: Path) -> None:
    async with FakeAPIServer(token_auth=True) as server, aiohttp.ClientSession() as session:
        seen: list[str | None] = []

        async def gate(request: GateRequest) -> GateDecision | None:
            seen.append(request.actor)
            return None

        server.set_gate(gate)
        token = yaml.safe_load(server.kubeconfig(tmp_path / "a", token="replica-a").read_text())["users"][0]
        assert token["user"]["token"] == server.token_for("replica-a") != "replica-a"
        headers = {"Authorization": f"Bearer {token['user']['token']}"}
        async with session.get(f"{server.url}/api/v1/namespaces/default/configmaps", headers=headers) as response:
            assert response.status == 200
        assert seen == ["replica-a"]
        assert [entry.actor for entry in server.journal] == ["replica-a"]
        assert server.token_for("replica-a") == token["user"]["token"]  # one token per actor name


def test_serve_with_tls_and_tokens_prints_each_actors_token(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kc"
    argv = [*console_script(), "serve", "--port", "0", "--tls", "--token-auth", "--actor", "replica-a"]
    with Background([*argv, "--kubeconfig", str(kubeconfig)], env=home_env(tmp_path)) as server:
        token_line = server.next_line()
        ready = server.next_line()
        assert token_line is not None and token_line.startswith("fakeapi token for replica-a: fakeapi-")
        assert ready is not None and ready.startswith("fakeapi serving on https://127.0.0.1:")
        token = token_line.rsplit(" ", 1)[1]
        config = yaml.safe_load(kubeconfig.read_text())
        config["users"][0]["user"]["token"] = token
        kubeconfig.write_text(yaml.safe_dump(config))
        result = _kubectl(kubeconfig, tmp_path, "get", "namespace", "default", "-o", "json")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["metadata"]["name"] == "default"
        assert server.stop() == 0
        assert server.stderr_text() == ""


@pytest.mark.parametrize(
    ("flags", "warning"),
    [
        ([], "without authentication: anyone who can reach this address can read and change every object"),
        (["--token-auth"], "over plain HTTP: bearer tokens and every object, Secrets included, travel unencrypted"),
        (["--token-auth", "--tls"], None),
    ],
)
def test_serving_beyond_loopback_says_what_is_exposed(tmp_path: Path, flags: list[str], warning: str | None) -> None:
    with ServeProcess("--host", "0.0.0.0", "--port", "0", *flags, env=home_env(tmp_path)) as server:
        assert server.url.startswith(("http://127.0.0.1:", "https://127.0.0.1:"))
        assert server.stop() == 0
        stderr = server.stderr_text()
    if warning is None:
        assert stderr == ""
    else:
        assert stderr.startswith("fakeapi: warning: listening on 0.0.0.0 ") and warning in stderr


def test_token_auth_without_tls_says_kubectl_will_send_no_token(tmp_path: Path) -> None:
    with ServeProcess("--port", "0", "--token-auth", env=home_env(tmp_path)) as server:
        assert server.stop() == 0
        stderr = server.stderr_text()
    assert stderr.startswith("fakeapi: note: kubectl and other client-go programs send a bearer token only over HTTPS")
