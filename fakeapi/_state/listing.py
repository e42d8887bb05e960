"""Listing: selectors, pages and continue tokens as the apiserver serves a collection GET.

Items come in etcd key order (namespace, then name). ``limit`` cuts a page and the continue token
is what ``storage/continue.go`` writes: unpadded base64url of
``{"v":"meta.k8s.io/v1","rv":<list revision>,"start":"<next key>\\u0000"}``. Garbage tokens are 400
with its texts. A continued page reads the objects as they were at the first page's revision, as
etcd does (``Store.items_at``); a token of revision -1 (what an expired continue answers with)
reads the latest state.

Field selectors support what ``ConvertFieldLabel`` supports per kind: ``metadata.name`` and
``metadata.namespace`` everywhere, a CRD version's ``selectableFields``, and the built-ins' own;
an events.k8s.io/v1 selector names the stored core/v1 Event's fields its own way (docs/events.md).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fakeapi._state.resources import ResourceType
from fakeapi.errors import APIError

__all__ = ["ListPage", "decode_continue", "encode_continue", "field_values", "paginate", "supported_fields"]

CONTINUE_VERSION = "meta.k8s.io/v1"
_EVENTS_V1 = ("events.k8s.io", "Event")

# ``AddFieldLabelConversionsForEvent`` (pkg/apis/events/v1/conversion.go): the labels an
# events.k8s.io/v1 field selector may use, each the core selectable field it is matched against.
EVENTS_FIELD_LABELS: dict[str, str] = {
    "reason": "reason",
    "regarding.kind": "involvedObject.kind",
    "regarding.namespace": "involvedObject.namespace",
    "regarding.name": "involvedObject.name",
    "regarding.uid": "involvedObject.uid",
    "regarding.apiVersion": "involvedObject.apiVersion",
    "regarding.resourceVersion": "involvedObject.resourceVersion",
    "regarding.fieldPath": "involvedObject.fieldPath",
    "reportingController": "reportingComponent",
    "source": "source",
    "type": "type",
    "metadata.namespace": "metadata.namespace",
    "metadata.name": "metadata.name",
}

_BUILTIN_FIELDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "Pod"): (
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.podIPs",
        "status.nominatedNodeName",
    ),
    ("", "Secret"): ("type",),
    ("", "Namespace"): ("status.phase",),
    ("", "Event"): (
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
    ),
    ("batch", "Job"): ("status.successful",),
}


def supported_fields(rtype: ResourceType) -> set[str]:
    if (rtype.group, rtype.kind) == _EVENTS_V1:
        return set(EVENTS_FIELD_LABELS)
    fields = {"metadata.name"}
    if rtype.namespaced or not rtype.custom:
        fields.add("metadata.namespace")
    fields.update(rtype.selectable_fields)
    fields.update(_BUILTIN_FIELDS.get((rtype.group, rtype.kind), ()))
    return fields


def _lookup(obj: Any, path: str) -> str:
    for part in path.split("."):
        obj = obj.get(part) if isinstance(obj, dict) else None
    if obj is None:
        return ""
    if isinstance(obj, bool):
        return "true" if obj else "false"
    return str(obj)


def field_values(rtype: ResourceType, obj: dict[str, Any]) -> dict[str, str]:
    """The field set a field selector is matched against (``obj`` as stored)."""
    if (rtype.group, rtype.kind) == _EVENTS_V1:
        # The stored core/v1 Event's selectable fields, under the labels events.k8s.io/v1 gives them.
        core = _values(_BUILTIN_FIELDS[("", "Event")], "Event", obj)
        return {label: core[core_field] for label, core_field in EVENTS_FIELD_LABELS.items()}
    return _values(supported_fields(rtype), rtype.kind, obj)


def _values(fields: Iterable[str], kind: str, obj: dict[str, Any]) -> dict[str, str]:
    metadata = obj.get("metadata") or {}
    values = {"metadata.name": metadata.get("name", ""), "metadata.namespace": metadata.get("namespace", "")}
    for field in set(fields) - values.keys():
        if field == "status.podIPs":
            values[field] = ",".join(ip.get("ip", "") for ip in (obj.get("status") or {}).get("podIPs") or [])
        elif field == "source" and kind == "Event":
            values[field] = ((obj.get("source") or {}).get("component")) or obj.get("reportingComponent", "")
        else:
            values[field] = _lookup(obj, field)
    return values


def encode_continue(revision: int, start: str) -> str:
    payload = json.dumps({"v": CONTINUE_VERSION, "rv": revision, "start": start}, separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).rstrip(b"=").decode()


def decode_continue(token: str) -> tuple[int, str]:
    """``DecodeContinue``: the revision and start key, or the apiserver's 400."""

    def invalid(problem: str) -> APIError:
        return APIError.bad_request(f"invalid continue token: continue key is not valid: {problem}")

    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError) as error:
        raise invalid(str(error)) from None
    try:
        payload = json.loads(raw)
    except ValueError as error:
        raise invalid(str(error)) from None
    if not isinstance(payload, dict):
        raise invalid("json: cannot unmarshal into continueToken")
    for key, expected in (("v", "string"), ("rv", "int64"), ("start", "string")):
        problem = _field_type_problem(payload.get(key), expected)
        if problem:
            raise invalid(
                f"json: cannot unmarshal {problem} into Go struct field continueToken.{key} of type {expected}"
            )
    if payload.get("v") != CONTINUE_VERSION:
        raise invalid(f"server does not recognize this encoded version {payload.get('v')!s}")
    revision, start = payload.get("rv"), payload.get("start")
    if not revision:
        raise invalid(f"incorrect encoded start resourceVersion (version {CONTINUE_VERSION})")
    if not isinstance(start, str) or not start:
        raise invalid(f"encoded start key empty (version {CONTINUE_VERSION})")
    if "/../" in f"/{start}" or start.startswith("/"):
        raise invalid(start)
    return revision, start


def _field_type_problem(value: Any, expected: str) -> str:
    """What ``json.Unmarshal`` names a value that does not fit the field's Go type ("" if it fits)."""
    if value is None:
        return ""
    if expected == "string":
        return "" if isinstance(value, str) else _json_kind(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return "" if -(2**63) <= value < 2**63 else f"number {value}"
    if isinstance(value, float):
        return f"number {value!r}"
    return _json_kind(value)


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, dict):
        return "object"
    return "array" if isinstance(value, list) else "string"


@dataclass
class ListPage:
    items: list[dict[str, Any]]
    resource_version: int
    continue_token: str
    remaining: int | None


def _key_of(obj: dict[str, Any], all_namespaces: bool) -> str:
    metadata = obj.get("metadata") or {}
    name = metadata.get("name", "")
    namespace = metadata.get("namespace", "")
    return f"{namespace}/{name}" if all_namespaces and namespace else name


def paginate(
    objects: list[dict[str, Any]],
    matches: Callable[[dict[str, Any]], bool],
    *,
    revision: int,
    all_namespaces: bool,
    limit: int,
    start: str,
    selectors_empty: bool,
) -> ListPage:
    """One page of the matching objects (already in key order, as of ``revision``) from key ``start`` on."""
    list_revision = revision
    start = start.rstrip("\x00")
    if start:
        objects = [obj for obj in objects if _key_of(obj, all_namespaces) > start]
    selected = objects if selectors_empty else [obj for obj in objects if matches(obj)]
    if limit <= 0 or len(selected) <= limit:
        return ListPage(selected, list_revision, "", None)
    page = selected[:limit]
    token = encode_continue(list_revision, _key_of(page[-1], all_namespaces) + "\x00")
    remaining = len(selected) - limit if selectors_empty else None
    return ListPage(page, list_revision, token, remaining)
