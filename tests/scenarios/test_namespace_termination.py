"""The namespace controller as a racer (fakeapi's docs/namespace-deletion.md): with it simulated, a
client can read a deleted namespace while it is Terminating and have its create refused, in the
schedules where its requests land between the DELETE and the controller's writes; without it, an
empty namespace goes inside its DELETE and no schedule shows it Terminating."""

from __future__ import annotations

from typing import Any

from kubernetes_asyncio.client import ApiException, CoreV1Api

from scenarios import TickContext, explore, scenario

NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "work"}}


async def deleter(ctx: TickContext) -> None:
    await CoreV1Api(ctx.api).delete_namespace("work")


async def observer(ctx: TickContext) -> None:
    """Reads the namespace, then tries to create in it: what it saw, and what its create got."""
    core = CoreV1Api(ctx.api)
    try:
        seen = (await core.read_namespace("work")).status.phase
    except ApiException as error:
        seen = f"{error.status}"
    try:
        await core.create_namespaced_config_map("work", {"metadata": {"name": "late"}})
        created = "201"
    except ApiException as error:
        created = f"{error.status}"
    ctx.effect("observed", f"{seen} {created}")


def outcomes(controllers: str) -> set[str]:
    seen: set[str] = set()

    def note(exploration: Any) -> None:
        seen.update(effect.key for effect in exploration.last.effects)

    target = scenario(
        objects=[NAMESPACE], actors={"deleter": deleter, "observer": observer}, checks=(), controllers=controllers or ()
    )
    result = explore(target, keep_going=True, progress=note)
    assert result.verdict == "holds", result.report()
    return seen


def test_the_terminating_window_is_a_schedule_of_its_own_with_the_namespace_controller() -> None:
    assert outcomes("namespace") == {
        "Active 201",  # both before the DELETE (the controller then deletes the config map)
        "Active 403",  # the DELETE between the read and the create
        "Terminating 403",  # both inside the window
        "Terminating 404",  # the read inside the window, the create after the namespace went
        "Active 404",  # the DELETE and the controller's writes between the read and the create
        "404 404",  # both after the namespace went
    }


def test_without_it_an_empty_namespace_is_never_seen_terminating() -> None:
    assert outcomes("") == {"Active 201", "Active 404", "404 404"}
