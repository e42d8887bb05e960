"""Writes through subresources of another kind pass admission as that kind: a Scale, an Eviction."""

from __future__ import annotations

import pytest

from tests.admission.conftest import WebhookServer, allow, configuration, json_patch, webhook
from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"
VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
PODS = "/api/v1/namespaces/default/pods"


def deployment() -> dict[str, object]:
    labels = {"app": "web"}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": template},
    }


async def test_a_scale_write_is_admitted_as_a_scale(client: RawClient, hooks: WebhookServer) -> None:
    assert (await client.post(DEPLOYMENTS, deployment())).status == 201
    hooks.answers["/double"] = json_patch([{"op": "replace", "path": "/spec/replicas", "value": 6}])
    hooks.answers["/check"] = allow()
    scale_rule = {"resources": ["deployments/scale"], "groups": ["apps"]}
    mutating = configuration(
        "MutatingWebhookConfiguration", "m", webhook("double.example.com", hooks.client_config("/double"), **scale_rule)
    )
    validating = configuration(
        "ValidatingWebhookConfiguration", "v", webhook("check.example.com", hooks.client_config("/check"), **scale_rule)
    )
    assert (await client.post(MUTATING, mutating)).status == 201
    assert (await client.post(VALIDATING, validating)).status == 201
    reply = await client.patch(f"{DEPLOYMENTS}/web/scale", {"spec": {"replicas": 3}}, "application/merge-patch+json")
    assert reply.status == 200, reply.body
    assert reply.json()["spec"] == {"replicas": 6}
    assert (await client.get(f"{DEPLOYMENTS}/web")).json()["spec"]["replicas"] == 6
    (_, mutate, _), (_, check, _) = hooks.received
    for review in (mutate, check):
        request = review["request"]
        assert request["kind"] == {"group": "autoscaling", "version": "v1", "kind": "Scale"}
        assert request["resource"] == {"group": "apps", "version": "v1", "resource": "deployments"}
        assert request["subResource"] == "scale"
        assert request["oldObject"]["spec"] == {"replicas": 1}
        assert request["object"]["kind"] == "Scale"
    assert mutate["request"]["object"]["spec"] == {"replicas": 3}
    assert check["request"]["object"]["spec"] == {"replicas": 6}


async def test_an_eviction_refused_by_a_webhook_leaves_the_pod(client: RawClient, hooks: WebhookServer) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "a", "image": "x"}]},
    }
    assert (await client.post(PODS, pod)).status == 201
    hooks.answers["/evictions"] = allow(allowed=False, status={"code": 429, "message": "not now"})
    guard = webhook(
        "evictions.example.com", hooks.client_config("/evictions"), resources=["pods/eviction"], operations=["CREATE"]
    )
    assert (await client.post(VALIDATING, configuration("ValidatingWebhookConfiguration", "v", guard))).status == 201
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p"}}
    reply = await client.post(f"{PODS}/p/eviction", eviction)
    assert reply.status == 429
    assert reply.json()["message"] == 'admission webhook "evictions.example.com" denied the request: not now'
    assert (await client.get(f"{PODS}/p")).status == 200
    ((_, review, _),) = hooks.received
    assert review["request"]["kind"] == {"group": "policy", "version": "v1", "kind": "Eviction"}
    assert (review["request"]["operation"], review["request"]["subResource"], review["request"]["name"]) == (
        "CREATE",
        "eviction",
        "p",
    )
