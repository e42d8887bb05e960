"""The CronJob and endpoint controllers cut short at any single write: the next call does the
remaining writes, repeating none (the controller contract, docs/controllers.md).

Each case runs the same stretch of time once whole, then once per write with that write failing (the
store raises instead of storing it), after which the controllers run to the same instant again: the
objects the controllers under test wrote come out the same, and their Events too, but for the one
Event whose own write failed (it is not retried)."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from fakeapi import FakeAPIServer, OutcomeRule

pytestmark = pytest.mark.asyncio

START = 1_700_000_000.0  # 2023-11-14T22:13:20Z
RULES = [OutcomeRule("succeed after 5s", image="busybox")]


class WriteFailed(Exception):
    pass


class FailingWrite:
    """Makes the store's ``cut``-th write from now raise instead of storing."""

    def __init__(self, server: FakeAPIServer, cut: int | None) -> None:
        # The fault sits under the controllers, where no request reaches: the server's own store.
        self.store = server._state.store
        self.persist = self.store.persist
        self.cut, self.count = cut, 0

    def __enter__(self) -> FailingWrite:
        def persist(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            if self.count == self.cut:
                raise WriteFailed
            return self.persist(*args, **kwargs)

        self.store.persist = persist  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        self.store.persist = self.persist  # type: ignore[method-assign]


async def interrupted(
    prepare: Callable[[FakeAPIServer], None], seconds: float, observe: Callable[[FakeAPIServer], Any], cut: int | None
) -> tuple[Any, Counter[tuple[str, str, str]], int]:
    async with FakeAPIServer(controllers="all", outcomes=RULES, clock=lambda: START, seed=7) as server:
        prepare(server)
        clock = server._state.store.clock
        target = clock.now() + seconds
        with FailingWrite(server, cut) as fault, contextlib.suppress(WriteFailed):
            server.advance(seconds)
        server.advance(target - clock.now())
        return observe(server), cron_events(server), fault.count


def by_kind(server: FakeAPIServer, api_version: str, kind: str) -> list[dict[str, Any]]:
    store = server._state.store
    return store.items(server.resource_type(api_version, kind), "default")


def cron_prepare(server: FakeAPIServer) -> None:
    pod = {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]}}
    spec: dict[str, Any] = {
        "schedule": "* * * * *",
        "concurrencyPolicy": "Replace",
        "jobTemplate": {"spec": {"template": pod}},
    }
    server.load({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"}, "spec": spec})
    limited = {**spec, "successfulJobsHistoryLimit": 0}
    server.load({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "f"}, "spec": limited})
    server.advance(40 + 59)  # to 22:14:59: the first Jobs ran and completed


def cron_observe(server: FakeAPIServer) -> Any:
    cron_jobs = {
        c["metadata"]["name"]: (
            [a["name"] for a in c["status"].get("active", [])],
            c["status"].get("lastScheduleTime"),
            c["status"].get("lastSuccessfulTime"),
        )
        for c in by_kind(server, "batch/v1", "CronJob")
    }
    jobs = sorted(j["metadata"]["name"] for j in by_kind(server, "batch/v1", "Job"))
    return cron_jobs, jobs


def cron_events(server: FakeAPIServer) -> Counter[tuple[str, str, str]]:
    return Counter(
        (e["involvedObject"]["name"], e["reason"], e["message"])
        for e in by_kind(server, "v1", "Event")
        if e["involvedObject"]["kind"] == "CronJob"
    )


def endpoints_prepare(server: FakeAPIServer) -> None:
    ports = [{"name": "http", "port": 80, "targetPort": 8080}]
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}
    server.load({**service, "spec": {"selector": {"app": "web"}, "ports": ports}})
    for name, image in (("a", "nginx"), ("b", "nginx"), ("c", "busybox")):
        labels = {"app": "web"}
        containers = [{"name": "main", "image": image}]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels}}
        server.load({**pod, "spec": {"restartPolicy": "Never", "containers": containers}})


def endpoints_observe(server: FakeAPIServer) -> Any:
    slices = [
        sorted((e["targetRef"]["name"], e["conditions"]["ready"]) for e in s.get("endpoints") or [])
        for s in by_kind(server, "discovery.k8s.io/v1", "EndpointSlice")
        if s["metadata"]["labels"].get("kubernetes.io/service-name") == "web"
    ]
    endpoints = [
        (e["metadata"].get("annotations"), e.get("subsets"))
        for e in by_kind(server, "v1", "Endpoints")
        if e["metadata"]["name"] == "web"
    ]
    for _, subsets in endpoints:
        for subset in subsets or []:
            for address in subset.get("addresses", []):
                address.pop("ip")
                address["targetRef"].pop("uid")
    return slices, endpoints


@pytest.mark.parametrize(
    ("prepare", "seconds", "observe"),
    [(cron_prepare, 6, cron_observe), (endpoints_prepare, 5, endpoints_observe)],
    ids=["cronjob", "endpoints"],
)
async def test_an_interrupted_sync_is_completed_by_the_next(
    prepare: Callable[[FakeAPIServer], None], seconds: float, observe: Callable[[FakeAPIServer], Any]
) -> None:
    whole, whole_events, writes = await interrupted(prepare, seconds, observe, None)
    assert writes > 5
    for cut in range(1, writes + 1):
        state, events, _ = await interrupted(prepare, seconds, observe, cut)
        assert state == whole, f"write {cut} of {writes} failed"
        assert not events - whole_events, f"write {cut} of {writes} failed: repeated {events - whole_events}"
        assert (whole_events - events).total() <= 1, f"write {cut} of {writes} failed: lost {whole_events - events}"
