"""Validating and mutating webhooks called on writes, their verdicts as a client sees them (docs/admission.md)."""

from __future__ import annotations

import json

import pytest

from tests.admission.conftest import WebhookServer, allow, configuration, json_patch, webhook
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def configmap(name: str = "cm", **data: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


async def test_a_validating_webhook_refusal_is_the_apiservers_status(client: RawClient, hooks: WebhookServer) -> None:
    hooks.answers["/deny"] = allow(allowed=False, status={"message": "no configmaps today", "code": 403})
    config = configuration(
        "ValidatingWebhookConfiguration", "v", webhook("deny.example.com", hooks.client_config("/deny"))
    )
    assert (await client.post(VALIDATING, config)).status == 201
    reply = await client.post(CONFIGMAPS, configmap())
    assert reply.status == 403
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'admission webhook "deny.example.com" denied the request: no configmaps today',
        "code": 403,
    }
    assert (await client.get(f"{CONFIGMAPS}/cm")).status == 404


async def test_a_mutating_webhook_patch_is_stored(client: RawClient, hooks: WebhookServer) -> None:
    hooks.answers["/mutate"] = json_patch(
        [{"op": "add", "path": "/data/added", "value": "yes"}], warnings=["mutated it"]
    )
    config = configuration(
        "MutatingWebhookConfiguration", "m", webhook("add.example.com", hooks.client_config("/mutate"))
    )
    assert (await client.post(MUTATING, config)).status == 201
    reply = await client.post(CONFIGMAPS, configmap(a="1"))
    assert reply.status == 201, reply.body
    assert reply.json()["data"] == {"a": "1", "added": "yes"}
    assert reply.warnings == ['299 - "mutated it"']
    ((_, review, _),) = hooks.received
    request = review["request"]
    assert request["operation"] == "CREATE"
    assert request["oldObject"] is None
    assert request["object"]["data"] == {"a": "1"}
    assert request["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}


async def register(client: RawClient, kind: str, name: str, *webhooks: dict[str, object]) -> None:
    path = VALIDATING if kind == "ValidatingWebhookConfiguration" else MUTATING
    reply = await client.post(path, configuration(kind, name, *webhooks))
    assert reply.status == 201, reply.body


async def test_update_patch_and_delete_carry_their_operation_objects_and_options(
    client: RawClient, hooks: WebhookServer
) -> None:
    assert (await client.post(CONFIGMAPS, configmap(a="1"))).status == 201
    hooks.answers["/v"] = allow()
    await register(client, "ValidatingWebhookConfiguration", "v", webhook("v.example.com", hooks.client_config("/v")))
    patched = await client.patch(
        f"{CONFIGMAPS}/cm?fieldManager=me", {"data": {"a": "2"}}, content_type="application/merge-patch+json"
    )
    assert patched.status == 200
    deleted = await client.delete(f"{CONFIGMAPS}/cm")
    assert deleted.status == 200
    (_, update, headers), (_, delete, _) = hooks.received
    request = update["request"]
    assert (request["operation"], request["name"], request["namespace"]) == ("UPDATE", "cm", "default")
    assert request["object"]["data"] == {"a": "2"}
    assert request["oldObject"]["data"] == {"a": "1"}
    assert request["options"] == {"kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "me"}
    assert request["kind"] == request["requestKind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
    assert request["resource"] == request["requestResource"] == {"group": "", "version": "v1", "resource": "configmaps"}
    assert request["dryRun"] is False
    assert request["userInfo"]["username"] == "system:anonymous"
    assert headers["Content-Type"] == "application/json"
    assert headers["User-Agent"] == "kube-apiserver-admission"
    request = delete["request"]
    assert request["operation"] == "DELETE"
    assert request["object"] is None
    assert request["oldObject"]["data"] == {"a": "2"}
    assert request["options"] == {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}
    assert list(update) == ["kind", "apiVersion", "request"]
    assert list(request) == [
        "uid",
        "kind",
        "resource",
        "requestKind",
        "requestResource",
        "name",
        "namespace",
        "operation",
        "userInfo",
        "object",
        "oldObject",
        "dryRun",
        "options",
    ]


async def test_a_mutating_webhook_sees_a_delete_without_any_object(client: RawClient, hooks: WebhookServer) -> None:
    assert (await client.post(CONFIGMAPS, configmap())).status == 201
    hooks.answers["/m"] = allow()
    await register(client, "MutatingWebhookConfiguration", "m", webhook("m.example.com", hooks.client_config("/m")))
    assert (await client.delete(f"{CONFIGMAPS}/cm")).status == 200
    assert (await client.delete(f"{CONFIGMAPS}/gone")).status == 404
    requests = [review["request"] for _, review, _ in hooks.received]
    assert [(r["operation"], r["name"], r["object"], r["oldObject"]) for r in requests] == [
        ("DELETE", "cm", None, None),
        ("DELETE", "gone", None, None),
    ]


async def test_a_status_write_is_the_status_subresource(client: RawClient, hooks: WebhookServer) -> None:
    pods = "/api/v1/namespaces/default/pods"
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "a", "image": "x"}]},
    }
    assert (await client.post(pods, pod)).status == 201
    hooks.answers["/status"] = allow(allowed=False, status={"reason": "NoStatusForYou"})
    await register(
        client,
        "ValidatingWebhookConfiguration",
        "v",
        webhook("status.example.com", hooks.client_config("/status"), resources=["pods/status"]),
    )
    assert (
        await client.patch(f"{pods}/p", {"metadata": {"labels": {"a": "b"}}}, "application/merge-patch+json")
    ).status == 200
    reply = await client.patch(f"{pods}/p/status", {"status": {"message": "hi"}}, "application/merge-patch+json")
    assert reply.status == 400
    assert reply.json()["message"] == 'admission webhook "status.example.com" denied the request: NoStatusForYou'
    assert reply.json()["reason"] == "NoStatusForYou"
    ((_, review, _),) = hooks.received
    assert review["request"]["subResource"] == review["request"]["requestSubResource"] == "status"
    assert review["request"]["kind"]["kind"] == "Pod"


async def test_selectors_choose_the_webhooks(client: RawClient, hooks: WebhookServer) -> None:
    namespaces = "/api/v1/namespaces"
    assert (
        await client.post(
            namespaces,
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "guarded", "labels": {"guard": "on"}}},
        )
    ).status == 201
    hooks.answers["/ns"] = allow(allowed=False, status={"message": "namespace guard"})
    hooks.answers["/obj"] = allow(allowed=False, status={"message": "object guard"})
    await register(
        client,
        "ValidatingWebhookConfiguration",
        "v",
        webhook("ns.example.com", hooks.client_config("/ns"), namespaceSelector={"matchLabels": {"guard": "on"}}),
        webhook(
            "obj.example.com",
            hooks.client_config("/obj"),
            objectSelector={"matchExpressions": [{"key": "guard", "operator": "Exists"}]},
        ),
    )
    assert (await client.post(CONFIGMAPS, configmap())).status == 201
    guarded = await client.post(f"{namespaces}/guarded/configmaps", configmap())
    assert guarded.json()["message"] == 'admission webhook "ns.example.com" denied the request: namespace guard'
    labelled = {**configmap("l"), "metadata": {"name": "l", "labels": {"guard": ""}}}
    refused = await client.post(CONFIGMAPS, labelled)
    assert refused.json()["message"] == 'admission webhook "obj.example.com" denied the request: object guard'
    assert [path for path, _, _ in hooks.received] == ["/ns", "/obj"]


async def test_mutating_webhooks_run_in_configuration_name_order_and_are_reinvoked_if_needed(
    client: RawClient, hooks: WebhookServer
) -> None:
    hooks.answers["/first"] = allow()
    hooks.answers["/second"] = json_patch([{"op": "add", "path": "/data/second", "value": "x"}])
    # Named so that the configuration holding "first" sorts before the one holding "second".
    await register(
        client, "MutatingWebhookConfiguration", "b", webhook("second.example.com", hooks.client_config("/second"))
    )
    await register(
        client,
        "MutatingWebhookConfiguration",
        "a",
        webhook("first.example.com", hooks.client_config("/first"), reinvocationPolicy="IfNeeded"),
    )
    reply = await client.post(CONFIGMAPS, configmap(a="1"))
    assert reply.status == 201
    assert [path for path, _, _ in hooks.received] == ["/first", "/second", "/first"]
    assert hooks.received[2][1]["request"]["object"]["data"] == {"a": "1", "second": "x"}


async def test_a_patch_to_a_field_the_typed_object_omits_is_the_patch_error(
    client: RawClient, hooks: WebhookServer
) -> None:
    hooks.answers["/m"] = json_patch([{"op": "add", "path": "/data/x", "value": "y"}])
    await register(client, "MutatingWebhookConfiguration", "m", webhook("m.example.com", hooks.client_config("/m")))
    reply = await client.post(CONFIGMAPS, configmap())
    assert reply.status == 500
    text = 'add operation does not apply: doc is missing path: "/data/x": missing value'
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f"Internal error occurred: {text}",
        "reason": "InternalError",
        "details": {"causes": [{"message": text}]},
        "code": 500,
    }


async def test_writes_of_webhook_configurations_never_call_webhooks(client: RawClient, hooks: WebhookServer) -> None:
    hooks.answers["/all"] = allow(allowed=False)
    all_resources = webhook("all.example.com", hooks.client_config("/all"), resources=["*"], groups=["*"])
    await register(client, "ValidatingWebhookConfiguration", "v", all_resources)
    await register(client, "ValidatingWebhookConfiguration", "w", all_resources)
    refused = await client.post(CONFIGMAPS, configmap())
    assert refused.status == 400
    assert refused.json()["message"] == 'admission webhook "all.example.com" denied the request without explanation'
    assert len(hooks.received) == 2


async def test_a_mutating_webhook_sees_a_pod_after_the_in_process_plugins(
    client: RawClient, hooks: WebhookServer
) -> None:
    hooks.answers["/pods"] = allow()
    await register(
        client,
        "MutatingWebhookConfiguration",
        "m",
        webhook("pods.example.com", hooks.client_config("/pods"), resources=["pods"]),
    )
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "a", "image": "x"}]},
    }
    assert (await client.post("/api/v1/namespaces/default/pods", pod)).status == 201
    ((_, review, _),) = hooks.received
    spec = review["request"]["object"]["spec"]
    assert spec["serviceAccountName"] == "default"
    assert spec["volumes"][0]["name"].startswith("kube-api-access-")
    assert spec["priority"] == 0
    assert spec["restartPolicy"] == "Always"  # defaulted, as the request's decoding defaults it


async def test_match_policy_equivalent_reaches_another_served_version(client: RawClient, hooks: WebhookServer) -> None:
    from tests.conftest import crd

    assert (
        await client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd(versions=["v2", "v1"]))
    ).status == 201
    hooks.answers["/equivalent"] = allow()
    hooks.answers["/exact"] = allow(allowed=False)
    rule = {"resources": ["jobs"], "groups": ["example.com"]}
    equivalent = webhook("equivalent.example.com", hooks.client_config("/equivalent"), **rule)
    equivalent["rules"][0]["apiVersions"] = ["v1"]
    exact = webhook("exact.example.com", hooks.client_config("/exact"), matchPolicy="Exact", **rule)
    exact["rules"][0]["apiVersions"] = ["v1"]
    await register(client, "ValidatingWebhookConfiguration", "v", equivalent, exact)
    job = {"apiVersion": "example.com/v2", "kind": "Job", "metadata": {"name": "j"}}
    reply = await client.post("/apis/example.com/v2/namespaces/default/jobs", job)
    assert reply.status == 201, reply.body
    ((path, review, _),) = hooks.received
    request = review["request"]
    assert path == "/equivalent"
    assert request["kind"] == {"group": "example.com", "version": "v1", "kind": "Job"}
    assert request["resource"] == {"group": "example.com", "version": "v1", "resource": "jobs"}
    assert request["requestKind"] == {"group": "example.com", "version": "v2", "kind": "Job"}
    assert request["requestResource"] == {"group": "example.com", "version": "v2", "resource": "jobs"}
    assert request["object"]["apiVersion"] == "example.com/v1"
    # A custom resource is marshalled as Go marshals a map: keys sorted, at every level.
    raw = hooks.raw[-1]
    start = raw.index(b'"object":') + len(b'"object":')
    end = raw.index(b',"oldObject":null')
    assert raw[start:end] == json.dumps(request["object"], sort_keys=True, separators=(",", ":")).encode()
    assert raw.endswith(b"}}\n")


async def test_dry_run_calls_webhooks_without_side_effects_with_dry_run_set(
    client: RawClient, hooks: WebhookServer
) -> None:
    hooks.answers["/v"] = allow()
    await register(
        client,
        "ValidatingWebhookConfiguration",
        "v",
        webhook("v.example.com", hooks.client_config("/v"), sideEffects="NoneOnDryRun"),
    )
    assert (await client.post(f"{CONFIGMAPS}?dryRun=All", configmap())).status == 201
    assert (await client.get(f"{CONFIGMAPS}/cm")).status == 404
    ((_, review, _),) = hooks.received
    assert review["request"]["dryRun"] is True
    assert review["request"]["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1", "dryRun": ["All"]}
    assert review["request"]["object"]["metadata"]["uid"]


async def test_server_side_apply_creates_then_updates_through_admission(
    client: RawClient, hooks: WebhookServer
) -> None:
    hooks.answers["/v"] = allow()
    await register(client, "ValidatingWebhookConfiguration", "v", webhook("v.example.com", hooks.client_config("/v")))
    apply = "application/apply-patch+yaml"
    path = f"{CONFIGMAPS}/cm?fieldManager=tool"
    assert (await client.patch(path, configmap(a="1"), apply)).status == 201
    assert (await client.patch(path, configmap(a="2"), apply)).status == 200
    operations = [(r["request"]["operation"], r["request"]["options"]["kind"]) for _, r, _ in hooks.received]
    assert operations == [("CREATE", "CreateOptions"), ("UPDATE", "UpdateOptions")]
    assert hooks.received[1][1]["request"]["options"]["fieldManager"] == "tool"


async def test_delete_collection_is_validated_object_by_object(client: RawClient, hooks: WebhookServer) -> None:
    for name in ("keep", "drop"):
        assert (await client.post(CONFIGMAPS, configmap(name))).status == 201

    def judge(request: dict[str, object]) -> dict[str, object]:
        return {"allowed": request["name"] != "keep", "status": {"message": "kept"}}

    hooks.answers["/v"] = judge
    await register(
        client,
        "ValidatingWebhookConfiguration",
        "v",
        webhook("v.example.com", hooks.client_config("/v"), operations=["DELETE"]),
    )
    reply = await client.delete(CONFIGMAPS)
    assert reply.status == 400
    assert reply.json()["message"] == 'admission webhook "v.example.com" denied the request: kept'
    names = [r["request"]["name"] for _, r, _ in hooks.received]
    assert names == ["drop", "keep"]
    assert (await client.get(f"{CONFIGMAPS}/drop")).status == 404
    assert (await client.get(f"{CONFIGMAPS}/keep")).status == 200


async def test_a_namespace_is_matched_on_its_own_new_labels(client: RawClient, hooks: WebhookServer) -> None:
    hooks.answers["/ns"] = allow(allowed=False, status={"message": "guarded namespace"})
    guard = webhook(
        "ns.example.com",
        hooks.client_config("/ns"),
        resources=["namespaces"],
        namespaceSelector={"matchLabels": {"guard": "on"}},
    )
    await register(client, "ValidatingWebhookConfiguration", "v", guard)
    namespaces = "/api/v1/namespaces"
    plain = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "plain"}}
    assert (await client.post(namespaces, plain)).status == 201
    guarded = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "guarded", "labels": {"guard": "on"}}}
    refused = await client.post(namespaces, guarded)
    assert refused.json()["message"] == 'admission webhook "ns.example.com" denied the request: guarded namespace'
    assert [review["request"]["name"] for _, review, _ in hooks.received] == ["guarded"]


@pytest.mark.parametrize(
    ("content_type", "patch"),
    [
        ("application/json-patch+json", [{"op": "replace", "path": "/data/a", "value": "2"}]),
        ("application/merge-patch+json", {"data": {"a": "2"}}),
        ("application/strategic-merge-patch+json", {"data": {"a": "2"}}),
    ],
)
async def test_every_patch_type_is_an_update_seen_patched(
    client: RawClient, hooks: WebhookServer, content_type: str, patch: object
) -> None:
    assert (await client.post(CONFIGMAPS, configmap(a="1"))).status == 201
    hooks.answers["/m"] = json_patch([{"op": "add", "path": "/data/b", "value": "webhook"}])
    await register(
        client,
        "MutatingWebhookConfiguration",
        "m",
        webhook("m.example.com", hooks.client_config("/m"), operations=["UPDATE"]),
    )
    reply = await client.patch(f"{CONFIGMAPS}/cm", patch, content_type)
    assert reply.status == 200, reply.body
    assert reply.json()["data"] == {"a": "2", "b": "webhook"}
    ((_, review, _),) = hooks.received
    assert review["request"]["object"]["data"] == {"a": "2"}
    assert review["request"]["oldObject"]["data"] == {"a": "1"}


async def test_a_rules_scope_tells_cluster_from_namespaced_writes(client: RawClient, hooks: WebhookServer) -> None:
    hooks.answers["/cluster"] = allow()
    hooks.answers["/namespaced"] = allow()
    everything = {"resources": ["*"], "groups": ["*"], "operations": ["CREATE"]}
    cluster = webhook("cluster.example.com", hooks.client_config("/cluster"), **everything)
    cluster["rules"][0]["scope"] = "Cluster"
    namespaced = webhook("namespaced.example.com", hooks.client_config("/namespaced"), **everything)
    namespaced["rules"][0]["scope"] = "Namespaced"
    await register(client, "ValidatingWebhookConfiguration", "v", cluster, namespaced)
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}
    assert (await client.post("/api/v1/namespaces", namespace)).status == 201
    assert (await client.post(CONFIGMAPS, configmap())).status == 201
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}}
    assert (await client.post("/apis/rbac.authorization.k8s.io/v1/clusterroles", role)).status == 201
    seen = [(path, review["request"]["resource"]["resource"]) for path, review, _ in hooks.received]
    assert seen == [("/cluster", "namespaces"), ("/namespaced", "configmaps"), ("/cluster", "clusterroles")]
