"""Checks over what really happened: the effects actors declared, the journal, the final objects.

Never over what the actors believe: an actor that thinks it lost a claim whose write committed is
exactly the bug a lost response causes. Exactly-once splits in two: safety (an effect at most once
per key) and liveness (at least once within the tick budget: a claim that 422s forever is a
liveness bug). A lost update is a committed write that overwrites a field another actor had written,
by an actor that had not read that write (a write-write conflict nobody resolved). resourceVersions must grow with every committed write.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scenarios._model import STEPPED, Check, ObjectKey, RunRecord, Step, Violation

__all__ = [
    "at_least_once",
    "at_most_once",
    "default_checks",
    "exactly_once",
    "judge",
    "monotonic_resource_versions",
    "no_lost_update",
    "predicate",
]

_SERVER_MANAGED = ("/metadata/resourceVersion", "/metadata/managedFields", "/metadata/generation")
_MISSING = object()


@dataclass(frozen=True)
class _Count:
    effect: str
    keys: tuple[str, ...]
    safety: bool
    liveness: bool
    for_each: str = ""

    @property
    def name(self) -> str:
        kind = "exactly once" if self.safety and self.liveness else "at most once" if self.safety else "at least once"
        if self.for_each:
            return f'"{self.effect}" {kind} for every {self.for_each} of the scenario'
        return f'"{self.effect}" {kind} for {", ".join(self.keys) or "every key"}'

    def expected_keys(self, run: RunRecord) -> tuple[str, ...]:
        """The keys this check judges: the given ones, or ``namespace/name`` of every object of the kind."""
        if not self.for_each:
            return self.keys
        keys = tuple(
            "/".join(filter(None, (key[2], key[3])))
            for key, obj in run.initial.items()
            if self.for_each in (key[1], obj.get("kind"))
        )
        if not keys:
            kinds = sorted({str(obj.get("kind", key[1])) for key, obj in run.initial.items()})
            raise ValueError(f"{self.name}: no {self.for_each} among the scenario's objects ({', '.join(kinds)})")
        return keys

    def exercised(self, run: RunRecord) -> bool:
        """Whether this run gave the check something to judge: the effect happened (safety alone
        cannot fail in a run where it never does; liveness can, so it is always exercised)."""
        return self.liveness or bool(run.effects_named(self.effect))

    def __call__(self, run: RunRecord) -> list[Violation]:
        effects = run.effects_named(self.effect)
        keys = self.expected_keys(run) or tuple(sorted({effect.key for effect in effects}))
        violations = []
        for key in keys:
            happened = [effect for effect in effects if effect.key == key]
            if self.safety and len(happened) > 1:
                where = ", ".join(
                    f"{effect.actor} after step {effect.step}" if effect.step else effect.actor for effect in happened
                )
                violations.append(
                    Violation(
                        "safety",
                        f'effect "{self.effect}" for {key} happened {len(happened)} times ({where})',
                        tuple(effect.step for effect in happened),
                    )
                )
            if self.liveness and not happened:
                committed = _committed_writes(run, key)
                refused = _refused_writes(run)
                why = ""
                if committed:
                    why += (
                        f"; {key} was written and the effect never followed: "
                        + ", ".join(committed)
                        + " (a claim that committed, and a claimer that never did what it claimed)"
                    )
                if refused:
                    why += f"; refused writes: {', '.join(refused)}"
                violations.append(
                    Violation(
                        "liveness",
                        f'effect "{self.effect}" for {key} never happened within the tick budget{why}',
                    )
                )
        return violations


def _committed_writes(run: RunRecord, key: str) -> list[str]:
    """The actors' committed writes to the object ``key`` names (``namespace/name``), each with what
    became of its writer: an answer lost, a crash right after it."""
    namespace, _, name = key.rpartition("/")
    described = []
    for step in run.steps:
        target = step.option.target
        if not step.committed or step.option.verb in STEPPED or step.option.is_read:
            continue
        if target[3] != name or (namespace and target[2] != namespace):
            continue
        fate = {
            "lost-response": ", its answer lost",
            "crash-after": f", then {step.actor} crashed before acting on the answer",
        }.get(step.fault or "", "")
        described.append(f"step {step.number} {step.actor} {step.option.method}{fate}")
    return described


def _refused_writes(run: RunRecord) -> list[str]:
    return [
        f"step {step.number} {step.actor} {step.option.method} {step.entry.status}"
        for step in run.steps
        if step.entry is not None and not step.option.is_read and step.entry.status >= 400
    ]


def _expecting(kind: str, effect: str, keys: tuple[str, ...], for_each: str) -> None:
    if keys and for_each:
        raise ValueError(f"{kind}({effect!r}): give the keys or for_each, not both")
    if not keys and not for_each:
        raise ValueError(
            f"{kind}({effect!r}) needs the keys the effect must happen for, or it could never see one "
            f'missing: {kind}({effect!r}, "default/job-1"), or {kind}({effect!r}, for_each="Job") for every '
            f"Job among the scenario's objects (keys namespace/name); at_most_once({effect!r}) checks safety alone "
            "for every key that happens"
        )


def exactly_once(effect: str, *keys: str, for_each: str = "") -> Check:
    """The effect happens at most once (safety) and at least once (liveness) for each key.

    The keys are given (``"default/job-1"``, as the tick declares them with ``ctx.effect``), or derived:
    ``for_each="Job"`` (a kind or a resource) expects one per object of that kind in the scenario's
    objects, keyed ``namespace/name`` (``name`` for a cluster-scoped one).
    """
    _expecting("exactly_once", effect, keys, for_each)
    return _Count(effect, keys, safety=True, liveness=True, for_each=for_each)


def at_most_once(effect: str, *keys: str, for_each: str = "") -> Check:
    """The effect happens at most once for each key (every key that happens, when none is given).

    A verdict of "holds" needs the effect to have happened in some schedule: a claim nobody ever
    wins is not proven safe, it is untested (the verdict is then "unknown").
    """
    return _Count(effect, keys, safety=True, liveness=False, for_each=for_each)


def at_least_once(effect: str, *keys: str, for_each: str = "") -> Check:
    """The effect happens at least once for each key (given, or ``for_each`` object of a kind)."""
    _expecting("at_least_once", effect, keys, for_each)
    return _Count(effect, keys, safety=False, liveness=True, for_each=for_each)


@dataclass(frozen=True)
class _Predicate:
    name: str
    test: Callable[[RunRecord], bool | str | None]

    def __call__(self, run: RunRecord) -> list[Violation]:
        outcome = self.test(run)
        if outcome is True or outcome is None:
            return []
        message = outcome if isinstance(outcome, str) else "does not hold"
        return [Violation("predicate", f"{self.name}: {message}")]


def predicate(name: str, test: Callable[[RunRecord], bool | str | None]) -> Check:
    """A user check: ``test(run)`` returns True/None when it holds, False or a message when not."""
    return _Predicate(name, test)


def _leaves(obj: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(obj, dict) and obj:
        leaves: dict[str, Any] = {}
        for key, value in obj.items():
            leaves.update(_leaves(value, f"{prefix}/{str(key).replace('~', '~0').replace('/', '~1')}"))
        return leaves
    return {prefix: json.dumps(obj, sort_keys=True)}


def _last_write_before(steps: Sequence[Step], number: int, target: ObjectKey) -> int:
    for step in reversed(steps[: number - 1]):
        if step.committed and step.option.target == target:
            return step.number
    return 0


def _last_writes_listed(steps: Sequence[Step], number: int, collection: ObjectKey) -> dict[ObjectKey, int]:
    """For each object of a listed collection, the last committed write to it before the list."""
    last: dict[ObjectKey, int] = {}
    for step in steps[: number - 1]:
        target = step.option.target
        if step.committed and target[:2] == collection[:2] and collection[2] in ("", target[2]) and target[3]:
            last[target] = step.number
    return last


def _last_write_up_to(steps: Sequence[Step], number: int, key: ObjectKey, version: int) -> int:
    """The last committed write to ``key`` before step ``number`` whose result a watch event at
    resourceVersion ``version`` shows (each write's revision is above its ``revision_before``)."""
    for step in reversed(steps[: number - 1]):
        if step.committed and step.option.target == key and step.revision_before < version:
            return step.number
    return 0


@dataclass(frozen=True)
class _NoLostUpdate:
    name: str = "no lost update"

    def __call__(self, run: RunRecord) -> list[Violation]:
        seen: dict[
            tuple[str, ObjectKey], int
        ] = {}  # what each actor has read of each object (a GET, a LIST, a watch event)
        changes: dict[int, set[str]] = {}
        violations = []
        for step in run.steps:
            target = step.option.target
            answered = step.entry is not None and 200 <= step.entry.status < 300 and step.fault is None
            if step.option.verb == "get" and answered:
                seen[(step.actor, target)] = _last_write_before(run.steps, step.number, target)
            if step.option.verb == "list" and answered:
                for key, number in _last_writes_listed(run.steps, step.number, target).items():
                    seen[(step.actor, key)] = max(seen.get((step.actor, key), 0), number)
            if step.delivered is not None:
                key, version = step.delivered
                number = _last_write_up_to(run.steps, step.number, key, version)
                seen[(step.actor, key)] = max(seen.get((step.actor, key), 0), number)
            if not step.committed or step.option.verb in STEPPED:
                continue  # a simulated controller writes from the store's current state: it has read everything
            for other in run.steps[: step.number - 1]:
                if not other.committed or other.option.target != target or other.actor == step.actor:
                    continue
                if other.number <= seen.get((step.actor, target), 0):
                    continue
                for path in sorted(_changes(run, step, changes) & _changes(run, other, changes)):
                    violations.append(
                        Violation(
                            "lost-update",
                            f"step {step.number} ({step.actor}) overwrote {path}, written by step {other.number} "
                            f"({other.actor}), without having read it",
                            (other.number, step.number),
                        )
                    )
            if answered:
                seen[(step.actor, target)] = step.number
        return violations


def _changes(run: RunRecord, step: Step, memo: dict[int, set[str]]) -> set[str]:
    """The leaves a committed step changed (computed only for steps that might conflict)."""
    if step.number not in memo:
        memo[step.number] = _changed(run.state_before(step.number, step.option.target), step.state_after)
    return memo[step.number]


def _changed(before: dict[str, Any] | None, after: dict[str, Any] | None) -> set[str]:
    old, new = _leaves(before or {}), _leaves(after or {})
    return {
        path
        for path in set(old) | set(new)
        if not path.startswith(_SERVER_MANAGED) and old.get(path, _MISSING) != new.get(path, _MISSING)
    }


def no_lost_update() -> Check:
    """A committed write that overwrote a field another actor wrote, by an actor that had not read it.

    What it does not see: a stale write that changed nothing (a no-op commits nothing to compare),
    and a stale value written after a fresh read (the actor read the new value, then wrote back an
    old one it remembered). Judge those with a :func:`predicate` over ``run.final_object(...)``.
    """
    return _NoLostUpdate()


@dataclass(frozen=True)
class _MonotonicResourceVersions:
    name: str = "resourceVersions grow with every committed write"

    def __call__(self, run: RunRecord) -> list[Violation]:
        violations = []
        last = 0
        for step in run.steps:
            if not step.committed or step.state_after is None:
                continue
            text = (step.state_after.get("metadata") or {}).get("resourceVersion", "")
            version = int(text) if str(text).isdigit() else -1
            if version <= last or version <= step.revision_before:
                violations.append(
                    Violation(
                        "resource-version",
                        f"step {step.number} committed resourceVersion {text!r} after {last}",
                        (step.number,),
                    )
                )
            last = max(last, version)
        return violations


def monotonic_resource_versions() -> Check:
    return _MonotonicResourceVersions()


def default_checks() -> tuple[Check, ...]:
    """The checks every scenario gets besides its own."""
    return (no_lost_update(), monotonic_resource_versions())


def judge(run: RunRecord, checks: Sequence[Check]) -> list[Violation]:
    violations = [violation for check in checks for violation in check(run)]
    if run.outcome == "step-budget":
        violations.append(
            Violation(
                "livelock", f"the run did not finish within {len(run.steps)} steps (a retry loop that never ends?)"
            )
        )
    return violations
