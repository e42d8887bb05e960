"""The health endpoints as a client reads them (docs/health.md): ``ok``, the verbose listing of a
1.32 server's checks, excludes, one check alone, Go's 404 for anything else under the roots, the
headers, and who may read them with token checks and under RBAC."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
import pytest_asyncio

from fakeapi import FakeAPIServer
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

POST_START = [
    "poststarthook/start-apiserver-admission-initializer",
    "poststarthook/generic-apiserver-start-informers",
    "poststarthook/priority-and-fairness-config-consumer",
    "poststarthook/priority-and-fairness-filter",
    "poststarthook/storage-object-count-tracker-hook",
    "poststarthook/start-apiextensions-informers",
    "poststarthook/start-apiextensions-controllers",
    "poststarthook/crd-informer-synced",
    "poststarthook/start-system-namespaces-controller",
    "poststarthook/start-cluster-authentication-info-controller",
    "poststarthook/start-kube-apiserver-identity-lease-controller",
    "poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
    "poststarthook/start-legacy-token-tracking-controller",
    "poststarthook/start-service-ip-repair-controllers",
    "poststarthook/rbac/bootstrap-roles",
    "poststarthook/scheduling/bootstrap-system-priority-classes",
    "poststarthook/priority-and-fairness-config-producer",
    "poststarthook/bootstrap-controller",
    "poststarthook/aggregator-reload-proxy-client-cert",
    "poststarthook/start-kube-aggregator-informers",
    "poststarthook/apiservice-status-local-available-controller",
    "poststarthook/apiservice-status-remote-available-controller",
    "poststarthook/apiservice-registration-controller",
    "poststarthook/apiservice-discovery-controller",
    "poststarthook/kube-apiserver-autoregistration",
    "autoregister-completion",
    "poststarthook/apiservice-openapi-controller",
    "poststarthook/apiservice-openapiv3-controller",
]
READYZ = ["ping", "log", "etcd", "etcd-readiness", "informer-sync", *POST_START, "shutdown"]
LIVEZ = ["ping", "log", "etcd", *POST_START]


def listing(names: list[str], endpoint: str) -> bytes:
    return ("".join(f"[+]{name} ok\n" for name in names) + f"{endpoint} check passed\n").encode()


async def test_a_root_answers_ok_with_plain_text_and_nosniff(client: RawClient) -> None:
    for endpoint in ("healthz", "livez", "readyz"):
        reply = await client.get(f"/{endpoint}")
        assert (reply.status, reply.body) == (200, b"ok")
        assert reply.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert reply.headers["X-Content-Type-Options"] == "nosniff"


async def test_verbose_lists_every_check_in_the_servers_order(client: RawClient) -> None:
    assert (await client.get("/readyz?verbose")).body == listing(READYZ, "readyz")
    assert (await client.get("/livez?verbose")).body == listing(LIVEZ, "livez")
    assert (await client.get("/healthz?verbose")).body == listing(LIVEZ, "healthz")
    # Only the presence of the parameter counts, not its value.
    assert (await client.get("/readyz?verbose=false")).body == listing(READYZ, "readyz")


async def test_an_excluded_check_says_so_and_an_unknown_exclude_is_warned_about(client: RawClient) -> None:
    reply = await client.get("/livez?verbose&exclude=etcd&exclude=zz&exclude=shutdown&exclude=a%22b")
    lines = reply.body.decode().splitlines()
    assert reply.status == 200
    assert lines[:4] == ["[+]ping ok", "[+]log ok", "[+]etcd excluded: ok", f"[+]{POST_START[0]} ok"]
    # shutdown is a readyz check only; the names that matched nothing come sorted, Go-quoted.
    assert lines[-2:] == [
        'warn: some health checks cannot be excluded: no matches for "a\\"b","shutdown","zz"',
        "livez check passed",
    ]
    quiet = await client.get("/readyz?exclude=etcd&exclude=nothing")
    assert (quiet.status, quiet.body) == (200, b"ok")


async def test_each_check_answers_on_its_own_path(client: RawClient) -> None:
    for path in ("/livez/ping", "/readyz/etcd", "/healthz/log", "/readyz/shutdown", "/readyz/informer-sync"):
        reply = await client.get(path)
        assert (reply.status, reply.body) == (200, b"ok"), path
        assert reply.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert "X-Content-Type-Options" not in reply.headers
    hook = await client.get("/readyz/poststarthook/rbac/bootstrap-roles?verbose")
    assert (hook.status, hook.body) == (200, b"ok")


@pytest.mark.parametrize(
    "path",
    ["/readyz/", "/livez/nope", "/livez/shutdown", "/healthz/etcd-readiness", "/readyz/poststarthook", "/readyz/ping/"],
)
async def test_anything_else_under_a_root_is_gos_404(client: RawClient, path: str) -> None:
    reply = await client.get(path)
    assert (reply.status, reply.body) == (404, b"404 page not found\n")
    assert reply.headers["X-Content-Type-Options"] == "nosniff"


@pytest_asyncio.fixture(params=["token checks", "RBAC"])
async def checked(request: pytest.FixtureRequest) -> AsyncIterator[FakeAPIServer]:
    """With token checks and no authorizer, and under RBAC: the same answers to anonymous clients."""
    authorization = "RBAC" if request.param == "RBAC" else "AlwaysAllow"
    async with FakeAPIServer(token_auth=True, authorization=authorization) as server:
        yield server


@pytest_asyncio.fixture
async def rbac() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer(authorization="RBAC", token_auth=True) as server:
        yield server


async def anonymous_answers(server: FakeAPIServer) -> dict[tuple[str, str], tuple[int, str]]:
    """What an anonymous client gets, by method and path: status and message (or body)."""
    answers = {}
    async with aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        for method, path in [
            ("GET", "/readyz?verbose"),
            ("GET", "/livez"),
            ("GET", "/healthz?exclude=etcd"),
            ("GET", "/livez/ping"),
            ("GET", "/readyz/etcd"),
            ("HEAD", "/healthz"),
        ]:
            reply = await client.request(method, path)
            forbidden = reply.status == 403 and method == "GET"
            text = reply.json()["message"] if forbidden else reply.body.decode()[:2]
            answers[(method, path)] = (reply.status, text)
    return answers


async def test_anonymous_reads_the_roots_only_as_system_public_info_viewer_allows(checked: FakeAPIServer) -> None:
    answers = await anonymous_answers(checked)
    assert answers == {
        ("GET", "/readyz?verbose"): (200, "[+"),
        ("GET", "/livez"): (200, "ok"),
        ("GET", "/healthz?exclude=etcd"): (200, "ok"),
        ("GET", "/livez/ping"): (403, 'forbidden: User "system:anonymous" cannot get path "/livez/ping"'),
        ("GET", "/readyz/etcd"): (403, 'forbidden: User "system:anonymous" cannot get path "/readyz/etcd"'),
        ("HEAD", "/healthz"): (403, ""),
    }


async def test_a_monitoring_user_reads_the_checks_under_rbac(rbac: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as session:
        admin = RawClient(session, rbac.url)
        token = rbac.token_for("admin")
        binding = {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "prober-monitoring"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:monitoring"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "prober"}],
        }
        created = await admin.post(
            "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
            binding,
            headers={"Authorization": f"Bearer {token}"},
        )
        assert created.status == 201
        prober = {"Authorization": f"Bearer {rbac.token_for('prober')}"}
        assert (await admin.get("/livez/ping", headers=prober)).body == b"ok"
        refused = await admin.get("/api/v1/namespaces", headers=prober)
        assert refused.status == 403
