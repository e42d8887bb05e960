"""``meta.k8s.io/v1`` Table answers, the rows ``kubectl get`` prints.

Reproduced from kube-apiserver 1.32:

* the Table itself and its row ``object`` per ``includeObject``
  (``apiserver/pkg/endpoints/handlers/response.go`` ``asTable``, ``metav1.ValidateTableOptions``);
* custom resources (``apiextensions-apiserver/.../tableconvertor/tableconvertor.go`` and
  ``serveDefaultColumnsIfEmpty``): Name, then the version's ``additionalPrinterColumns`` evaluated
  with client-go's jsonpath (missing keys allowed), or one Age column;
* built-ins (``pkg/printers/internalversion/printers.go``, always rendered wide as the server's
  TableConvertor does): configmaps, secrets, namespaces, services, pods, deployments, jobs, events
  (core and events.k8s.io), serviceaccounts, leases;
* every other resource, CRDs included (``apiserver/pkg/registry/rest/table.go``): Name, Created At;
* ages by ``HumanDuration`` (``apimachinery/pkg/util/duration/duration.go``).

Dicts are built in the order Go writes the typed structs (Table, TableColumnDefinition, TableRow,
PartialObjectMetadata's ObjectMeta), to be encoded without sorting; a full row object (``Object``)
keeps sorted keys like every other object fakeapi writes. ``includeObject=None`` gives
``"object":null``: the row's RawExtension is a struct, which ``omitempty`` does not drop. The
jsonpath evaluator covers what printer columns use (fields, ``['key']``, indices and slices, ``*``,
``..``, filters); a union (``[a,b]``) leaves its column's cells null.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from fakeapi._patching.gofloat import GoFloat
from fakeapi._patching.gostrconv import quote
from fakeapi._state.resources import ResourceType
from fakeapi.errors import APIError

__all__ = ["human_duration", "invalid_include_object", "table_for"]

Obj = dict[str, Any]
INCLUDE_OBJECT_VALUES = ("", "Metadata", "Object", "None")
NANOS = 1_000_000_000
# Descriptions are the swagger docs the Go code reads (``metav1.ObjectMeta{}.SwaggerDoc()["name"]`` ...).
NAME_DOC = (
    "Name must be unique within a namespace. Is required when creating resources, although some resources may "
    "allow a client to request the generation of an appropriate name automatically. Name is primarily intended "
    "for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
CREATION_TIMESTAMP_DOC = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. "
    "It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. "
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
_DOCS = {
    "configmap.data": (
        "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. "
        "Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not "
        "overlap with the keys in the BinaryData field, this is enforced during validation process."
    ),
    "secret.type": (
        "Used to facilitate programmatic handling of secret data. More info: "
        "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"
    ),
    "secret.data": (
        "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The "
        "serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly "
        "non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"
    ),
    "service.type": (
        "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, "
        'ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for '
        "load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by "
        'manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual '
        'IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" '
        "builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "
        '"LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current '
        'cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the '
        "specified externalName. Several other fields do not apply to ExternalName services. More info: "
        "https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types"
    ),
    "service.clusterIP": (
        "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified "
        "manually, is in-range (as per system configuration), and is not in use, it will be allocated to the "
        "service; otherwise creation of the service will fail. This field may not be changed through updates unless "
        "the type field is also being changed to ExternalName (which requires this field to be blank) or the type "
        "field is being changed from ExternalName (in which case this field may optionally be specified, as "
        'describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to '
        '"None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are '
        "preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If "
        "this field is specified when creating a Service of type ExternalName, creation will fail. This field will "
        "be wiped when updating a Service to type ExternalName. More info: "
        "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"
    ),
    "service.externalIPs": (
        "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this "
        "service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic "
        "arrives at a node with this IP.  A common example is external load-balancers that are not part of the "
        "Kubernetes system."
    ),
    "service.ports": (
        "The list of ports that are exposed by this service. More info: "
        "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"
    ),
    "service.selector": (
        "Route service traffic to pods with label keys and values matching this selector. If empty or not "
        "present, the service is assumed to have an external process managing its endpoints, which Kubernetes "
        "will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is "
        "ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/"
    ),
    "pod.podIP": (
        "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."
    ),
    "pod.nodeName": (
        "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling "
        "by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes "
        "responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod "
        "to be scheduled on a specific node. "
        "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"
    ),
    "pod.nominatedNodeName": (
        "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled "
        "right away as preemption victims receive their graceful termination periods. This field does not "
        "guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if "
        "other nodes become available sooner. Scheduler may also decide to give the resources on this node to a "
        "higher priority pod that is created after preemption. As a result, this field may be different than "
        "PodSpec.nodeName when the pod is scheduled."
    ),
    "pod.readinessGates": (
        "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its "
        'containers are ready AND all conditions specified in the readiness gates have status equal to "True" '
        "More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates"
    ),
    "deployment.updatedReplicas": (
        "Total number of non-terminated pods targeted by this deployment that have the desired template spec."
    ),
    "deployment.availableReplicas": (
        "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."
    ),
    "deployment.selector": (
        "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected "
        "by this deployment."
    ),
    "job.succeeded": (
        "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. "
        "However, it may decrease in reaction to scale down of elastic indexed jobs."
    ),
    "job.selector": (
        "A label query over pods that should match the pod count. Normally, the system sets this field for you. "
        "More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
    ),
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
    "serviceaccount.secrets": (
        "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are "
        "allowed to use. Pods are only limited to this list if this service account has a "
        '"kubernetes.io/enforce-mountable-secrets" annotation set to "true". The '
        '"kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate '
        "namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated "
        "service account token secrets for use outside of pods. Instead, tokens can be requested directly using "
        "the TokenRequest API, or service account token secrets can be manually created. More info: "
        "https://kubernetes.io/docs/concepts/configuration/secret"
    ),
    "lease.holderIdentity": (
        "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is "
        "used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field."
    ),
}
CONTAINERS_DOC = "Names of each container in the template."
IMAGES_DOC = "Images referenced by each container in the template."
_OBJECT_META_FIELDS = (
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
    "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers",
    "managedFields",
)  # fmt: skip
_OWNER_REFERENCE_FIELDS = ("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")
_MANAGED_FIELDS_FIELDS = ("manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource")


def invalid_include_object(value: str) -> str | None:
    """The 400 message for a bad ``includeObject`` (``ValidateTableOptions``), or ``None`` when valid."""
    if value in INCLUDE_OBJECT_VALUES:
        return None
    return (
        "Unable to convert to Table as requested: includeObject: Invalid value: "
        f"{quote(value)}: must be 'Metadata', 'Object', 'None', or empty"
    )


def table_for(
    rtype: ResourceType,
    objects: list[Obj],
    *,
    list_metadata: Obj,
    include_object: str,
    now: float,
    headers: bool = True,
) -> Obj:
    """The Table for ``objects`` (one for a GET, the page for a LIST, the object of a watch event)."""
    message = invalid_include_object(include_object)
    if message is not None:
        raise APIError.bad_request(message)
    printer = _printer_for(rtype)
    now_ns = _to_nanos(now)
    rows: list[Obj] | None = None if printer.null_when_empty and not objects else []
    for obj in objects:
        row: Obj = {"cells": printer.cells(obj, now_ns)}
        if printer.conditions is not None and (conditions := printer.conditions(obj)):
            row["conditions"] = conditions
        row["object"] = _row_object(obj, include_object)
        assert rows is not None
        rows.append(row)
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": _list_meta(list_metadata),
        "columnDefinitions": [dict(column) for column in printer.columns] if headers else None,
        "rows": rows,
    }


def _list_meta(given: Obj) -> Obj:
    """``ListMeta``: empty strings are omitted, ``remainingItemCount`` is a pointer (0 stays)."""
    meta = {key: given[key] for key in ("selfLink", "resourceVersion", "continue") if given.get(key)}
    if given.get("remainingItemCount") is not None:
        meta["remainingItemCount"] = given["remainingItemCount"]
    return meta


def _row_object(obj: Obj, include_object: str) -> Obj | None:
    # RawExtension is a struct, so omitempty never drops it: "None" is written as null.
    if include_object == "None":
        return None
    if include_object == "Object":
        full: Obj = _sorted(obj)
        return full
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": _object_meta(obj)}


def _object_meta(obj: Obj) -> Obj:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    out: Obj = {}
    for key in _OBJECT_META_FIELDS:
        if key not in meta:
            continue
        value = meta[key]
        if key == "ownerReferences" and isinstance(value, list):
            value = [_in_order(item, _OWNER_REFERENCE_FIELDS) for item in value]
        elif key == "managedFields" and isinstance(value, list):
            value = [_in_order(item, _MANAGED_FIELDS_FIELDS) for item in value]
        else:
            value = _sorted(value)
        out[key] = value
    return out


def _in_order(item: Any, fields: tuple[str, ...]) -> Any:
    if not isinstance(item, dict):
        return item
    return {key: _sorted(item[key]) for key in fields if key in item}


def _sorted(value: Any) -> Any:
    """Map keys sorted at every level, as the rest of fakeapi writes stored objects."""
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


# -- columns and printers -----------------------------------------------------------------------------


def column(name: str, type_: str, description: str, *, priority: int = 0, format_: str = "") -> Obj:
    """A ``TableColumnDefinition``; none of its fields is omitempty."""
    return {"name": name, "type": type_, "format": format_, "description": description, "priority": priority}


NAME_COLUMN = column("Name", "string", NAME_DOC, format_="name")
AGE_COLUMN = column("Age", "string", CREATION_TIMESTAMP_DOC)

Cells = Callable[[Obj, int], list[Any]]


@dataclass(frozen=True)
class Printer:
    columns: tuple[Obj, ...]
    cells: Cells
    conditions: Callable[[Obj], list[Obj]] | None = None
    null_when_empty: bool = False


def _printer_for(rtype: ResourceType) -> Printer:
    if rtype.custom:
        return _custom_resource_printer(rtype.printer_columns)
    return _BUILTIN_PRINTERS.get((rtype.group, rtype.plural), _DEFAULT_PRINTER)


def _default_cells(obj: Obj, now_ns: int) -> list[Any]:
    """``Time.UTC().Format(time.RFC3339)``, the zero time included."""
    created = _parse_time(_meta(obj).get("creationTimestamp")) or _ZERO_TIME
    t = datetime(1, 1, 1, tzinfo=UTC) + timedelta(seconds=created[0] - _ZERO_TIME[0])
    stamp = f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"
    return [_meta(obj).get("name", ""), stamp]


_DEFAULT_PRINTER = Printer(
    (NAME_COLUMN, column("Created At", "date", CREATION_TIMESTAMP_DOC)),
    _default_cells,
    null_when_empty=True,
)


def _custom_resource_printer(printer_columns: tuple[Obj, ...]) -> Printer:
    definitions = list(printer_columns) or [
        {
            "name": "Age",
            "type": "date",
            "description": CREATION_TIMESTAMP_DOC,
            "jsonPath": ".metadata.creationTimestamp",
        }
    ]
    columns = [NAME_COLUMN]
    paths: list[tuple[Callable[[Any], list[Any]] | None, str]] = []
    for definition in definitions:
        json_path = str(definition.get("jsonPath", ""))
        description = (
            definition.get("description") or f"Custom resource definition column (in JSONPath format): {json_path}"
        )
        columns.append(
            column(
                str(definition.get("name", "")),
                str(definition.get("type", "")),
                description,
                priority=int(definition.get("priority") or 0),
                format_=str(definition.get("format") or ""),
            )
        )
        try:
            paths.append((compile_jsonpath(json_path), str(definition.get("type", ""))))
        except JSONPathError:
            paths.append((None, ""))

    def cells(obj: Obj, now_ns: int) -> list[Any]:
        row: list[Any] = [_meta(obj).get("name", "")]
        for path, type_ in paths:
            try:
                found = path(obj) if path is not None else []
            except JSONPathError:
                found = []
            if not found:
                row.append(None)
            elif type_ == "string":
                row.append("<no value>" if found[0] is None else go_print(found[0]))
            else:
                row.append(_typed_cell(type_, found[0], now_ns))
        return row

    return Printer(tuple(columns), cells)


def _typed_cell(type_: str, value: Any, now_ns: int) -> Any:
    """``cellForJSONValue``: a value of the wrong JSON type is null."""
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if type_ == "integer" and is_number:
        return int(value)
    if type_ == "number" and is_number:
        return GoFloat(value)
    if type_ == "boolean" and isinstance(value, bool):
        return value
    if type_ == "date" and isinstance(value, str):
        if value in ("", "null"):
            return "<unknown>"
        parsed = _parse_time(value)
        return "<invalid>" if parsed is None else _since(parsed, now_ns)
    return None


# -- time ---------------------------------------------------------------------------------------------

_RFC3339 = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$")
_ZERO_TIME = (int(datetime(1, 1, 1, tzinfo=UTC).timestamp()), 0)


def _parse_time(text: Any) -> tuple[int, int] | None:
    """``time.Parse(time.RFC3339, text)`` as (Unix seconds, nanoseconds); ``None`` if it fails."""
    match = _RFC3339.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.group(1, 2, 3, 4, 5, 6))
    try:
        moment = datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError:
        return None
    seconds = int(moment.timestamp())
    if match.group(8):
        zone_hours, zone_minutes = int(match.group(9)), int(match.group(10))
        if zone_hours >= 24 or zone_minutes >= 60:
            return None
        offset = zone_hours * 3600 + zone_minutes * 60
        seconds += -offset if match.group(8) == "+" else offset
    fraction = (match.group(7) or "")[:9].ljust(9, "0")
    return seconds, int(fraction)


def _to_nanos(now: float) -> int:
    whole = math.floor(now)
    return whole * NANOS + round((now - whole) * NANOS)


def _since(moment: tuple[int, int] | None, now_ns: int) -> str:
    """``translateTimestampSince``: ``<unknown>`` for the zero time."""
    if moment is None or moment == _ZERO_TIME:
        return "<unknown>"
    return _human_nanos(now_ns - (moment[0] * NANOS + moment[1]))


def human_duration(seconds: float) -> str:
    """``duration.HumanDuration`` of a duration in seconds."""
    return _human_nanos(int(Decimal(repr(seconds)) * NANOS))


def _human_nanos(nanos: int) -> str:
    seconds = nanos // NANOS if nanos >= 0 else -(-nanos // NANOS)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes = nanos // (60 * NANOS)
    if minutes < 10:
        rest = seconds % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = nanos // (3600 * NANOS)
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        rest = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if rest == 0 else f"{hours // 24 // 365}y{rest}d"
    return f"{hours // 24 // 365}y"


# -- helpers over decoded JSON ------------------------------------------------------------------------


def _meta(obj: Obj) -> Obj:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _obj(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dicts(value: Any) -> list[Obj]:
    return [item for item in _list(value) if isinstance(item, dict)]


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def _age(obj: Obj, now_ns: int) -> str:
    return _since(_parse_time(_meta(obj).get("creationTimestamp")) or _ZERO_TIME, now_ns)


def _format_labels(labels: Any) -> str:
    """``labels.FormatLabels``."""
    if not isinstance(labels, dict) or not labels:
        return "<none>"
    return ",".join(f"{key}={labels[key]}" for key in sorted(labels))


def _selector_string(selector: Any) -> str | None:
    """``metav1.LabelSelectorAsSelector(s).String()``; ``None`` when the selector is invalid."""
    if not isinstance(selector, dict):
        return ""
    requirements: list[tuple[str, str]] = []
    match_labels = selector.get("matchLabels")
    for key, value in (match_labels if isinstance(match_labels, dict) else {}).items():
        requirements.append((key, f"{key}={value}"))
    for expression in _dicts(selector.get("matchExpressions")):
        key, operator = _str(expression.get("key")), expression.get("operator")
        values = sorted(_str(value) for value in _list(expression.get("values")))
        if operator in ("In", "NotIn") and values:
            word = "in" if operator == "In" else "notin"
            requirements.append((key, f"{key} {word} ({','.join(values)})"))
        elif operator == "Exists" and not values:
            requirements.append((key, key))
        elif operator == "DoesNotExist" and not values:
            requirements.append((key, f"!{key}"))
        else:
            return None
    return ",".join(text for _, text in sorted(requirements, key=lambda requirement: requirement[0]))


def _containers_and_images(pod_spec: Any) -> list[str]:
    containers = _dicts(_get(pod_spec, "containers"))
    return [",".join(_str(c.get("name")) for c in containers), ",".join(_str(c.get("image")) for c in containers)]


# -- client-go jsonpath, the subset printer columns use -----------------------------------------------


class JSONPathError(Exception):
    """A path client-go would not parse, or an evaluation error (both leave the cell null)."""


Node = tuple[Any, ...]
_TERMINATORS = set(" \t\r\n.,[]$@{}")
_SLICE = re.compile(r"^(-?\d*)(:-?\d*)?(:-?\d*)?$")
_FILTER = re.compile(r"^([^!<>=]+)([!<>=]+)(.+?)$")
_NUMBER = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")


def compile_jsonpath(text: str) -> Callable[[Any], list[Any]]:
    """``jsonpath.Parse("{" + text + "}")`` with ``AllowMissingKeys(true)``; the result's first list."""
    nodes = _parse_path(text)

    def find(data: Any) -> list[Any]:
        return _walk([data], nodes)

    return find


def _parse_path(text: str) -> list[Node]:
    nodes: list[Node] = []
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char in " @$":
            pos += 1
        elif char == ".":
            if text.startswith("..", pos):
                nodes.append(("recursive",))
                pos += 1
            name, pos = _read_field(text, pos + 1)
            nodes.append(("wildcard",) if name == "*" else ("field", name))
        elif text.startswith("[?(", pos):
            end = _closing(text, pos + 3, ")]")
            nodes.append(_parse_filter(text[pos + 3 : end]))
            pos = end + 2
        elif char == "[":
            end = _closing(text, pos + 1, "]")
            nodes.append(_parse_brackets(text[pos + 1 : end]))
            pos = end + 1
        else:
            raise JSONPathError(f"unrecognized character in action: {char!r}")
    return nodes


def _read_field(text: str, pos: int) -> tuple[str, int]:
    name = []
    while pos < len(text) and text[pos] not in _TERMINATORS:
        if text[pos] == "\\" and pos + 1 < len(text):
            pos += 1
        name.append(text[pos])
        pos += 1
    return "".join(name), pos


def _closing(text: str, pos: int, closer: str) -> int:
    quote = ""
    while pos < len(text):
        char = text[pos]
        if quote:
            if char == "\\":
                pos += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif text.startswith(closer, pos):
            return pos
        pos += 1
    raise JSONPathError("unterminated array")


def _parse_brackets(content: str) -> Node:
    content = ":" if content == "*" else content
    if "," in content:
        raise JSONPathError("unions are not supported")
    if (key := re.match(r"^'([^']*)'$", content)) is not None:
        return ("field", key.group(1))
    match = _SLICE.match(content)
    if match is None:
        raise JSONPathError(f"invalid array index {content}")
    start, end, step = match.groups()
    if end is None:
        end_value = int(start) + 1 if start else None
        return ("array", int(start) if start else None, end_value, None, end_value is not None)
    return (
        "array",
        int(start) if start else None,
        int(end[1:]) if end[1:] else None,
        int(step[1:]) if step and step[1:] else None,
        False,
    )


def _parse_filter(content: str) -> Node:
    match = _FILTER.match(content)
    if match is None:
        return ("filter", _parse_operand(content), "exists", None)
    return ("filter", _parse_operand(match.group(1)), match.group(2), _parse_operand(match.group(3)))


def _parse_operand(text: str) -> Node:
    text = text.strip()
    if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]:
        return ("literal", re.sub(r"\\(.)", r"\1", text[1:-1]))
    if text in ("true", "false"):
        return ("literal", text == "true")
    if _NUMBER.match(text):
        is_float = any(char in text for char in ".eE")
        return ("literal", float(text) if is_float else int(text))
    if text.startswith("@"):
        return ("path", _parse_path(text))
    raise JSONPathError(f"unrecognized operand {text}")


def _walk(values: list[Any], nodes: list[Node]) -> list[Any]:
    for node in nodes:
        values = _STEPS[node[0]](values, node)
    return values


def _field(values: list[Any], node: Node) -> list[Any]:
    return [value[node[1]] for value in values if isinstance(value, dict) and node[1] in value]


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [value[key] for key in sorted(value)]
    return list(value) if isinstance(value, list) else []


def _wildcard(values: list[Any], node: Node) -> list[Any]:
    return [child for value in values for child in _children(value)]


def _recursive(values: list[Any], node: Node) -> list[Any]:
    found = []
    for value in values:
        if children := _children(value):
            found.append(value)
            found.extend(_recursive(children, node))
    return found


def _array(values: list[Any], node: Node) -> list[Any]:
    _, start, end, step, derived = node
    found: list[Any] = []
    for value in values:
        if value is None:
            continue
        if not isinstance(value, list):
            raise JSONPathError("not array or slice")
        length = len(value)
        first = 0 if start is None else start
        first = first + length if first < 0 else first
        last = length if end is None else end
        last = last + length if last < 0 or (last == 0 and derived) else last
        if first == last:
            return found
        if not 0 <= first < length or not 0 <= last <= length or first > last:
            raise JSONPathError("array index out of bounds")
        if step is not None and step <= 0:
            raise JSONPathError("step must be > 0")
        found.extend(value[first : last : step or 1])
    return found


def _filter(values: list[Any], node: Node) -> list[Any]:
    _, left, operator, right = node
    found = []
    for value in values:
        if not isinstance(value, list):
            raise JSONPathError("not array or slice and cannot be filtered")
        for item in value:
            lefts = _operand(left, item)
            if operator == "exists":
                if lefts:
                    found.append(item)
                continue
            rights = _operand(right, item)
            if not lefts or not rights:
                continue
            if len(lefts) > 1 or len(rights) > 1:
                raise JSONPathError("can only compare one element at a time")
            if _compare(operator, lefts[0], rights[0]):
                found.append(item)
    return found


def _operand(operand: Node, item: Any) -> list[Any]:
    return [operand[1]] if operand[0] == "literal" else _walk([item], operand[1])


def _basic_kind(value: Any) -> str:
    """text/template's ``basicKind``: only scalars compare."""
    for kind, types in (("bool", bool), ("int", int), ("float", float), ("string", str)):
        if isinstance(value, types):
            return kind
    raise JSONPathError("invalid type for comparison")


def _compare(operator: str, left: Any, right: Any) -> bool:
    def equal() -> bool:
        if _basic_kind(left) != _basic_kind(right):
            raise JSONPathError("incompatible types for comparison")
        return bool(left == right)

    def less() -> bool:
        kind = _basic_kind(left)
        if kind != _basic_kind(right):
            raise JSONPathError("incompatible types for comparison")
        if kind == "bool":
            raise JSONPathError("invalid type for comparison")
        return bool(left < right)

    outcomes: dict[str, Callable[[], bool]] = {
        "==": equal,
        "!=": lambda: not equal(),
        "<": less,
        "<=": lambda: less() or equal(),
        ">": lambda: not (less() or equal()),
        ">=": lambda: not less(),
    }
    if operator not in outcomes:
        raise JSONPathError(f"unrecognized filter operator {operator}")
    return outcomes[operator]()


_STEPS: dict[str, Callable[[list[Any], Node], list[Any]]] = {
    "field": _field,
    "wildcard": _wildcard,
    "recursive": _recursive,
    "array": _array,
    "filter": _filter,
}


def go_print(value: Any) -> str:
    """``fmt.Fprint`` of a decoded JSON value: ``map[a:1 b:x]``, ``[1 2]``, floats as ``%v``."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, dict):
        return "map[" + " ".join(f"{key}:{go_print(value[key])}" for key in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_print(item) for item in value) + "]"
    return str(value)


def _go_float(value: float) -> str:
    """``%v``, i.e. ``strconv.FormatFloat(v, 'g', -1, 64)``: shortest digits, exponent form below 1e-4 or from 1e6."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    _, digits, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits))
    point = len(text) + exponent
    prefix = "-" if value < 0 else ""
    if point - 1 < -4 or point - 1 >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        power = point - 1
        return f"{prefix}{mantissa}e{'-' if power < 0 else '+'}{abs(power):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{text}"
    if point >= len(text):
        return prefix + text + "0" * (point - len(text))
    return f"{prefix}{text[:point]}.{text[point:]}"


# -- built-in printers (printers.go, wide) ------------------------------------------------------------


def _configmap_cells(obj: Obj, now_ns: int) -> list[Any]:
    size = len(_get(obj, "data") or {}) + len(_get(obj, "binaryData") or {})
    return [_meta(obj).get("name", ""), size, _age(obj, now_ns)]


def _secret_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [_meta(obj).get("name", ""), _str(obj.get("type")), len(_get(obj, "data") or {}), _age(obj, now_ns)]


def _namespace_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [_meta(obj).get("name", ""), _str(_get(obj, "status", "phase")), _age(obj, now_ns)]


def _serviceaccount_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [_meta(obj).get("name", ""), len(_list(obj.get("secrets"))), _age(obj, now_ns)]


def _lease_cells(obj: Obj, now_ns: int) -> list[Any]:
    return [_meta(obj).get("name", ""), _str(_get(obj, "spec", "holderIdentity")), _age(obj, now_ns)]


def _service_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec = _obj(obj.get("spec"))
    cluster_ips = _list(spec.get("clusterIPs"))
    ports = []
    for port in _dicts(spec.get("ports")):
        node_port = _int(port.get("nodePort"))
        middle = f":{node_port}" if node_port > 0 else ""
        ports.append(f"{_int(port.get('port'))}{middle}/{_str(port.get('protocol'))}")
    return [
        _meta(obj).get("name", ""),
        _str(spec.get("type")),
        _str(cluster_ips[0]) if cluster_ips else "<none>",
        _external_ip(spec, obj.get("status")),
        ",".join(ports) or "<none>",
        _age(obj, now_ns),
        _format_labels(spec.get("selector")),
    ]


def _external_ip(spec: Obj, status: Any) -> str:
    """``getServiceExternalIP`` with wide output: load balancer addresses are not clipped."""
    external_ips = [_str(ip) for ip in _list(spec.get("externalIPs"))]
    service_type = spec.get("type")
    if service_type in ("ClusterIP", "NodePort"):
        return ",".join(external_ips) or "<none>"
    if service_type == "LoadBalancer":
        ingress = _dicts(_get(status, "loadBalancer", "ingress"))
        addresses = sorted({_str(i.get("ip")) or _str(i.get("hostname")) for i in ingress} - {""})
        return ",".join(addresses + external_ips) or "<pending>"
    if service_type == "ExternalName":
        return _str(spec.get("externalName"))
    return "<unknown>"


def _pod_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = _obj(obj.get("spec")), _obj(obj.get("status"))
    containers, init_containers = _dicts(spec.get("containers")), _dicts(spec.get("initContainers"))
    phase = _str(status.get("phase"))
    reason = _str(status.get("reason")) or phase
    for condition in _dicts(status.get("conditions")):
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    sidecars = {_str(c.get("name")) for c in init_containers if c.get("restartPolicy") == "Always"}
    total, ready = len(containers) + len(sidecars), 0
    restarts = sidecar_restarts = 0
    last_restart = last_sidecar_restart = _ZERO_TIME
    initializing = False
    for index, container in enumerate(_dicts(status.get("initContainerStatuses"))):
        count, finished = _int(container.get("restartCount")), _finished_at(container)
        restarts, last_restart = restarts + count, max(last_restart, finished)
        sidecar = _str(container.get("name")) in sidecars
        if sidecar:
            sidecar_restarts, last_sidecar_restart = sidecar_restarts + count, max(last_sidecar_restart, finished)
        terminated, waiting = _get(container, "state", "terminated"), _get(container, "state", "waiting")
        if isinstance(terminated, dict) and _int(terminated.get("exitCode")) == 0:
            continue
        if sidecar and container.get("started") is True:
            ready += 1 if container.get("ready") is True else 0
            continue
        if isinstance(terminated, dict):
            reason = "Init:" + (_str(terminated.get("reason")) or _exit_reason(terminated))
        elif isinstance(waiting, dict) and _str(waiting.get("reason")) not in ("", "PodInitializing"):
            reason = "Init:" + _str(waiting.get("reason"))
        else:
            reason = f"Init:{index}/{len(init_containers)}"
        initializing = True
        break
    initialized = any(
        c.get("type") == "Initialized" and c.get("status") == "True" for c in _dicts(status.get("conditions"))
    )
    if not initializing or initialized:
        restarts, last_restart = sidecar_restarts, last_sidecar_restart
        running = False
        for container in reversed(_dicts(status.get("containerStatuses"))):
            restarts += _int(container.get("restartCount"))
            last_restart = max(last_restart, _finished_at(container))
            state = _obj(container.get("state"))
            terminated, waiting = state.get("terminated"), state.get("waiting")
            if isinstance(waiting, dict) and _str(waiting.get("reason")):
                reason = _str(waiting.get("reason"))
            elif isinstance(terminated, dict):
                reason = _str(terminated.get("reason")) or _exit_reason(terminated)
            elif container.get("ready") is True and isinstance(state.get("running"), dict):
                running = True
                ready += 1
        if reason == "Completed" and running:
            pod_ready = any(
                c.get("type") == "Ready" and c.get("status") == "True" for c in _dicts(status.get("conditions"))
            )
            reason = "Running" if pod_ready else "NotReady"
    if _meta(obj).get("deletionTimestamp") is not None:
        if status.get("reason") == "NodeLost":
            reason = "Unknown"
        elif phase not in ("Failed", "Succeeded"):
            reason = "Terminating"
    restarts_text = str(restarts)
    if restarts != 0 and last_restart != _ZERO_TIME:
        restarts_text = f"{restarts} ({_since(last_restart, now_ns)} ago)"
    pod_ips = _dicts(status.get("podIPs"))
    gates = _dicts(spec.get("readinessGates"))
    return [
        _meta(obj).get("name", ""),
        f"{ready}/{total}",
        reason,
        restarts_text,
        _age(obj, now_ns),
        (_str(pod_ips[0].get("ip")) if pod_ips else "") or "<none>",
        _str(spec.get("nodeName")) or "<none>",
        _str(status.get("nominatedNodeName")) or "<none>",
        f"{_true_gates(gates, status)}/{len(gates)}" if gates else "<none>",
    ]


def _finished_at(container_status: Obj) -> tuple[int, int]:
    terminated = _get(container_status, "lastState", "terminated")
    if not isinstance(terminated, dict):
        return _ZERO_TIME
    return _parse_time(terminated.get("finishedAt")) or _ZERO_TIME


def _exit_reason(terminated: Obj) -> str:
    signal = _int(terminated.get("signal"))
    return f"Signal:{signal}" if signal != 0 else f"ExitCode:{_int(terminated.get('exitCode'))}"


def _true_gates(gates: list[Obj], status: Obj) -> int:
    conditions = _dicts(status.get("conditions"))
    count = 0
    for gate in gates:
        matching = [c for c in conditions if c.get("type") == gate.get("conditionType")]
        count += 1 if matching and matching[0].get("status") == "True" else 0
    return count


def _pod_conditions(obj: Obj) -> list[Obj]:
    phase = _get(obj, "status", "phase")
    messages = {"Succeeded": "The pod has completed successfully.", "Failed": "The pod failed."}
    if phase not in messages:
        return []
    return [{"type": "Completed", "status": "True", "reason": phase, "message": messages[phase]}]


def _deployment_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = _obj(obj.get("spec")), _obj(obj.get("status"))
    selector = _selector_string(spec.get("selector"))
    return [
        _meta(obj).get("name", ""),
        f"{_int(status.get('readyReplicas'))}/{_int(spec.get('replicas'))}",
        _int(status.get("updatedReplicas")),
        _int(status.get("availableReplicas")),
        _age(obj, now_ns),
        *_containers_and_images(_get(spec, "template", "spec")),
        "<invalid>" if selector is None else selector,
    ]


def _job_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = _obj(obj.get("spec")), _obj(obj.get("status"))
    succeeded = _int(status.get("succeeded"))
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{_int(spec.get('completions'))}"
    elif _int(spec.get("parallelism")) > 1:
        completions = f"{succeeded}/1 of {_int(spec.get('parallelism'))}"
    else:
        completions = f"{succeeded}/1"
    start, completion = _parse_time(status.get("startTime")), _parse_time(status.get("completionTime"))
    duration = ""
    if start is not None:
        end = now_ns if completion is None else completion[0] * NANOS + completion[1]
        duration = _human_nanos(end - (start[0] * NANOS + start[1]))
    conditions = _dicts(status.get("conditions"))

    def has(kind: str) -> bool:
        matching = [c for c in conditions if c.get("type") == kind]
        return bool(matching) and matching[0].get("status") == "True"

    if has("Complete"):
        state = "Complete"
    elif has("Failed"):
        state = "Failed"
    elif _meta(obj).get("deletionTimestamp") is not None:
        state = "Terminating"
    else:
        state = next((kind for kind in ("Suspended", "FailureTarget") if has(kind)), "Running")
    selector = _selector_string(spec.get("selector"))
    return [
        _meta(obj).get("name", ""),
        state,
        completions,
        duration,
        _age(obj, now_ns),
        *_containers_and_images(_get(spec, "template", "spec")),
        "<error>" if selector is None else selector or "<none>",
    ]


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
    first_time = _parse_time(obj.get("firstTimestamp"))
    if first_time is None or first_time == _ZERO_TIME:
        first_time = _parse_time(obj.get("eventTime"))
    first = _since(first_time, now_ns)
    last_time = _parse_time(obj.get("lastTimestamp"))
    last = _since(last_time, now_ns) if last_time and last_time != _ZERO_TIME else first
    count = _int(obj.get("count"))
    if isinstance(series := obj.get("series"), dict):
        last = _since(_parse_time(series.get("lastObservedTime")), now_ns)
        count = _int(series.get("count"))
    elif count == 0:
        count = 1
    involved = _obj(obj.get("involvedObject"))
    kind, name = _str(involved.get("kind")).lower(), _str(involved.get("name"))
    component = _str(_get(obj, "source", "component")) or _str(obj.get("reportingComponent"))
    host = _str(_get(obj, "source", "host")) or _str(obj.get("reportingInstance"))
    return [
        last,
        _str(obj.get("type")),
        _str(obj.get("reason")),
        f"{kind}/{name}" if name else kind,
        _str(involved.get("fieldPath")),
        f"{component}, {host}" if host else component,
        _str(obj.get("message")).strip(),
        first,
        count,
        _meta(obj).get("name", ""),
    ]


_CONTAINER_COLUMNS = (
    column("Containers", "string", CONTAINERS_DOC, priority=1),
    column("Images", "string", IMAGES_DOC, priority=1),
)
_EVENT_PRINTER = Printer(
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
_BUILTIN_PRINTERS: dict[tuple[str, str], Printer] = {
    ("", "configmaps"): Printer(
        (NAME_COLUMN, column("Data", "string", _DOCS["configmap.data"]), AGE_COLUMN), _configmap_cells
    ),
    ("", "secrets"): Printer(
        (
            NAME_COLUMN,
            column("Type", "string", _DOCS["secret.type"]),
            column("Data", "string", _DOCS["secret.data"]),
            AGE_COLUMN,
        ),
        _secret_cells,
    ),
    ("", "namespaces"): Printer(
        (NAME_COLUMN, column("Status", "string", "The status of the namespace"), AGE_COLUMN), _namespace_cells
    ),
    ("", "serviceaccounts"): Printer(
        (NAME_COLUMN, column("Secrets", "string", _DOCS["serviceaccount.secrets"]), AGE_COLUMN), _serviceaccount_cells
    ),
    ("coordination.k8s.io", "leases"): Printer(
        (NAME_COLUMN, column("Holder", "string", _DOCS["lease.holderIdentity"]), AGE_COLUMN), _lease_cells
    ),
    ("", "services"): Printer(
        (
            NAME_COLUMN,
            column("Type", "string", _DOCS["service.type"]),
            column("Cluster-IP", "string", _DOCS["service.clusterIP"]),
            column("External-IP", "string", _DOCS["service.externalIPs"]),
            column("Port(s)", "string", _DOCS["service.ports"]),
            AGE_COLUMN,
            column("Selector", "string", _DOCS["service.selector"], priority=1),
        ),
        _service_cells,
    ),
    ("", "pods"): Printer(
        (
            NAME_COLUMN,
            column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
            column("Status", "string", "The aggregate status of the containers in this pod."),
            column(
                "Restarts",
                "string",
                "The number of times the containers in this pod have been restarted and when the last container "
                "in this pod has restarted.",
            ),
            AGE_COLUMN,
            column("IP", "string", _DOCS["pod.podIP"], priority=1),
            column("Node", "string", _DOCS["pod.nodeName"], priority=1),
            column("Nominated Node", "string", _DOCS["pod.nominatedNodeName"], priority=1),
            column("Readiness Gates", "string", _DOCS["pod.readinessGates"], priority=1),
        ),
        _pod_cells,
        conditions=_pod_conditions,
    ),
    ("apps", "deployments"): Printer(
        (
            NAME_COLUMN,
            column("Ready", "string", "Number of the pod with ready state"),
            column("Up-to-date", "string", _DOCS["deployment.updatedReplicas"]),
            column("Available", "string", _DOCS["deployment.availableReplicas"]),
            AGE_COLUMN,
            *_CONTAINER_COLUMNS,
            column("Selector", "string", _DOCS["deployment.selector"], priority=1),
        ),
        _deployment_cells,
    ),
    ("batch", "jobs"): Printer(
        (
            NAME_COLUMN,
            column("Status", "string", "Status of the job."),
            column("Completions", "string", _DOCS["job.succeeded"]),
            column("Duration", "string", "Time required to complete the job."),
            AGE_COLUMN,
            *_CONTAINER_COLUMNS,
            column("Selector", "string", _DOCS["job.selector"], priority=1),
        ),
        _job_cells,
    ),
    ("", "events"): _EVENT_PRINTER,
    ("events.k8s.io", "events"): _EVENT_PRINTER,
}
