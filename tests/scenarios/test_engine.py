"""The engine through the public API: determinism, faults, checks, flags, reduction and sharding."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from kubernetes_asyncio.client import ApiException

from scenarios import (
    RunRecord,
    Shard,
    TickContext,
    at_least_once,
    at_most_once,
    exactly_once,
    explore,
    no_lost_update,
    predicate,
    probe,
    scenario,
)
from scenarios._engine import Engine
from scenarios._schedules import Replay
from tests.scenarios.conftest import CRD, Pick, job, stamped

GROUP, VERSION, PLURAL = "example.com", "v1", "jobs"


def claim_tick(name: str, *, guard: str = "resourceVersion") -> Any:
    async def tick(ctx: TickContext) -> None:
        current = await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, name)
        if current["spec"].get("claimedBy"):
            return
        operations: list[dict[str, Any]] = []
        if "resourceVersion" in guard.split("+"):
            operations.append(
                {"op": "test", "path": "/metadata/resourceVersion", "value": current["metadata"]["resourceVersion"]}
            )
        if "owner" in guard.split("+"):
            operations.append({"op": "test", "path": "/spec/owner", "value": current["spec"]["owner"]})
        operations.append({"op": "add", "path": "/spec/claimedBy", "value": ctx.actor})
        try:
            await ctx.custom.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, name, operations)
        except ApiException as error:
            if error.status in (409, 422):
                return
            raise
        ctx.effect("claim", f"default/{name}")

    return tick


def racing(*, guard: str = "resourceVersion", objects: Any = None, **keywords: Any) -> Any:
    tick = claim_tick("job-1", guard=guard)
    return scenario(
        objects=objects or [CRD, job("job-1", owner="ada")],
        actors={"a": tick, "b": tick},
        checks=exactly_once("claim", "default/job-1"),
        **keywords,
    )


async def run_with(target: Any, chooser: Any) -> RunRecord:
    engine = Engine(target)
    await engine.start()
    try:
        return await engine.run(chooser)
    finally:
        await engine.stop()


def test_the_guarded_claim_holds_and_the_unguarded_one_has_two_winners() -> None:
    assert explore(racing()).holds
    result = explore(racing(guard="none"))
    assert not result.holds
    assert {v.kind for v in result.counterexample.violations} >= {"safety"}  # type: ignore[union-attr]


def test_the_same_schedule_gives_the_same_requests_and_answers() -> None:
    async def twice() -> list[list[tuple[str, bytes, bytes]]]:
        engine = Engine(racing(ticks=2))
        await engine.start()
        try:
            runs = [await engine.run(Replay([0, 1, 1, 0])) for _ in range(2)]
        finally:
            await engine.stop()
        return [[(s.actor, s.entry.body, s.entry.response_body) for s in run.steps if s.entry] for run in runs]

    first, second = asyncio.run(twice())
    assert first == second and len(first) >= 4


@pytest.mark.parametrize("guard", ["none", "resourceVersion"])
def test_reductions_reach_every_outcome_of_the_full_search(guard: str) -> None:
    def outcomes(reduction: str) -> tuple[int, set[str]]:
        seen: set[str] = set()

        def note(exploration: Any) -> None:
            run = exploration.last
            effects = sorted((effect.actor, effect.key) for effect in run.effects)
            final = {str(key): (obj or {}).get("spec") for key, obj in run.final.items()}
            seen.add(json.dumps([effects, final], sort_keys=True))

        result = explore(racing(ticks=2, guard=guard), reduction=reduction, keep_going=True, progress=note)
        return result.runs, seen

    full_runs, full = outcomes("off")
    dpor_runs, reduced = outcomes("dpor")
    sleep_runs, slept = outcomes("sleep-sets")
    assert full == reduced == slept
    assert dpor_runs <= sleep_runs < full_runs


def test_steps_on_different_objects_are_not_interleaved_twice() -> None:
    separate = scenario(
        objects=[CRD, job("job-1", owner="ada"), job("job-2", owner="bob")],
        actors={"a": claim_tick("job-1"), "b": claim_tick("job-2")},
        checks=[exactly_once("claim", "default/job-1"), exactly_once("claim", "default/job-2")],
    )
    assert explore(separate, reduction="off").runs == 6
    assert explore(separate, reduction="dpor").runs == 1


def test_shards_partition_the_schedule_space() -> None:
    def ids(shard: Shard) -> list[str]:
        found: list[str] = []
        explore(racing(ticks=2), shard=shard, progress=lambda e: found.append(e.last.schedule_id if e.last else ""))
        return found

    whole = ids(Shard())
    parts = [ids(Shard(index, 3, depth=2)) for index in range(3)]
    assert sorted(whole) == sorted(i for part in parts for i in part)


@pytest.mark.parametrize(
    ("fault", "actor", "method", "status", "committed", "entry_fault"),
    [
        ("lost-response", "a", "PATCH", 200, True, "response lost after commit"),
        ("conflict", "a", "PATCH", 409, False, "failed before commit with 409"),
        ("throttle", "a", "PATCH", 429, False, "failed before commit with 429"),
        ("server-error", "a", "GET", 500, False, "failed before commit with 500"),
        ("timeout", "a", "PATCH", 0, False, "connection cut before commit"),
    ],
)
def test_faults_happen_where_the_schedule_puts_them(
    fault: str, actor: str, method: str, status: int, committed: bool, entry_fault: str
) -> None:
    run = asyncio.run(run_with(racing(faults=[fault]), Pick(actor, fault, method)))
    step = next(step for step in run.steps if step.fault == fault)
    assert step.entry is not None
    assert (step.entry.status, step.committed, step.entry.fault) == (status, committed, entry_fault)
    if fault == "throttle":
        assert json.loads(step.entry.response_body)["details"]["retryAfterSeconds"] == 1
    if fault in ("lost-response", "timeout", "server-error"):
        assert [error.actor for error in run.errors] == [actor]


def test_a_stale_read_serves_the_previous_version() -> None:
    async def read_twice(ctx: TickContext) -> None:
        for _ in range(2):  # from the watch cache, which may lag: resourceVersion=0
            path = f"/apis/{GROUP}/{VERSION}/namespaces/default/{PLURAL}/job-1?resourceVersion=0"
            async with ctx.session.get(path) as response:
                current = await response.json()
            ctx.memory.setdefault("seen", []).append(current["metadata"]["resourceVersion"])
        ctx.effect("saw", ",".join(ctx.memory["seen"]))

    async def write(ctx: TickContext) -> None:
        await ctx.custom.patch_namespaced_custom_object(
            GROUP, VERSION, "default", PLURAL, "job-1", [{"op": "add", "path": "/spec/owner", "value": "cy"}]
        )

    target = scenario(
        objects=[CRD, job("job-1", owner="ada")],
        actors={"reader": read_twice},
        writers={"writer": write},
        faults=["stale-read"],
    )

    class WriteThenStale:
        def choose(self, options: Any, default: int) -> int:
            for wanted in (("writer", None), ("reader", "stale-read")):
                for index, option in enumerate(options):
                    if (option.actor, option.fault) == wanted:
                        return index
            return default

    run = asyncio.run(run_with(target, WriteThenStale()))
    first, second = run.effects_named("saw")[0].key.split(",")
    assert int(first) < int(second) or first == second
    stale = next(step for step in run.steps if step.fault == "stale-read")
    assert stale.entry is not None and stale.entry.fault.startswith("served stale at revision")
    assert json.loads(stale.entry.response_body)["spec"]["owner"] == "ada"


def test_a_read_by_name_without_a_resource_version_is_never_stale() -> None:
    async def read(ctx: TickContext) -> None:
        await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")

    async def write(ctx: TickContext) -> None:
        await ctx.custom.patch_namespaced_custom_object(
            GROUP, VERSION, "default", PLURAL, "job-1", [{"op": "add", "path": "/spec/owner", "value": "cy"}]
        )

    target = scenario(
        objects=[CRD, job("job-1")], actors={"reader": read}, writers={"writer": write}, faults=["stale-read"]
    )
    seen: list[Any] = []
    explore(target, reduction="off", progress=lambda exploration: seen.append(exploration.last))
    assert len(seen) == 2 and all(step.fault is None for run in seen for step in run.steps)


def test_a_watch_resuming_after_compaction_gets_410() -> None:
    async def watch_from_start(ctx: TickContext) -> None:
        listing = await ctx.custom.list_namespaced_custom_object(GROUP, VERSION, "default", PLURAL)
        await ctx.custom.patch_namespaced_custom_object(
            GROUP, VERSION, "default", PLURAL, "job-1", [{"op": "add", "path": "/spec/owner", "value": "cy"}]
        )
        path = f"/apis/{GROUP}/{VERSION}/namespaces/default/{PLURAL}?watch=1&resourceVersion="
        async with ctx.session.get(path + listing["metadata"]["resourceVersion"]) as response:
            first = json.loads(await response.content.readline())
        ctx.effect("watch", f"{first['type']}:{first['object'].get('code', '')}")

    target = scenario(objects=[CRD, job("job-1")], actors={"a": watch_from_start}, faults=["watch-expire"])
    expired = asyncio.run(run_with(target, Pick("a", "watch-expire", "GET")))
    assert [effect.key for effect in expired.effects] == ["ERROR:410"]
    plain = asyncio.run(run_with(target, Replay([])))
    assert [effect.key for effect in plain.effects] == ["MODIFIED:"]


def test_a_dropped_watch_is_cut_and_aiohttp_sends_it_again() -> None:
    async def watch(ctx: TickContext) -> None:
        path = f"/apis/{GROUP}/{VERSION}/namespaces/default/{PLURAL}?watch=1"
        async with ctx.session.get(path) as response:
            event = json.loads(await response.content.readline())
        ctx.effect("event", event["type"])

    target = scenario(objects=[CRD, job("job-1")], actors={"a": watch}, faults=["watch-drop"])
    run = asyncio.run(run_with(target, Pick("a", "watch-drop", "GET")))
    cut, again = run.steps
    assert cut.entry is not None and (cut.fault, cut.entry.status) == ("watch-drop", 0)
    assert again.entry is not None and (again.option.verb, again.entry.status) == ("watch", 200)
    assert [effect.key for effect in run.effects] == ["ADDED"]


def test_an_unconditional_overwrite_is_a_lost_update() -> None:
    async def set_owner(ctx: TickContext) -> None:
        await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
        body = {"spec": {"owner": ctx.actor}}
        await ctx.custom.patch_namespaced_custom_object(
            GROUP, VERSION, "default", PLURAL, "job-1", body, _content_type="application/merge-patch+json"
        )

    target = scenario(
        objects=[CRD, job("job-1", owner="ada")], actors={"a": set_owner, "b": set_owner}, checks=[no_lost_update()]
    )
    result = explore(target)
    assert not result.holds
    assert "overwrote /spec/owner" in result.report()


def test_user_predicates_judge_the_final_objects() -> None:
    def owner_is_kept(run: RunRecord) -> bool | str:
        owner = next(iter(run.final.values()))["spec"]["owner"]  # type: ignore[index]
        return owner == "ada" or f"owner is {owner}"

    tick = claim_tick("job-1")
    checks = [at_most_once("claim"), predicate("owner kept", owner_is_kept)]
    result = explore(scenario(objects=[CRD, job("job-1", owner="ada")], actors={"a": tick, "b": tick}, checks=checks))
    assert result.holds


def test_a_precondition_on_a_user_string_is_flagged_even_when_it_passes() -> None:
    result = explore(racing(guard="owner"), schedules=3, exhaustive=False)
    flags = [(flag.path, flag.passed) for flag in result.flags]
    assert ("/spec/owner", True) in flags


def test_hostile_spellings_of_a_tested_string_flip_the_verdict() -> None:
    report = probe(racing(guard="owner+resourceVersion"))
    assert report.baseline.holds and report.fragile and report.verdict == "fragile"
    broken = {str(finding.mutation) for finding in report.findings}
    assert {"job-1/spec/owner=lt", "job-1/spec/owner=e-acute", "job-1/spec/owner=emoji"} <= broken
    assert "job-1/spec/owner = 'café' (e-acute): violated: liveness" in report.report()


def test_the_report_explains_a_spelling_failure_with_the_servers_diagnosis() -> None:
    result = explore(racing(guard="owner", objects=[CRD, job("job-1", owner="a>b")]), schedules=1, exhaustive=False)
    report = result.report()
    assert not result.holds
    for part in ("## Steps", "| 1 | a | GET jobs/job-1 |", "```mermaid", "sequenceDiagram", "participant A1 as a"):
        assert part in report
    assert "test /spec/owner: equal once decoded, but the apiserver compares bytes" in report
    assert "server diagnosis: JSON patch test of /spec/owner failed only because of spelling" in report
    assert "\\u003e" in report


def test_a_real_cluster_is_judged_by_the_same_checks(tmp_path: Any) -> None:
    from fakeapi import FakeAPIServer

    with FakeAPIServer() as cluster:
        kubeconfig = cluster.kubeconfig(tmp_path / "kubeconfig")
        result = explore(racing(ticks=2), kubeconfig=kubeconfig, schedules=3, exhaustive=False)
    assert result.mode == "live" and result.runs == 3 and not result.violated
    assert not result.holds and "runs on a real cluster are a sample" in result.verdict


def test_explore_can_be_called_from_async_code() -> None:
    async def inside() -> Any:
        return explore(racing())

    assert asyncio.run(inside()).holds


def test_before_run_resets_outside_state_at_the_start_of_every_run_and_replay() -> None:
    sent: list[str] = []
    resets: list[int] = []

    async def send_once(ctx: TickContext) -> None:
        current = await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
        if not sent:
            sent.append(current["metadata"]["resourceVersion"])
            ctx.effect("sent", "default/job-1")

    def reset() -> None:
        resets.append(len(sent))
        sent.clear()

    target = scenario(
        objects=[CRD, job("job-1")],
        actors={"a": send_once, "b": send_once},
        checks=exactly_once("sent", "default/job-1"),
        before_run=reset,
    )
    result = explore(target)
    assert result.holds and len(resets) == result.runs + result.pruned
    resets.clear()
    replayed = explore(target, replay=stamped(target, "s1"))
    assert not replayed.violated and len(resets) == 2  # one for the stamps' run, one for the replay


def test_a_run_finds_its_objects_by_kind_or_resource_and_name() -> None:
    def owner_kept(run: RunRecord) -> bool | str:
        final = run.final_object("Job", "job-1")
        assert final is run.final_object("jobs", "job-1", namespace="default")
        assert run.initial_object("Job", "job-1")["spec"]["owner"] == "ada"
        return final is not None and final["spec"]["owner"] == "ada"

    tick = claim_tick("job-1")
    result = explore(
        scenario(
            objects=[CRD, job("job-1", owner="ada")], actors={"a": tick}, checks=predicate("owner kept", owner_kept)
        )
    )
    assert result.holds
    with pytest.raises(KeyError, match="no Job default/job-9 among the scenario's objects"):
        result.last.final_object("Job", "job-9")  # type: ignore[union-attr]


def test_ticks_can_be_given_per_actor() -> None:
    tick = claim_tick("job-1")
    target = scenario(objects=[CRD, job("job-1")], actors={"a": tick, "b": tick}, ticks={"a": 3}, checks=[])
    assert [(actor.name, actor.ticks) for actor in target.actors] == [("a", 3), ("b", 1)]
    with pytest.raises(ValueError, match="ticks names actors that do not exist: c"):
        scenario(objects=[CRD, job("job-1")], actors={"a": tick}, ticks={"c": 2}, checks=[])


def test_a_timeout_reaches_the_tick_even_though_aiohttp_resends_the_request() -> None:
    async def read(ctx: TickContext) -> None:
        try:
            await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
        except Exception as error:
            ctx.effect("error", type(error).__name__)
            return
        ctx.effect("read", "default/job-1")

    target = scenario(objects=[CRD, job("job-1")], actors={"a": read}, faults=["timeout"])
    run = asyncio.run(run_with(target, Pick("a", "timeout", "GET")))
    assert [effect.name for effect in run.effects] == ["error"]
    (step,) = run.steps
    assert step.fault == "timeout" and step.resends_cut == 1


def test_a_request_the_client_library_sends_again_is_shown_as_its_resend() -> None:
    target = scenario(objects=[CRD, job("job-1")], actors={"a": watch_once}, faults=["watch-drop"])
    result = explore(target, replay=stamped(target, "s1"))
    run = result.last
    assert run is not None and [step.resend_of for step in run.steps] == [0, 1]
    from scenarios._report import render_run

    assert "sent again after step 1's connection was cut" in render_run(result.scenario, run, [])


async def watch_once(ctx: TickContext) -> None:
    path = f"/apis/{GROUP}/{VERSION}/namespaces/default/{PLURAL}?watch=1"
    async with ctx.session.get(path) as response:
        json.loads(await response.content.readline())


def test_the_sequence_diagram_keeps_what_mermaid_would_misread() -> None:
    async def odd(ctx: TickContext) -> None:
        await ctx.custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "job-1")
        ctx.effect("done; twice #1", "default/job-1")

    result = explore(scenario(objects=[CRD, job("job-1")], actors={"a": odd}, checks=at_most_once("done; twice #1")))
    assert result.holds
    report = explore(
        scenario(objects=[CRD, job("job-1")], actors={"a": odd, "b": odd}, checks=at_most_once("done; twice #1"))
    ).report()
    assert "Note over A1: effect done#59; twice #35;1(default/job-1)" in report


def test_a_live_run_leaves_the_cluster_as_it_found_it(tmp_path: Any) -> None:
    from fakeapi import FakeAPIServer

    with FakeAPIServer() as cluster:
        kubeconfig = cluster.kubeconfig(tmp_path / "kubeconfig")
        result = explore(racing(ticks=2), kubeconfig=kubeconfig, schedules=2, exhaustive=False)
        assert not result.violated
        crd = cluster.find("apiextensions.k8s.io/v1", "CustomResourceDefinition", "jobs.example.com", namespace="")
        assert crd is None
        with pytest.raises(LookupError, match="no resource of kind Job"):
            cluster.find("example.com/v1", "Job", "job-1")


def test_a_live_run_keeps_a_crd_that_was_there_before(tmp_path: Any) -> None:
    from fakeapi import FakeAPIServer

    with FakeAPIServer() as cluster:
        cluster.load(CRD)
        kubeconfig = cluster.kubeconfig(tmp_path / "kubeconfig")
        assert not explore(racing(), kubeconfig=kubeconfig, schedules=1, exhaustive=False).violated
        assert cluster.find("apiextensions.k8s.io/v1", "CustomResourceDefinition", "jobs.example.com", namespace="")
        assert cluster.find("example.com/v1", "Job", "job-1") is None


async def create_in_namespace(ctx: TickContext) -> None:
    try:
        await ctx.core.create_namespaced_config_map("ns1", {"metadata": {"name": "c"}, "data": {"a": "b"}})
    except ApiException:
        return
    ctx.effect("created", "ns1/c")


async def delete_namespace(ctx: TickContext) -> None:
    await ctx.core.delete_namespace("ns1")


@pytest.mark.parametrize("reduction", ["dpor", "sleep-sets", "off"])
def test_deleting_a_namespace_races_with_every_write_inside_it(reduction: str) -> None:
    """A namespace's deletion reaches the objects in it: the reduction must not take the two steps for
    independent because they name different resources (the create would then only ever be tried first)."""
    target = scenario(
        objects=[{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns1"}}],
        actors={"a-creator": create_in_namespace, "b-deleter": delete_namespace},
        checks=at_least_once("created", "ns1/c"),
    )
    result = explore(target, reduction=reduction)
    assert result.verdict == "violated: liveness"
    steps = result.counterexample.steps  # type: ignore[union-attr]
    assert [(step.actor, step.option.verb) for step in steps] == [("b-deleter", "delete"), ("a-creator", "create")]
