"""One controller write at a time: what a controller would write next, and making just that write.

The real controllers act concurrently with each other and with clients, one API request at a time,
so any client request can land between two of a controller's writes. To let a caller (the scenario
engine) choose that order, a controller's step runs against a :class:`WriteGate` instead of the
store itself:

* to *probe*, the gate stops the step at its first write that would change something and reports
  it (a :class:`ControllerWrite`): creates and deletes always count, an update counts unless the
  store finds it a no-op (a dry run, compared by identity with the stored object). Nothing is
  stored, and the seeded name generator and the Event names are put back, so probing twice gives
  the same answer and a later real write the same names;
* to make *one write*, the gate lets the first write through, then the Events that go with it, and
  stops the step at its next write to another object.

Both rely on the controllers being level-triggered: each call reads the store afresh, so a step
stopped after any write picks up where it left off on the next call, without repeating a write.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.probe_cache import NEUTRAL_ATTRIBUTES, READS, Projection, ReadLog
from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.store import Store
    from fakeapi._state.storeview import Committed

__all__ = ["ControllerWrite", "ReadFootprint", "WriteGate", "WriteStopped"]


@dataclass(frozen=True)
class ReadFootprint:
    """What a probed step read before the write it would make: objects by name (``(group, plural,
    namespace, name)``) and resources read whole (``(group, plural)``)."""

    objects: frozenset[tuple[str, str, str, str]]
    lists: frozenset[tuple[str, str]]
    narrowed: frozenset[tuple[tuple[str, str], Projection]] = frozenset()
    """Resources read whole, of whose objects only a projection counted (``items_read_for``)."""
    change: tuple[dict[str, Any], dict[str, Any]] | None = field(default=None, compare=False)
    """The update the step would make: its object as stored, and as the update would leave it."""


@dataclass(frozen=True)
class ControllerWrite:
    """A write a controller makes (or would make next): which controller, which verb, which object."""

    controller: str
    verb: str
    group: str
    resource: str
    namespace: str
    name: str
    subresource: str = ""
    refused: str = ""
    worker: str = ""
    """The object (``namespace/name``) whose worker writes, for a controller with one worker per object."""
    footprint: ReadFootprint | None = field(default=None, compare=False)
    """For a probed write, what the step read before it, if it reached the store only by reads the
    probe could log (:class:`~fakeapi._cluster.probe_cache.ReadLog`)."""

    @property
    def target(self) -> tuple[str, str, str, str]:
        return (self.group, self.resource, self.namespace, self.name)

    @property
    def actor(self) -> str:
        """Who races: the controller, or its worker for one object (``kubelet/default/web-0``)."""
        return f"{self.controller}/{self.worker}" if self.worker else self.controller

    def describe(self) -> str:
        name = self.name or "(a generated name)"
        where = f"{self.namespace}/{name}" if self.namespace else name
        resource = f"{self.resource}/{self.subresource}" if self.subresource else self.resource
        refused = f" (refused: {self.refused})" if self.refused else ""
        return f"{self.actor}: {self.verb} {resource} {where}{refused}"


class WriteStopped(Exception):
    """Raised out of a gated store write to end the controller's step there."""

    def __init__(self, write: ControllerWrite | None) -> None:
        super().__init__(write.describe() if write is not None else "stopped")
        self.write = write


class WriteGate:
    """The store as a controller step sees it while being probed (``probe``) or run one write at a time."""

    def __init__(
        self, store: Store, controller: str, *, probe: bool, worker: str = "", reads: ReadLog | None = None
    ) -> None:
        self._store = store
        self._controller = controller
        self._probe = probe
        self._worker = worker
        self._reads = reads
        self.written: ControllerWrite | None = None
        self.attempted: ControllerWrite | None = None

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._store, name)
        reads = self._reads
        if reads is None or name in NEUTRAL_ATTRIBUTES:
            return value
        if name not in READS:
            reads.complete = False
            return value

        def read(rtype: ResourceType, *args: Any, **kwargs: Any) -> Any:
            reads.read(name, rtype.storage_key, () if kwargs else args)
            return value(rtype, *args, **kwargs)

        return read

    def narrowed_items(self, rtype: ResourceType, namespace: str | None, projection: Projection) -> list[Any]:
        """``items``, for a step that reads only ``projection`` of each object (``items_read_for``)."""
        if self._reads is not None:
            self._reads.narrow(rtype.storage_key, projection)
        return self._store.items(rtype, namespace)

    def create(self, rtype: ResourceType, namespace: str, obj: dict[str, Any], **options: Any) -> Committed:
        # A generated name is not known before the create: the target is then the whole collection.
        self._admit(self._write("create", rtype, namespace, metadata_of(obj).get("name") or ""))
        return self._store.create(rtype, namespace, obj, **options)

    def update(
        self,
        rtype: ResourceType,
        namespace: str,
        name: str,
        compute: Callable[[dict[str, Any]], dict[str, Any]],
        **options: Any,
    ) -> Committed:
        write = self._write("update", rtype, namespace, name, options.get("subresource", ""))
        if self._reads is not None:
            self._reads.read("find", rtype.storage_key, (namespace, name))
        if self._probe or not self._may_write(write):
            stored = self._store.find(rtype, namespace, name)
            try:
                trial = self._store.update(rtype, namespace, name, compute, **{**options, "dry_run": True})
            except APIError:
                raise WriteStopped(write if self._probe else None) from None  # a refused write is a request too
            if trial.object is stored:
                return trial  # a no-op: the controller carries on, as the real store would let it
            if self._reads is not None and stored is not None:
                self._reads.update = (stored, trial.object)
            raise WriteStopped(write if self._probe else None)
        self.attempted = write
        committed = self._store.update(rtype, namespace, name, compute, **options)
        if committed.changed and self.written is None:
            self.written = write
        return committed

    def delete(self, rtype: ResourceType, namespace: str, name: str, **options: Any) -> Committed:
        self._admit(self._write("delete", rtype, namespace, name))
        return self._store.delete(rtype, namespace, name, **options)

    def _write(
        self, verb: str, rtype: ResourceType, namespace: str, name: str, subresource: str = ""
    ) -> ControllerWrite:
        return ControllerWrite(
            self._controller, verb, rtype.group, rtype.plural, namespace, name, subresource, worker=self._worker
        )

    def _may_write(self, write: ControllerWrite) -> bool:
        """Whether one-write mode lets ``write`` through: the first write, or an Event after an object's."""
        if self.written is None:
            return True
        return _is_event(write) and not _is_event(self.written)

    def _admit(self, write: ControllerWrite) -> None:
        if self._probe or not self._may_write(write):
            raise WriteStopped(write if self._probe else None)
        self.attempted = write
        if self.written is None:
            self.written = write


def _is_event(write: ControllerWrite) -> bool:
    return write.group == "" and write.resource == "events"
