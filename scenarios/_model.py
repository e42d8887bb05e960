"""What a scenario is and what one run of it recorded: plain data shared by every other module.

A scenario names the objects it starts from, the actors that race (replicas of the operator and
foreign writers such as kopf, a user or a status pusher), the faults the engine may inject and the
checks that judge each run. A run is recorded as the numbered steps the engine released (each with
the server's journal entry for it), the effects the actors declared, and the choices that made
the schedule: the choices alone replay the run.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from scenarios._actors import Actor, SetupHook
from scenarios._ids import SCHEDULE_ENCODING, encode_schedule, run_digest, scenario_fingerprint
from scenarios._operators import Operator

if TYPE_CHECKING:
    from fakeapi import JournalEntry, OutcomeRule, ReadFootprint

__all__ = [
    "CLOCK",
    "CONTROLLER_WRITE",
    "STEPPED",
    "TICK_END",
    "WATCH_EVENT",
    "ActorError",
    "Check",
    "Choice",
    "Effect",
    "Flag",
    "ObjectKey",
    "Option",
    "RunRecord",
    "Scenario",
    "Step",
    "Violation",
    "WebhookHandler",
]

RunHook = Callable[[], Awaitable[None] | None]
WebhookHandler = Callable[[dict[str, Any]], dict[str, Any] | Awaitable[dict[str, Any]]]
"""An admission webhook in the scenario's process: given the AdmissionReview the apiserver posts, the
``response`` it answers (``allowed``, ``status``, ``patch``, ``warnings``; the uid is filled in)."""
ObjectKey = tuple[str, str, str, str]
"""``(group, resource, namespace, name)``, as the apiserver routes a request."""


@dataclass(frozen=True)
class Effect:
    """A non-idempotent step an actor declared with ``ctx.effect(name, key)``, after step ``step``."""

    name: str
    key: str
    actor: str
    incarnation: int
    tick: int
    step: int


@dataclass(frozen=True)
class Violation:
    """A check that failed in one run. ``kind`` is safety, liveness, lost-update, resource-version, ..."""

    kind: str
    message: str
    steps: tuple[int, ...] = ()


@dataclass(frozen=True)
class Flag:
    """A fragile precondition seen in the journal: it may pass today and break on tomorrow's data."""

    actor: str
    path: str
    reason: str
    passed: bool
    step: int


class Check(Protocol):
    """Judges one run from what really happened (journal, effects, final objects)."""

    @property
    def name(self) -> str: ...

    def __call__(self, run: RunRecord) -> list[Violation]: ...


@dataclass(frozen=True)
class Scenario:
    """Everything the engine needs to explore one claim.

    ``setup`` runs once, before the snapshot every run starts from; ``before_run`` at the start of
    every run (replays and shrinking included), for state outside the server the ticks touch.
    ``server_seed`` seeds the fake server's generated names and uids (not the exploration).
    ``authorization`` is the server's mode: ``AlwaysAllow``, or ``RBAC`` to authorize every actor's
    requests from the scenario's Roles and bindings (a refusal is the actor's error in the run).

    ``controllers`` are simulated controllers (fakeapi's docs/controllers.md: ``scheduler``,
    ``kubelet``, ``job``..., or ``all``) that race as actors: each of their writes is a step the
    schedule places, and so is every move of the fake clock to the next instant a controller's
    timed step falls due, up to ``horizon`` seconds after the run's start. ``nodes`` and
    ``outcomes`` are the fake nodes and the container outcome rules they run with.

    ``default_checks``: whether every run is also judged for lost updates and resourceVersions that
    go backwards (on by default; a kopf operator run without peering overwrites its own annotations
    across replicas, which a scenario about one claim may choose not to judge).

    ``webhooks`` answers the admission webhooks of the configurations among ``objects``, by webhook
    name, in process (no HTTP server). In a run every call a write makes to one of them is a step of
    the writing actor, which the ``webhook-down`` fault can fail (docs/scenarios-faults.md).

    ``interchangeable``: groups of actors (or replicas) that nothing in the scenario tells apart
    but their names; an exhaustive search explores a schedule or its mirror, not both
    (docs/scenarios-reductions.md, "Interchangeable actors").
    """

    name: str
    objects: tuple[dict[str, Any], ...]
    actors: tuple[Actor, ...]
    checks: tuple[Check, ...]
    variant: str = ""
    description: str = ""
    faults: tuple[str, ...] = ()
    max_faults: int = 1
    max_steps: int = 400
    server_seed: int = 1
    setup: SetupHook | None = None
    before_run: RunHook | None = None
    derive: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    exhaustive: bool = True
    authorization: str = "AlwaysAllow"
    controllers: tuple[str, ...] = ()
    nodes: tuple[str, ...] = ()
    outcomes: tuple[OutcomeRule, ...] = ()
    horizon: float = 60.0
    webhooks: Mapping[str, WebhookHandler] = field(default_factory=dict)
    operator: Operator | None = None
    default_checks: bool = True
    interchangeable: tuple[tuple[str, ...], ...] = ()

    @property
    def title(self) -> str:
        return f"{self.name} / {self.variant}" if self.variant else self.name

    @property
    def fingerprint(self) -> str:
        """A hash of what decides which options a run offers (the checks and hooks do not): a schedule
        id carries it, and a replay refuses an id written for another scenario."""
        webhooks = {"webhooks": sorted(self.webhooks)} if self.webhooks else {}
        operator = {"operator": self.operator.describe()} if self.operator is not None else {}
        return scenario_fingerprint(
            {
                **webhooks,
                **operator,
                "name": self.name,
                "variant": self.variant,
                "objects": list(self.objects),
                "actors": [
                    [actor.name, actor.ticks, actor.restarts, actor.writer, actor.service_account]
                    for actor in self.actors
                ],
                "faults": list(self.faults),
                "max_faults": self.max_faults,
                "max_steps": self.max_steps,
                "server_seed": self.server_seed,
                "authorization": self.authorization,
                "controllers": list(self.controllers),
                "nodes": list(self.nodes),
                "outcomes": [repr(rule) for rule in self.outcomes],
                "horizon": self.horizon,
            }
        )


TICK_END = "tick-end"
"""The verb of a point that is not a request: the end of a tick whose last action was a side effect."""
WATCH_EVENT = "watch-event"
"""The verb of letting the next event of an actor's open watch through to it (a read of the collection)."""
CONTROLLER_WRITE = "controller-write"
"""The verb of letting a simulated controller make its next write (the option's actor is the controller)."""
CLOCK = "clock"
"""The verb of moving the fake clock to the next instant a controller's timed step falls due."""
STEPPED = (CONTROLLER_WRITE, CLOCK)


@dataclass(frozen=True)
class Option:
    """One thing the engine can do at a choice point: release an actor's held request, maybe with a fault.

    A point that is not a request (``verb`` :data:`TICK_END`) has no method or path; letting a watch
    event through (:data:`WATCH_EVENT`) has the watch's path and target. A controller's write
    (:data:`CONTROLLER_WRITE`) has the write's description as its path, the written object as its
    target and, in ``reads``, the resources the controller's decisions read (None: any); a move of
    the clock (:data:`CLOCK`) the time it moves by. ``reaches`` marks a request whose effects go
    beyond its target: a delete (the garbage collector acts on dependents inside it) or a write to
    an object being deleted (removing its last finalizer deletes it, and so its dependents).
    ``webhook`` names the admission webhook a write in flight is calling: the option answers (or,
    with a fault, fails) that call, and the write goes on to its end or its next call; it has the
    write's method, verb and target, and its path ends with ``#webhook=<name>``. ``timed`` marks
    a step of a replica process: what it does until it waits again may set timers, so it never
    commutes with a move of the clock (docs/scenarios-operators.md). ``footprint`` is, for the
    update of a controller worker (the kubelet's pod workers), what its step read before the write
    and the update itself (fakeapi's ``ReadFootprint``).
    """

    actor: str
    fault: str | None
    method: str
    path: str
    verb: str
    target: ObjectKey
    reaches: bool = False
    reads: frozenset[tuple[str, str]] | None = None
    webhook: str = ""
    timed: bool = False
    footprint: ReadFootprint | None = field(default=None, compare=False)

    @property
    def label(self) -> tuple[str, str, str, str]:
        return (self.actor, self.fault or "", self.method, self.path)

    @property
    def is_read(self) -> bool:
        return self.verb in ("get", "list", "watch", WATCH_EVENT)

    @property
    def is_request(self) -> bool:
        return self.verb not in (TICK_END, WATCH_EVENT, *STEPPED)

    def describe(self) -> str:
        if self.verb in STEPPED:
            return self.path
        if self.verb == TICK_END:
            text = f"{self.actor}: end of tick"
        elif self.verb == WATCH_EVENT:
            text = f"{self.actor}: next event of watch {self.target[1]}"
        elif self.webhook:
            text = f"{self.actor}: webhook {self.webhook} of {self.method} {self.target[3] or self.target[1]}"
        else:
            text = f"{self.actor}: {self.method} {self.target[3] or self.target[1]}"
        return f"{text} [{self.fault}]" if self.fault else text


@dataclass(frozen=True)
class Choice:
    """One recorded decision: ``index`` among ``count`` options; ``default`` is what an exhausted schedule picks.

    ``plain`` is the index of the same request released without a fault (what shrinking tries instead).
    """

    index: int
    count: int
    default: int
    plain: int = 0
    fault: str | None = None


@dataclass(frozen=True)
class ActorError:
    """An exception a tick raised (the actor carries on with its next tick, as kopf retries a handler)."""

    actor: str
    incarnation: int
    tick: int
    step: int
    text: str


@dataclass
class Step:
    """One released request, numbered from 1 in the order the engine released them."""

    number: int
    option: Option
    incarnation: int
    query: str
    sequence: int
    revision_before: int = 0
    entry: JournalEntry | None = None
    state_after: dict[str, Any] | None = None
    committed: bool = False
    resends_cut: int = 0
    resend_of: int = 0
    event: str = ""
    waits_on: str = ""
    """The admission webhook the write waits on after this step (it has not answered yet)."""
    delivered: tuple[ObjectKey, int] | None = None
    """For a watch event let through: the object it shows and its resourceVersion (what the watcher read)."""
    activity: str = ""
    """What the actor said it was doing when it sent the request (a replica's kopf handler and object)."""

    @property
    def actor(self) -> str:
        return self.option.actor

    @property
    def fault(self) -> str | None:
        return self.option.fault

    @property
    def created(self) -> tuple[str, str, str] | None:
        """``(apiVersion, kind, name)`` of the object this step created (a POST the server answered 201),
        read from the answer: the only place a ``generateName`` create's name is known."""
        entry = self.entry
        if entry is None or entry.method != "POST" or entry.status != 201 or entry.subresource:
            return None
        try:
            body = json.loads(entry.response_body)
        except ValueError:
            return None
        metadata = body.get("metadata") if isinstance(body, dict) else None
        if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str):
            return None
        return str(body.get("apiVersion", "")), str(body.get("kind", "")), metadata["name"]


@dataclass
class RunRecord:
    """What happened in one run, as the checks and the report see it."""

    choices: list[Choice]
    steps: list[Step] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    errors: list[ActorError] = field(default_factory=list)
    initial: dict[ObjectKey, dict[str, Any]] = field(default_factory=dict)
    final: dict[ObjectKey, dict[str, Any] | None] = field(default_factory=dict)
    """Every object of the scenario as the run left it (None: deleted), and every object an actor's
    request created during the run (a ``generateName`` create included)."""
    outcome: str = "complete"
    violations: list[Violation] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    fingerprint: str = ""

    @property
    def choice_id(self) -> str:
        """The choices alone (``s0110``), without the stamps a replay checks."""
        return encode_schedule(self.choices)

    @property
    def digest(self) -> str:
        """A hash of the steps this run took, which a replay of its id must take again."""
        return run_digest(step.option.label for step in self.steps)

    @property
    def schedule_id(self) -> str:
        """The id that replays this run: its choices, the schedule encoding, the scenario's fingerprint and
        the run's digest (``s0110:2:3f9a2c:8b1e``, see :mod:`scenarios._ids`)."""
        if not self.fingerprint:
            return self.choice_id
        return f"{self.choice_id}:{SCHEDULE_ENCODING}:{self.fingerprint}:{self.digest}"

    def effects_named(self, name: str) -> list[Effect]:
        return [effect for effect in self.effects if effect.name == name]

    def final_object(self, resource: str, name: str, namespace: str = "default") -> dict[str, Any] | None:
        """The object as the run left it (None: deleted), by resource (``"jobs"``) or kind (``"Job"``)."""
        return self.final[self._key(resource, name, namespace)]

    def initial_object(self, resource: str, name: str, namespace: str = "default") -> dict[str, Any]:
        """The object as every run starts from it (after the setup hook)."""
        key = self._key(resource, name, namespace)
        if key not in self.initial:
            raise KeyError(f"{resource} {namespace}/{name} is not among the scenario's objects: the run created it")
        return self.initial[key]

    def _key(self, resource: str, name: str, namespace: str) -> ObjectKey:
        """The key of an object of the scenario, or of one the run created (its kind as the run left it)."""
        known: dict[ObjectKey, Any] = {**self.final, **self.initial}
        for key, obj in known.items():
            kind = obj.get("kind") if obj is not None else None
            if key[3] == name and key[2] in (namespace, "") and resource in (key[1], kind):
                return key
        listed = ", ".join(
            f"{obj.get('kind', key[1]) if obj is not None else key[1]} {'/'.join(filter(None, key[2:]))}"
            for key, obj in known.items()
        )
        raise KeyError(f"no {resource} {namespace}/{name} among the scenario's objects or the run's creates ({listed})")

    def state_before(self, number: int, key: ObjectKey) -> dict[str, Any] | None:
        """The object as stored just before step ``number`` (from the initial state and committed writes)."""
        state = self.initial.get(key)
        for step in self.steps[: number - 1]:
            if step.committed and step.option.target == key:
                state = step.state_after
        return state
