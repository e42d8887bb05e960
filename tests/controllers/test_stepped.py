"""Stepped controllers (docs/controllers.md, "In scenarios"): asked what they would write next,
every controller answers without writing, then writes exactly that when stepped; stepped one write
at a time in any order, they bring a cluster to the state settling brings it to."""

from __future__ import annotations

import random
from typing import Any

import pytest

from fakeapi import FakeAPIServer
from tests.controllers.random_steps import step_at_random

START = 1_700_000_000.0
TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "main", "image": "nginx"}]}}
RUN_ONCE = {
    "metadata": {"annotations": {"fakeapi.dev/outcome": "succeed after 5s"}},
    "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]},
}


def workloads() -> list[dict[str, Any]]:
    db = {"metadata": {"labels": {"app": "db"}}, "spec": TEMPLATE["spec"]}
    return [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
         "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": TEMPLATE}},
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
         "spec": {"replicas": 2, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}}, "template": db}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
         "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}},
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once"}, "spec": {"template": RUN_ONCE}},
        {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "tick"},
         "spec": {"schedule": "*/1 * * * *", "jobTemplate": {"spec": {"template": RUN_ONCE}}}},
    ]  # fmt: skip


def summary(server: FakeAPIServer) -> dict[str, Any]:
    web = server.get("apps/v1", "Deployment", "web")["status"]
    db = server.get("apps/v1", "StatefulSet", "db")["status"]
    once = server.get("batch/v1", "Job", "once")["status"]
    tick = server.get("batch/v1", "CronJob", "tick")["status"]
    endpoints = server.get("v1", "Endpoints", "web").get("subsets") or []
    return {
        "web": (web.get("availableReplicas"), web.get("updatedReplicas")),
        "db": (db.get("readyReplicas"), db.get("currentRevision") == db.get("updateRevision")),
        "once": [c["type"] for c in once.get("conditions") or []],
        "tick": (tick.get("lastScheduleTime"), tick.get("lastSuccessfulTime")),
        "web endpoints": sum(len(subset.get("addresses") or []) for subset in endpoints),
    }


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_stepped_in_any_order_the_controllers_write_what_they_said_and_end_where_settling_ends(seed: int) -> None:
    settled = FakeAPIServer(seed=5, clock=lambda: START, controllers="all")
    settled.load(*workloads())
    settled.advance(150)

    stepped = FakeAPIServer(seed=5, clock=lambda: START)
    stepped.set_controllers("all", stepped=True)
    stepped.load(*workloads())
    writes = len(step_at_random(stepped, seed, 150))
    assert writes > 50
    assert summary(stepped) == summary(settled)
    assert summary(settled)["web"] == (3, 3) and summary(settled)["web endpoints"] == 3
    assert summary(settled)["once"] == ["SuccessCriteriaMet", "Complete"] and None not in summary(settled)["tick"]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_kept_probe_answers_what_probing_again_would(seed: int) -> None:
    """Probes are kept while nothing they read changed (docs/controllers.md, "Probing"): at every
    point of a random walk of controller writes, client writes and clock moves, the kept answers
    equal those of probing every controller afresh, and some were kept."""
    from fakeapi._cluster.probe_cache import ProbeCache

    server = FakeAPIServer(seed=5, clock=lambda: START)
    server.set_controllers("all", stepped=True)
    server.load(*workloads())
    simulation = server._simulation
    assert simulation is not None
    choose, elapsed, compared = random.Random(seed), 0.0, 0
    for index in range(400):
        kept = server.controller_writes()
        simulation.probes, cache = ProbeCache(), simulation.probes
        assert server.controller_writes() == kept, index
        simulation.probes = cache
        compared += 1
        roll = choose.random()
        if roll < 0.15:
            server.load({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"unrelated-{index}"}})
        elif roll < 0.25:
            pod_writes = [write for write in kept if write.resource == "pods" and write.name]
            target = choose.choice(pod_writes) if pod_writes else None
            found = server.find("v1", "Pod", target.name, target.namespace) if target is not None else None
            if found is not None:
                labels = {**(found["metadata"].get("labels") or {}), "touched": str(index)}
                server.apply({**found, "metadata": {**found["metadata"], "labels": labels}})
        elif kept:
            chosen = choose.choice(kept)
            server.step_controller(chosen.controller, chosen.worker)
        else:
            due = server.next_controller_due()
            if due is None or elapsed + due > 150:
                break
            server.advance_clock(due)
            elapsed += due
    assert compared > 100
    assert cache.hits > 0 and cache.misses > 0
