"""RBAC authorization on request, as a client observes it: 403s with the apiserver's Status,
bindings that take effect at once, impersonation, escalation prevention, ClusterRole aggregation,
the reviews `kubectl auth can-i` sends, and the permissions report."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from fakeapi import FakeAPIServer
from tests.conftest import RawClient

RBAC = "rbac.authorization.k8s.io/v1"
PODS = "/api/v1/namespaces/default/pods"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def role(name: str, *rules: dict[str, Any], namespace: str | None = "default", **extra: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, **({"namespace": namespace} if namespace else {})}
    kind = "Role" if namespace else "ClusterRole"
    return {"apiVersion": RBAC, "kind": kind, "metadata": metadata, "rules": list(rules), **extra}


def binding(name: str, role_kind: str, role_name: str, *subjects: dict[str, Any], namespace: str | None = "default"):  # type: ignore[no-untyped-def]
    metadata: dict[str, Any] = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {
        "apiVersion": RBAC,
        "kind": "RoleBinding" if namespace else "ClusterRoleBinding",
        "metadata": metadata,
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role_name},
        "subjects": list(subjects),
    }


OPERATOR = {"kind": "ServiceAccount", "name": "operator", "namespace": "default"}


@pytest_asyncio.fixture
async def rbac() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer(authorization="rbac") as server:
        yield server


def as_(server: FakeAPIServer, session: aiohttp.ClientSession, **identity: Any) -> RawClient:
    token = server.token_for(identity.pop("actor", "client"), **identity)
    return _Authorized(session, server.url, token)


class _Authorized(RawClient):
    def __init__(self, session: aiohttp.ClientSession, base: str, token: str) -> None:
        super().__init__(session, base)
        self.token = token

    async def request(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        headers = {"Authorization": f"Bearer {self.token}", **(kwargs.pop("headers", None) or {})}
        return await super().request(method, path, body, headers=headers, **kwargs)


@pytest.mark.asyncio
async def test_a_service_account_without_a_binding_gets_the_apiservers_403_and_nothing_is_stored(
    rbac: FakeAPIServer,
) -> None:
    async with aiohttp.ClientSession() as session:
        operator = as_(rbac, session, actor="op", service_account="default/operator")
        revision = rbac.revision
        reply = await operator.post(CONFIGMAPS, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    assert reply.status == 403
    assert reply.body == (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps is forbidden: '
        b'User \\"system:serviceaccount:default:operator\\" cannot create resource \\"configmaps\\" in API group '
        b'\\"\\" in the namespace \\"default\\"","reason":"Forbidden","details":{"kind":"configmaps"},"code":403}\n'
    )
    assert rbac.revision == revision
    (entry,) = [e for e in rbac.journal if e.method == "POST"]
    assert (entry.actor, entry.user, entry.authorized) == ("op", "system:serviceaccount:default:operator", False)


@pytest.mark.asyncio
async def test_a_binding_takes_effect_on_the_next_request_and_a_subresource_needs_its_own_rule(
    rbac: FakeAPIServer,
) -> None:
    rbac.load(
        role("pod-reader", {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}),
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "i"}]},
        },
    )
    async with aiohttp.ClientSession() as session:
        operator = as_(rbac, session, service_account="default/operator")
        admin = as_(rbac, session, actor="admin")
        assert (await operator.get(PODS)).status == 403
        created = await admin.post(
            "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
            binding("read-pods", "Role", "pod-reader", OPERATOR),
        )
        assert created.status == 201, created.body
        assert (await operator.get(PODS)).status == 200
        assert (await operator.get(PODS + "/p")).status == 200
        status = await operator.get(PODS + "/p/status")
        assert status.status == 403
        assert (
            'cannot get resource \\"pods/status\\" in API group \\"\\" in the namespace \\"default\\"'
            in status.body.decode()
        )
        other = await operator.get("/api/v1/namespaces/kube-system/pods")
        assert other.status == 403 and b'in the namespace \\"kube-system\\"' in other.body


@pytest.mark.asyncio
async def test_resource_names_allow_a_get_and_a_watch_pinned_by_field_selector_but_not_a_list(
    rbac: FakeAPIServer,
) -> None:
    rbac.load(
        role(
            "one",
            {
                "apiGroups": [""],
                "resources": ["configmaps"],
                "resourceNames": ["settings"],
                "verbs": ["get", "list", "watch"],
            },
        ),
        binding("one", "Role", "one", {"kind": "User", "name": "alice"}),
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}},
    )
    async with aiohttp.ClientSession() as session:
        alice = as_(rbac, session, user="alice")
        assert (await alice.get(CONFIGMAPS + "/settings")).status == 200
        assert (await alice.get(CONFIGMAPS)).status == 403
        pinned = await alice.get(CONFIGMAPS + "?fieldSelector=metadata.name%3Dsettings&limit=1")
        assert pinned.status == 200
        assert (await alice.get(CONFIGMAPS + "/other")).status == 403


@pytest.mark.asyncio
async def test_a_non_resource_path_is_authorized_by_its_url(rbac: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as session:
        alice = as_(rbac, session, user="alice")
        # The bootstrap policy grants the issuer's keys to ServiceAccounts only.
        refused = await alice.get("/openid/v1/jwks")
        assert refused.status == 403
        assert refused.json()["message"] == 'forbidden: User "alice" cannot get path "/openid/v1/jwks"'
        rbac.load(
            role("keys", {"nonResourceURLs": ["/openid/*"], "verbs": ["get"]}, namespace=None),
            binding("keys", "ClusterRole", "keys", {"kind": "Group", "name": "system:authenticated"}, namespace=None),
        )
        assert (await alice.get("/openid/v1/jwks")).status == 200


@pytest.mark.asyncio
async def test_impersonation_is_authorized_and_acts_as_the_impersonated_user(rbac: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as session:
        alice = as_(rbac, session, user="alice")
        as_bob = {"Impersonate-User": "bob"}
        refused = await alice.get(CONFIGMAPS, headers=as_bob)
        assert refused.status == 403
        assert refused.json()["message"] == (
            'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the '
            "cluster scope"
        )
        rbac.load(
            role("impersonator", {"apiGroups": [""], "resources": ["users"], "verbs": ["impersonate"]}, namespace=None),
            binding("impersonator", "ClusterRole", "impersonator", {"kind": "User", "name": "alice"}, namespace=None),
            role("bob", {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}),
            binding("bob", "Role", "bob", {"kind": "User", "name": "bob"}),
        )
        assert (await alice.get(CONFIGMAPS)).status == 403
        assert (await alice.get(CONFIGMAPS, headers=as_bob)).status == 200
        entry = list(rbac.journal)[-1]
        assert (entry.actor, entry.user, entry.groups) == ("client", "bob", ("system:authenticated",))
        groups_only = await alice.get(CONFIGMAPS, headers={"Impersonate-Group": "devs"})
        assert groups_only.status == 500
        assert groups_only.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert groups_only.body == (
            b'Internal Server Error: "/api/v1/namespaces/default/configmaps": requested [{Group  devs    }] '
            b"without impersonating a user\n"
        )


@pytest.mark.asyncio
async def test_a_role_that_grants_more_than_its_writer_holds_is_refused_unless_it_may_escalate(
    rbac: FakeAPIServer,
) -> None:
    rbac.load(
        role(
            "role-writer",
            {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"], "verbs": ["create"]},
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]},
        ),
        binding("role-writer", "Role", "role-writer", {"kind": "User", "name": "alice"}),
    )
    roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"
    async with aiohttp.ClientSession() as session:
        alice = as_(rbac, session, user="alice")
        revision = rbac.revision
        held = await alice.post(
            roles, role("readers", {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]})
        )
        assert held.status == 201, held.body
        more = await alice.post(
            roles, role("writers", {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "delete"]})
        )
        assert more.status == 403
        message = more.json()["message"]
        assert message.startswith(
            'roles.rbac.authorization.k8s.io "writers" is forbidden: user "alice" (groups=["system:authenticated"]) '
            "is attempting to grant RBAC permissions not currently held:"
        )
        assert '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}' in message
        assert rbac.revision == revision + 1
        rbac.load(
            role(
                "escalator", {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"], "verbs": ["escalate"]}
            ),
            binding("escalator", "Role", "escalator", {"kind": "User", "name": "alice"}),
        )
        again = await alice.post(
            roles, role("writers", {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "delete"]})
        )
        assert again.status == 201


@pytest.mark.asyncio
async def test_an_aggregated_cluster_role_gathers_the_rules_of_the_roles_its_selector_picks(
    rbac: FakeAPIServer,
) -> None:
    label = {"example.com/aggregate-to-monitoring": "true"}
    rbac.load(
        role("monitoring", namespace=None, aggregationRule={"clusterRoleSelectors": [{"matchLabels": label}]}),
    )
    async with aiohttp.ClientSession() as session:
        admin = as_(rbac, session, actor="admin")
        piece = role("pods", {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}, namespace=None)
        piece["metadata"]["labels"] = label
        created = await admin.post("/apis/rbac.authorization.k8s.io/v1/clusterroles", piece)
        assert created.status == 201
        aggregated = (await admin.get("/apis/rbac.authorization.k8s.io/v1/clusterroles/monitoring")).json()
    assert aggregated["rules"] == [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]
    managers = [entry["manager"] for entry in aggregated["metadata"]["managedFields"]]
    assert "clusterrole-aggregation-controller" in managers


@pytest.mark.asyncio
async def test_access_and_rules_reviews_answer_from_the_same_rules_as_requests(rbac: FakeAPIServer) -> None:
    rbac.load(
        role("reader", {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}),
        binding("reader", "Role", "reader", {"kind": "User", "name": "alice"}),
        # What the bootstrap policy's system:basic-user role grants every authenticated user.
        role(
            "reviewer",
            {
                "apiGroups": ["authorization.k8s.io"],
                "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                "verbs": ["create"],
            },
            namespace=None,
        ),
        binding("reviewer", "ClusterRole", "reviewer", {"kind": "User", "name": "alice"}, namespace=None),
    )
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"namespace": "default", "verb": "list", "resource": "configmaps"}},
    }
    async with aiohttp.ClientSession() as session:
        alice = as_(rbac, session, user="alice")
        path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
        allowed = (await alice.post(path, review)).json()["status"]
        review["spec"]["resourceAttributes"]["verb"] = "delete"  # type: ignore[index]
        denied = (await alice.post(path, review)).json()["status"]
        rules = await alice.post(
            "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
            {
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SelfSubjectRulesReview",
                "spec": {"namespace": "default"},
            },
        )
    assert allowed == {
        "allowed": True,
        "reason": 'RBAC: allowed by RoleBinding "reader/default" of Role "reader" to User "alice"',
    }
    assert denied == {"allowed": False}
    assert {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["configmaps"]} in rules.json()["status"][
        "resourceRules"
    ]


@pytest.mark.asyncio
async def test_the_permissions_report_names_what_was_used_refused_and_granted_in_vain(rbac: FakeAPIServer) -> None:
    rbac.load(
        role("operator", {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "delete"]}),
        binding("operator", "Role", "operator", OPERATOR),
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}},
    )
    async with aiohttp.ClientSession() as session:
        operator = as_(rbac, session, service_account="default/operator")
        assert (await operator.get(CONFIGMAPS + "/settings")).status == 200
        assert (await operator.patch(CONFIGMAPS + "/settings", b"[]")).status == 403
    report = rbac.permissions(service_account="default/operator")
    assert report.missing_manifests() == [
        {
            "apiVersion": RBAC,
            "kind": "Role",
            "metadata": {"name": "missing-default", "namespace": "default"},
            "rules": [{"verbs": ["patch"], "apiGroups": [""], "resources": ["configmaps"]}],
        }
    ]
    unused = report.data["unused"]
    assert unused == [
        {"kind": "Role", "namespace": "default", "name": "operator",
         "rules": [{"verbs": ["list", "delete"], "apiGroups": [""], "resources": ["configmaps"]}]}
    ]  # fmt: skip
    text = str(report)
    assert text.startswith("# Permissions of system:serviceaccount:default:operator")
    assert '- patch configmaps "settings", namespace default: 0 allowed, 1 refused' in text


@pytest.mark.asyncio
async def test_always_allow_stays_the_default_and_reviews_say_so() -> None:
    async with FakeAPIServer() as server, aiohttp.ClientSession() as session:
        anyone = as_(server, session, user="alice")
        assert server.authorization == "AlwaysAllow"
        assert (await anyone.get(CONFIGMAPS)).status == 200
        as_bob = await anyone.get(CONFIGMAPS, headers={"Impersonate-User": "bob"})
        assert as_bob.status == 200 and list(server.journal)[-1].user == "bob"
