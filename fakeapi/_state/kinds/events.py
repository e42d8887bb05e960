"""``events.k8s.io/v1``: the Event of ``pkg/registry/core/event``, served in its newer shape."""

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
        patch_struct="EventsV1Event",
        protobuf_message="events.Event",
    ),
)
