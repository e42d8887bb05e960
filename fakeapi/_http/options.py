"""Query options of each verb, decoded and validated with the apiserver's messages.

``CreateOptions``/``UpdateOptions``/``PatchOptions`` (``fieldManager``, ``dryRun``,
``fieldValidation``), ``ListOptions`` (selectors, ``limit``, ``continue``, ``resourceVersion``,
``resourceVersionMatch``, watch parameters) and ``DeleteOptions`` (query or body). A value that
does not decode is 400; a value that decodes but is not allowed is 422 ``<Kind>.meta.k8s.io "" is
invalid`` (``apimachinery/pkg/apis/meta/v1/validation``, ``internalversion/validation``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi._http.requestinfo import query_flag
from fakeapi._patching.gostrconv import parse_uint, quote
from fakeapi._state.managedfields import MAX_MANAGER_LENGTH, manager_from_user_agent
from fakeapi._state.validation import field as field_errors
from fakeapi.errors import APIError, Cause, GroupResource

__all__ = [
    "DeleteOptions",
    "ListOptions",
    "WriteOptions",
    "parse_delete_options",
    "parse_list_options",
    "parse_write_options",
]

FIELD_VALIDATION_VALUES = ("", "Ignore", "Strict", "Warn")


def _options_invalid(kind: str, causes: list[Cause]) -> APIError:
    return APIError.invalid(GroupResource("meta.k8s.io", kind), "", causes)


def _unsupported(field_name: str, value: Any, supported: tuple[str, ...]) -> Cause:
    # A list of values (dryRun) prints as the []string it is decoded into.
    return field_errors.not_supported(field_name, field_errors.GoText(field_errors.go_value(value)), supported).cause()


@dataclass(frozen=True)
class WriteOptions:
    manager: str
    dry_run: bool
    field_validation: str  # "Ignore", "Warn" or "Strict"
    force: bool = False


def parse_write_options(kind: str, query: Any, user_agent: str) -> WriteOptions:
    """Create/Update/PatchOptions; ``kind`` names them in the 422 message."""
    causes: list[Cause] = []
    manager = query.get("fieldManager")
    if manager is not None:
        if len(manager.encode()) > MAX_MANAGER_LENGTH:
            causes.append(field_errors.too_long("fieldManager", MAX_MANAGER_LENGTH).cause())
        for position, ch in enumerate(manager):
            if not ch.isprintable():
                detail = f"invalid character U+{ord(ch):04X} {_go_rune(ch)} (at position {position})"
                causes.append(field_errors.invalid("fieldManager", manager, detail).cause())
                break
    dry_run_values = query.getall("dryRun", [])
    if any(value != "All" for value in dry_run_values):
        causes.append(_unsupported("dryRun", dry_run_values, ("All",)))
    validation = query.get("fieldValidation", "")
    if validation not in FIELD_VALIDATION_VALUES:
        causes.append(_unsupported("fieldValidation", validation, FIELD_VALIDATION_VALUES))
    if causes:
        raise _options_invalid(kind, causes)
    return WriteOptions(
        manager=manager if manager is not None else manager_from_user_agent(user_agent),
        dry_run=bool(dry_run_values),
        field_validation=validation or "Warn",
        force=query_flag(query, "force"),
    )


def _go_rune(ch: str) -> str:
    return "'" + ch.encode("unicode_escape").decode() + "'"


@dataclass(frozen=True)
class ListOptions:
    label_selector: str = ""
    field_selector: str = ""
    limit: int = 0
    continue_token: str = ""
    resource_version: str = ""
    resource_version_match: str = ""
    watch: bool = False
    allow_bookmarks: bool = False
    send_initial_events: bool | None = None
    timeout_seconds: int | None = None
    extra: dict[str, str] = field(default_factory=dict)


def _parse_int(query: Mapping[str, str], name: str) -> int | None:
    value = query.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value, 10)
    except ValueError:
        raise APIError.bad_request(f'strconv.ParseInt: parsing "{value}": invalid syntax') from None


def parse_list_options(query: Mapping[str, str], *, watch: bool) -> ListOptions:
    """``ListOptions`` decoded, then ``ValidateListOptions``."""
    initial = query.get("sendInitialEvents")
    options = ListOptions(
        label_selector=query.get("labelSelector", ""),
        field_selector=query.get("fieldSelector", ""),
        limit=_parse_int(query, "limit") or 0,
        continue_token=query.get("continue", ""),
        resource_version=query.get("resourceVersion", ""),
        resource_version_match=query.get("resourceVersionMatch", ""),
        watch=watch,
        allow_bookmarks=query_flag(query, "allowWatchBookmarks"),
        send_initial_events=None if initial is None else initial.lower() not in ("0", "false"),
        timeout_seconds=_parse_int(query, "timeoutSeconds"),
    )
    causes: list[Cause] = []
    match = options.resource_version_match
    if options.send_initial_events is not None:
        if not watch:
            causes.append(
                field_errors.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list").cause()
            )
        elif match != "NotOlderThan":
            causes.append(
                field_errors.forbidden(
                    "sendInitialEvents", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"
                ).cause()
            )
    if match:
        if watch and options.send_initial_events is None:
            causes.append(
                field_errors.forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                ).cause()
            )
        elif not watch and not options.resource_version:
            causes.append(
                field_errors.forbidden(
                    "resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"
                ).cause()
            )
        elif not watch and options.continue_token:
            causes.append(
                field_errors.forbidden(
                    "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"
                ).cause()
            )
        elif match not in ("Exact", "NotOlderThan"):
            causes.append(_unsupported("resourceVersionMatch", match, ("Exact", "NotOlderThan", "")))
        elif match == "Exact" and options.resource_version == "0":
            causes.append(
                field_errors.forbidden(
                    "resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'
                ).cause()
            )
    if causes:
        raise _options_invalid("ListOptions", causes)
    return options


@dataclass(frozen=True)
class DeleteOptions:
    uid: str | None = None
    resource_version: str | None = None
    propagation: str | None = None
    dry_run: bool = False
    grace_period: int | None = None
    orphan_dependents: bool | None = None


PROPAGATION_VALUES = ("Foreground", "Background", "Orphan", "nil")


def parse_delete_options(query: Any, body: dict[str, Any] | None) -> DeleteOptions:
    """DeleteOptions from the body when there is one (the query is then ignored), else the query."""
    if body is not None:
        preconditions = body.get("preconditions") or {}
        dry_run_values = body.get("dryRun") or []
        options = DeleteOptions(
            uid=preconditions.get("uid"),
            resource_version=preconditions.get("resourceVersion"),
            propagation=body.get("propagationPolicy"),
            dry_run=bool(dry_run_values),
            grace_period=body.get("gracePeriodSeconds"),
            orphan_dependents=body.get("orphanDependents"),
        )
    else:
        dry_run_values = query.getall("dryRun", [])
        orphan = query.get("orphanDependents")
        options = DeleteOptions(
            propagation=query.get("propagationPolicy"),
            dry_run=bool(dry_run_values),
            grace_period=_parse_int(query, "gracePeriodSeconds"),
            orphan_dependents=None if orphan is None else orphan.lower() not in ("0", "false"),
        )
    causes: list[Cause] = []
    if options.orphan_dependents is not None and options.propagation is not None:
        causes.append(
            field_errors.invalid(
                "propagationPolicy",
                field_errors.GoText(field_errors.go_value(options.propagation)),
                "orphanDependents and deletionPropagation cannot be both set",
            ).cause()
        )
    elif options.propagation is not None and options.propagation not in PROPAGATION_VALUES[:3]:
        causes.append(_unsupported("propagationPolicy", options.propagation, PROPAGATION_VALUES))
    if any(value != "All" for value in dry_run_values):
        causes.append(_unsupported("dryRun", list(dry_run_values), ("All",)))
    if causes:
        raise _options_invalid("DeleteOptions", causes)
    return options


def parse_resource_version(text: str) -> int | None:
    """A resourceVersion the watch cache reads (a get, a list it serves, a watch): None for unset
    or ``"0"``, else the revision.

    ``APIObjectVersioner.ParseResourceVersion`` fails with a storage ``InvalidError``, which the
    cacher returns as it is and the handler writes as a 500 carrying its text (docs/http-limits.md).
    """
    if text in ("", "0"):
        return None
    value, problem = parse_uint(text)
    if problem is not None:
        raise APIError.internal(f"resourceVersion: Invalid value: {quote(text)}: {problem}")
    return value
