"""The bootstrap RBAC policy a new cluster holds (docs/rbac.md), as a client observes it: the roles
and bindings themselves, the aggregated ``admin``/``edit``/``view``, what they let a ServiceAccount
with no bindings of its own and an anonymous client do, and a user bound to ``view``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from fakeapi import FakeAPIServer
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

RBAC_API = "/apis/rbac.authorization.k8s.io/v1"
PODS = "/api/v1/namespaces/default/pods"
SECRETS = "/api/v1/namespaces/default/secrets"
AUTOUPDATE = {"rbac.authorization.kubernetes.io/autoupdate": "true"}
BOOTSTRAPPING = "kubernetes.io/bootstrapping"


@pytest_asyncio.fixture
async def rbac() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer(authorization="RBAC") as server:
        yield server


class _Client(RawClient):
    """Sends a bearer token, or none at all (anonymous)."""

    def __init__(self, session: aiohttp.ClientSession, base: str, token: str | None) -> None:
        super().__init__(session, base)
        self.token = token

    async def request(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        headers = dict(kwargs.pop("headers", None) or {})
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        return await super().request(method, path, body, headers=headers, **kwargs)


def as_(server: FakeAPIServer, session: aiohttp.ClientSession, **identity: Any) -> _Client:
    return _Client(session, server.url, server.token_for(identity.pop("actor", "client"), **identity))


def anonymous(server: FakeAPIServer, session: aiohttp.ClientSession) -> _Client:
    return _Client(session, server.url, None)


def by_name(listed: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["metadata"]["name"]: item for item in listed["items"]}


async def test_a_new_cluster_holds_the_policy_every_object_marked_for_autoupdate(rbac: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as session:
        admin = as_(rbac, session, actor="admin")
        cluster_roles = by_name((await admin.get(f"{RBAC_API}/clusterroles")).json())
        cluster_bindings = by_name((await admin.get(f"{RBAC_API}/clusterrolebindings")).json())
        roles = (await admin.get(f"{RBAC_API}/roles")).json()["items"]
        role_bindings = (await admin.get(f"{RBAC_API}/rolebindings")).json()["items"]
    assert len(cluster_roles) == 65
    assert len(cluster_bindings) == 46
    assert {"cluster-admin", "admin", "edit", "view", "system:basic-user", "system:discovery"} <= set(cluster_roles)
    assert {"system:public-info-viewer", "system:controller:clusterrole-aggregation-controller"} <= set(cluster_roles)
    assert sum(name.startswith("system:controller:") for name in cluster_roles) == 34
    assert sorted((r["metadata"]["namespace"], r["metadata"]["name"]) for r in roles) == [
        ("kube-public", "system:controller:bootstrap-signer"),
        ("kube-system", "extension-apiserver-authentication-reader"),
        ("kube-system", "system::leader-locking-kube-controller-manager"),
        ("kube-system", "system::leader-locking-kube-scheduler"),
        ("kube-system", "system:controller:bootstrap-signer"),
        ("kube-system", "system:controller:cloud-provider"),
        ("kube-system", "system:controller:token-cleaner"),
    ]
    assert len(role_bindings) == 6
    for obj in [*cluster_roles.values(), *cluster_bindings.values(), *roles, *role_bindings]:
        metadata = obj["metadata"]
        assert metadata["annotations"] == AUTOUPDATE, metadata["name"]
        assert metadata["labels"][BOOTSTRAPPING] == "rbac-defaults", metadata["name"]
        # Entries sort by operation, then time to the second, then manager: whether the aggregation
        # controller's entry on admin/edit/view comes first depends on the boot crossing a second.
        assert "creationTimestamp" in metadata
        assert "kube-apiserver" in [entry["manager"] for entry in metadata["managedFields"]], metadata["name"]
    assert cluster_bindings["system:discovery"]["subjects"] == [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:authenticated"}
    ]
    assert cluster_bindings["cluster-admin"]["subjects"] == [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:masters"}
    ]
    assert "subjects" not in cluster_bindings["system:node"]


async def test_admin_edit_and_view_carry_the_rules_the_aggregation_controller_gathers(rbac: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as session:
        admin = as_(rbac, session, actor="admin")
        roles = by_name((await admin.get(f"{RBAC_API}/clusterroles")).json())

    def rules(name: str) -> list[dict[str, Any]]:
        return list(roles[name]["rules"])

    def merged(*names: str) -> list[dict[str, Any]]:
        gathered: list[dict[str, Any]] = []
        for name in names:
            gathered.extend(rule for rule in rules(name) if rule not in gathered)
        return gathered

    # Each selector's matches, in name order, without repeating an equal rule.
    assert rules("view") == rules("system:aggregate-to-view")
    assert rules("edit") == merged("system:aggregate-to-edit", "view")
    assert rules("admin") == merged("edit", "system:aggregate-to-admin")
    assert {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["namespaces"]} in rules("view")
    assert roles["admin"]["aggregationRule"] == {
        "clusterRoleSelectors": [{"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-admin": "true"}}]
    }
    assert roles["cluster-admin"]["rules"] == [
        {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
        {"verbs": ["*"], "nonResourceURLs": ["*"]},
    ]


async def test_a_service_account_without_bindings_may_discover_and_ask_but_not_list_pods(rbac: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as session:
        robot = as_(rbac, session, service_account="default/robot")
        for path in ("/api", "/api/v1", "/apis", "/apis/apps/v1", "/version", "/healthz", "/openid/v1/jwks"):
            assert (await robot.get(path)).status == 200, path
        whoami = await robot.post(
            "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"},
        )
        assert whoami.status == 201
        assert whoami.json()["status"]["userInfo"]["username"] == "system:serviceaccount:default:robot"
        review = await robot.post(
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            {
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SelfSubjectAccessReview",
                "spec": {"resourceAttributes": {"namespace": "default", "verb": "list", "resource": "pods"}},
            },
        )
        assert review.status == 201
        assert review.json()["status"] == {"allowed": False}
        refused = await robot.get(PODS)
        assert refused.status == 403
        assert refused.json() == {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": 'pods is forbidden: User "system:serviceaccount:default:robot" cannot list resource "pods" '
            'in API group "" in the namespace "default"',
            "reason": "Forbidden",
            "details": {"kind": "pods"},
            "code": 403,
        }


async def test_an_anonymous_client_reads_health_and_version_only(rbac: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as session:
        nobody = anonymous(rbac, session)
        for path in ("/healthz", "/livez", "/readyz", "/version", "/version/"):
            assert (await nobody.get(path)).status == 200, path
        # system:discovery is bound to system:authenticated only.
        refused = await nobody.get("/api")
        assert refused.status == 403
        assert refused.json()["message"] == 'forbidden: User "system:anonymous" cannot get path "/api"'
        assert refused.json()["details"] == {}
        listing = await nobody.get(PODS)
        assert listing.json()["message"] == (
            'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the '
            'namespace "default"'
        )


async def test_what_anonymous_may_do_follows_the_bindings_of_system_unauthenticated(rbac: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as session:
        admin = as_(rbac, session, actor="admin")
        nobody = anonymous(rbac, session)
        deleted = await admin.request("DELETE", f"{RBAC_API}/clusterrolebindings/system:public-info-viewer")
        assert deleted.status == 200
        refused = await nobody.get("/healthz")
        assert refused.status == 403
        assert refused.json()["message"] == 'forbidden: User "system:anonymous" cannot get path "/healthz"'
        granted = await admin.post(
            f"{RBAC_API}/clusterrolebindings",
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRoleBinding",
                "metadata": {"name": "anonymous-discovery"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:discovery"},
                "subjects": [
                    {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:unauthenticated"}
                ],
            },
        )
        assert granted.status == 201
        assert (await nobody.get("/api")).status == 200
        assert (await nobody.get("/healthz")).status == 200


async def test_a_user_bound_to_view_reads_pods_but_not_secrets(rbac: FakeAPIServer) -> None:
    rbac.load(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "carol-views", "namespace": "default"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "carol"}],
        }
    )
    async with aiohttp.ClientSession() as session:
        carol = as_(rbac, session, user="carol")
        assert (await carol.get(PODS)).status == 200
        assert (await carol.get("/apis/apps/v1/namespaces/default/deployments")).status == 200
        refused = await carol.get(SECRETS)
        assert refused.status == 403
        assert refused.json()["message"] == (
            'secrets is forbidden: User "carol" cannot list resource "secrets" in API group "" in the namespace '
            '"default"'
        )
        assert (await carol.get("/api/v1/namespaces/kube-system/pods")).status == 403


async def test_the_policy_is_there_without_rbac_and_after_a_reset(client: RawClient, server: FakeAPIServer) -> None:
    assert (await client.request("DELETE", f"{RBAC_API}/clusterroles/system:aggregate-to-view")).status == 200
    view = (await client.get(f"{RBAC_API}/clusterroles/view")).json()
    assert view["rules"] == []
    server.reset()
    view = (await client.get(f"{RBAC_API}/clusterroles/view")).json()
    assert view["metadata"]["annotations"] == AUTOUPDATE
    assert {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["namespaces"]} in view["rules"]
