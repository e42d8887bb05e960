"""Probing only the controllers whose inputs changed since their last probe.

Before every choice the scenario engine asks each stepped controller (each worker of one) what it
would write next (``Simulation.pending``); a probe runs the controller's step up to its first
write. Most choices follow an actor's step that touched nothing a controller reads, so the answer
is the one the last probe gave. A probe records what it read: the resources it looked objects up
in (``find``, ``get``, ``items``, ``bucket``, ``items_at``, and the target of an update). Its answer
stands while nothing of those resources was written (the store's ``changed_at``), the clock reads
the same, the seeded name generator and the Event names stand where they stood, what controllers
remember between syncs outside the store is unchanged, and the store was not replaced by a restore
(``epoch``). A probe that reached the store any other way (an attribute
not known to be neutral) is not kept: it is run again next time, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakeapi._cluster.stepping import ControllerWrite
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.store import Store

Projection = Callable[[dict[str, Any]], Hashable]

__all__ = ["NEUTRAL_ATTRIBUTES", "READS", "ProbeCache", "Projection", "ReadLog", "items_read_for"]

# Store methods that read one resource's objects; their first argument is its ResourceType.
READS = frozenset({"find", "get", "items", "bucket", "items_at"})
# Of those, the reads of one object by its namespace and name (the arguments after the type).
BY_NAME = frozenset({"find", "get"})
# Attributes a controller may use without depending on any object: the clock (its reading is part
# of the key), the type registry, the revision (compared before and after a write only), the name
# generator (its state is part of the key).
NEUTRAL_ATTRIBUTES = frozenset({"clock", "registry", "revision", "generator_state", "set_generator_state"})


@dataclass
class ReadLog:
    """What one probe read; ``complete`` turns False once it reached the store another way.

    ``resources`` are all the resources it read from, for the cache. For the scenario engine, which
    asks whether two controllers' writes commute, the reads are also kept finer: ``objects`` it
    looked up by name (``find``, ``get``, the target of an update), as ``(group, plural, namespace,
    name)``, and ``lists``, the resources it read whole (``items``, ``bucket``, ``items_at``)."""

    resources: set[tuple[str, str]] = field(default_factory=set)
    objects: set[tuple[str, str, str, str]] = field(default_factory=set)
    lists: set[tuple[str, str]] = field(default_factory=set)
    narrowed: set[tuple[tuple[str, str], Projection]] = field(default_factory=set)
    """Resources read whole by a step whose decisions depend only on a projection of each object
    (:func:`items_read_for`)."""
    update: tuple[dict[str, Any], dict[str, Any]] | None = None
    """The update the probe stopped at, if the store would apply it: its object before and after."""
    complete: bool = True

    def read(self, method: str, resource: tuple[str, str], args: tuple[Any, ...]) -> None:
        """Note a call of the store's read ``method`` on ``resource`` with the positional arguments after
        the type (a lookup whose namespace and name are not both among them counts as a whole read)."""
        self.resources.add(resource)
        if method in BY_NAME and len(args) >= 2:
            self.objects.add((*resource, str(args[0]), str(args[1])))
        else:
            self.lists.add(resource)

    def narrow(self, resource: tuple[str, str], projection: Projection) -> None:
        self.resources.add(resource)
        self.narrowed.add((resource, projection))


def items_read_for(store: Any, rtype: ResourceType, namespace: str | None, projection: Projection) -> list[Any]:
    """``store.items(rtype, namespace)`` for a controller whose decisions read only ``projection`` of
    each object (a hashable value): a probe logs the read so, and a scenario engine then knows that a
    write leaving the projection of its object as it was does not change what the step does."""
    narrowed = getattr(store, "narrowed_items", None)
    if narrowed is None:
        return store.items(rtype, namespace)  # type: ignore[no-any-return]
    return narrowed(rtype, namespace, projection)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class _Probe:
    situation: tuple[Any, ...]
    reads: tuple[tuple[tuple[str, str], int], ...]
    answer: ControllerWrite | None


class ProbeCache:
    """The last complete probe of each controller worker, and whether it still answers."""

    def __init__(self) -> None:
        self._probes: dict[tuple[str, str], _Probe] = {}
        self.hits = 0
        self.misses = 0

    @staticmethod
    def situation(store: Store, recorder_position: int, memory: tuple[Any, ...]) -> tuple[Any, ...]:
        """What besides the objects a probe's answer depends on; ``memory`` is what the controllers
        keep between syncs outside the store (the autoscaler's last reconciles)."""
        return (store.epoch, store.clock.now(), recorder_position, store.generator_state(), memory)

    def lookup(
        self, key: tuple[str, str], store: Store, situation: tuple[Any, ...]
    ) -> tuple[bool, ControllerWrite | None]:
        """``(True, answer)`` when the last probe of ``key`` still answers, else ``(False, None)``."""
        probe = self._probes.get(key)
        if probe is None or probe.situation != situation:
            self.misses += 1
            return False, None
        changed_at = store.changed_at
        for resource, revision in probe.reads:
            if changed_at.get(resource, 0) != revision:
                self.misses += 1
                return False, None
        self.hits += 1
        return True, probe.answer

    def keep(
        self,
        key: tuple[str, str],
        store: Store,
        situation: tuple[Any, ...],
        reads: ReadLog,
        answer: ControllerWrite | None,
    ) -> None:
        if not reads.complete:
            self._probes.pop(key, None)
            return
        changed_at = store.changed_at
        snapshot = tuple((resource, changed_at.get(resource, 0)) for resource in sorted(reads.resources))
        self._probes[key] = _Probe(situation, snapshot, answer)
