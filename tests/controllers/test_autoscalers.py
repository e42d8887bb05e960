"""HorizontalPodAutoscalers in a cluster without a metrics server: the status and conditions the
controller writes, every 15 seconds, as a client sees them (docs/quota-disruption-autoscaling.md)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi import FakeAPIServer
from tests.conftest import RawClient
from tests.controllers.workloads import deployment

pytestmark = pytest.mark.asyncio

NS = "/api/v1/namespaces/default"
HPAS = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
NO_METRICS = (
    "failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from "
    "resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)"
)
GOT_SCALE = {
    "type": "AbleToScale",
    "status": "True",
    "reason": "SucceededGetScale",
    "message": "the HPA controller was able to get the target's current scale",
}


def autoscaler(name: str, target: str, minimum: int, maximum: int, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
            "minReplicas": minimum,
            "maxReplicas": maximum,
            **spec,
        },
    }


def at(seconds: int) -> str:
    return f"2023-11-14T22:13:{20 + seconds}Z"


def since(when: str, **condition: str) -> dict[str, str]:
    return {"type": condition["type"], "status": condition["status"], "lastTransitionTime": when} | {
        key: condition[key] for key in ("reason", "message")
    }


async def status_of(client: RawClient, name: str) -> Any:
    return (await client.get(f"{HPAS}/{name}")).json()["status"]


async def test_nothing_happens_before_the_first_resync(server: FakeAPIServer, client: RawClient) -> None:
    assert (await client.post(DEPLOYMENTS, deployment("web", 2))).status == 201
    assert (await client.post(HPAS, autoscaler("web", "web", 1, 5))).status == 201
    server.advance(14)
    assert await status_of(client, "web") == {"desiredReplicas": 0, "currentMetrics": None}


async def test_without_metrics_scaling_is_not_active(server: FakeAPIServer, client: RawClient) -> None:
    assert (await client.post(DEPLOYMENTS, deployment("web", 2))).status == 201
    assert (await client.post(HPAS, autoscaler("web", "web", 1, 5))).status == 201
    server.advance(15)
    stored = (await client.get(f"{HPAS}/web")).json()
    assert stored["status"] == {
        "currentReplicas": 2,
        "desiredReplicas": 0,
        "currentMetrics": [{"type": ""}],
        "conditions": [
            since(at(15), **GOT_SCALE),
            since(
                at(15),
                type="ScalingActive",
                status="False",
                reason="FailedGetResourceMetric",
                message=f"the HPA was unable to compute the replica count: {NO_METRICS}",
            ),
        ],
    }
    writer = stored["metadata"]["managedFields"][-1]
    assert (writer["manager"], writer["subresource"]) == ("kube-controller-manager", "status")
    events = (await client.get(f"{NS}/events?fieldSelector=involvedObject.name%3Dweb")).json()["items"]
    mine = [
        (e["type"], e["reason"], e["message"])
        for e in events
        if e["involvedObject"]["kind"] == "HorizontalPodAutoscaler"
    ]
    assert mine == [
        ("Warning", "FailedGetResourceMetric", NO_METRICS),
        (
            "Warning",
            "FailedComputeMetricsReplicas",
            f"invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: {NO_METRICS}",
        ),
    ]
    version = stored["metadata"]["resourceVersion"]
    server.advance(45)  # three more reconciles that change nothing
    assert (await client.get(f"{HPAS}/web")).json()["metadata"]["resourceVersion"] == version


async def test_a_target_below_the_minimum_is_scaled_up_to_it(server: FakeAPIServer, client: RawClient) -> None:
    assert (await client.post(DEPLOYMENTS, deployment("web", 1))).status == 201
    assert (await client.post(HPAS, autoscaler("web", "web", 3, 5))).status == 201
    server.advance(15)
    rescaled = "the HPA controller was able to update the target scale to 3"
    assert await status_of(client, "web") == {
        "lastScaleTime": at(15),
        "currentReplicas": 1,
        "desiredReplicas": 3,
        "currentMetrics": None,
        "conditions": [since(at(15), type="AbleToScale", status="True", reason="SucceededRescale", message=rescaled)],
    }
    target = (await client.get(f"{DEPLOYMENTS}/web")).json()
    assert target["spec"]["replicas"] == 3
    assert ("kube-controller-manager", "scale") in [
        (f["manager"], f.get("subresource")) for f in target["metadata"]["managedFields"]
    ]
    server.advance(15)
    status = await status_of(client, "web")
    assert (status["currentReplicas"], status["desiredReplicas"], status["lastScaleTime"]) == (3, 3, at(15))
    assert [c["reason"] for c in status["conditions"]] == ["SucceededGetScale", "FailedGetResourceMetric"]
    events = (await client.get(f"{NS}/events?fieldSelector=involvedObject.name%3Dweb")).json()["items"]
    assert (
        "Normal",
        "SuccessfulRescale",
        "New size: 3; reason: Current number of replicas below Spec.MinReplicas",
    ) in [(e["type"], e["reason"], e["message"]) for e in events]


async def test_a_missing_target_cannot_be_scaled(server: FakeAPIServer, client: RawClient) -> None:
    assert (await client.post(HPAS, autoscaler("ghost", "ghost", 1, 3))).status == 201
    server.advance(15)
    message = 'the HPA controller was unable to get the target\'s current scale: deployments.apps "ghost" not found'
    assert await status_of(client, "ghost") == {
        "desiredReplicas": 0,
        "currentMetrics": None,
        "conditions": [since(at(15), type="AbleToScale", status="False", reason="FailedGetScale", message=message)],
    }


async def test_a_target_at_zero_replicas_disables_scaling(server: FakeAPIServer, client: RawClient) -> None:
    assert (await client.post(DEPLOYMENTS, deployment("idle", 0))).status == 201
    assert (await client.post(HPAS, autoscaler("idle", "idle", 1, 3))).status == 201
    server.advance(15)
    disabled = "scaling is disabled since the replica count of the target is zero"
    assert (await status_of(client, "idle"))["conditions"] == [
        since(at(15), **GOT_SCALE),
        since(at(15), type="ScalingActive", status="False", reason="ScalingDisabled", message=disabled),
    ]


async def test_an_average_value_target_fails_on_usage(server: FakeAPIServer, client: RawClient) -> None:
    metric = {
        "type": "Resource",
        "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "100Mi"}},
    }
    assert (await client.post(DEPLOYMENTS, deployment("web", 1))).status == 201
    assert (await client.post(HPAS, autoscaler("web", "web", 1, 3, metrics=[metric]))).status == 201
    server.advance(15)
    condition = (await status_of(client, "web"))["conditions"][1]
    assert condition["message"] == (
        "the HPA was unable to compute the replica count: failed to get memory usage: unable to get metrics for "
        "resource memory: unable to fetch metrics from resource metrics API: the server could not find the "
        "requested resource (get pods.metrics.k8s.io)"
    )
