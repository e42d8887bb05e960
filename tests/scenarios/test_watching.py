"""Watch-driven ticks through the public API: an operator that waits for its watch's next event is
parked, not stuck, and when it sees another actor's write is a choice the schedule makes."""

from __future__ import annotations

from typing import Any

from kubernetes_asyncio import watch
from kubernetes_asyncio.client import ApiException

from scenarios import TickContext, exactly_once, explore, scenario
from tests.scenarios.conftest import CRD, job

GROUP, VERSION, PLURAL = "example.com", "v1", "jobs"
DONE = "example.com/completed-by"


def watching_operator(*, guarded: bool) -> Any:
    """Watches jobs; completes each that succeeded and nobody completed, claiming it with a patch."""

    async def tick(ctx: TickContext) -> None:
        stream = watch.Watch().stream(ctx.custom.list_namespaced_custom_object, GROUP, VERSION, "default", PLURAL)
        async for event in stream:
            obj = event["object"]
            annotations = obj["metadata"].get("annotations") or {}
            if (obj.get("status") or {}).get("phase") != "Succeeded" or DONE in annotations:
                continue
            operations: list[dict[str, Any]] = [
                {"op": "add", "path": "/metadata/annotations", "value": {DONE: ctx.actor}}
            ]
            if guarded:
                version = obj["metadata"]["resourceVersion"]
                operations.insert(0, {"op": "test", "path": "/metadata/resourceVersion", "value": version})
            name = obj["metadata"]["name"]
            try:
                await ctx.custom.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, name, operations)
            except ApiException as error:
                if error.status in (409, 422):
                    continue
                raise
            ctx.effect("complete", f"default/{name}")

    return tick


async def kubelet(ctx: TickContext) -> None:
    """Marks the job's pod finished, as a status pusher would."""
    await ctx.custom.patch_namespaced_custom_object_status(
        GROUP, VERSION, "default", PLURAL, "job-1", {"status": {"phase": "Succeeded"}},
        _content_type="application/merge-patch+json",
    )  # fmt: skip


def operators(*, guarded: bool) -> Any:
    tick = watching_operator(guarded=guarded)
    return scenario(
        objects=[CRD, job("job-1")],
        actors={"replica-a": tick, "replica-b": tick},
        writers={"kubelet": kubelet},
        checks=exactly_once("complete", "default/job-1"),
    )


def test_watch_driven_replicas_with_a_guarded_claim_hold_in_every_schedule() -> None:
    result = explore(operators(guarded=True))
    assert result.verdict == "holds", result.report()
    assert result.runs > 2


def test_watch_driven_replicas_without_a_guard_both_complete_and_the_report_shows_what_each_saw() -> None:
    result = explore(operators(guarded=False))
    assert result.verdict.startswith("violated") and "safety" in result.verdict
    report = result.report()
    verbs = [step.option.verb for step in result.counterexample.steps]  # type: ignore[union-attr]
    assert "watch" in verbs and "watch-event" in verbs  # each watch's start, and an event it let through
    assert "watch of jobs sees MODIFIED job-1 (resourceVersion " in report
    assert "GET jobs (watch)" in report


def test_a_write_before_the_watch_starts_is_in_its_first_list_and_one_after_is_an_event() -> None:
    seen: set[tuple[str, ...]] = set()

    def note(exploration: Any) -> None:
        seen.add(tuple(f"{step.actor}:{step.option.verb}" for step in exploration.last.steps))

    explore(operators(guarded=True), keep_going=True, progress=note)
    before = [order for order in seen if order.index("kubelet:patch") < order.index("replica-a:watch")]
    after = [order for order in seen if order.index("kubelet:patch") > order.index("replica-a:watch")]
    assert before and after
    assert all("replica-a:watch-event" in order for order in after)


def test_when_a_watcher_sees_a_write_is_part_of_the_schedule() -> None:
    seen: dict[tuple[str, ...], str] = {}

    def note(exploration: Any) -> None:
        run = exploration.last
        seen[tuple(f"{step.actor}:{step.option.verb}" for step in run.steps)] = run.schedule_id

    explore(operators(guarded=True), keep_going=True, progress=note)
    starts = {tuple(step for step in order if not step.endswith(":watch"))[:3] for order in seen}
    assert ("kubelet:patch", "replica-a:watch-event", "replica-a:patch") in starts
    assert ("kubelet:patch", "replica-b:watch-event", "replica-b:patch") in starts
    for order, schedule in seen.items():
        replayed = explore(operators(guarded=True), replay=schedule).last
        assert replayed is not None
        assert tuple(f"{step.actor}:{step.option.verb}" for step in replayed.steps) == order
