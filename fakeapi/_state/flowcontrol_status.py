"""The ``Dangling`` condition API Priority and Fairness's config controller keeps on every FlowSchema.

k8s.io/apiserver ``pkg/util/flowcontrol/apf_controller.go``, ``presyncFlowSchemaStatus``: whenever
the controller digests the configuration it works out, for each FlowSchema, whether the
PriorityLevelConfiguration it names exists, and when the schema's ``Dangling`` condition says
otherwise (status, reason or message) it applies a new one to the ``status`` subresource, forced,
as ``api-priority-and-fairness-config-consumer-v1`` (``ConfigConsumerAsFieldManager``), with the
transition time now. Here it runs inside the write that makes it due: a FlowSchema written (its
status included) or a priority level created or deleted (docs/priority-and-fairness.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state import field_ownership
from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.storeview import StoreView

__all__ = ["CONSUMER", "sync_dangling", "sync_referrers"]

CONSUMER = "api-priority-and-fairness-config-consumer-v1"
_GROUP = "flowcontrol.apiserver.k8s.io"


def _desired(level: str, found: bool) -> dict[str, str]:
    if found:
        return {
            "status": "False",
            "reason": "Found",
            "message": f'This FlowSchema references the PriorityLevelConfiguration object named "{level}" and it exists',
        }
    return {
        "status": "True",
        "reason": "NotFound",
        "message": f'This FlowSchema references the PriorityLevelConfiguration object named "{level}"'
        " but there is no such object",
    }


def _level_name(flow_schema: dict[str, Any]) -> str:
    spec = flow_schema.get("spec")
    reference = spec.get("priorityLevelConfiguration") if isinstance(spec, dict) else None
    name = reference.get("name") if isinstance(reference, dict) else None
    return name if isinstance(name, str) else ""


def _dangling_condition(flow_schema: dict[str, Any]) -> dict[str, Any]:
    status = flow_schema.get("status")
    conditions = status.get("conditions") if isinstance(status, dict) else None
    for condition in conditions if isinstance(conditions, list) else ():
        if isinstance(condition, dict) and condition.get("type") == "Dangling":
            return condition
    return {}


def sync_dangling(store: StoreView, rtype: ResourceType, flow_schema: dict[str, Any]) -> None:
    """Apply the schema's ``Dangling`` condition when it does not say what the store holds."""
    level = _level_name(flow_schema)
    levels = store.registry.resolve(_GROUP, "v1", "prioritylevelconfigurations")
    desired = _desired(level, levels is not None and store.find(levels, "", level) is not None)
    current = _dangling_condition(flow_schema)
    if all(current.get(key) == value for key, value in desired.items()):
        return
    name = str(metadata_of(flow_schema).get("name", ""))
    now = store.clock.timestamp()
    applied = {
        "kind": rtype.kind,
        "apiVersion": rtype.api_version,
        "metadata": {"name": name},
        "status": {"conditions": [{"type": "Dangling", **desired, "lastTransitionTime": now}]},
    }

    def apply(live: dict[str, Any]) -> dict[str, Any]:
        return field_ownership.merge_applied(
            live,
            applied,
            atom=field_ownership.kind_atom(rtype),
            manager=CONSUMER,
            api_version=rtype.api_version,
            force=True,
            now=now,
            status_is_subresource=True,
            subresource="status",
        )

    try:
        store.update(
            rtype, "", name, apply, subresource="status", manager=CONSUMER, unconditional=True, track_fields=False
        )
    except APIError:
        # Upstream logs a failed write and tries again at its next digest; the write that triggered it stands.
        return


def sync_referrers(store: StoreView, level: str) -> None:
    """After a priority level came or went: the schemas that name it."""
    schemas = store.registry.resolve(_GROUP, "v1", "flowschemas")
    if schemas is None:
        return
    for flow_schema in list(store.bucket(schemas).values()):
        if _level_name(flow_schema) == level:
            sync_dangling(store, schemas, flow_schema)
