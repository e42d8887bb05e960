"""Event validation, which depends on the group-version a write came through (docs/events.md).

Reproduced from kube-apiserver 1.32 ``pkg/apis/core/validation/events.go`` (``ValidateEventCreate``,
``ValidateEventUpdate``, ``legacyValidateEvent``, ``validateV1EventSeries``), which
``pkg/registry/core/event/strategy.go`` calls with the request's group-version. Every check reads
the internal ``core.Event``, so every field path is a core/v1 name (``involvedObject``, ``message``),
whichever version was written, except the reporting controller: ``reportingComponent`` through
core/v1, ``reportingController`` otherwise.

* Every write passes the legacy checks: an Event without ``eventTime`` has its namespace agree with
  ``involvedObject.namespace`` (an empty one allowed in ``default`` or none); one with an
  ``eventTime`` needs ``reportingController`` (a qualified name), ``reportingInstance``, ``action``,
  ``reason`` within their lengths and a ``message`` of at most 1024 characters; the namespace is a
  DNS-1123 subdomain.
* Writes through core/v1 (and events.k8s.io/v1beta1) stop there.
* events.k8s.io/v1 creates add the core metadata checks, a series with count 2 or more and a
  ``lastObservedTime``, a required ``eventTime``, a ``type`` of Normal or Warning, and no
  deprecated fields (``firstTimestamp``, ``lastTimestamp``, ``count``, ``source``). Its updates add
  a changed series' checks and make every field but the series immutable (an ``eventTime`` may
  change below the microsecond).

The metadata checks themselves are the store's (``validate_object_meta``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError, GoText
from fakeapi._state.validation.names import is_dns1123_subdomain, is_qualified_name

__all__ = ["legacy_event_errors", "strict_create_errors", "strict_update_errors"]

Obj = Mapping[str, Any]

REPORTING_INSTANCE_LIMIT = 128
ACTION_LIMIT = 128
REASON_LIMIT = 128
NOTE_LIMIT = 1024
FIELD_IMMUTABLE = "field is immutable"


def _text(obj: Obj, key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _set(value: Any) -> bool:
    """A Time or MicroTime that is not Go's zero time."""
    return isinstance(value, str) and bool(value) and not value.startswith("0001-01-01T00:00:00")


def legacy_event_errors(event: Obj, namespace: str, *, reporting_field: str) -> list[FieldError]:
    """``legacyValidateEvent``; ``reporting_field`` is how the request's version names the reporting controller."""
    errors: list[FieldError] = []
    involved_namespace = _text(_dict(event.get("involvedObject")), "namespace")
    if not _set(event.get("eventTime")):
        if not involved_namespace:
            if namespace not in ("", "default"):
                errors.append(field.invalid("involvedObject.namespace", "", "does not match event.namespace"))
        elif namespace != involved_namespace:
            errors.append(
                field.invalid("involvedObject.namespace", involved_namespace, "does not match event.namespace")
            )
    else:
        if not involved_namespace and namespace not in ("default", "kube-system"):
            errors.append(field.invalid("involvedObject.namespace", "", "does not match event.namespace"))
        controller = _text(event, "reportingComponent")
        if not controller:
            errors.append(field.required(reporting_field))
        errors.extend(field.invalid(reporting_field, controller, problem) for problem in is_qualified_name(controller))
        instance = _text(event, "reportingInstance")
        if not instance:
            errors.append(field.required("reportingInstance"))
        if len(instance) > REPORTING_INSTANCE_LIMIT:
            errors.append(
                field.invalid("reportingInstance", "", f"can have at most {REPORTING_INSTANCE_LIMIT} characters")
            )
        action = _text(event, "action")
        if not action:
            errors.append(field.required("action"))
        if len(action) > ACTION_LIMIT:
            errors.append(field.invalid("action", "", f"can have at most {ACTION_LIMIT} characters"))
        reason = _text(event, "reason")
        if not reason:
            errors.append(field.required("reason"))
        if len(reason) > REASON_LIMIT:
            errors.append(field.invalid("reason", "", f"can have at most {REASON_LIMIT} characters"))
        if len(_text(event, "message")) > NOTE_LIMIT:
            errors.append(field.invalid("message", "", f"can have at most {NOTE_LIMIT} characters"))
    errors.extend(field.invalid("namespace", namespace, problem) for problem in is_dns1123_subdomain(namespace))
    return errors


def _series_errors(event: Obj) -> list[FieldError]:
    """``validateV1EventSeries``."""
    series = event.get("series")
    if not isinstance(series, dict):
        return []
    errors = []
    count = series.get("count")
    if not isinstance(count, int) or count < 2:
        errors.append(field.invalid("series.count", "", "should be at least 2"))
    if not _set(series.get("lastObservedTime")):
        errors.append(field.required("series.lastObservedTime"))
    return errors


def strict_create_errors(event: Obj) -> list[FieldError]:
    """What ``ValidateEventCreate`` adds for events.k8s.io/v1 past the legacy checks and the metadata."""
    errors = _series_errors(event)
    if not _set(event.get("eventTime")):
        errors.append(field.required("eventTime"))
    event_type = _text(event, "type")
    if event_type not in ("Normal", "Warning"):
        errors.append(field.invalid("type", "", f"has invalid value: {event_type}"))
    for key in ("firstTimestamp", "lastTimestamp"):
        if _set(event.get(key)):
            errors.append(field.invalid(key, "", "needs to be unset"))
    if event.get("count"):
        errors.append(field.invalid("count", "", "needs to be unset"))
    source = _dict(event.get("source"))
    if _text(source, "component") or _text(source, "host"):
        errors.append(field.invalid("source", "", "needs to be unset"))
    return errors


def strict_update_errors(new: Obj, old: Obj) -> list[FieldError]:
    """What ``ValidateEventUpdate`` adds for events.k8s.io/v1 past the legacy checks and the metadata."""
    errors = _series_errors(new) if _series(new) != _series(old) else []
    for key, path, shown in _IMMUTABLE:
        if _comparable(key, new.get(key)) != _comparable(key, old.get(key)):
            errors.append(field.invalid(path, shown(new.get(key)), FIELD_IMMUTABLE))
    return errors


def _series(event: Obj) -> Any:
    series = event.get("series")
    if not isinstance(series, dict):
        return None
    return (series.get("count") or 0, _parse_time(series.get("lastObservedTime")))


def _parse_time(value: Any) -> datetime | None:
    if not _set(value):
        return None
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return None


def _time_text(value: Any) -> GoText:
    """``time.Time.String()`` of a Time or MicroTime, as an error prints a Stringer."""
    at = _parse_time(value) or datetime(1, 1, 1, tzinfo=UTC)
    text = f"{at.year:04d}-{at.month:02d}-{at.day:02d} {at.hour:02d}:{at.minute:02d}:{at.second:02d}"
    if at.microsecond:
        text += f".{at.microsecond:06d}".rstrip("0")
    return GoText(text + " +0000 UTC")


def _reference_text(value: Any) -> GoText:
    """``%#v`` of a ``core.ObjectReference`` (``null`` for a nil ``related``)."""
    if not isinstance(value, dict):
        return GoText("null")
    parts = (
        ("Kind", "kind"),
        ("Namespace", "namespace"),
        ("Name", "name"),
        ("UID", "uid"),
        ("APIVersion", "apiVersion"),
        ("ResourceVersion", "resourceVersion"),
        ("FieldPath", "fieldPath"),
    )
    inner = ", ".join(f"{go}:{field.go_value(_text(value, key))}" for go, key in parts)
    return GoText("core.ObjectReference{" + inner + "}")


def _source_text(value: Any) -> GoText:
    source = _dict(value)
    inner = f"Component:{field.go_value(_text(source, 'component'))}, Host:{field.go_value(_text(source, 'host'))}"
    return GoText("core.EventSource{" + inner + "}")


def _comparable(key: str, value: Any) -> Any:
    """A field as ``apiequality.Semantic.DeepEqual`` compares it: absent and zero alike."""
    if key in ("firstTimestamp", "lastTimestamp", "eventTime"):
        # Times parse to the microsecond, the precision below which an eventTime may change.
        return _parse_time(value)
    if key in ("involvedObject", "source"):
        return {name: item for name, item in _dict(value).items() if item not in ("", None)}
    if key == "related":
        return None if not isinstance(value, dict) else {n: v for n, v in value.items() if v not in ("", None)}
    if key == "count":
        return value or 0
    return value or ""


def _plain(value: Any) -> Any:
    return value if isinstance(value, str) else ""


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# ValidateEventUpdate's immutable fields in its order (``reason`` twice, as upstream checks it twice):
# the field, the path its error names, how its new value is printed.
_IMMUTABLE: tuple[tuple[str, str, Callable[[Any], Any]], ...] = (
    ("involvedObject", "involvedObject", _reference_text),
    ("reason", "reason", _plain),
    ("message", "message", _plain),
    ("source", "source", _source_text),
    ("firstTimestamp", "firstTimestamp", _time_text),
    ("lastTimestamp", "lastTimestamp", _time_text),
    ("count", "count", _count),
    ("reason", "reason", _plain),
    ("type", "type", _plain),
    ("eventTime", "eventTime", _time_text),
    ("action", "action", _plain),
    ("related", "related", _reference_text),
    ("reportingComponent", "reportingController", _plain),
    ("reportingInstance", "reportingInstance", _plain),
)
