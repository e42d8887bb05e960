"""kube-controller-manager's disruption controller (``pkg/controller/disruption/disruption.go``
``trySync``, ``updatePdbStatus``, ``failSafe``): each PodDisruptionBudget's status.

For a budget, the pods of its namespace its selector takes (none without a selector, all with an
empty one) give:

* ``expectedPods``: with an integer ``minAvailable``, the number of those pods; with a percentage
  or ``maxUnavailable``, the sum of the scales of their controllers (``getExpectedScale``: a
  ReplicationController's, a Deployment's through its ReplicaSet, a lone ReplicaSet's, a
  StatefulSet's, or the ``/scale`` of any other kind), pods without a controller left out;
* ``desiredHealthy``: ``minAvailable``, or ``expectedPods - maxUnavailable`` (at least 0),
  percentages rounded up (``GetScaledValueFromIntOrPercent``);
* ``currentHealthy``: the pods that are Ready, not being deleted and not in ``disruptedPods`` (an
  eviction's entry stays there two minutes, ``DeletionTimeout``, unless the pod is being deleted);
* ``disruptionsAllowed``: ``currentHealthy - desiredHealthy``, 0 when negative or no pod is expected;
* ``observedGeneration`` and the ``DisruptionAllowed`` condition (True ``SufficientPods`` while a
  disruption is allowed, else False ``InsufficientPods``; ``message`` empty).

A pod whose controller cannot be found makes the sync fail: ``disruptionsAllowed`` 0 and the
condition False ``SyncFailed`` with the error (``found no controllers for pod "x"``, ``jobs.batch
does not implement the scale subresource``), ``observedGeneration`` left as it was. The status is
written only when one of these changed, by ``kube-controller-manager``; a budget that takes no pod
gets the ``NoPods`` Event (``No matching pods found``) with that write, from ``controllermanager``.
A pod left with a ``DisruptionTarget`` condition True that is not being deleted has it set False
two minutes after it was set (``syncStalePodDisruption``). docs/quota-disruption-autoscaling.md.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.controller_refs import controller_of
from fakeapi._cluster.status_writes import CONTROLLER_MANAGER, write_status_fields
from fakeapi._state.clock import parse_timestamp
from fakeapi._state.kinds import builtin_type
from fakeapi._state.label_selectors import requirements_match
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["disruption_due", "sync_disruption_budgets"]

BUDGETS = builtin_type("policy", "v1", "PodDisruptionBudget")
PODS = builtin_type("", "v1", "Pod")
DELETION_TIMEOUT = 120.0
STALE_DISRUPTION_TIMEOUT = 120.0
COMPONENT = "controllermanager"


class SyncFailed(Exception):
    """``trySync``'s error: its text becomes the ``SyncFailed`` condition's message."""


def sync_disruption_budgets(simulation: ControllerContext) -> None:
    store = simulation.store
    for budget in store.items(BUDGETS, None):
        _sync(simulation, budget)
    for pod in store.items(PODS, None):
        since = _stale_since(pod)
        if since is not None and since + STALE_DISRUPTION_TIMEOUT <= store.clock.now():
            _clear_disruption_target(simulation, pod)


def disruption_due(simulation: ControllerContext) -> float | None:
    """When a ``disruptedPods`` entry expires, or a stale ``DisruptionTarget`` is to be cleared."""
    store = simulation.store
    times = []
    for budget in store.items(BUDGETS, None):
        for stamp in ((budget.get("status") or {}).get("disruptedPods") or {}).values():
            when = parse_timestamp(str(stamp))
            if when is not None:
                times.append(when + DELETION_TIMEOUT)
    for pod in store.items(PODS, None):
        since = _stale_since(pod)
        if since is not None:
            times.append(since + STALE_DISRUPTION_TIMEOUT)
    now = store.clock.now()
    later = [t for t in times if t > now]
    return min(later, default=None)


def _sync(simulation: ControllerContext, budget: dict[str, Any]) -> None:
    store = simulation.store
    meta = metadata_of(budget)
    namespace = meta.get("namespace", "")
    pods = [p for p in store.items(PODS, namespace) if _selects(budget, metadata_of(p).get("labels") or {})]
    status = budget.get("status") or {}
    try:
        expected, desired = _expected_and_desired(simulation, budget, pods)
    except SyncFailed as failure:
        _fail_safe(simulation, budget, str(failure))
        return
    now = store.clock.now()
    disrupted = _disrupted(pods, status.get("disruptedPods") or {}, now)
    healthy = sum(1 for p in pods if _counts_healthy(p, disrupted, now))
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    generation = meta.get("generation") or 0
    wanted_condition = ("True", "SufficientPods") if allowed > 0 else ("False", "InsufficientPods")
    condition = next((c for c in status.get("conditions") or [] if c.get("type") == "DisruptionAllowed"), None)
    up_to_date = (
        condition is not None
        and (status.get("observedGeneration") or 0) == generation
        and (condition.get("status"), condition.get("reason")) == wanted_condition
    )
    if (
        (status.get("currentHealthy") or 0) == healthy
        and (status.get("desiredHealthy") or 0) == desired
        and (status.get("expectedPods") or 0) == expected
        and (status.get("disruptionsAllowed") or 0) == allowed
        and (status.get("disruptedPods") or {}) == disrupted
        and (status.get("observedGeneration") or 0) == generation
        and up_to_date
    ):
        return
    conditions = _set_condition(
        status.get("conditions") or [],
        wanted_condition[0],
        wanted_condition[1],
        "",
        generation,
        store.clock.timestamp(),
    )
    fields: dict[str, Any] = {
        "observedGeneration": generation or None,
        "disruptedPods": disrupted or None,
        "disruptionsAllowed": allowed,
        "currentHealthy": healthy,
        "desiredHealthy": desired,
        "expectedPods": expected,
        "conditions": conditions,
    }
    write_status_fields(simulation, BUDGETS, budget, fields)
    if not pods:
        simulation.recorder.record(
            budget, "Normal", "NoPods", "No matching pods found", component=COMPONENT, manager=CONTROLLER_MANAGER
        )


def _fail_safe(simulation: ControllerContext, budget: dict[str, Any], message: str) -> None:
    status = budget.get("status") or {}
    conditions = _set_condition(
        status.get("conditions") or [],
        "False",
        "SyncFailed",
        message,
        status.get("observedGeneration") or 0,
        simulation.store.clock.timestamp(),
    )
    if (status.get("disruptionsAllowed") or 0) == 0 and conditions == (status.get("conditions") or []):
        return
    write_status_fields(simulation, BUDGETS, budget, {"disruptionsAllowed": 0, "conditions": conditions})


def _set_condition(
    conditions: list[dict[str, Any]], status: str, reason: str, message: str, generation: int, now: str
) -> list[dict[str, Any]]:
    """``apimeta.SetStatusCondition`` of ``DisruptionAllowed`` (``metav1.Condition``, in its field order)."""
    result = []
    found = False
    for condition in conditions:
        if condition.get("type") != "DisruptionAllowed":
            result.append(condition)
            continue
        found = True
        changed = condition.get("status") != status
        result.append(
            _condition(status, reason, message, generation, now if changed else condition["lastTransitionTime"])
        )
    if not found:
        result.append(_condition(status, reason, message, generation, now))
    return result


def _condition(status: str, reason: str, message: str, generation: int, when: Any) -> dict[str, Any]:
    condition: dict[str, Any] = {"type": "DisruptionAllowed", "status": status}
    if generation:
        condition["observedGeneration"] = generation
    condition.update({"lastTransitionTime": when, "reason": reason, "message": message})
    return condition


def _expected_and_desired(
    simulation: ControllerContext, budget: dict[str, Any], pods: list[dict[str, Any]]
) -> tuple[int, int]:
    """``getExpectedPodCount``."""
    spec = budget.get("spec") or {}
    max_unavailable, min_available = spec.get("maxUnavailable"), spec.get("minAvailable")
    if max_unavailable is not None:
        expected = _expected_scale(simulation, pods)
        return expected, max(0, expected - _scaled(max_unavailable, expected))
    if isinstance(min_available, int):
        return len(pods), min_available
    if isinstance(min_available, str):
        expected = _expected_scale(simulation, pods)
        return expected, _scaled(min_available, expected)
    return 0, 0


def _scaled(value: Any, total: int) -> int:
    """``GetScaledValueFromIntOrPercent(value, total, roundUp=true)``."""
    if isinstance(value, int):
        return value
    text = str(value)
    if not text.endswith("%") or not text[:-1].lstrip("-").isdigit():
        raise SyncFailed("invalid value for IntOrString: invalid type: string is not a percentage")
    return math.ceil(int(text[:-1]) * total / 100)


def _expected_scale(simulation: ControllerContext, pods: list[dict[str, Any]]) -> int:
    """``getExpectedScale``: the scales of the pods' controllers, each counted once."""
    scales: dict[str, int] = {}
    for pod in pods:
        reference = controller_of(pod)
        if reference is None or reference.get("uid") in scales:
            continue
        found = _scale_of(simulation, reference, metadata_of(pod).get("namespace", ""))
        if found is None:
            raise SyncFailed(f'found no controllers for pod "{metadata_of(pod).get("name", "")}"')
        scales[found[0]] = found[1]
    return sum(scales.values())


def _scale_of(simulation: ControllerContext, reference: dict[str, Any], namespace: str) -> tuple[str, int] | None:
    """The finders in order: ReplicationController, Deployment (through its ReplicaSet), ReplicaSet,
    StatefulSet, then the ``/scale`` of whatever kind the reference names."""
    store = simulation.store
    kind, group = reference.get("kind"), str(reference.get("apiVersion") or "").rpartition("/")[0]
    name, uid = str(reference.get("name") or ""), reference.get("uid")
    if kind == "ReplicaSet" and group in ("apps", "extensions"):
        replica_set = store.find(builtin_type("apps", "v1", "ReplicaSet"), namespace, name)
        if replica_set is None or metadata_of(replica_set).get("uid") != uid:
            return None
        owner = controller_of(replica_set)
        if owner is not None and owner.get("kind") == "Deployment":
            deployment = store.find(builtin_type("apps", "v1", "Deployment"), namespace, str(owner.get("name") or ""))
            if deployment is None or metadata_of(deployment).get("uid") != owner.get("uid"):
                return None
            return str(owner.get("uid")), _replicas(deployment)
        return str(uid), _replicas(replica_set)
    for finder_kind, finder_group, version in (("ReplicationController", "", "v1"), ("StatefulSet", "apps", "v1")):
        if kind == finder_kind and group == finder_group:
            found = store.find(builtin_type(finder_group, version, finder_kind), namespace, name)
            if found is None or metadata_of(found).get("uid") != uid:
                return None
            return str(uid), _replicas(found)
    return _scale_subresource(simulation, reference, namespace)


def _scale_subresource(
    simulation: ControllerContext, reference: dict[str, Any], namespace: str
) -> tuple[str, int] | None:
    """``getScaleController``: the kind's ``/scale``, or the error of a kind without one."""
    store = simulation.store
    api_version = str(reference.get("apiVersion") or "")
    group, _, version = api_version.rpartition("/")
    kind = reference.get("kind")
    rtype = next((t for t in store.registry.types_in(group, version) if t.kind == kind), None)
    if rtype is None:
        raise SyncFailed(f'no matches for kind "{kind}" in version "{api_version}"')
    if "scale" not in rtype.subresources:
        raise SyncFailed(f"{rtype.group_resource} does not implement the scale subresource")
    found = store.find(rtype, namespace, str(reference.get("name") or ""))
    if found is None or metadata_of(found).get("uid") != reference.get("uid"):
        return None
    value: Any = found
    for part in rtype.scale_paths[0].split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return str(reference.get("uid")), value if isinstance(value, int) else 0


def _replicas(obj: dict[str, Any]) -> int:
    replicas = (obj.get("spec") or {}).get("replicas")
    return replicas if isinstance(replicas, int) else 1


def _disrupted(pods: list[dict[str, Any]], previous: dict[str, Any], now: float) -> dict[str, Any]:
    """``buildDisruptedPodMap``: the entries of pods not yet being deleted whose time is not up."""
    kept = {}
    for pod in pods:
        meta = metadata_of(pod)
        name = meta.get("name", "")
        if meta.get("deletionTimestamp") is not None or name not in previous:
            continue
        when = parse_timestamp(str(previous[name]))
        if when is not None and not when + DELETION_TIMEOUT < now:
            kept[name] = previous[name]
    return kept


def _counts_healthy(pod: dict[str, Any], disrupted: dict[str, Any], now: float) -> bool:
    """``countHealthyPods``."""
    if metadata_of(pod).get("deletionTimestamp") is not None:
        return False
    name = metadata_of(pod).get("name", "")
    if name in disrupted:
        when = parse_timestamp(str(disrupted[name]))
        if when is not None and when + DELETION_TIMEOUT > now:
            return False
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions if isinstance(c, dict))


def _selects(budget: dict[str, Any], labels: dict[str, str]) -> bool:
    """``LabelSelectorAsSelector``: no selector takes nothing, an empty one everything."""
    selector = (budget.get("spec") or {}).get("selector")
    if not isinstance(selector, dict):
        return False
    expressions = [e for e in selector.get("matchExpressions") or [] if isinstance(e, dict)]
    return requirements_match(selector.get("matchLabels") or {}, expressions, labels)


def _stale_since(pod: dict[str, Any]) -> float | None:
    """``nonTerminatingPodHasStaleDisruptionCondition``: when the stale condition was set (None: none is)."""
    if metadata_of(pod).get("deletionTimestamp") is not None:
        return None
    status = pod.get("status") or {}
    if status.get("phase") in ("Succeeded", "Failed"):
        return None
    for condition in status.get("conditions") or []:
        if (
            isinstance(condition, dict)
            and condition.get("type") == "DisruptionTarget"
            and condition.get("status") == "True"
            and condition.get("reason") != "TerminationByKubelet"
        ):
            return parse_timestamp(str(condition.get("lastTransitionTime")))
    return None


def _clear_disruption_target(simulation: ControllerContext, pod: dict[str, Any]) -> None:
    """The condition replaced by ``DisruptionTarget`` False, with nothing else (``UpdatePodCondition``)."""
    now = simulation.store.clock.timestamp()
    conditions = [
        {"type": "DisruptionTarget", "status": "False", "lastProbeTime": None, "lastTransitionTime": now}
        if isinstance(c, dict) and c.get("type") == "DisruptionTarget"
        else c
        for c in (pod.get("status") or {}).get("conditions") or []
    ]
    write_status_fields(simulation, PODS, pod, {"conditions": conditions})
