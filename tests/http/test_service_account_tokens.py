"""ServiceAccount tokens as a client and a token verifier find them (docs/authentication.md): RS256
JWTs whose key the server publishes, which authenticate requests as the ServiceAccount until they
expire or the account goes, and TokenReview through the same authenticators as requests."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from fakeapi import FakeAPIServer
from tests.conftest import RawClient, Reply

ISSUER = "https://kubernetes.default.svc.cluster.local"
ACCOUNTS = "/api/v1/namespaces/default/serviceaccounts"
REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def decoded(segment: str) -> Any:
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


def integer(segment: str) -> int:
    return int.from_bytes(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)), "big")


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest_asyncio.fixture
async def server(clock: Clock) -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer(token_auth=True, clock=clock, seed=3) as running:
        yield running


@pytest_asyncio.fixture
async def admin(server: FakeAPIServer) -> AsyncIterator[RawClient]:
    headers = {"Authorization": f"Bearer {server.token_for('admin')}"}
    async with aiohttp.ClientSession(headers=headers) as session:
        yield RawClient(session, server.url)


async def account_token(admin: RawClient, name: str = "robot", **spec: Any) -> str:
    created = await admin.post(ACCOUNTS, {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}})
    assert created.status == 201
    request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec}
    reply = await admin.post(f"{ACCOUNTS}/{name}/token", request)
    assert reply.status == 201
    token: str = reply.json()["status"]["token"]
    return token


async def review(admin: RawClient, token: str, *audiences: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"token": token, **({"audiences": list(audiences)} if audiences else {})}
    reply = await admin.post(REVIEWS, {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec})
    assert reply.status == 201
    status: dict[str, Any] = reply.json()["status"]
    return status


async def get_as(server: FakeAPIServer, token: str, path: str) -> aiohttp.ClientResponse:
    headers = {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession() as session, session.get(server.url + path, headers=headers) as response:
        await response.read()
        return response


@pytest.mark.asyncio
async def test_tokens_verify_against_the_published_key_set(server: FakeAPIServer, admin: RawClient) -> None:
    token = await account_token(admin)
    configuration = await admin.get("/.well-known/openid-configuration")
    assert configuration.status == 200
    assert configuration.headers["Content-Type"] == "application/json"
    assert configuration.headers["Cache-Control"] == "public, max-age=3600"
    assert configuration.json() == {
        "issuer": ISSUER,
        "jwks_uri": server.url + "/openid/v1/jwks",
        "response_types_supported": ["id_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
    }
    keys = await admin.get("/openid/v1/jwks")
    assert keys.headers["Content-Type"] == "application/jwk-set+json"
    (key,) = keys.json()["keys"]
    assert list(key) == ["use", "kty", "kid", "alg", "n", "e"]
    assert (key["use"], key["kty"], key["alg"], key["e"]) == ("sig", "RSA", "RS256", "AQAB")

    head, payload, signature = token.split(".")
    assert decoded(head) == {"alg": "RS256", "kid": key["kid"]}
    public = rsa.RSAPublicNumbers(integer(key["e"]), integer(key["n"])).public_key()
    assert public.key_size == 2048
    raw = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
    public.verify(raw, f"{head}.{payload}".encode(), padding.PKCS1v15(), hashes.SHA256())
    with pytest.raises(InvalidSignature):
        public.verify(raw, f"{head}.{payload}x".encode(), padding.PKCS1v15(), hashes.SHA256())
    claims = decoded(payload)
    assert list(claims) == ["aud", "exp", "iat", "iss", "jti", "kubernetes.io", "nbf", "sub"]


@pytest.mark.asyncio
async def test_a_token_authenticates_requests_as_its_service_account(server: FakeAPIServer, admin: RawClient) -> None:
    token = await account_token(admin)
    assert (await get_as(server, token, CONFIGMAPS)).status == 200
    entry = list(server.journal)[-1]
    assert entry.user == "system:serviceaccount:default:robot"
    assert entry.groups == ("system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated")

    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {token}"}) as session:
        whoami = await RawClient(session, server.url).post(
            "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"},
        )
    info = whoami.json()["status"]["userInfo"]
    jti = decoded(token.split(".")[1])["jti"]
    assert info["extra"] == {"authentication.kubernetes.io/credential-id": [f"JTI={jti}"]}


@pytest.mark.asyncio
async def test_token_review_answers_for_issued_and_service_account_tokens(
    server: FakeAPIServer, admin: RawClient
) -> None:
    token = await account_token(admin)
    account_uid = (await admin.get(f"{ACCOUNTS}/robot")).json()["metadata"]["uid"]
    jti = decoded(token.split(".")[1])["jti"]
    assert await review(admin, token) == {
        "authenticated": True,
        "user": {
            "username": "system:serviceaccount:default:robot",
            "uid": account_uid,
            "groups": ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
            "extra": {"authentication.kubernetes.io/credential-id": [f"JTI={jti}"]},
        },
        "audiences": [ISSUER],
    }
    assert await review(admin, token, "vault") == {
        "user": {},
        "error": f'token audiences ["{ISSUER}"] is invalid for the target audiences ["vault"]',
    }
    issued = await review(admin, server.token_for("admin"))
    assert issued["authenticated"] is True and issued["audiences"] == [ISSUER]
    assert issued["user"]["username"] == "admin"
    assert issued["user"]["groups"] == ["system:masters", "system:authenticated"]
    assert await review(admin, server.token_for("admin"), "vault") == {"user": {}, "error": "invalid bearer token"}
    assert await review(admin, "not-a-token") == {"user": {}, "error": "invalid bearer token"}
    tampered = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    assert await review(admin, tampered) == {
        "user": {},
        "error": "go-jose/go-jose: error in cryptographic primitive",
    }


@pytest.mark.asyncio
async def test_a_token_stops_working_when_it_expires_or_its_account_goes(
    server: FakeAPIServer, admin: RawClient, clock: Clock
) -> None:
    short = await account_token(admin, "short", expirationSeconds=600)
    kept = await account_token(admin, "gone")
    clock.now += 600 + 60  # go-jose allows a minute of leeway
    assert (await get_as(server, short, CONFIGMAPS)).status == 200
    clock.now += 1
    refused = await get_as(server, short, CONFIGMAPS)
    assert refused.status == 401
    assert await review(admin, short) == {"user": {}, "error": "service account token has expired"}

    assert (await admin.delete(f"{ACCOUNTS}/gone")).status == 200
    assert (await get_as(server, kept, CONFIGMAPS)).status == 401
    assert await review(admin, kept) == {"user": {}, "error": 'serviceaccounts "gone" not found'}


NODES = "/api/v1/nodes"
PODS = "/api/v1/namespaces/default/pods"


async def token_request(admin: RawClient, account: str, **spec: Any) -> Reply:
    request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec}
    return await admin.post(f"{ACCOUNTS}/{account}/token", request)


async def scheduled_pod(admin: RawClient, name: str, node: str) -> str:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"serviceAccountName": "robot", "containers": [{"name": "main", "image": "busybox:1.36"}]},
    }
    created = await admin.post(PODS, pod)
    assert created.status == 201, created.body
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name}, "target": {"name": node}}
    assert (await admin.post(f"{PODS}/{name}/binding", binding)).status == 201
    uid: str = created.json()["metadata"]["uid"]
    return uid


@pytest.mark.asyncio
async def test_a_pod_bound_token_names_the_pods_node(admin: RawClient) -> None:
    await account_token(admin)
    node = await admin.post(NODES, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})
    node_uid = node.json()["metadata"]["uid"]
    pod_uid = await scheduled_pod(admin, "on-node", "node-1")
    reply = await token_request(admin, "robot", boundObjectRef={"kind": "Pod", "apiVersion": "v1", "name": "on-node"})
    assert reply.status == 201
    token = reply.json()["status"]["token"]
    claims = decoded(token.split(".")[1])["kubernetes.io"]
    assert list(claims) == ["namespace", "node", "pod", "serviceaccount"]
    assert claims["node"] == {"name": "node-1", "uid": node_uid}
    assert claims["pod"] == {"name": "on-node", "uid": pod_uid}
    extra = (await review(admin, token))["user"]["extra"]
    assert {key: value for key, value in extra.items() if "credential-id" not in key} == {
        "authentication.kubernetes.io/node-name": ["node-1"],
        "authentication.kubernetes.io/node-uid": [node_uid],
        "authentication.kubernetes.io/pod-name": ["on-node"],
        "authentication.kubernetes.io/pod-uid": [pod_uid],
    }
    await scheduled_pod(admin, "nowhere", "node-absent")
    reply = await token_request(admin, "robot", boundObjectRef={"kind": "Pod", "apiVersion": "v1", "name": "nowhere"})
    claims = decoded(reply.json()["status"]["token"].split(".")[1])["kubernetes.io"]
    assert claims["node"] == {"name": "node-absent"}


@pytest.mark.asyncio
async def test_a_node_bound_token_lives_as_long_as_its_node(admin: RawClient) -> None:
    await account_token(admin)
    ref = {"kind": "Node", "apiVersion": "v1", "name": "node-2"}
    missing = await token_request(admin, "robot", boundObjectRef=ref)
    assert (missing.status, missing.json()["message"]) == (404, 'nodes "node-2" not found')
    node = await admin.post(NODES, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-2"}})
    reply = await token_request(admin, "robot", boundObjectRef=ref)
    assert reply.status == 201
    token = reply.json()["status"]["token"]
    assert decoded(token.split(".")[1])["kubernetes.io"]["node"] == {
        "name": "node-2",
        "uid": node.json()["metadata"]["uid"],
    }
    assert (await review(admin, token))["user"]["extra"]["authentication.kubernetes.io/node-name"] == ["node-2"]
    assert (await admin.delete(f"{NODES}/node-2")).status == 200
    assert await review(admin, token) == {"user": {}, "error": "service account token has been invalidated"}
    other = await token_request(admin, "robot", boundObjectRef={"kind": "ConfigMap", "apiVersion": "v1", "name": "x"})
    assert (other.status, other.json()["message"]) == (400, "cannot bind token to object of type /v1, Kind=ConfigMap")


@pytest.mark.asyncio
async def test_a_token_request_names_its_account_or_nothing(admin: RawClient) -> None:
    await account_token(admin)
    request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "metadata": {"name": "else"}}
    reply = await admin.post(f"{ACCOUNTS}/robot/token", {**request, "spec": {}})
    assert reply.status == 422
    assert reply.json()["message"] == (
        'TokenRequest.authentication.k8s.io "robot" is invalid: metadata.name: Invalid value: "else": '
        "must match the service account name if specified"
    )


@pytest.mark.asyncio
async def test_a_kubelet_shaped_token_request_is_extended_with_a_warning_time(admin: RawClient, clock: Clock) -> None:
    await account_token(admin)
    await scheduled_pod(admin, "projected", "node-1")
    ref = {"kind": "Pod", "apiVersion": "v1", "name": "projected"}
    reply = await token_request(admin, "robot", boundObjectRef=ref, expirationSeconds=3607)
    answer = reply.json()
    claims = decoded(answer["status"]["token"].split(".")[1])
    assert claims["exp"] - claims["iat"] == 365 * 24 * 3600
    assert claims["kubernetes.io"]["warnafter"] == claims["iat"] + 3607
    assert answer["spec"]["expirationSeconds"] == 3607
    plain = decoded(
        (await token_request(admin, "robot", expirationSeconds=3607)).json()["status"]["token"].split(".")[1]
    )
    assert plain["exp"] - plain["iat"] == 3607 and "warnafter" not in plain["kubernetes.io"]


@pytest.mark.asyncio
async def test_a_token_review_needs_a_token(admin: RawClient) -> None:
    reply = await admin.post(REVIEWS, {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {}})
    assert reply.status == 400
    assert reply.json()["message"] == "token is required for TokenReview in authentication"


@pytest.mark.asyncio
async def test_a_seeded_server_issues_the_same_tokens_every_time() -> None:
    tokens = []
    for _ in range(2):
        async with FakeAPIServer(seed=11, clock=lambda: 1_700_000_000.0) as server, aiohttp.ClientSession() as session:
            tokens.append(await account_token(RawClient(session, server.url)))
    assert tokens[0] == tokens[1]
