"""The public entry points: build a scenario from keywords, explore it, probe it with hostile values.

Both the pytest fixture and plain scripts use these; the CLI drives the same machinery for the
built-in suite.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from scenarios._exploring import Exploration, Progress, Settings, explore_async, run_in_own_loop
from scenarios._model import Actor, Check, Scenario, SetupHook, Tick
from scenarios._probing import HostileReport, probe_async
from scenarios._schedules import Shard

__all__ = ["explore", "probe", "scenario"]

Actors = Mapping[str, Tick] | Sequence[Actor]


def _actors(actors: Actors, *, ticks: int, restarts: int, writer: bool) -> list[Actor]:
    if isinstance(actors, Mapping):
        return [Actor(name, tick, ticks=ticks, restarts=restarts, writer=writer) for name, tick in actors.items()]
    return list(actors)


def scenario(
    *,
    objects: Iterable[dict[str, Any]],
    actors: Actors,
    writers: Actors | None = None,
    checks: Check | Sequence[Check] = (),
    name: str = "custom",
    variant: str = "",
    description: str = "",
    faults: Sequence[str] = (),
    max_faults: int = 1,
    ticks: int = 1,
    restarts: int = 1,
    setup: SetupHook | None = None,
    derive: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    seed: int = 1,
    max_steps: int = 400,
    exhaustive: bool = True,
) -> Scenario:
    """A scenario. ``actors``/``writers``: ``{"name": tick}`` (each ``ticks`` ticks) or :class:`Actor` objects."""
    racers = _actors(actors, ticks=ticks, restarts=restarts, writer=False)
    foreign = _actors(writers or {}, ticks=1, restarts=restarts, writer=True)
    return Scenario(
        name=name,
        variant=variant,
        description=description,
        objects=tuple(objects),
        actors=(*racers, *foreign),
        checks=(checks,) if callable(checks) else tuple(checks),
        faults=tuple(faults),
        max_faults=max_faults,
        seed=seed,
        setup=setup,
        derive=derive,
        max_steps=max_steps,
        exhaustive=exhaustive,
    )


def explore(
    target: Scenario,
    *,
    exhaustive: bool | None = None,
    schedules: int = 200,
    seed: int = 0,
    replay: str | None = None,
    reduction: str = "dpor",
    shard: Shard | None = None,
    keep_going: bool = False,
    shrink: bool = True,
    max_runs: int | None = None,
    replay_hint: Callable[[str, str | None], list[str]] | None = None,
    kubeconfig: str | Path | None = None,
    progress: Progress | None = None,
) -> Exploration:
    """Explore ``target`` and return the verdict (``.holds``, ``.assert_holds()``, ``.report()``).

    Exhaustive by default for a scenario that says so; ``schedules``/``seed`` for seeded random runs;
    ``replay`` runs one schedule id; ``kubeconfig`` runs against a real cluster instead of fakeapi.
    Callable from sync and async code (it runs its own event loop, in a thread if one is running).
    """
    settings = Settings(
        exhaustive=exhaustive,
        schedules=schedules,
        seed=seed,
        replay=replay,
        reduction=reduction,
        shard=shard or Shard(),
        keep_going=keep_going,
        shrink=shrink,
        max_runs=max_runs,
        replay_hint=replay_hint,
    )
    if kubeconfig is not None:
        from scenarios._live import explore_live

        path = Path(kubeconfig)
        return run_in_own_loop(lambda: explore_live(target, path, settings, progress=progress))  # type: ignore[no-any-return]
    return run_in_own_loop(lambda: explore_async(target, settings, progress=progress))  # type: ignore[no-any-return]


def probe(
    target: Scenario,
    *,
    schedules: int = 5,
    seed: int = 0,
    exhaustive: bool = False,
    replay_hint: Callable[[str, str | None], list[str]] | None = None,
) -> HostileReport:
    """Re-run ``target`` with hostile spellings of its user-controlled values; ``.fragile`` says if any flipped it."""
    settings = Settings(exhaustive=exhaustive, schedules=schedules, seed=seed, replay_hint=replay_hint)
    return run_in_own_loop(lambda: probe_async(target, settings))  # type: ignore[no-any-return]
