"""Simulated controllers as racers: the kubelet's writes and the fake clock's moves are steps the
schedule places among the actors' requests (fakeapi's docs/controllers.md, scenarios' stepped
controllers), and the reductions still reach every outcome of the full search."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes_asyncio import watch
from kubernetes_asyncio.client import ApiException, CoreV1Api

from scenarios import TickContext, exactly_once, explore, scenario
from tests.scenarios.conftest import CRD, job

GROUP, VERSION, PLURAL = "example.com", "v1", "jobs"
DONE = "example.com/completed-by"


def pod(name: str, outcome: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"job": "job-1"}, "annotations": {"fakeapi.dev/outcome": outcome}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}], **spec},
    }


def completing_operator(*, guarded: bool) -> Any:
    """Watches the job's pods; once one succeeded, completes the job with a JSON patch."""

    async def tick(ctx: TickContext) -> None:
        stream = watch.Watch().stream(CoreV1Api(ctx.api).list_namespaced_pod, "default", label_selector="job=job-1")
        async for event in stream:
            if event["object"].status.phase != "Succeeded":
                continue
            current = await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
            if DONE in (current["metadata"].get("annotations") or {}):
                continue
            operations: list[dict[str, Any]] = [
                {"op": "add", "path": "/metadata/annotations", "value": {DONE: ctx.actor}}
            ]
            if guarded:
                version = current["metadata"]["resourceVersion"]
                operations.insert(0, {"op": "test", "path": "/metadata/resourceVersion", "value": version})
            try:
                await ctx.custom.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1", operations)
            except ApiException as error:
                if error.status in (409, 422):
                    continue
                raise
            ctx.effect("complete", "default/job-1")

    return tick


def operators(*, guarded: bool, outcome: str = "succeed after 5s", horizon: float = 60.0) -> Any:
    tick = completing_operator(guarded=guarded)
    return scenario(
        objects=[CRD, job("job-1"), pod("job-1-pod", outcome)],
        actors={"replica-a": tick, "replica-b": tick},
        checks=exactly_once("complete", "default/job-1"),
        controllers="all",
        horizon=horizon,
    )


def test_the_scheduler_the_kubelet_and_the_clock_race_with_the_replicas() -> None:
    orders: set[tuple[str, ...]] = set()

    def note(exploration: Any) -> None:
        orders.add(tuple(step.actor for step in exploration.last.steps))

    result = explore(operators(guarded=True), keep_going=True, progress=note)
    assert result.verdict == "holds", result.report()
    assert "simulated controllers all, one write per step, and the fake clock up to 60 s" in result.scope
    actors = {actor for order in orders for actor in order}
    assert {"scheduler", "kubelet/default/job-1-pod", "clock", "replica-a", "replica-b"} <= actors
    # a replica's watch may start before the bind, or only once the pod ran: both are explored
    assert any(order.index("replica-a") < order.index("scheduler") for order in orders)
    assert any(order.index("replica-a") > order.index("clock") for order in orders)


def test_an_unguarded_completion_races_to_two_winners_and_the_report_shows_the_controllers() -> None:
    result = explore(operators(guarded=False))
    assert result.verdict.startswith("violated") and "safety" in result.verdict
    report = result.report()
    assert "| kubelet/default/job-1-pod | update pods/status default/job-1-pod |" in report
    assert "| clock | the clock is now 5 s after the start |" in report
    assert "(a simulated controller, in-process: no request)" in report
    replayed = explore(operators(guarded=False), replay=result.schedule_id).last
    assert replayed is not None and replayed.violations


def test_time_stops_at_the_horizon() -> None:
    result = explore(operators(guarded=True, horizon=4))
    assert result.verdict == "violated: liveness"  # the pod would succeed at 5 s: never, within 4 s
    assert all(step.actor != "clock" for step in result.counterexample.steps)  # type: ignore[union-attr]


def test_actors_named_like_a_controller_are_refused() -> None:
    clashing = scenario(
        objects=[CRD, job("job-1")], actors={"kubelet": completing_operator(guarded=True)},
        checks=exactly_once("complete", "default/job-1"), controllers="all",
    )  # fmt: skip
    with pytest.raises(ValueError, match="clash with the simulated controllers"):
        explore(clashing)


def outcomes(target: Any, reduction: str) -> tuple[int, set[str]]:
    seen: set[str] = set()

    def note(exploration: Any) -> None:
        run = exploration.last
        effects = sorted((effect.name, effect.actor, effect.key) for effect in run.effects)
        final = {str(key): _essence(obj) for key, obj in run.final.items()}
        seen.add(json.dumps([effects, final], sort_keys=True))

    result = explore(target, reduction=reduction, keep_going=True, progress=note)
    return result.runs, seen


def _essence(obj: dict[str, Any] | None) -> Any:
    if obj is None:
        return None
    status = obj.get("status") or {}
    return {
        "annotations": (obj.get("metadata") or {}).get("annotations"),
        "phase": status.get("phase"),
        "states": [s.get("state") for s in status.get("containerStatuses") or []],
        "address": status.get("podIP"),
    }


def pod_annotator(ctx: TickContext) -> Any:
    """Reads the pod and annotates it with the phase it saw (a write the kubelet's writes race with)."""

    async def tick(ctx: TickContext) -> None:
        pods = CoreV1Api(ctx.api)
        seen = await pods.read_namespaced_pod("job-1-pod", "default")
        body = {"metadata": {"annotations": {"example.com/seen-phase": seen.status.phase or "none"}}}
        await pods.patch_namespaced_pod("job-1-pod", "default", body)
        ctx.effect("annotated", seen.status.phase or "none")

    return tick(ctx)


def test_reductions_reach_every_outcome_of_the_full_search_with_controllers() -> None:
    small = scenario(
        objects=[CRD, job("job-1"), pod("job-1-pod", "succeed", nodeName="node-1")],
        actors={"annotator": pod_annotator},
        checks=(),
        controllers="nodes,kubelet",
    )
    full_runs, full = outcomes(small, "off")
    dpor_runs, reduced = outcomes(small, "dpor")
    assert full == reduced
    assert len(full) >= 3  # the annotator saw the pod Pending, Running or Succeeded
    assert dpor_runs <= full_runs


def test_reductions_reach_every_outcome_of_a_watching_replica_with_controllers() -> None:
    target = scenario(
        objects=[CRD, job("job-1"), pod("job-1-pod", "succeed", nodeName="node-1")],
        actors={"replica-a": completing_operator(guarded=False), "annotator": pod_annotator},
        checks=exactly_once("complete", "default/job-1"),
        controllers="nodes,kubelet",
    )
    full_runs, full = outcomes(target, "off")
    dpor_runs, reduced = outcomes(target, "dpor")
    assert full == reduced
    assert len(full) >= 3
    assert dpor_runs < full_runs


def test_reductions_reach_every_outcome_of_two_pod_workers() -> None:
    """The kubelet's pod workers race with each other only where one reads the other's pod: the first
    to get an address takes the lowest free one. The reductions order the rest of their writes as
    they please, and still end in every outcome of the full search, addresses included."""
    target = scenario(
        objects=[
            CRD,
            job("job-1"),
            pod("job-1-pod", "succeed", nodeName="node-1"),
            pod("other-pod", "succeed", nodeName="node-1"),
        ],
        actors={"annotator": pod_annotator},
        checks=(),
        controllers="nodes,kubelet",
    )
    full_runs, full = outcomes(target, "off")
    dpor_runs, reduced = outcomes(target, "dpor")
    assert full == reduced
    addresses = {
        tuple(value["address"] for key, value in sorted(json.loads(outcome)[1].items()) if "pods" in key)
        for outcome in full
    }
    assert len(addresses) >= 2  # which pod is given the node's first address depends on the order
    assert dpor_runs < full_runs


def test_the_startup_claim_breaks_on_the_kubelets_message_for_an_image_with_an_ampersand() -> None:
    from scenarios.builtin import builtin_scenario

    result = explore(builtin_scenario("pod-outcome-claims", "startup-issue-whole"))
    assert result.verdict == "violated: liveness"
    report = result.report()
    assert "failed only because of spelling at /status/startupIssue/message" in report
    assert "pr-1488\\u0026debug=1" in report and "sent ...ple.com/team/app:pr-1488&debug=1" in report
    assert "| kubelet/default/job-3-worker | update pods/status default/job-3-worker |" in report


def test_a_delete_races_with_reads_of_the_dependents_the_garbage_collector_deletes_inside_it() -> None:
    from scenarios import SetupContext

    async def own(ctx: SetupContext) -> None:
        core = CoreV1Api(ctx.api)
        parent = await core.read_namespaced_config_map("parent", "default")
        reference = {"apiVersion": "v1", "kind": "ConfigMap", "name": "parent", "uid": parent.metadata.uid}
        child = {"metadata": {"name": "child", "ownerReferences": [reference]}, "data": {"a": "b"}}
        await core.create_namespaced_config_map("default", child)

    async def deleter(ctx: TickContext) -> None:
        await CoreV1Api(ctx.api).delete_namespaced_config_map("parent", "default")

    async def reader(ctx: TickContext) -> None:
        try:
            await CoreV1Api(ctx.api).read_namespaced_config_map("child", "default")
        except ApiException as error:
            ctx.effect("read", str(error.status))
            return
        ctx.effect("read", "200")

    parent = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "parent"}}
    target = scenario(objects=[parent], actors={"deleter": deleter, "reader": reader}, setup=own, checks=())
    seen = {tuple(effect.key for effect in run.effects) for run in _runs(target, "dpor")}
    assert seen == {("200",), ("404",)}  # the reader ran before the delete, or after it took the child


def _runs(target: Any, reduction: str) -> list[Any]:
    runs: list[Any] = []
    explore(target, reduction=reduction, keep_going=True, progress=lambda exploration: runs.append(exploration.last))
    return runs
