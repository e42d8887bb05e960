"""The public entry points: build a scenario from keywords, explore it, probe it with hostile values.

Both the pytest fixture and plain scripts use these; the CLI drives the same machinery for the
built-in suite.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scenarios._actors import Actor, SetupHook, Tick
from scenarios._exploration import Exploration, Settings
from scenarios._exploring import Progress, explore_async, run_in_own_loop
from scenarios._model import Check, RunHook, Scenario, WebhookHandler
from scenarios._operators import Operator
from scenarios._probing import HostileReport, probe_async
from scenarios._progress import ProgressDisplay
from scenarios._schedules import Shard

if TYPE_CHECKING:
    from fakeapi import OutcomeRule

__all__ = ["explore", "probe", "scenario"]

Actors = Mapping[str, Tick] | Sequence[Actor]


Ticks = int | Mapping[str, int]


def _actors(
    actors: Actors,
    *,
    ticks: Ticks,
    default_ticks: int,
    restarts: int,
    writer: bool,
    service_accounts: Mapping[str, str],
) -> list[Actor]:
    if not isinstance(actors, Mapping):
        return list(actors)
    counts = ticks if isinstance(ticks, Mapping) else {}
    every = default_ticks if isinstance(ticks, Mapping) else ticks
    return [
        Actor(
            name,
            tick,
            ticks=counts.get(name, every),
            restarts=restarts,
            writer=writer,
            service_account=service_accounts.get(name, ""),
        )
        for name, tick in actors.items()
    ]


def scenario(
    *,
    objects: Iterable[dict[str, Any]],
    actors: Actors | None = None,
    writers: Actors | None = None,
    operator: Operator | None = None,
    checks: Check | Sequence[Check] = (),
    default_checks: bool = True,
    name: str = "custom",
    variant: str = "",
    description: str = "",
    faults: Sequence[str] = (),
    max_faults: int = 1,
    ticks: Ticks = 1,
    restarts: int = 1,
    setup: SetupHook | None = None,
    before_run: RunHook | None = None,
    derive: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    server_seed: int = 1,
    max_steps: int = 400,
    exhaustive: bool = True,
    authorization: str = "AlwaysAllow",
    service_accounts: Mapping[str, str] | None = None,
    controllers: str | Sequence[str] = (),
    nodes: Sequence[str] = (),
    outcomes: Sequence[OutcomeRule] = (),
    horizon: float = 60.0,
    webhooks: Mapping[str, WebhookHandler] | None = None,
    interchangeable: Sequence[Sequence[str]] = (),
) -> Scenario:
    """A scenario.

    ``actors``/``writers``: ``{"name": tick}`` or :class:`Actor` objects. ``ticks``: how many ticks
    each actor runs, one number for every racer (writers run once) or ``{"name": count}`` per actor
    (unnamed racers 1, writers 1). ``setup`` runs once before the snapshot every run starts from,
    ``before_run`` (sync or async, no arguments) at the start of every run, replays included, to
    reset state outside the server. ``server_seed`` seeds the server's generated names and uids.
    ``authorization="RBAC"`` authorizes every request from the Roles and bindings in ``objects``;
    ``service_accounts`` (``{"actor": "namespace/name"}``) says whom each actor acts as (by
    default a user named after the actor).

    ``controllers`` (``"all"``, ``"scheduler,kubelet"`` or a list) race as actors: the kubelet's
    status writes, the Job controller's pod creations and the other simulated controllers' writes
    are steps the schedule places among the actors' requests, and so are the fake clock's moves to
    the next instant a timed step falls due, up to ``horizon`` seconds. ``nodes`` names the fake
    nodes (one ``node-1`` by default), ``outcomes`` says what containers do (:class:`fakeapi.OutcomeRule`).

    ``webhooks`` (``{"webhook name": handler}``) answers the admission webhooks of the Validating- and
    MutatingWebhookConfigurations in ``objects`` in process: ``handler(review)`` (sync or async) gets
    the AdmissionReview fakeapi posts and returns its ``response`` (``{"allowed": False, "status":
    {"code": 403, "message": "..."}}``; the uid is filled in). Every call a write makes is then a step
    of the writer, and the ``webhook-down`` fault fails it (refused, or timed out).

    ``operator`` (:class:`Operator`: a ``kopf run`` command line and a replica count) races the
    operator you ship, unmodified: each replica is a process of its own running kopf, and its
    requests, watch events and timers are steps like an actor's (docs/scenarios-operators.md).
    With ``agent=False`` it is any process (a Go binary, ``node controller.js``): sampled, its
    violations replayed before they count, never "holds" (same document, "Any operator process").
    ``default_checks=False`` judges runs by ``checks`` alone, without the lost-update and
    resourceVersion checks every scenario gets otherwise.

    ``interchangeable`` (``[("replica-a", "replica-b")]``) names groups of actors, or of the
    operator's replicas (``replica-1``...), that run the same code and that nothing in the scenario
    tells apart but their names: not the objects, the other actors, the checks, nor their
    permissions, and their code uses its name only as a name (compares it for equality, writes it).
    Until two of them have moved, a schedule in which the second moves first is the mirror of one
    in which the first does, so an exhaustive search explores only the latter (docs/scenarios-reductions.md).
    """
    accounts = dict(service_accounts or {})
    if not actors and operator is None:
        raise ValueError("a scenario needs actors, an operator, or both")
    racers = _actors(
        actors or {}, ticks=ticks, default_ticks=1, restarts=restarts, writer=False, service_accounts=accounts
    )
    foreign = _actors(
        writers or {},
        ticks=ticks if isinstance(ticks, Mapping) else 1,
        default_ticks=1,
        restarts=restarts,
        writer=True,
        service_accounts=accounts,
    )
    known = {actor.name for actor in (*racers, *foreign)}
    groups = interchangeable_groups(interchangeable, known | set(operator.replica_names if operator else ()))
    for what, names in (("ticks", ticks if isinstance(ticks, Mapping) else {}), ("service_accounts", accounts)):
        unknown = sorted(set(names) - known)
        if unknown:
            raise ValueError(f"{what} names actors that do not exist: {', '.join(unknown)}")
    return Scenario(
        name=name,
        variant=variant,
        description=description,
        objects=tuple(objects),
        actors=(*racers, *foreign),
        checks=(checks,) if callable(checks) else tuple(checks),
        faults=tuple(faults),
        max_faults=max_faults,
        server_seed=server_seed,
        setup=setup,
        before_run=before_run,
        derive=derive,
        max_steps=max_steps,
        exhaustive=exhaustive,
        authorization=authorization,
        controllers=_controller_names(controllers),
        nodes=tuple(nodes),
        outcomes=tuple(outcomes),
        horizon=horizon,
        webhooks=dict(webhooks or {}),
        operator=operator,
        default_checks=default_checks,
        interchangeable=groups,
    )


def interchangeable_groups(groups: Sequence[Sequence[str]], known: set[str]) -> tuple[tuple[str, ...], ...]:
    """``groups`` checked against the actors (and replicas) ``known``: two names or more each, every
    name known and in one group at most."""
    if isinstance(groups, str) or any(isinstance(group, str) for group in groups):
        raise ValueError('interchangeable takes groups of actor names: [("replica-a", "replica-b")]')
    seen: set[str] = set()
    for group in groups:
        if len(group) < 2 or len(set(group)) != len(group):
            raise ValueError(f"an interchangeable group names two actors or more, each once: {list(group)}")
        unknown = sorted(set(group) - known)
        if unknown:
            raise ValueError(f"interchangeable names actors that do not exist: {', '.join(unknown)}")
        if seen & set(group):
            raise ValueError(f"an actor is in two interchangeable groups: {', '.join(sorted(seen & set(group)))}")
        seen |= set(group)
    return tuple(tuple(group) for group in groups)


def _controller_names(controllers: str | Sequence[str]) -> tuple[str, ...]:
    names = controllers.split(",") if isinstance(controllers, str) else list(controllers)
    return tuple(name.strip() for name in names if name.strip())


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
    progress: Progress | bool | None = None,
    accept_sample: bool = False,
    reproduce: int = 3,
) -> Exploration:
    """Explore ``target`` and return the verdict (``.verdict``, ``.holds``, ``.assert_holds()``, ``.report()``).

    Exhaustive by default for a scenario that says so; ``schedules``/``seed`` for seeded random runs,
    whose verdict is "unknown" without a violation (a sample is not a proof) unless they happen to run
    every schedule; ``accept_sample=True`` lets ``assert_holds()`` pass a sample without a violation, as
    a property-based test passes after N examples (the verdict stays "unknown"). ``replay`` runs one
    schedule id (refused if it was written for another scenario or engine version, or if the run takes
    other steps). ``max_runs`` caps a search; ``shard`` explores one part of the space (the verdict is
    "unknown" unless a violation was found); ``kubeconfig`` runs against a real cluster instead of fakeapi.
    ``progress``: a callable given the :class:`Exploration` after every schedule, ``False`` for nothing;
    by default the command line's progress display on stderr when it is a terminal. Every phase is also
    logged on the ``scenarios`` logger (INFO). An operator process without the engine's agent
    (``Operator(..., agent=False)``) is sampled whatever is asked, and a violation it shows is replayed
    ``reproduce`` times with fresh processes: it is reported as violated only if a replay violates
    the same checks again (docs/scenarios-operators.md). Callable from sync and async code (it runs its own event
    loop, in a thread if one is running).
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
        accept_sample=accept_sample,
        reproduce=reproduce,
    )
    display = ProgressDisplay(enabled=progress is None and sys.stderr.isatty())
    report = progress if callable(progress) else display.update if display.enabled else None
    with display:
        if kubeconfig is not None:
            from scenarios._live import explore_live

            path = Path(kubeconfig)
            return run_in_own_loop(lambda: explore_live(target, path, settings, progress=report))  # type: ignore[no-any-return]
        return run_in_own_loop(lambda: explore_async(target, settings, progress=report))  # type: ignore[no-any-return]


def probe(
    target: Scenario,
    *,
    schedules: int = 5,
    seed: int = 0,
    exhaustive: bool | None = None,
    replay_hint: Callable[[str, str | None], list[str]] | None = None,
) -> HostileReport:
    """Re-run ``target`` with hostile spellings of its user-controlled values; ``.fragile`` says if any flipped it.

    Each exploration is the scenario's own default (exhaustive for most), or ``schedules`` sampled at
    random with ``exhaustive=False``: then a mutation that breaks the claim is still found and
    reported, but no field can be called robust and the verdict is at best "unknown".
    """
    settings = Settings(exhaustive=exhaustive, schedules=schedules, seed=seed, replay_hint=replay_hint)
    return run_in_own_loop(lambda: probe_async(target, settings))  # type: ignore[no-any-return]
