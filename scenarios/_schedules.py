"""Schedules: their ids, and the strategies that pick them (replay, seeded random, depth-first).

A run is fully determined by its choices: at every choice point the engine lists the options
(each held request, alone or with a fault) in a fixed order and a chooser picks one by index. The
schedule id spells the indices (base 36, trailing defaults dropped), so ``s0110`` replays a run
exactly. Exhaustive exploration is a stateless depth-first search: every run restarts from the
snapshot and replays a prefix. Sleep sets (Godefroid, 1996) skip schedules that only reorder
independent steps (two reads, or steps on different objects, or a fault that never reaches the
store); a deterministic partition of the tree by prefix shards the search over workers.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from scenarios._faults import FAULTS
from scenarios._ids import ScheduleError, decode_schedule, encode_schedule
from scenarios._model import CLOCK, CONTROLLER_WRITE, STEPPED, TICK_END, WATCH_EVENT, ObjectKey, Option

if TYPE_CHECKING:
    from fakeapi import ReadFootprint

__all__ = [
    "REDUCTIONS",
    "Chooser",
    "DepthFirst",
    "NondeterminismError",
    "RandomChooser",
    "Replay",
    "ScheduleError",
    "Shard",
    "decode_schedule",
    "encode_schedule",
    "independent",
    "known_options",
    "observe",
    "touches_store",
]


class NondeterminismError(RuntimeError):
    """Replaying a prefix offered different options: something outside the schedule decides what the
    actors do (state kept in the process between runs, time, randomness)."""


def independent(a: Option, b: Option) -> bool:
    """Whether releasing ``a`` then ``b`` is the same as ``b`` then ``a`` (same answers, same final store).

    Writes to different objects commute although the global resourceVersion numbers differ, because
    resourceVersions are opaque: a client may only compare one it read with the same object's. Not
    so for the kinds whose writes reach other objects: deleting a namespace empties it and refuses
    creates in it, deleting a CRD takes its instances, removing the last finalizer inside either
    lets the namespace or CRD go, and RBAC objects decide what every other request may do. A step on
    one of those is dependent with every step that is not a read alongside another read.

    Letting a watch event through commutes with every other actor's step (the compaction of the
    watch-expire fault aside, and the steps that reach other objects: deleting a CRD ends the
    watches of its resource): the event is the first one the watch holds back, there before either
    step, so another actor's write only adds events behind it; and while the watcher runs until it
    waits again, everything it could do to the store waits at the gate, the watches it opens too
    (the engine holds every one, so a watch's start, which lists the store, is a step of its own).
    """
    if a.actor == b.actor:
        return False
    if a.verb in STEPPED or b.verb in STEPPED:
        return _stepped_independent(a, b)
    if not touches_store(a) or not touches_store(b):
        return True
    if a.fault == "watch-expire" or b.fault == "watch-expire":
        return False
    if a.verb == WATCH_EVENT or b.verb == WATCH_EVENT:
        return not (_reaches_other_objects(a) or _reaches_other_objects(b))
    if a.is_read and b.is_read:
        return True
    if _reaches_other_objects(a) or _reaches_other_objects(b):
        return False
    if a.target[:2] != b.target[:2]:
        return True
    if not a.target[3] or not b.target[3]:
        return False
    return a.target != b.target


_REACHING_RESOURCES = frozenset({("", "namespaces"), ("apiextensions.k8s.io", "customresourcedefinitions")})
_REACHING_GROUPS = frozenset({"rbac.authorization.k8s.io"})


def _reaches_other_objects(option: Option) -> bool:
    group, resource = option.target[:2]
    return option.reaches or (group, resource) in _REACHING_RESOURCES or group in _REACHING_GROUPS


_EVENTS = ("", "events")


def _stepped_independent(a: Option, b: Option) -> bool:
    """A simulated controller's write, or a move of the clock, against another step.

    Two of them commute only when both are workers' updates that leave alone what the other read
    (:func:`_workers_commute`): otherwise each controller reads what the others write, and the clock
    decides what falls due. A move of the clock commutes only with reads (every write stamps the time), and
    never with a step of a replica process (its timers are what the clock moves to). A
    controller's write (and the Events it creates with it) commutes with a read of another object,
    and with a client's write to a resource the controller does not read, to another object.
    """
    if a.verb in STEPPED and b.verb in STEPPED:
        return _workers_commute(a, b)
    stepped, other = (a, b) if a.verb in STEPPED else (b, a)
    if stepped.verb == CLOCK and other.timed:
        return False  # the replica may set the very timer the clock moves to, or read the time
    if not touches_store(other) or other.verb == WATCH_EVENT:
        return True
    if stepped.verb == CLOCK:
        return other.is_read
    if stepped.reaches:
        return False  # a controller's delete, or its write completing one: the garbage collector acts inside it
    if other.is_read:
        return other.target[:2] != _EVENTS and not _same_object(other.target, stepped.target)
    if _reaches_other_objects(other):
        return False
    if stepped.reads is None or other.target[:2] in stepped.reads:
        return False
    return not _same_object(other.target, stepped.target)


def _workers_commute(a: Option, b: Option) -> bool:
    """Two controller workers' updates of different objects (the kubelet's pod workers), each of
    whose steps read, before its write, neither the other's object nor the Events the other records.

    Either order then writes the same two objects the same way at the same instant: neither write
    changes anything the other step read, so each is the write it would have been alone, and neither
    step reads anything after its write (it records the Events it worked out before it). What differs
    is only which of the two draws the next generated names and uids (the Events' names and uids),
    as for two clients' creates of different resources (fakeapi's docs/controllers.md, "Two pod
    workers")."""
    if a.verb != CONTROLLER_WRITE or b.verb != CONTROLLER_WRITE or a.reaches or b.reaches:
        return False
    if a.footprint is None or b.footprint is None or _same_object(a.target, b.target):
        return False
    return _unread(a.target, a.footprint, b.footprint) and _unread(b.target, b.footprint, a.footprint)


def _unread(target: ObjectKey, write: ReadFootprint, reader: ReadFootprint) -> bool:
    """Whether a step that read ``reader`` missed the update of ``target`` (``write.change``: the
    object before and after it) and every Event, which a write records: it read neither the object
    nor its resource whole, or only a projection of each object there that the update leaves as it was."""
    if target in reader.objects or target[:2] in reader.lists or _EVENTS in reader.lists:
        return False
    change = write.change
    for resource, projection in reader.narrowed:
        if resource == target[:2] and (change is None or projection(change[0]) != projection(change[1])):
            return False
    return True


def _same_object(a: ObjectKey, b: ObjectKey) -> bool:
    """Whether two targets may be the same object (a collection covers every object of its resource)."""
    if a[:2] != b[:2]:
        return False
    return not a[3] or not b[3] or a == b


def touches_store(option: Option) -> bool:
    """Whether the step reaches the store at all (a fault may stop it first; a tick's end is no request;
    a watch event let through is taken as a read of the watched collection)."""
    if option.verb == TICK_END:
        return False
    return option.fault is None or FAULTS[option.fault].reaches_store


class Chooser(Protocol):
    def choose(self, options: Sequence[Option], default: int) -> int | None:
        """The index of the option to take, or None to abandon this run (it repeats an explored one)."""


def known_options(chooser: Chooser) -> Sequence[Option] | None:
    """The options the next choice offered in an earlier run, when the chooser replays that run's
    prefix (a run is a function of its choices, so they are offered again)."""
    known = getattr(chooser, "known_options", None)
    return None if known is None else known()


def observe(chooser: Chooser, committed: bool) -> None:
    """Tell a chooser that wants to know whether the step it chose changed the store."""
    note = getattr(chooser, "observe", None)
    if note is not None:
        note(committed)


class Replay:
    """Follows a schedule id, then the default choice once the id runs out."""

    def __init__(self, indices: Sequence[int], *, lenient: bool = False) -> None:
        self.indices = list(indices)
        self.lenient = lenient
        self.depth = 0

    def choose(self, options: Sequence[Option], default: int) -> int | None:
        depth, self.depth = self.depth, self.depth + 1
        if depth >= len(self.indices):
            return default
        index = self.indices[depth]
        if index >= len(options):
            if self.lenient:
                return default
            raise ScheduleError(f"choice {depth + 1} is {index} but only {len(options)} options exist there")
        return index


class RandomChooser:
    """Seeded random choices: an actor uniformly, then a fault with probability ``fault_rate``.

    ``probability`` is the chance this chooser had of making the choices it made so far: its inverse,
    averaged over runs, estimates the number of schedules in the space (Knuth, 1975).
    """

    def __init__(self, seed: int, run: int, fault_rate: float = 0.25) -> None:
        self.random = random.Random(f"scenarios:{seed}:{run}")
        self.fault_rate = fault_rate
        self.probability = 1.0

    def choose(self, options: Sequence[Option], default: int) -> int | None:
        actors = sorted({option.actor for option in options})
        actor = self.random.choice(actors)
        mine = [i for i, option in enumerate(options) if option.actor == actor]
        plain = [i for i in mine if options[i].fault is None]
        faulty = [i for i in mine if options[i].fault is not None]
        chance = 1 / len(actors)
        if faulty and self.random.random() < self.fault_rate:
            self.probability *= chance * self.fault_rate / len(faulty)
            return self.random.choice(faulty)
        pool = plain or mine
        self.probability *= chance * (1 - self.fault_rate if faulty else 1.0) / len(pool)
        return self.random.choice(pool)


@dataclass(frozen=True)
class Shard:
    """Worker ``index`` of ``count``: owns the subtrees whose first ``depth`` choices hash to it."""

    index: int = 0
    count: int = 1
    depth: int = 3

    def owns(self, prefix: Sequence[int]) -> bool:
        if self.count <= 1:
            return True
        return zlib.crc32(",".join(map(str, prefix)).encode()) % self.count == self.index

    def owns_run(self, run: int) -> bool:
        return self.count <= 1 or run % self.count == self.index


REDUCTIONS = ("dpor", "sleep-sets", "off")


def _as_executed(option: Option, committed: bool) -> Option:
    """A write that changed nothing commutes like the read it turned out to be (its answer still depends
    on the store, so it stays dependent with writes). A controller's step stays what it was: what it
    wrote, or failed to write, followed from everything it reads."""
    if committed or option.is_read or option.verb in STEPPED:
        return option
    return replace(option, verb="get")


@dataclass
class _Frame:
    options: list[Option]
    sleep: dict[tuple[str, str, str, str], Option]
    order: list[int]
    backtrack: set[str]
    tried: list[int] = field(default_factory=list)
    committed: bool = True
    mirrors: dict[str, str] = field(default_factory=dict)
    """Actors not branched to here, each with the interchangeable actor whose options it mirrors."""

    def branches_to(self, actor: str) -> bool:
        """Whether the search branches to ``actor`` here: it is in the backtrack set, or mirrors one that is."""
        return actor in self.backtrack or any(self.mirrors.get(other) == actor for other in self.backtrack)


def _mirrors(options: Sequence[Option], groups: Sequence[Sequence[str]], moved: set[str]) -> dict[str, str]:
    """The actors whose options at this choice mirror those of another actor of their interchangeable
    group that has not moved either (the first such of the group, in the group's order)."""

    def offered(actor: str) -> list[tuple[Any, ...]]:
        return [(o.fault, o.method, o.path, o.verb, o.target) for o in options if o.actor == actor]

    mirrors: dict[str, str] = {}
    for group in groups:
        fresh = [actor for actor in group if actor not in moved and offered(actor)]
        if len(fresh) < 2:
            continue
        first, shape = fresh[0], offered(fresh[0])
        for actor in fresh[1:]:
            if offered(actor) == shape:
                mirrors[actor] = first
    return mirrors


class DepthFirst:
    """Every schedule once, up to reordering of independent steps. One run at a time:
    ``while not dfs.finished: dfs.begin(); run the scenario with dfs as chooser; dfs.advance()``.

    ``reduction``: ``dpor`` (dynamic partial-order reduction, Flanagan and Godefroid 2005, with sleep
    sets): a state only branches to another actor when a run showed that actor's request racing
    with an earlier dependent step; ``sleep-sets``: every actor branches, sleep sets cut the
    reorderings; ``off``: every interleaving. At a state the chosen actor's fault variants are all
    explored (a fault is that actor's own nondeterminism). States above the partition depth branch
    to every actor (sleep sets still prune there), so the tree, and the partition of it into shards,
    is the same whatever the number of shards and whichever runs each shard makes.

    Within a state the default (the same actor, plainly) comes first, then the options in their
    fixed order, each actor's plain request before its faulted variants. How many faults a schedule
    may carry is the engine's budget, which offers no faulted option beyond it.
    """

    def __init__(
        self, *, reduction: str = "dpor", shard: Shard | None = None, interchangeable: Sequence[Sequence[str]] = ()
    ) -> None:
        if reduction not in REDUCTIONS:
            raise ValueError(f"reduction must be one of {', '.join(REDUCTIONS)}")
        self.reduction = reduction
        self.shard = shard or Shard()
        self.interchangeable = [list(group) for group in interchangeable]
        self.stack: list[_Frame] = []
        self.finished = False
        self.depth = 0
        self._blocked: list[Option] | None = None

    def begin(self) -> None:
        self.depth = 0
        self._blocked = None

    def owns_current(self) -> bool:
        """Whether the run just made belongs to this shard (runs shorter than the partition depth)."""
        if len(self.stack) >= self.shard.depth:
            return True
        return self.shard.owns(self._prefix(len(self.stack)))

    def choose(self, options: Sequence[Option], default: int) -> int | None:
        depth, self.depth = self.depth, self.depth + 1
        if depth < len(self.stack):
            frame = self.stack[depth]
            if [o.label for o in frame.options] != [o.label for o in options]:
                raise NondeterminismError(
                    f"replaying the same choices offered different requests at choice {depth + 1}: "
                    f"{[o.describe() for o in frame.options]} then {[o.describe() for o in options]}. "
                    "Something outside the schedule decides what the actors do. Most often it is state kept "
                    "in the process from one run to the next (a module-level cache, a client or singleton "
                    "created once, a counter, a memo): every run must start from nothing but the server's "
                    "snapshot and ctx.memory, so reset such state in before_run; otherwise time or randomness"
                )
            return frame.tried[-1]
        sleep = self._child_sleep()
        order = [default, *(i for i in range(len(options)) if i != default)]
        actors = {option.actor for option in options}
        mirrors = self._symmetric(options) if self.reduction != "off" else {}
        if self.reduction != "dpor" or depth < self.shard.depth:
            backtrack = actors
        else:
            awake = [options[i].actor for i in order if options[i].label not in sleep]
            awake = [actor for actor in awake if actor not in mirrors]
            backtrack = {awake[0]} if awake else set()
        frame = _Frame(list(options), sleep, order, backtrack, mirrors=mirrors)
        self.stack.append(frame)
        index = self._next(frame, depth)
        if index is None:
            self.stack.pop()
            self._blocked = list(options)
            return None
        frame.tried.append(index)
        return index

    def known_options(self) -> list[Option] | None:
        """While replaying the prefix of the last run: the options its next choice offered."""
        return self.stack[self.depth].options if self.depth < len(self.stack) else None

    def observe(self, committed: bool) -> None:
        """Whether the step just chosen changed the store: a write that did not (a failed claim) only read it."""
        self.stack[self.depth - 1].committed = committed

    def advance(self) -> None:
        """Learn from the run just made, then move to the next unexplored schedule (deepest first)."""
        if self.reduction == "dpor":
            self._add_backtracks()
        while self.stack:
            frame = self.stack[-1]
            index = self._next(frame, len(self.stack) - 1)
            if index is not None:
                frame.tried.append(index)
                return
            self.stack.pop()
        self.finished = True

    def _symmetric(self, options: Sequence[Option]) -> dict[str, str]:
        """Interchangeable actors that have not moved yet in this run offer mirrored options: the
        subtree of one is the mirror of the other's, and only the first is explored."""
        if not self.interchangeable:
            return {}
        moved = {frame.options[frame.tried[-1]].actor for frame in self.stack}
        return _mirrors(options, self.interchangeable, moved)

    def _prefix(self, depth: int) -> list[int]:
        return [frame.tried[-1] for frame in self.stack[:depth]]

    def _next(self, frame: _Frame, depth: int) -> int | None:
        for index in frame.order:
            option = frame.options[index]
            if index in frame.tried or option.label in frame.sleep or option.actor in frame.mirrors:
                continue
            if not frame.branches_to(option.actor):
                continue
            if depth == self.shard.depth - 1 and not self.shard.owns([*self._prefix(depth), index]):
                frame.tried.append(index)
                continue
            return index
        return None

    def _child_sleep(self) -> dict[tuple[str, str, str, str], Option]:
        if self.reduction == "off" or not self.stack:
            return {}
        parent = self.stack[-1]
        chosen = parent.options[parent.tried[-1]]
        asleep = dict(parent.sleep)
        for index in parent.tried[:-1]:
            asleep[parent.options[index].label] = parent.options[index]
        return {label: option for label, option in asleep.items() if independent(option, chosen)}

    def _add_backtracks(self) -> None:
        """For every state of the run and every actor pending there, find the last earlier step of another
        actor that races with its request (dependent, not ordered before it), and branch there."""
        executed = [_as_executed(frame.options[frame.tried[-1]], frame.committed) for frame in self.stack]
        before: list[set[int]] = []
        for j, step in enumerate(executed):
            ordered = {j}
            for m in range(j):
                if executed[m].actor == step.actor or not independent(executed[m], step):
                    ordered |= before[m]
            before.append(ordered)
        states = [frame.options for frame in self.stack]
        if self._blocked is not None:
            states.append(self._blocked)
        for k, options in enumerate(states):
            for actor in sorted({option.actor for option in options}):
                variants = [option for option in options if option.actor == actor]
                # A held request stays enabled until its actor moves, so its last racing step is the
                # one to reverse. A controller's write may instead have been enabled by that step (a
                # move of the clock, the write it reacts to): the race that matters can lie further
                # back, so every earlier racing step gets its branch.
                stepped = any(variant.verb in STEPPED for variant in variants)
                for i in range(k - 1, -1, -1):
                    step = executed[i]
                    if step.actor == actor or all(independent(step, variant) for variant in variants):
                        continue
                    if any(executed[j].actor == actor and i in before[j] for j in range(i, k)):
                        continue
                    frame = self.stack[i]
                    pending = {option.actor for option in frame.options}
                    frame.backtrack |= {actor} if actor in pending else pending
                    if not stepped:
                        break
