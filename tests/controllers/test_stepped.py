"""Stepped controllers (docs/controllers.md, "In scenarios"): asked what they would write next,
every controller answers without writing, then writes exactly that when stepped; stepped one write
at a time in any order, they bring a cluster to the state settling brings it to."""

from __future__ import annotations

import random
from typing import Any

import pytest

from fakeapi import FakeAPIServer

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
    choose, elapsed, writes = random.Random(seed), 0.0, 0
    while True:
        pending = stepped.controller_writes()
        if not pending:
            due = stepped.next_controller_due()
            if due is None or elapsed + due > 150:
                break
            stepped.advance_clock(due)
            elapsed += due
            continue
        assert stepped.controller_writes() == pending  # asking wrote nothing
        chosen = choose.choice(pending)
        revision = stepped.revision
        written = stepped.step_controller(chosen.controller, chosen.worker)
        assert written is not None and written.target == chosen.target and not written.refused
        assert stepped.revision > revision
        writes += 1
    assert writes > 50
    assert summary(stepped) == summary(settled)
    assert summary(settled)["web"] == (3, 3) and summary(settled)["web endpoints"] == 3
    assert summary(settled)["once"] == ["SuccessCriteriaMet", "Complete"] and None not in summary(settled)["tick"]
