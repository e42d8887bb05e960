"""The CEL authorizer in webhooks' ``matchConditions``: checks on other resources, on the request's own resource,
on paths and as a ServiceAccount, answered by the server's RBAC for the requester, and the compile and runtime
errors of the library (docs/cel-authorizer.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from fakeapi import FakeAPIServer
from tests.admission import policy_objects
from tests.admission.conftest import WebhookServer, allow, configuration, webhook
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

RBAC = "rbac.authorization.k8s.io/v1"
VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
DENIED = 'admission webhook "deny.example.com" denied the request: denied'
WRITERS_REASON = 'RBAC: allowed by ClusterRoleBinding "writers" of ClusterRole "configmap-writer" to Group "writers"'


def role(name: str, *rules: dict[str, Any], namespace: str | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, **({"namespace": namespace} if namespace else {})}
    kind = "Role" if namespace else "ClusterRole"
    return {"apiVersion": RBAC, "kind": kind, "metadata": metadata, "rules": list(rules)}


def binding(name: str, role_ref: tuple[str, str], *subjects: dict[str, Any], namespace: str | None = None) -> Any:
    metadata: dict[str, Any] = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {
        "apiVersion": RBAC,
        "kind": "RoleBinding" if namespace else "ClusterRoleBinding",
        "metadata": metadata,
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_ref[0], "name": role_ref[1]},
        "subjects": list(subjects),
    }


def user(name: str) -> dict[str, str]:
    return {"kind": "User", "name": name, "apiGroup": "rbac.authorization.k8s.io"}


def group(name: str) -> dict[str, str]:
    return {"kind": "Group", "name": name, "apiGroup": "rbac.authorization.k8s.io"}


class Authorized(RawClient):
    """A client whose every request carries a bearer token (and, when given, impersonation headers)."""

    def __init__(self, session: aiohttp.ClientSession, base: str, token: str, **headers: str) -> None:
        super().__init__(session, base)
        self.token_headers = {"Authorization": f"Bearer {token}", **headers}

    async def request(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        headers = {**self.token_headers, **(kwargs.pop("headers", None) or {})}
        return await super().request(method, path, body, headers=headers, **kwargs)


@pytest_asyncio.fixture
async def rbac() -> AsyncIterator[FakeAPIServer]:
    """An RBAC server where the group ``writers`` (alice and bob) may create configmaps in ``default``."""
    async with FakeAPIServer(authorization="RBAC") as server:
        server.load(
            role("configmap-writer", {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]}),
            binding("writers", ("ClusterRole", "configmap-writer"), group("writers")),
        )
        yield server
        assert server.errors == [], "\n".join(server.errors)


@pytest_asyncio.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as opened:
        yield opened


def as_user(server: FakeAPIServer, session: aiohttp.ClientSession, name: str, **headers: str) -> Authorized:
    return Authorized(session, server.url, server.token_for(name, user=name, groups=["writers"]), **headers)


def admin(server: FakeAPIServer, session: aiohttp.ClientSession) -> Authorized:
    return Authorized(session, server.url, server.token_for("admin"))


def configmap(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}


async def deny_when(client: RawClient, hooks: WebhookServer, *expressions: str) -> None:
    """A validating webhook that refuses every write it is called for, with these conditions."""
    hooks.answers["/deny"] = allow(allowed=False, status={"message": "denied"})
    conditions = [{"name": f"c{number}", "expression": text} for number, text in enumerate(expressions)]
    hook = webhook("deny.example.com", hooks.client_config("/deny"), matchConditions=conditions)
    reply = await client.post(VALIDATING, configuration("ValidatingWebhookConfiguration", "v", hook))
    assert reply.status == 201, reply.body


async def test_a_check_on_another_resource_is_answered_for_the_requester(
    rbac: FakeAPIServer, hooks: WebhookServer, session: aiohttp.ClientSession
) -> None:
    rbac.load(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}},
        role("pod-maker", {"apiGroups": [""], "resources": ["pods"], "verbs": ["create"]}, namespace="x"),
        binding("pod-maker", ("Role", "pod-maker"), user("alice"), namespace="x"),
    )
    await deny_when(
        admin(rbac, session), hooks, "authorizer.group('').resource('pods').namespace('x').check('create').allowed()"
    )
    assert (await as_user(rbac, session, "bob").post(CONFIGMAPS, configmap("by-bob"))).status == 201
    assert hooks.received == []
    refused = await as_user(rbac, session, "alice").post(CONFIGMAPS, configmap("by-alice"))
    assert refused.status == 400
    assert refused.json()["message"] == DENIED
    assert len(hooks.received) == 1


async def test_the_request_resource_check_carries_the_requests_name(
    rbac: FakeAPIServer, hooks: WebhookServer, session: aiohttp.ClientSession
) -> None:
    rbac.load(
        role("reader", {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"], "resourceNames": ["mine"]}),
        binding("reader", ("ClusterRole", "reader"), user("alice")),
    )
    await deny_when(admin(rbac, session), hooks, "authorizer.requestResource.check('get').allowed()")
    alice = as_user(rbac, session, "alice")
    assert (await alice.post(CONFIGMAPS, configmap("other"))).status == 201
    assert (await as_user(rbac, session, "bob").post(CONFIGMAPS, configmap("bobs"))).status == 201
    assert hooks.received == []
    called = await alice.post(CONFIGMAPS, configmap("mine"))
    assert called.status == 400
    assert called.json()["message"] == DENIED
    assert len(hooks.received) == 1


async def test_the_request_resource_check_carries_the_group_and_subresource(
    rbac: FakeAPIServer, hooks: WebhookServer, session: aiohttp.ClientSession
) -> None:
    labels = {"app": "web"}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}
    scale = {"apiGroups": ["apps"], "resources": ["deployments/scale"]}
    rbac.load(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": template},
        },
        role("scaler", {**scale, "verbs": ["patch"]}),
        binding("scaler", ("ClusterRole", "scaler"), group("writers")),
        role("scale-updater", {**scale, "verbs": ["update"]}),
        binding("scale-updater", ("ClusterRole", "scale-updater"), user("alice")),
    )
    hooks.answers["/deny"] = allow(allowed=False, status={"message": "denied"})
    conditions = [{"name": "c", "expression": "authorizer.requestResource.check('update').allowed()"}]
    hook = webhook(
        "deny.example.com",
        hooks.client_config("/deny"),
        resources=["deployments/scale"],
        groups=["apps"],
        matchConditions=conditions,
    )
    created = await admin(rbac, session).post(VALIDATING, configuration("ValidatingWebhookConfiguration", "v", hook))
    assert created.status == 201, created.body
    path = "/apis/apps/v1/namespaces/default/deployments/web/scale"
    patch = {"spec": {"replicas": 2}}
    bob = await as_user(rbac, session, "bob").patch(path, patch, "application/merge-patch+json")
    assert bob.status == 200, bob.body
    assert hooks.received == []
    alice = await as_user(rbac, session, "alice").patch(path, {"spec": {"replicas": 3}}, "application/merge-patch+json")
    assert alice.status == 400
    assert alice.json()["message"] == DENIED
    assert len(hooks.received) == 1


async def test_a_path_check(rbac: FakeAPIServer, hooks: WebhookServer, session: aiohttp.ClientSession) -> None:
    # /healthz is every user's on a new cluster (system:public-info-viewer); /metrics is only
    # system:monitoring's.
    rbac.load(
        role("metrics", {"nonResourceURLs": ["/metrics"], "verbs": ["get"]}),
        binding("metrics", ("ClusterRole", "metrics"), user("alice")),
    )
    await deny_when(admin(rbac, session), hooks, "authorizer.path('/metrics').check('get').allowed()")
    assert (await as_user(rbac, session, "bob").post(CONFIGMAPS, configmap("by-bob"))).status == 201
    assert (await as_user(rbac, session, "alice").post(CONFIGMAPS, configmap("by-alice"))).status == 400
    assert len(hooks.received) == 1


async def test_a_service_account_is_checked_with_its_two_groups_only(
    rbac: FakeAPIServer, hooks: WebhookServer, session: aiohttp.ClientSession
) -> None:
    rbac.load(
        role("lister", {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["list"]}),
        role("watcher", {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["watch"]}),
        binding("lister", ("ClusterRole", "lister"), group("system:serviceaccounts:default")),
        binding("watcher", ("ClusterRole", "watcher"), group("system:authenticated")),
    )
    operator = "authorizer.serviceAccount('default', 'operator').group('apps').resource('deployments')"
    await deny_when(
        admin(rbac, session),
        hooks,
        f"{operator}.check('list').allowed()",
        f"!{operator}.check('watch').allowed()",
        f"{operator}.check('list').reason() == "
        '\'RBAC: allowed by ClusterRoleBinding "lister" of ClusterRole "lister" to Group "system:serviceaccounts:default"\'',
        "!authorizer.serviceAccount('other', 'operator').group('apps').resource('deployments').check('list').allowed()",
    )
    # Every condition holds, whoever writes: the checks are the ServiceAccount's, not the requester's.
    assert (await as_user(rbac, session, "bob").post(CONFIGMAPS, configmap("by-bob"))).status == 400
    assert len(hooks.received) == 1


async def test_reasons_are_rbacs(rbac: FakeAPIServer, hooks: WebhookServer, session: aiohttp.ClientSession) -> None:
    rbac.load(binding("dangling", ("ClusterRole", "missing"), user("alice")))
    await deny_when(
        admin(rbac, session),
        hooks,
        f"authorizer.requestResource.check('create').reason() == '{WRITERS_REASON}'",
        "!authorizer.requestResource.check('delete').allowed()",
        "authorizer.requestResource.check('delete').reason() == "
        "'RBAC: clusterrole.rbac.authorization.k8s.io \"missing\" not found'",
    )
    assert (await as_user(rbac, session, "bob").post(CONFIGMAPS, configmap("by-bob"))).status == 201
    assert hooks.received == []
    assert (await as_user(rbac, session, "alice").post(CONFIGMAPS, configmap("by-alice"))).status == 400
    assert len(hooks.received) == 1


async def test_a_denial_without_errors_has_no_reason_and_no_error(
    rbac: FakeAPIServer, hooks: WebhookServer, session: aiohttp.ClientSession
) -> None:
    denied = "authorizer.requestResource.check('delete')"
    await deny_when(
        admin(rbac, session),
        hooks,
        f"!{denied}.allowed() && {denied}.reason() == '' && !{denied}.errored() && {denied}.error() == ''",
    )
    assert (await as_user(rbac, session, "bob").post(CONFIGMAPS, configmap("by-bob"))).status == 400
    assert len(hooks.received) == 1


async def test_selectors_change_no_rbac_decision_and_never_fail(
    rbac: FakeAPIServer, hooks: WebhookServer, session: aiohttp.ClientSession
) -> None:
    configmaps = "authorizer.group('').resource('configmaps').namespace('default')"
    await deny_when(
        admin(rbac, session),
        hooks,
        f"{configmaps}.fieldSelector('metadata.name=x').labelSelector('a in (b)').check('create').allowed()",
        f"{configmaps}.fieldSelector('!!!').labelSelector('=(').check('create').allowed()",
        f"!{configmaps}.fieldSelector('!!!').check('create').errored()",
    )
    assert (await as_user(rbac, session, "bob").post(CONFIGMAPS, configmap("by-bob"))).status == 400
    assert len(hooks.received) == 1


async def test_a_master_is_allowed_with_no_reason(
    rbac: FakeAPIServer, hooks: WebhookServer, session: aiohttp.ClientSession
) -> None:
    check = "authorizer.group('apps').resource('deployments').namespace('kube-system').check('delete')"
    await deny_when(admin(rbac, session), hooks, f"{check}.allowed() && {check}.reason() == ''")
    assert (await as_user(rbac, session, "bob").post(CONFIGMAPS, configmap("by-bob"))).status == 201
    assert (await admin(rbac, session).post(CONFIGMAPS, configmap("by-admin"))).status == 400
    assert len(hooks.received) == 1


async def test_an_impersonated_user_is_the_one_checked(
    rbac: FakeAPIServer, hooks: WebhookServer, session: aiohttp.ClientSession
) -> None:
    await deny_when(
        admin(rbac, session),
        hooks,
        "request.userInfo.username == 'carol'",
        "!authorizer.requestResource.check('create').allowed()",
    )
    as_carol = Authorized(session, rbac.url, rbac.token_for("admin"), **{"Impersonate-User": "carol"})
    assert (await as_carol.post(CONFIGMAPS, configmap("by-carol"))).status == 403  # RBAC itself refuses carol
    rbac.load(binding("carol", ("ClusterRole", "configmap-writer"), user("carol"), namespace="default"))
    # carol may create in ``default`` only: the request's own check is allowed, so the webhook is skipped
    assert (await as_carol.post(CONFIGMAPS, configmap("by-carol"))).status == 201
    cluster_wide = "authorizer.requestResource.namespace('').check('create').allowed()"
    reply = await admin(rbac, session).patch(
        f"{VALIDATING}/v",
        [
            {
                "op": "replace",
                "path": "/webhooks/0/matchConditions/1",
                "value": {"name": "c1", "expression": f"!{cluster_wide}"},
            }
        ],
    )
    assert reply.status == 200, reply.body
    refused = await as_carol.post(CONFIGMAPS, configmap("by-carol-2"))
    assert refused.status == 400
    assert refused.json()["message"] == DENIED
    assert len(hooks.received) == 1


async def test_under_always_allow_every_check_is_allowed(client: RawClient, hooks: WebhookServer) -> None:
    check = "authorizer.serviceAccount('default', 'nobody').path('/anything').check('delete')"
    await deny_when(client, hooks, f"{check}.allowed() && {check}.reason() == ''")
    assert (await client.post(CONFIGMAPS, configmap("any"))).status == 400
    assert len(hooks.received) == 1


# -- errors ------------------------------------------------------------------------------------


async def _invalid_message(client: RawClient, hooks: WebhookServer, expression: str) -> str:
    hook = webhook(
        "v.example.com", hooks.client_config("/v"), matchConditions=[{"name": "n", "expression": expression}]
    )
    reply = await client.post(VALIDATING, configuration("ValidatingWebhookConfiguration", "bad", hook))
    assert reply.status == 422
    assert (await client.get(f"{VALIDATING}/bad")).status == 404
    message: str = reply.json()["message"]
    return message


def _compile_failure(expression: str, detail: str) -> str:
    return (
        'ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: '
        f'webhooks[0].matchConditions[0].expression: Invalid value: "{expression}": compilation failed: {detail}'
    )


async def test_an_unknown_method_is_refused_with_cel_gos_text(client: RawClient, hooks: WebhookServer) -> None:
    expression = "authorizer.group('').resource('pods').verb('get').allowed()"
    assert await _invalid_message(client, hooks, expression) == _compile_failure(
        expression,
        "ERROR: <input>:1:43: undeclared reference to 'verb' (in container '')\n"
        f" | {expression}\n"
        " | ..........................................^",
    )


async def test_a_method_on_the_wrong_type_is_refused_with_cel_gos_text(client: RawClient, hooks: WebhookServer) -> None:
    expression = "authorizer.check('get').allowed()"
    assert await _invalid_message(client, hooks, expression) == _compile_failure(
        expression,
        "ERROR: <input>:1:17: found no matching overload for 'check' applied to "
        "'kubernetes.authorization.Authorizer.(string)'\n"
        f" | {expression}\n"
        " | ................^",
    )


async def test_nothing_can_be_selected_from_the_authorizers_values(client: RawClient, hooks: WebhookServer) -> None:
    expression = "authorizer.requestResource.namespace == 'x'"
    assert await _invalid_message(client, hooks, expression) == _compile_failure(
        expression,
        "ERROR: <input>:1:27: unexpected failed resolution of 'kubernetes.authorization.ResourceCheck'\n"
        f" | {expression}\n"
        " | ..........................^",
    )


async def test_a_decision_is_not_a_bool(client: RawClient, hooks: WebhookServer) -> None:
    assert await _invalid_message(client, hooks, "authorizer.requestResource.check('get')") == (
        'ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: '
        "webhooks[0].matchConditions[0].expression: Invalid value: \"authorizer.requestResource.check('get')\": "
        "must evaluate to bool but got kubernetes.authorization.Decision"
    )


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ("authorizer.path(' ').check('get').allowed()", "path must not be empty"),
        ("authorizer.group('').resource('').check('get').allowed()", "resource must not be empty"),
        (
            "authorizer.serviceAccount('default', 'Operator').path('/').check('get').allowed()",
            "Invalid service account name",
        ),
        (
            "authorizer.serviceAccount('a.b', 'operator').path('/').check('get').allowed()",
            "Invalid service account namespace",
        ),
    ],
)
async def test_a_bad_argument_fails_the_condition(
    client: RawClient, hooks: WebhookServer, expression: str, error: str
) -> None:
    await deny_when(client, hooks, expression)
    reply = await client.post(CONFIGMAPS, configmap("cm"))
    assert reply.status == 403
    assert (
        reply.json()["message"]
        == f"configmaps \"cm\" is forbidden: expression '{expression}' resulted in error: {error}"
    )
    assert hooks.received == []
    assert (await client.get(f"{CONFIGMAPS}/cm")).status == 404


async def test_a_policy_asks_the_authorizer_for_the_requester(
    rbac: FakeAPIServer, session: aiohttp.ClientSession
) -> None:
    rbac.load(
        role("pod-maker", {"apiGroups": [""], "resources": ["pods"], "verbs": ["create"]}, namespace="default"),
        binding("pod-maker", ("Role", "pod-maker"), user("alice"), namespace="default"),
    )
    only_pod_makers = {
        "expression": "authorizer.group('').resource('pods').namespace('default').check('create').allowed()",
        "messageExpression": "'needs pods: ' + authorizer.requestResource.check('create').reason()",
    }
    await policy_objects.install(
        admin(rbac, session),
        policy_objects.policy("pod-makers-only", only_pod_makers),
        policy_objects.binding("pod-makers-only-b", "pod-makers-only"),
    )

    assert (await as_user(rbac, session, "alice").post(CONFIGMAPS, configmap("by-alice"))).status == 201
    refused = await as_user(rbac, session, "bob").post(CONFIGMAPS, configmap("by-bob"))
    assert refused.status == 422
    assert refused.json()["message"] == (
        "configmaps \"by-bob\" is forbidden: ValidatingAdmissionPolicy 'pod-makers-only' with binding "
        f"'pod-makers-only-b' denied request: needs pods: {WRITERS_REASON}"
    )
