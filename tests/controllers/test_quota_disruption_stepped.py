"""The resourcequota, disruption and horizontalpodautoscaling controllers stepped: one write at a
time in any order they end where settling ends, and in scenarios they race with the actors' requests
(docs/controllers.md, docs/quota-disruption-autoscaling.md)."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes_asyncio.client import ApiException, CoreV1Api

from fakeapi import FakeAPIServer
from scenarios import TickContext, at_most_once, explore, scenario
from tests.controllers.random_steps import step_at_random

START = 1_700_000_000.0
CONTROLLERS = "nodes,scheduler,kubelet,deployment,replicaset,resourcequota,disruption,horizontalpodautoscaling"
TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "main", "image": "nginx"}]}}


def objects() -> list[dict[str, Any]]:
    return [
        {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"},
         "spec": {"hard": {"pods": "10", "count/deployments.apps": "2", "count/poddisruptionbudgets.policy": "1"}}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
         "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}, "template": TEMPLATE}},
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
         "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}},
        {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
         "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                  "minReplicas": 3, "maxReplicas": 5}},
    ]  # fmt: skip


def summary(server: FakeAPIServer) -> dict[str, Any]:
    quota = server.get("v1", "ResourceQuota", "q")["status"]
    budget = server.get("policy/v1", "PodDisruptionBudget", "web")["status"]
    autoscaler = server.get("autoscaling/v2", "HorizontalPodAutoscaler", "web")["status"]
    return {
        "quota": quota["used"],
        "budget": {k: budget[k] for k in ("currentHealthy", "desiredHealthy", "expectedPods", "disruptionsAllowed")},
        "autoscaler": (
            autoscaler.get("currentReplicas"),
            autoscaler.get("desiredReplicas"),
            autoscaler.get("lastScaleTime"),
            [(c["type"], c["status"], c["reason"]) for c in autoscaler.get("conditions") or []],
        ),
        "replicas": server.get("apps/v1", "Deployment", "web")["spec"]["replicas"],
    }


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_stepped_in_any_order_they_end_where_settling_ends(seed: int) -> None:
    settled = FakeAPIServer(seed=5, clock=lambda: START, controllers=CONTROLLERS)
    settled.load(*objects())
    settled.advance(40)

    stepped = FakeAPIServer(seed=5, clock=lambda: START)
    stepped.set_controllers(CONTROLLERS, stepped=True)
    stepped.load(*objects())
    seen = {
        (written.controller, written.resource, written.subresource) for written in step_at_random(stepped, seed, 40)
    }
    assert {
        ("resourcequota", "resourcequotas", "status"),
        ("disruption", "poddisruptionbudgets", "status"),
        ("horizontalpodautoscaling", "deployments", "scale"),
        ("horizontalpodautoscaling", "horizontalpodautoscalers", "status"),
    } <= seen
    assert summary(stepped) == summary(settled)
    assert summary(settled)["replicas"] == 3
    assert summary(settled)["quota"] == {
        "count/deployments.apps": "1",
        "count/poddisruptionbudgets.policy": "1",
        "pods": "3",
    }
    assert summary(settled)["budget"] == {
        "currentHealthy": 3,
        "desiredHealthy": 1,
        "expectedPods": 3,
        "disruptionsAllowed": 2,
    }


# -- racers in scenarios ----------------------------------------------------------------------------


def creating(name: str) -> Any:
    async def tick(ctx: TickContext) -> None:
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                "spec": {"containers": [{"name": "main", "image": "nginx"}]}}  # fmt: skip
        try:
            await CoreV1Api(ctx.api).create_namespaced_pod("default", body)
        except ApiException as error:
            if error.status == 403:
                return
            raise
        ctx.effect("created", "default/one-pod-only")

    return tick


def test_a_quota_the_controller_has_not_synced_yet_lets_both_creates_through() -> None:
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": {"hard": {"pods": "1"}}}
    target = scenario(
        objects=[quota],
        actors={"replica-a": creating("a"), "replica-b": creating("b")},
        checks=at_most_once("created", "default/one-pod-only"),
        controllers="resourcequota",
    )
    created: set[int] = set()

    def note(exploration: Any) -> None:
        created.add(len(exploration.last.effects))

    result = explore(target, keep_going=True, progress=note)
    assert result.verdict.startswith("violated"), result.report()
    assert "| resourcequota | update resourcequotas/status default/q |" in result.report()
    # with the controller's status first the quota holds (one pod, the other create a 403); with
    # both creates first, both pods exist
    assert created == {1, 2}


def ready_pod(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "main", "image": "nginx"}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
    }


def evicting(name: str) -> Any:
    async def tick(ctx: TickContext) -> None:
        body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": "default"}}
        try:
            await CoreV1Api(ctx.api).create_namespaced_pod_eviction(name, "default", body)
        except ApiException as error:
            if error.status == 429:
                return
            raise
        ctx.effect("evicted", "default/web")

    return tick


def test_evictions_racing_the_disruption_controller_never_take_more_than_the_budget() -> None:
    budget = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}},
    }
    target = scenario(
        objects=[ready_pod("web-1"), ready_pod("web-2"), ready_pod("web-3"), budget],
        actors={"replica-a": evicting("web-1"), "replica-b": evicting("web-2")},
        checks=at_most_once("evicted", "default/web"),
        controllers="disruption",
    )
    orders: set[tuple[str, ...]] = set()
    evicted: set[int] = set()

    def note(exploration: Any) -> None:
        orders.add(tuple(step.actor for step in exploration.last.steps))
        evicted.add(len(exploration.last.effects))

    result = explore(target, keep_going=True, progress=note)
    assert result.verdict == "holds", result.report()
    # before the controller's first status both are still being processed (429); after it, one goes
    assert evicted == {0, 1}
    assert any(order.index("disruption") < order.index("replica-a") for order in orders if "disruption" in order)
    assert any("disruption" not in order[: order.index("replica-a")] for order in orders)


def outcomes(target: Any, reduction: str) -> set[str]:
    """What each run ends with: which effects, which pods are left and what the budget or quota says."""
    seen: set[str] = set()

    def note(exploration: Any) -> None:
        run = exploration.last
        effects = sorted((effect.name, effect.actor) for effect in run.effects)
        left = sorted(str(key) for key, obj in run.final.items() if obj is not None and "pods" in str(key))
        seen.add(repr((effects, left)))

    explore(target, reduction=reduction, keep_going=True, progress=note)
    return seen


@pytest.mark.parametrize("reduction", ["dpor", "sleep-sets"])
def test_reductions_reach_every_outcome_of_creates_under_a_quota_and_evictions_under_a_budget(reduction: str) -> None:
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": {"hard": {"pods": "1"}},
             "status": {"hard": {"pods": "1"}, "used": {"pods": "0"}}}  # fmt: skip
    creates = scenario(
        objects=[quota],
        actors={"replica-a": creating("a"), "replica-b": creating("b")},
        checks=(),
    )
    full = outcomes(creates, "off")
    assert len(full) == 2  # a's pod or b's, never both: the quota was synced before the run
    assert outcomes(creates, reduction) == full
    budget = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"observedGeneration": 1, "disruptionsAllowed": 1, "currentHealthy": 3, "desiredHealthy": 2,
                   "expectedPods": 3},
    }  # fmt: skip
    evictions = scenario(
        objects=[ready_pod("web-1"), ready_pod("web-2"), ready_pod("web-3"), budget],
        actors={"replica-a": evicting("web-1"), "replica-b": evicting("web-2")},
        checks=(),
    )
    full = outcomes(evictions, "off")
    assert len(full) == 2  # web-1 or web-2 goes, not both
    assert outcomes(evictions, reduction) == full
