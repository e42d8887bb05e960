"""The Events the simulated components emit, as their event recorders write them.

Two recorders exist upstream, and the components use different ones:

* client-go ``tools/record`` (``event.go`` ``makeEvent``), used by the kubelet and
  kube-controller-manager: a core/v1 Event with ``source`` (component, and host for the kubelet),
  ``firstTimestamp`` = ``lastTimestamp``, ``count`` 1, ``reportingComponent``/``reportingInstance``
  copied from the source, no ``eventTime``;
* client-go ``tools/events`` (``event_recorder.go`` ``makeEvent``), used by kube-scheduler: an
  events.k8s.io/v1 Event with ``eventTime`` (microseconds), ``reportingController``,
  ``reportingInstance`` and ``action``. The apiserver stores it as a core/v1 Event (``note`` is
  ``message``, ``regarding`` is ``involvedObject``, the deprecated timestamps are null), which is how
  it is stored here, so ``kubectl get events`` and core/v1 clients see it.

Both name the Event ``<object name>.<unix nanoseconds in hex>``; on the fake clock two Events of
the same object in the same instant take successive nanoseconds, so names never collide and a run
replays with the same names. Both write through the store as a create of the component's client,
so managedFields name its manager. The real recorders send asynchronously and aggregate repeats
(``EventCorrelator``); here each Event is created once, when the component acts. An Event the
apiserver rejects is dropped, as the real recorders drop it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = ["EventRecorder", "object_reference"]

_EVENTS = builtin_type("", "v1", "Event")


def object_reference(obj: dict[str, Any], field_path: str | None = None) -> dict[str, Any]:
    """``reference.GetReference``: kind, namespace, name, uid, apiVersion, resourceVersion (and a field path)."""
    meta = metadata_of(obj)
    reference = {
        "kind": obj.get("kind"),
        "namespace": meta.get("namespace"),
        "name": meta.get("name"),
        "uid": meta.get("uid"),
        "apiVersion": obj.get("apiVersion"),
        "resourceVersion": meta.get("resourceVersion"),
        "fieldPath": field_path,
    }
    return {key: value for key, value in reference.items() if value}


class EventRecorder:
    """Creates Events in the store for the simulated components, with collision-free names."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._last_nanos = 0

    def reset(self) -> None:
        self._last_nanos = 0

    @property
    def position(self) -> int:
        """Where the name sequence stands (a probe puts it back with :meth:`rewind`)."""
        return self._last_nanos

    def rewind(self, position: int) -> None:
        self._last_nanos = position

    def _nanos(self) -> int:
        nanos = max(round(self.store.clock.now() * 1_000_000) * 1000, self._last_nanos + 1)
        self._last_nanos = nanos
        return nanos

    def record(
        self,
        involved: dict[str, Any],
        event_type: str,
        reason: str,
        message: str,
        *,
        component: str,
        manager: str,
        host: str | None = None,
        field_path: str | None = None,
    ) -> None:
        """A ``tools/record`` Event (the kubelet's, the controller manager's)."""
        nanos = self._nanos()
        now = self.store.clock.timestamp()
        source = {"component": component, **({"host": host} if host else {})}
        event = {
            "kind": "Event",
            "apiVersion": "v1",
            "metadata": self._metadata(involved, nanos),
            "involvedObject": object_reference(involved, field_path),
            "reason": reason,
            "message": message,
            "source": source,
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
            "type": event_type,
            "eventTime": None,
            "reportingComponent": component,
            "reportingInstance": host or "",
        }
        self._create(event, manager)

    def emit(
        self,
        regarding: dict[str, Any],
        event_type: str,
        reason: str,
        action: str,
        note: str,
        *,
        controller: str,
        instance: str,
        manager: str,
    ) -> None:
        """A ``tools/events`` Event (kube-scheduler's), stored in its core/v1 shape."""
        nanos = self._nanos()
        event = {
            "kind": "Event",
            "apiVersion": "v1",
            "metadata": self._metadata(regarding, nanos),
            "involvedObject": object_reference(regarding),
            "reason": reason,
            "message": note,
            "source": {},
            "firstTimestamp": None,
            "lastTimestamp": None,
            "type": event_type,
            "eventTime": _micro_time(nanos),
            "action": action,
            "reportingComponent": controller,
            "reportingInstance": instance,
        }
        self._create(event, manager)

    def _metadata(self, involved: dict[str, Any], nanos: int) -> dict[str, Any]:
        meta = metadata_of(involved)
        return {"name": f"{meta.get('name')}.{nanos:x}", "namespace": meta.get("namespace") or "default"}

    def _create(self, event: dict[str, Any], manager: str) -> None:
        namespace = event["metadata"]["namespace"]
        try:
            self.store.create(_EVENTS, namespace, event, manager=manager)
        except APIError:
            # The real recorders drop an Event the apiserver rejects ("Server rejected event (will
            # not retry!)"), say one whose object's name leaves no room for the suffix.
            return


def _micro_time(nanos: int) -> str:
    """``metav1.MicroTime``'s RFC 3339 with six fractional digits."""
    seconds, rest = divmod(nanos, 1_000_000_000)
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S") + f".{rest // 1000:06d}Z"
