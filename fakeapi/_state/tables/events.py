"""Rows of events, core/v1 and events.k8s.io/v1 alike.

Reproduced from kube-apiserver 1.32 ``pkg/printers/internalversion/printers.go`` ``printEvent``
(wide): First Seen falls back to ``eventTime`` and Last Seen to First Seen, an event series gives
the count and the last observation, and an events.k8s.io/v1 Event is read through its core/v1
field names (both versions convert to the same internal Event).
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.tables.columns import NAME_DOC, Printer, column
from fakeapi._state.tables.durations import ZERO_TIME, parse_time, since
from fakeapi._state.tables.fields import Obj, as_int, as_obj, as_str, metadata, nested

__all__ = ["EVENT_PRINTER"]

_DOCS = {
    "event.lastTimestamp": "The time at which the most recent occurrence of this event was recorded.",
    "event.type": "Type of this event (Normal, Warning), new types could be added in the future",
    "event.reason": (
        "This should be a short, machine understandable string that gives the reason for the transition into the "
        "object's current status."
    ),
    "event.involvedObject": "The object that this event is about.",
    "event.fieldPath": (
        "If referring to a piece of an object instead of an entire object, this string should contain a valid "
        "JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object "
        'reference is to a container within a pod, this would take on a value like: "spec.containers{name}" '
        '(where "name" refers to the name of the container that triggered the event) or if no container name is '
        'specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have '
        "some well-defined way of referencing a part of an object."
    ),
    "event.source": "The component reporting this event. Should be a short machine understandable string.",
    "event.message": "A human-readable description of the status of this operation.",
    "event.firstTimestamp": "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
    "event.count": "The number of times this event has occurred.",
}


def _event_cells(obj: Obj, now_ns: int) -> list[Any]:
    """``printEvent``; an events.k8s.io/v1 Event is read through its core/v1 field names."""
    if obj.get("apiVersion") == "events.k8s.io/v1":
        obj = {
            "metadata": obj.get("metadata"),
            "involvedObject": obj.get("regarding"),
            "source": obj.get("deprecatedSource"),
            "firstTimestamp": obj.get("deprecatedFirstTimestamp"),
            "lastTimestamp": obj.get("deprecatedLastTimestamp"),
            "count": obj.get("deprecatedCount"),
            "message": obj.get("note"),
            "reportingComponent": obj.get("reportingController"),
            **{key: obj.get(key) for key in ("eventTime", "series", "type", "reason", "reportingInstance")},
        }
    first_time = parse_time(obj.get("firstTimestamp"))
    if first_time is None or first_time == ZERO_TIME:
        first_time = parse_time(obj.get("eventTime"))
    first = since(first_time, now_ns)
    last_time = parse_time(obj.get("lastTimestamp"))
    last = since(last_time, now_ns) if last_time and last_time != ZERO_TIME else first
    count = as_int(obj.get("count"))
    if isinstance(series := obj.get("series"), dict):
        last = since(parse_time(series.get("lastObservedTime")), now_ns)
        count = as_int(series.get("count"))
    elif count == 0:
        count = 1
    involved = as_obj(obj.get("involvedObject"))
    kind, name = as_str(involved.get("kind")).lower(), as_str(involved.get("name"))
    component = as_str(nested(obj, "source", "component")) or as_str(obj.get("reportingComponent"))
    host = as_str(nested(obj, "source", "host")) or as_str(obj.get("reportingInstance"))
    return [
        last,
        as_str(obj.get("type")),
        as_str(obj.get("reason")),
        f"{kind}/{name}" if name else kind,
        as_str(involved.get("fieldPath")),
        f"{component}, {host}" if host else component,
        as_str(obj.get("message")).strip(),
        first,
        count,
        metadata(obj).get("name", ""),
    ]


EVENT_PRINTER = Printer(
    (
        column("Last Seen", "string", _DOCS["event.lastTimestamp"]),
        column("Type", "string", _DOCS["event.type"]),
        column("Reason", "string", _DOCS["event.reason"]),
        column("Object", "string", _DOCS["event.involvedObject"]),
        column("Subobject", "string", _DOCS["event.fieldPath"], priority=1),
        column("Source", "string", _DOCS["event.source"], priority=1),
        column("Message", "string", _DOCS["event.message"]),
        column("First Seen", "string", _DOCS["event.firstTimestamp"], priority=1),
        column("Count", "string", _DOCS["event.count"], priority=1),
        column("Name", "string", NAME_DOC, priority=1, format_="name"),
    ),
    _event_cells,
)
