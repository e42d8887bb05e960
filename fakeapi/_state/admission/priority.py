"""The Priority admission plugin (``plugin/pkg/admission/priority/admission.go``).

On a pod's create it resolves ``priorityClassName`` to ``priority`` and ``preemptionPolicy``: a pod
without one gets the global default class (the one of lowest value, should several be marked), its
name included, or priority 0 and ``PreemptLowerPriority`` when there is none; a name that no class
has is 403 (``no PriorityClass with name x was found``), and so is a pod that states another
priority or preemption policy than its class gives. On a PriorityClass's create or update it keeps
one global default: ``PriorityClass low is already marked as default. Only one default can exist``,
also a 403 (``admission.NewForbidden``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError, GroupResource

if TYPE_CHECKING:
    from fakeapi._state.storeview import StoreView

__all__ = ["admit_pod_priority", "check_single_global_default"]

_PODS = GroupResource("", "pods")
_PRIORITY_CLASSES = GroupResource("scheduling.k8s.io", "priorityclasses")


def _classes(store: StoreView) -> list[dict[str, Any]]:
    rtype = store.registry.resolve("scheduling.k8s.io", "v1", "priorityclasses")
    return list(store.bucket(rtype).values()) if rtype is not None else []


def _global_default(store: StoreView) -> dict[str, Any] | None:
    """``getDefaultPriorityClass``: of the classes marked as global default, the one of lowest value."""
    found: dict[str, Any] | None = None
    for candidate in _classes(store):
        if candidate.get("globalDefault") is True and (
            found is None or found.get("value", 0) > candidate.get("value", 0)
        ):
            found = candidate
    return found


def admit_pod_priority(store: StoreView, obj: dict[str, Any]) -> dict[str, Any]:
    """``admitPod`` on create: the pod with its priority class name, priority and preemption policy."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return obj
    name = str(metadata_of(obj).get("name") or "")
    class_name = spec.get("priorityClassName") or ""
    if not class_name:
        chosen = _global_default(store)
        class_name = str(chosen.get("metadata", {}).get("name") or "") if chosen is not None else ""
        priority = chosen.get("value", 0) if chosen is not None else 0
        policy = chosen.get("preemptionPolicy") if chosen is not None else "PreemptLowerPriority"
    else:
        chosen = next((c for c in _classes(store) if metadata_of(c).get("name") == class_name), None)
        if chosen is None:
            raise APIError.forbidden(_PODS, name, f"no PriorityClass with name {class_name} was found")
        priority, policy = chosen.get("value", 0), chosen.get("preemptionPolicy")
    if spec.get("priority") is not None and spec["priority"] != priority:
        problem = (
            f"the integer value of priority ({spec['priority']}) must not be provided in pod spec; "
            f"priority admission controller computed {priority} from the given PriorityClass name"
        )
        raise APIError.forbidden(_PODS, name, problem)
    given_policy = spec.get("preemptionPolicy")
    if given_policy is not None and policy is not None and given_policy != policy:
        problem = (
            f"the string value of PreemptionPolicy ({given_policy}) must not be provided in pod spec; "
            f"priority admission controller computed {policy} from the given PriorityClass name"
        )
        raise APIError.forbidden(_PODS, name, problem)
    admitted = {**spec, "priority": priority}
    if class_name:
        admitted["priorityClassName"] = class_name
    if given_policy is None and policy is not None:
        admitted["preemptionPolicy"] = policy
    return {**obj, "spec": admitted}


def check_single_global_default(store: StoreView, priority_class: dict[str, Any], creating: bool) -> None:
    """``validatePriorityClass``: a second global default is refused."""
    if priority_class.get("globalDefault") is not True:
        return
    current = _global_default(store)
    if current is None:
        return
    current_name = metadata_of(current).get("name")
    name = str(metadata_of(priority_class).get("name") or "")
    if creating or current_name != name:
        problem = f"PriorityClass {current_name} is already marked as default. Only one default can exist"
        raise APIError.forbidden(_PRIORITY_CLASSES, name, problem)
