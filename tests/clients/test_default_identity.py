"""Who the server says a client is, and that every way of asking agrees (docs/authentication.md).

Without ``token_auth`` any bearer token is accepted and names a user in ``system:masters``: a
request made with it, TokenReview of it and SelfSubjectReview all name the same user, so kr8s's
``whoami()`` (a TokenReview of its own token) works with the kubeconfig the server writes. With
``token_auth`` an unknown token is refused by all of them. A certificate kubeconfig is kind's
``kubernetes-admin``.
"""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from fakeapi import FakeAPIServer
from tests.cli.serving import console_script
from tests.clients.local import run_kubectl, threaded_server
from tests.conftest import RawClient

ISSUER = "https://kubernetes.default.svc.cluster.local"
TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
SELF_REVIEWS = "/apis/authentication.k8s.io/v1/selfsubjectreviews"


def token_review(token: str, *audiences: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"token": token, **({"audiences": list(audiences)} if audiences else {})}
    return {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec}


@pytest_asyncio.fixture
async def default_server() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer() as running:
        yield running


@pytest.mark.asyncio
async def test_token_review_names_the_user_the_token_authenticates_as(default_server: FakeAPIServer) -> None:
    token = default_server.token_for("admin")
    assert token == "admin"
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as session:
        api = RawClient(session, default_server.url)
        reviewed = await api.post(TOKEN_REVIEWS, token_review("replica-a"))
        assert reviewed.status == 201
        assert reviewed.json() == {
            "kind": "TokenReview",
            "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"creationTimestamp": None},
            "spec": {"token": "replica-a"},
            "status": {
                "authenticated": True,
                "user": {"username": "replica-a", "groups": ["system:masters", "system:authenticated"]},
                "audiences": [ISSUER],
            },
        }
        # The same token on a request: the same user, as SelfSubjectReview reports it.
        request = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
        own = await api.post(SELF_REVIEWS, request, headers={"Authorization": "Bearer replica-a"})
        assert own.status == 201
        assert own.json()["status"] == {
            "userInfo": {"username": "replica-a", "groups": ["system:masters", "system:authenticated"]}
        }
        # A static token is good for the API's own audiences only, in this mode as under --token-auth.
        other = await api.post(TOKEN_REVIEWS, token_review("replica-a", "vault"))
        assert other.json()["status"] == {"user": {}, "error": "invalid bearer token"}
    assert [entry.actor for entry in default_server.journal] == ["admin", "replica-a", "admin"]


@pytest.mark.asyncio
async def test_a_broken_service_account_token_is_refused_by_requests_and_reviews_alike(
    default_server: FakeAPIServer,
) -> None:
    async with aiohttp.ClientSession(headers={"Authorization": "Bearer admin"}) as session:
        api = RawClient(session, default_server.url)
        account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}
        assert (await api.post("/api/v1/namespaces/default/serviceaccounts", account)).status == 201
        request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}
        issued = await api.post("/api/v1/namespaces/default/serviceaccounts/robot/token", request)
        token = issued.json()["status"]["token"]
        tampered = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
        refused = await api.get(
            "/api/v1/namespaces/default/configmaps", headers={"Authorization": f"Bearer {tampered}"}
        )
        assert refused.status == 401
        reviewed = await api.post(TOKEN_REVIEWS, token_review(tampered))
        assert reviewed.json()["status"] == {"user": {}, "error": "go-jose/go-jose: error in cryptographic primitive"}


@pytest.mark.asyncio
async def test_with_token_checks_an_unknown_token_is_refused_everywhere() -> None:
    async with FakeAPIServer(token_auth=True) as server:
        admin = {"Authorization": f"Bearer {server.token_for('admin')}"}
        async with aiohttp.ClientSession(headers=admin) as session:
            api = RawClient(session, server.url)
            refused = await api.get("/api/v1/namespaces/default/configmaps", headers={"Authorization": "Bearer guess"})
            assert refused.status == 401
            assert refused.json() == {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": "Unauthorized",
                "reason": "Unauthorized",
                "code": 401,
            }
            reviewed = await api.post(TOKEN_REVIEWS, token_review("guess"))
            assert reviewed.json()["status"] == {"user": {}, "error": "invalid bearer token"}


def test_kr8s_whoami_with_the_kubeconfig_the_server_writes(tmp_path: Path) -> None:
    import kr8s

    for options, expected in (({}, "admin"), ({"tls": True, "token_auth": True}, "admin")):
        with threaded_server(**options) as server:
            api = kr8s.api(kubeconfig=str(server.kubeconfig(tmp_path / f"kc-{len(options)}")))
            assert api.whoami() == expected  # type: ignore[no-untyped-call]
        with threaded_server(**options) as server:
            named = kr8s.api(kubeconfig=str(server.kubeconfig(tmp_path / f"kc-a-{len(options)}", token="replica-a")))
            assert named.whoami() == "replica-a"  # type: ignore[no-untyped-call]


def test_a_certificate_kubeconfig_is_kinds_kubernetes_admin(tmp_path: Path) -> None:
    import kr8s

    with threaded_server(tls=True, authorization="RBAC") as server:
        kubeconfig = server.kubeconfig(tmp_path / "kc", certificate=True)
        assert kr8s.api(kubeconfig=str(kubeconfig)).whoami() == "kubernetes-admin"  # type: ignore[no-untyped-call]
        code, output, errors = run_kubectl(
            kubeconfig,
            tmp_path,
            "auth",
            "whoami",
            "-o",
            "jsonpath={.status.userInfo.username} {.status.userInfo.groups}",
        )
        assert (code, errors) == (0, "")
        assert output == 'kubernetes-admin ["kubeadm:cluster-admins","system:masters","system:authenticated"]'
        assert run_kubectl(kubeconfig, tmp_path, "create", "configmap", "made", "--from-literal=a=b")[0] == 0
        assert {entry.user for entry in server.journal} == {"kubernetes-admin"}


def test_serve_help_says_which_tokens_the_default_server_accepts() -> None:
    done = subprocess.run([*console_script(), "serve", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "By default it accepts any bearer token as naming its user (in system:masters); --token-auth refuses" in text
    assert "Without it (the default) any bearer token is accepted" in text
