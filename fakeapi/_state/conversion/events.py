"""One set of Events, served as core/v1 and as events.k8s.io/v1 (docs/events.md).

kube-apiserver 1.32 keeps a single Event resource: the events.k8s.io REST storage is the core
``pkg/registry/core/event`` store itself (``pkg/registry/events/rest/storage_events.go``), objects
are stored as core/v1 Events, and the events.k8s.io/v1 shape is a conversion of the same internal
``core.Event`` (``pkg/apis/events/v1/conversion.go`` and its generated half). Every field has a
counterpart, so the conversion is a renaming of top-level fields and nothing is lost either way:
``note``/``message``, ``regarding``/``involvedObject``, ``deprecatedSource``/``source``,
``deprecatedFirstTimestamp``/``firstTimestamp``, ``deprecatedLastTimestamp``/``lastTimestamp``,
``deprecatedCount``/``count``, ``reportingController``/``reportingComponent``; the rest keep their
names. What each struct cannot hold is dropped and what it cannot omit is written, by laying the
result out as the target's Go struct (:func:`~fakeapi._state.typed.ordering.in_go_order`).

Three more things follow from the renaming:

* field selectors of events.k8s.io/v1 name the core selectable fields their own way
  (:mod:`fakeapi._state.listing`);
* ``metadata.managedFields`` entries keep the field names of the apiVersion their manager used;
  a write through the other version sees them renamed (:meth:`EventConversion.fields_at`);
* :class:`EventConversion` is what the events.k8s.io/v1 descriptor holds as its ``conversion``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fakeapi._state.typed.ordering import in_go_order
from fakeapi._state.typed.structs import GoStructs

__all__ = ["CORE_EVENTS", "EVENTS_V1", "EVENT_CONVERSION", "EventConversion"]

CORE_EVENTS = "v1"
EVENTS_V1 = "events.k8s.io/v1"

# events.k8s.io/v1 field -> core/v1 field, for the fields whose names differ.
_TO_CORE = {
    "regarding": "involvedObject",
    "note": "message",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
    "reportingController": "reportingComponent",
}
_TO_EVENTS = {core: events for events, core in _TO_CORE.items()}
_STRUCTS = {CORE_EVENTS: "core/v1.Event", EVENTS_V1: "events/v1.Event"}


def _renamed(obj: dict[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    return {names.get(key, key): value for key, value in obj.items()}


@dataclass(frozen=True)
class EventConversion:
    """events.k8s.io/v1 Events over the stored core/v1 ones: the conversion a descriptor holds."""

    storage_api_version: str = CORE_EVENTS

    def to_storage(self, structs: GoStructs, obj: dict[str, Any]) -> dict[str, Any]:
        """An events.k8s.io/v1 Event as the core/v1 Event that is stored."""
        return self.convert(structs, obj, CORE_EVENTS)

    def from_storage(self, structs: GoStructs, obj: dict[str, Any]) -> dict[str, Any]:
        """A stored core/v1 Event as events.k8s.io/v1 shows it."""
        return self.convert(structs, obj, EVENTS_V1)

    def convert(self, structs: GoStructs, obj: dict[str, Any], api_version: str) -> dict[str, Any]:
        """``obj`` (an Event of either version) at ``api_version``; the same object when already there."""
        if obj.get("apiVersion") == api_version:
            return obj
        names = _TO_CORE if api_version == CORE_EVENTS else _TO_EVENTS
        renamed = _renamed(obj, names)
        renamed["apiVersion"] = api_version
        renamed["kind"] = "Event"
        return in_go_order(structs, _STRUCTS[api_version], renamed)

    def core_fields(self, obj: dict[str, Any]) -> dict[str, Any]:
        """The core/v1 field names of an Event of either version, nothing else changed (what the
        internal ``core.Event`` validation and the selectable fields read)."""
        if obj.get("apiVersion") == CORE_EVENTS:
            return dict(obj)
        return _renamed(obj, _TO_CORE)

    def fields_at(self, paths: Iterable[tuple[Any, ...]], from_version: str, to_version: str) -> frozenset[Any]:
        """Field paths of one version's Event named as the other names them (managed fields): only
        the top-level field changes, so the renaming is exact both ways."""
        if from_version == to_version or {from_version, to_version} != {CORE_EVENTS, EVENTS_V1}:
            return frozenset(paths)
        names = _TO_CORE if to_version == CORE_EVENTS else _TO_EVENTS
        renamed = set()
        for path in paths:
            if path and path[0][0] == "f" and path[0][1] in names:
                path = (("f", names[path[0][1]]), *path[1:])
            renamed.add(path)
        return frozenset(renamed)


EVENT_CONVERSION = EventConversion()
