"""Subresources that act: reviews, TokenRequest, binding, eviction, and the kubelet paths of a pod on no node."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.conftest import RawClient

pytestmark = pytest.mark.asyncio

PODS = "/api/v1/namespaces/default/pods"


def pod(name: str, *containers: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"containers": [{"name": c, "image": "busybox:1.36"} for c in containers or ("main",)]},
    }


async def create_pod(client: RawClient, name: str, *containers: str, **kwargs: Any) -> dict[str, Any]:
    created = await client.post(PODS, pod(name, *containers, **kwargs))
    assert created.status == 201, created.body
    result: dict[str, Any] = created.json()
    return result


def claims_of(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    result: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return result


# -- reviews ---------------------------------------------------------------------------------------


async def test_self_subject_review_names_the_bearer_token_as_the_user(client: RawClient) -> None:
    review = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview", "metadata": {}}
    reply = await client.post(
        "/apis/authentication.k8s.io/v1/selfsubjectreviews", review, headers={"Authorization": "Bearer replica-a"}
    )
    assert reply.status == 201
    assert reply.body == (
        b'{"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":null},'
        b'"status":{"userInfo":{"username":"replica-a","groups":["system:masters","system:authenticated"]}}}\n'
    )
    anonymous = await client.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", review)
    assert anonymous.json()["status"]["userInfo"] == {
        "username": "system:anonymous",
        "groups": ["system:unauthenticated"],
    }


async def test_rules_review_lists_everything_as_allowed(client: RawClient) -> None:
    review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": "x"}}
    reply = await client.post("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", review)
    assert reply.status == 201
    assert reply.json() == {
        "kind": "SelfSubjectRulesReview",
        "apiVersion": "authorization.k8s.io/v1",
        "metadata": {"creationTimestamp": None},
        "spec": {"namespace": "x"},
        "status": {
            "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
            "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
            "incomplete": False,
        },
    }


async def test_access_reviews_are_allowed_and_never_stored(client: RawClient) -> None:
    spec = {"resourceAttributes": {"verb": "delete", "resource": "nodes"}, "user": "jane"}
    reply = await client.post(
        "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec},
    )
    assert reply.status == 201
    assert reply.json()["status"] == {"allowed": True}
    assert reply.json()["spec"] == spec
    local_spec = {**spec, "resourceAttributes": {"namespace": "default", "verb": "get", "resource": "pods"}}
    local = await client.post(
        "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
        {"apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview", "spec": local_spec},
    )
    assert local.status == 201
    assert local.json()["metadata"] == {"namespace": "default", "creationTimestamp": None}
    listed = await client.get("/apis/authorization.k8s.io/v1/subjectaccessreviews")
    assert listed.status == 405


# -- serviceaccounts/token ---------------------------------------------------------------------------


async def test_a_token_request_answers_a_token_for_the_service_account(client: RawClient) -> None:
    account = await client.post(
        "/api/v1/namespaces/default/serviceaccounts",
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}},
    )
    request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}
    reply = await client.post("/api/v1/namespaces/default/serviceaccounts/robot/token", request)
    assert reply.status == 201
    answer = reply.json()
    assert list(answer) == ["kind", "apiVersion", "metadata", "spec", "status"]
    assert list(answer["metadata"]) == ["name", "namespace", "creationTimestamp"]
    assert answer["metadata"]["name"] == "robot" and answer["metadata"]["namespace"] == "default"
    assert answer["metadata"]["creationTimestamp"].endswith("Z")
    assert answer["spec"] == {
        "audiences": ["https://kubernetes.default.svc.cluster.local"],
        "expirationSeconds": 3600,
        "boundObjectRef": None,
    }
    claims = claims_of(answer["status"]["token"])
    assert claims["sub"] == "system:serviceaccount:default:robot"
    assert claims["kubernetes.io"]["serviceaccount"] == {"name": "robot", "uid": account.json()["metadata"]["uid"]}
    assert claims["exp"] - claims["iat"] == 3600
    review = await client.post(
        "/apis/authentication.k8s.io/v1/tokenreviews",
        {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": answer["status"]["token"]}},
    )
    assert review.json()["status"]["authenticated"] is True
    assert review.json()["status"]["user"]["username"] == "system:serviceaccount:default:robot"
    # A token of this issuer under a key the server does not have; any other token would name a
    # user here, as a request with it does without token checks (docs/authentication.md).
    _, payload, signature = answer["status"]["token"].split(".")
    foreign = base64.urlsafe_b64encode(b'{"alg":"RS256","kid":"elsewhere"}').rstrip(b"=").decode()
    forged = await client.post(
        "/apis/authentication.k8s.io/v1/tokenreviews",
        {
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenReview",
            "spec": {"token": ".".join((foreign, payload, signature))},
        },
    )
    assert forged.json()["status"] == {"user": {}, "error": "invalid signature, no keys found"}


async def test_a_token_request_is_validated_and_needs_the_service_account(client: RawClient) -> None:
    request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 60}}
    missing = await client.post("/api/v1/namespaces/default/serviceaccounts/nobody/token", request)
    assert (missing.status, missing.json()["message"]) == (404, 'serviceaccounts "nobody" not found')
    await client.post(
        "/api/v1/namespaces/default/serviceaccounts",
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}},
    )
    short = await client.post("/api/v1/namespaces/default/serviceaccounts/robot/token", request)
    assert short.status == 422
    assert short.json()["message"] == (
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: '
        "may not specify a duration less than 10 minutes"
    )


# -- binding and eviction ----------------------------------------------------------------------------


async def test_a_binding_assigns_the_pod_once(client: RawClient) -> None:
    await create_pod(client, "web")
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "web"}, "target": {"name": "node-1"}}
    bound = await client.post(f"{PODS}/web/binding", binding)
    assert (bound.status, bound.body) == (
        201,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}\n',
    )
    stored = (await client.get(f"{PODS}/web")).json()
    assert stored["spec"]["nodeName"] == "node-1"
    assert [c["type"] for c in stored["status"]["conditions"]] == ["PodScheduled"]
    again = await client.post(f"{PODS}/web/binding", {**binding, "target": {"name": "node-2"}})
    assert again.status == 409
    assert again.json()["message"] == (
        'Operation cannot be fulfilled on binding "web": pod web is already assigned to node "node-1"'
    )


async def test_a_binding_without_a_target_is_invalid(client: RawClient) -> None:
    await create_pod(client, "web")
    reply = await client.post(
        "/api/v1/namespaces/default/bindings",
        {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "web"}, "target": {}},
    )
    assert reply.status == 422
    assert reply.json()["message"] == 'Binding "web" is invalid: target.name: Required value'


async def test_an_eviction_deletes_a_pod_that_is_not_running(client: RawClient) -> None:
    await create_pod(client, "web")
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web"}}
    evicted = await client.post(f"{PODS}/web/eviction", eviction)
    assert evicted.status == 201
    assert evicted.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
    assert (await client.get(f"{PODS}/web")).status == 404
    mismatch = await client.post(f"{PODS}/other/eviction", eviction)
    assert (mismatch.status, mismatch.json()["message"]) == (
        400,
        "name in URL does not match name in Eviction object",
    )


async def test_an_eviction_of_a_running_pod_respects_its_disruption_budget(client: RawClient) -> None:
    await create_pod(client, "web", labels={"app": "web"})
    status = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "status": {"phase": "Running"}}
    patched = await client.patch(f"{PODS}/web/status", status, content_type="application/merge-patch+json")
    assert patched.status == 200, patched.body
    budget = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
    }
    assert (await client.post("/apis/policy/v1/namespaces/default/poddisruptionbudgets", budget)).status == 201
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web"}}
    refused = await client.post(f"{PODS}/web/eviction", eviction)
    assert refused.status == 429
    assert refused.headers["Retry-After"] == "10"
    assert refused.json()["message"] == "Cannot evict pod as it would violate the pod's disruption budget."
    assert refused.json()["details"]["causes"] == [
        {"reason": "DisruptionBudget", "message": "The disruption budget web is still being processed by the server."}
    ]
    assert (await client.get(f"{PODS}/web")).status == 200


# -- the kubelet's paths ------------------------------------------------------------------------------


async def test_logs_of_a_pod_on_no_node_are_empty(client: RawClient) -> None:
    await create_pod(client, "one")
    await create_pod(client, "two", "app", "sidecar")
    assert (await client.get(f"{PODS}/one/log")).status == 204
    unnamed = await client.get(f"{PODS}/two/log")
    assert (unnamed.status, unnamed.json()["message"]) == (
        400,
        "a container name must be specified for pod two, choose one of: [app sidecar]",
    )
    wrong = await client.get(f"{PODS}/two/log?container=db")
    assert wrong.json()["message"] == "container db is not valid for pod two"
    assert (await client.get(f"{PODS}/two/log?container=app")).status == 204
    assert (await client.get(f"{PODS}/nobody/log")).status == 404


async def test_exec_attach_and_port_forward_need_a_host(client: RawClient) -> None:
    await create_pod(client, "one")
    for path in ("exec?command=ls", "attach", "portforward"):
        reply = await client.post(f"{PODS}/one/{path}", None)
        assert (reply.status, reply.json()["message"]) == (400, "pod one does not have a host assigned"), path
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "one"}, "target": {"name": "ghost"}}
    await client.post(f"{PODS}/one/binding", binding)
    reply = await client.get(f"{PODS}/one/exec?command=ls")
    assert (reply.status, reply.json()["message"]) == (404, 'nodes "ghost" not found')


async def test_proxies_reach_no_pod_and_no_endpoint(client: RawClient) -> None:
    await create_pod(client, "one")
    reply = await client.get(f"{PODS}/one/proxy/")
    assert (reply.status, reply.json()["message"]) == (400, "address not allowed")
    selected = {"selector": {"app": "web"}, "ports": [{"port": 80}]}
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": selected}
    await client.post("/api/v1/namespaces/default/services", service)
    proxied = await client.get("/api/v1/namespaces/default/services/web:80/proxy/healthz")
    assert proxied.status == 503
    assert proxied.json()["reason"] == "ServiceUnavailable"
    assert proxied.json()["message"] == 'no endpoints available for service "web"'


SERVICES = "/api/v1/namespaces/default/services"


async def proxy_answer(client: RawClient, name: str) -> tuple[int, str]:
    reply = await client.get(f"{SERVICES}/{name}/proxy/version")
    return reply.status, reply.json()["message"]


async def test_a_service_proxy_answers_as_its_endpoints_allow(client: RawClient) -> None:
    plain = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "plain"}, "spec": {"ports": [{"port": 80}]}}
    await client.post(SERVICES, plain)
    # No selector, so no endpoints controller writes its Endpoints.
    assert await proxy_answer(client, "plain") == (404, 'endpoints "plain" not found')
    assert await proxy_answer(client, "plain:81") == (503, 'no service port 81 found for service "plain"')
    assert await proxy_answer(client, "ghost:81") == (404, 'services "ghost" not found')
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "backend"},
        "spec": {"containers": [{"name": "app", "image": "nginx"}]},
    }
    assert (await client.post("/api/v1/namespaces/default/pods", pod)).status == 201
    status = {"status": {"podIP": "10.244.0.7", "podIPs": [{"ip": "10.244.0.7"}]}}
    patched = await client.patch(
        "/api/v1/namespaces/default/pods/backend/status", status, content_type="application/merge-patch+json"
    )
    assert patched.status == 200
    endpoints = {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": {"name": "plain"},
        "subsets": [
            {
                "addresses": [
                    {"ip": "10.244.0.9"},
                    {"ip": "10.244.0.7", "targetRef": {"kind": "Pod", "namespace": "default", "name": "backend"}},
                ],
                "ports": [{"port": 8080}],
            }
        ],
    }
    assert (await client.post("/api/v1/namespaces/default/endpoints", endpoints)).status == 201
    assert await proxy_answer(client, "plain:80") == (
        503,
        "error trying to reach service: dial tcp 10.244.0.7:8080: connect: connection refused",
    )
    assert await proxy_answer(client, "plain:http") == (503, 'no endpoints available for service "plain:http"')


async def test_the_kubernetes_service_proxy_reaches_no_pod(client: RawClient) -> None:
    # Its Endpoints are the apiserver's own address, which names no pod.
    for name in ("kubernetes", "https:kubernetes:https", "kubernetes:443"):
        assert await proxy_answer(client, name) == (503, f'no endpoints available for service "{name}"'), name


async def test_ephemeral_containers_are_the_only_field_their_subresource_changes(client: RawClient) -> None:
    created = await create_pod(client, "web")
    debug = {"name": "debug", "image": "busybox:1.36"}
    changed = {
        **created,
        "metadata": {**created["metadata"], "labels": {"changed": "yes"}},
        "spec": {**created["spec"], "ephemeralContainers": [debug], "nodeName": "elsewhere"},
    }
    reply = await client.put(f"{PODS}/web/ephemeralcontainers", changed)
    assert reply.status == 200, reply.body
    stored = (await client.get(f"{PODS}/web")).json()
    assert stored["spec"]["ephemeralContainers"] == [{**debug, "resources": {}}]
    assert "nodeName" not in stored["spec"]
    assert stored["metadata"].get("labels") is None


async def test_a_certificate_request_is_approved_through_its_approval_subresource(client: RawClient) -> None:
    csr = {
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": "jane"},
        "spec": {"request": "LS0t", "signerName": "kubernetes.io/kube-apiserver-client", "usages": ["client auth"]},
    }
    created = await client.post("/apis/certificates.k8s.io/v1/certificatesigningrequests", csr)
    assert created.status == 201, created.body
    approved = {**created.json(), "status": {"conditions": [{"type": "Approved", "status": "True", "reason": "OK"}]}}
    approved["spec"] = {**approved["spec"], "signerName": "example.com/other"}
    reply = await client.put("/apis/certificates.k8s.io/v1/certificatesigningrequests/jane/approval", approved)
    assert reply.status == 200, reply.body
    stored = (await client.get("/apis/certificates.k8s.io/v1/certificatesigningrequests/jane")).json()
    # A zero metav1.Time is written as null (Go ignores omitempty on a struct).
    assert stored["status"]["conditions"] == [
        {"type": "Approved", "status": "True", "reason": "OK", "lastUpdateTime": None, "lastTransitionTime": None}
    ]
    assert stored["spec"]["signerName"] == "kubernetes.io/kube-apiserver-client"
