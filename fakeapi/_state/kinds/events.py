"""``events.k8s.io/v1``: the Event of ``pkg/registry/core/event``, served in its newer shape.

The apiserver stores these as core/v1 Events (one resource, converted between the two shapes), so
discovery gives both the same storage hash. The fake keeps the two apart: an Event written in one
group is not listed in the other.
"""

from __future__ import annotations

from fakeapi._state.defaults.core import events_event_defaults
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType
from fakeapi._state.tables.events import EVENT_PRINTER

__all__ = ["TYPES"]

TYPES: tuple[ResourceType, ...] = (
    builtin(
        "events.k8s.io",
        "v1",
        "events",
        "Event",
        short_names=("ev",),
        defaulter=events_event_defaults,
        printer=EVENT_PRINTER,
        stored_as=("", "v1", "Event"),
    ),
)
