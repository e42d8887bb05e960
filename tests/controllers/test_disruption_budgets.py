"""PodDisruptionBudgets: the disruption controller's status and the eviction subresource honouring it,
as a client sees them (docs/quota-disruption-autoscaling.md)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi import FakeAPIServer, OutcomeRule
from tests.conftest import RawClient
from tests.controllers.workloads import deployment

pytestmark = pytest.mark.asyncio

NOW = "2023-11-14T22:13:20Z"
NS = "/api/v1/namespaces/default"
BUDGETS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
DENIED = "Cannot evict pod as it would violate the pod's disruption budget."
RULES = [OutcomeRule("never-ready", image="shy")]


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"outcomes": RULES}


def budget(name: str, app: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name},
        "spec": {"selector": {"matchLabels": {"app": app}}, **spec},
    }


def eviction(name: str, **options: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}}
    if options:
        body["deleteOptions"] = options
    return body


def too_many(cause: str, retry_after: int = 0) -> bytes:
    retry = f',"retryAfterSeconds":{retry_after}' if retry_after else ""
    return (
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Cannot evict pod as it '
        'would violate the pod\'s disruption budget.","reason":"TooManyRequests","details":{"causes":'
        f'[{{"reason":"DisruptionBudget","message":"{cause}"}}]{retry}}},"code":429}}\n'
    ).encode()


async def running(server: FakeAPIServer, client: RawClient, *objects: tuple[str, dict[str, Any]]) -> None:
    for path, body in objects:
        created = await client.post(path, body)
        assert created.status == 201, created.body
    server.advance(0)


async def pods_of(client: RawClient, app: str) -> list[str]:
    listed = (await client.get(f"{NS}/pods?labelSelector=app%3D{app}")).json()["items"]
    return sorted(p["metadata"]["name"] for p in listed if not p["metadata"].get("deletionTimestamp"))


def condition(status: str, reason: str, message: str = "", generation: int = 1, when: str = NOW) -> dict[str, Any]:
    return {
        "type": "DisruptionAllowed",
        "status": status,
        "observedGeneration": generation,
        "lastTransitionTime": when,
        "reason": reason,
        "message": message,
    }


async def test_the_controller_counts_healthy_desired_and_expected_pods(
    server: FakeAPIServer, client: RawClient
) -> None:
    await running(
        server,
        client,
        (DEPLOYMENTS, deployment("web", 3)),
        (BUDGETS, budget("at-least-two", "web", minAvailable=2)),
        (BUDGETS, budget("half", "web", maxUnavailable="50%")),
        (BUDGETS, budget("nobody", "none", minAvailable=1)),
    )
    two = (await client.get(f"{BUDGETS}/at-least-two")).json()
    assert two["status"] == {
        "observedGeneration": 1,
        "disruptionsAllowed": 1,
        "currentHealthy": 3,
        "desiredHealthy": 2,
        "expectedPods": 3,
        "conditions": [condition("True", "SufficientPods")],
    }
    writer = two["metadata"]["managedFields"][-1]
    assert (writer["manager"], writer["subresource"]) == ("kube-controller-manager", "status")
    # maxUnavailable 50 % of the Deployment's 3 replicas, rounded up: 2 may go, 1 must stay
    half = (await client.get(f"{BUDGETS}/half")).json()["status"]
    assert {k: half[k] for k in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")} == {
        "disruptionsAllowed": 2,
        "currentHealthy": 3,
        "desiredHealthy": 1,
        "expectedPods": 3,
    }
    nobody = (await client.get(f"{BUDGETS}/nobody")).json()["status"]
    assert nobody == {
        "observedGeneration": 1,
        "disruptionsAllowed": 0,
        "currentHealthy": 0,
        "desiredHealthy": 1,
        "expectedPods": 0,
        "conditions": [condition("False", "InsufficientPods")],
    }
    events = (await client.get(f"{NS}/events?fieldSelector=involvedObject.name%3Dnobody")).json()["items"]
    assert [(e["type"], e["reason"], e["message"], e["source"]) for e in events] == [
        ("Normal", "NoPods", "No matching pods found", {"component": "controllermanager"})
    ]


async def test_an_eviction_spends_the_budget_and_marks_the_pod(server: FakeAPIServer, client: RawClient) -> None:
    await running(server, client, (DEPLOYMENTS, deployment("web", 3)), (BUDGETS, budget("web", "web", minAvailable=2)))
    first, second, _ = await pods_of(client, "web")
    evicted = await client.post(f"{NS}/pods/{first}/eviction", eviction(first))
    assert (evicted.status, evicted.body) == (
        201,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}\n',
    )
    pod = (await client.get(f"{NS}/pods/{first}")).json()
    assert pod["metadata"]["deletionTimestamp"] == "2023-11-14T22:13:50Z"
    assert pod["status"]["conditions"][-1] == {
        "type": "DisruptionTarget",
        "status": "True",
        "lastProbeTime": None,
        "lastTransitionTime": NOW,
        "reason": "EvictionByEvictionAPI",
        "message": "Eviction API: evicting",
    }
    spent = (await client.get(f"{BUDGETS}/web")).json()
    assert spent["status"] == {
        "observedGeneration": 1,
        "disruptedPods": {first: NOW},
        "disruptionsAllowed": 0,
        "currentHealthy": 3,
        "desiredHealthy": 2,
        "expectedPods": 3,
        "conditions": [condition("False", "InsufficientPods")],
    }
    assert [(f["manager"], f.get("subresource")) for f in spent["metadata"]["managedFields"]] == [
        ("Python", None),
        ("kube-apiserver", "status"),
        ("kube-controller-manager", "status"),
    ]
    refused = await client.post(f"{NS}/pods/{second}/eviction", eviction(second))
    assert (refused.status, refused.body) == (
        429,
        too_many("The disruption budget web needs 2 healthy pods and has 3 currently"),
    )
    assert "Retry-After" not in refused.headers
    assert (await client.get(f"{NS}/pods/{second}")).json()["metadata"].get("deletionTimestamp") is None


async def test_a_budget_not_yet_observed_is_still_being_processed(server: FakeAPIServer, client: RawClient) -> None:
    await running(server, client, (DEPLOYMENTS, deployment("web", 2)), (BUDGETS, budget("web", "web", minAvailable=1)))
    changed = await client.patch(
        f"{BUDGETS}/web", {"spec": {"minAvailable": 0}}, content_type="application/merge-patch+json"
    )
    assert changed.json()["metadata"]["generation"] == 2
    name = (await pods_of(client, "web"))[0]
    refused = await client.post(f"{NS}/pods/{name}/eviction", eviction(name))
    assert (refused.status, refused.body) == (
        429,
        too_many("The disruption budget web is still being processed by the server.", 10),
    )
    assert refused.headers["Retry-After"] == "10"
    server.advance(0)
    status = (await client.get(f"{BUDGETS}/web")).json()["status"]
    assert (status["observedGeneration"], status["disruptionsAllowed"]) == (2, 2)
    assert status["conditions"] == [condition("True", "SufficientPods", generation=2)]
    assert (await client.post(f"{NS}/pods/{name}/eviction", eviction(name))).status == 201


async def test_unready_pods_go_as_the_unhealthy_pod_policy_says(server: FakeAPIServer, client: RawClient) -> None:
    await running(
        server,
        client,
        (DEPLOYMENTS, deployment("shy", 2, image="shy")),
        (BUDGETS, budget("guarded", "shy", minAvailable=1)),
    )
    name = (await pods_of(client, "shy"))[0]
    refused = await client.post(f"{NS}/pods/{name}/eviction", eviction(name))
    assert (refused.status, refused.body) == (
        429,
        too_many("The disruption budget guarded needs 1 healthy pods and has 0 currently"),
    )
    patched = await client.patch(
        f"{BUDGETS}/guarded",
        {"spec": {"unhealthyPodEvictionPolicy": "AlwaysAllow"}},
        content_type="application/merge-patch+json",
    )
    assert patched.status == 200
    server.advance(0)
    allowed = await client.post(f"{NS}/pods/{name}/eviction", eviction(name))
    assert allowed.status == 201
    status = (await client.get(f"{BUDGETS}/guarded")).json()["status"]
    assert "disruptedPods" not in status and status["disruptionsAllowed"] == 0  # the budget was not spent


async def test_pods_of_a_kind_without_scale_fail_the_sync(server: FakeAPIServer, client: RawClient) -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "batch"},
        "spec": {
            "template": {
                "metadata": {"labels": {"app": "batch"}},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "nginx"}]},
            }
        },
    }
    await running(
        server,
        client,
        ("/apis/batch/v1/namespaces/default/jobs", job),
        (BUDGETS, budget("batch", "batch", maxUnavailable=1)),
    )
    status = (await client.get(f"{BUDGETS}/batch")).json()["status"]
    message = "jobs.batch does not implement the scale subresource"
    assert status == {
        "disruptionsAllowed": 0,
        "currentHealthy": 0,
        "desiredHealthy": 0,
        "expectedPods": 0,
        "conditions": [
            {
                "type": "DisruptionAllowed",
                "status": "False",
                "lastTransitionTime": NOW,
                "reason": "SyncFailed",
                "message": message,
            }
        ],
    }


async def test_a_pod_under_two_budgets_is_answered_with_a_failure_status(
    server: FakeAPIServer, client: RawClient
) -> None:
    await running(
        server,
        client,
        (DEPLOYMENTS, deployment("web", 2)),
        (BUDGETS, budget("one", "web", minAvailable=1)),
        (BUDGETS, budget("two", "web", maxUnavailable=1)),
    )
    name = (await pods_of(client, "web"))[0]
    answer = await client.post(f"{NS}/pods/{name}/eviction", eviction(name))
    assert (answer.status, answer.body) == (
        201,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"This pod has more than '
        b'one PodDisruptionBudget, which the eviction subresource does not support.","code":500}\n',
    )
    assert (await client.get(f"{NS}/pods/{name}")).json()["metadata"].get("deletionTimestamp") is None


async def test_a_dry_run_eviction_spends_nothing(server: FakeAPIServer, client: RawClient) -> None:
    await running(server, client, (DEPLOYMENTS, deployment("web", 2)), (BUDGETS, budget("web", "web", minAvailable=1)))
    name = (await pods_of(client, "web"))[0]
    tried = await client.post(f"{NS}/pods/{name}/eviction", eviction(name, dryRun=["All"]))
    assert tried.status == 201
    pod = (await client.get(f"{NS}/pods/{name}")).json()
    assert pod["metadata"].get("deletionTimestamp") is None
    assert [c["type"] for c in pod["status"]["conditions"]] == [
        "PodReadyToStartContainers",
        "Initialized",
        "Ready",
        "ContainersReady",
        "PodScheduled",
    ]
    assert (await client.get(f"{BUDGETS}/web")).json()["status"]["disruptionsAllowed"] == 1
