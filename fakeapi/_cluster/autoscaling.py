"""kube-controller-manager's horizontal pod autoscaler (``pkg/controller/podautoscaler/horizontal.go``
``reconcileAutoscaler``) in a cluster without a metrics server.

Every HorizontalPodAutoscaler is reconciled 15 seconds after it is created and every 15 seconds
after that (the controller's queue adds each key with the resync period as its delay). Each
reconcile:

* reads the target's ``/scale``; without one it sets ``AbleToScale`` False ``FailedGetScale``
  (``the HPA controller was unable to get the target's current scale: <error>``) and stops;
  otherwise ``AbleToScale`` True ``SucceededGetScale``;
* with the target at 0 replicas (and ``minReplicas`` not 0) sets ``ScalingActive`` False
  ``ScalingDisabled``; above ``maxReplicas`` or below ``minReplicas`` rescales it there (a write of
  its ``/scale``, ``AbleToScale`` True ``SucceededRescale``, ``lastScaleTime``, a
  ``SuccessfulRescale`` Event ``New size: <n>; reason: Current number of replicas below
  Spec.MinReplicas``);
* otherwise asks for the metrics, which no metrics server answers: each Resource or
  ContainerResource metric fails with ``unable to fetch metrics from resource metrics API: the
  server could not find the requested resource (get pods.metrics.k8s.io)``, so ``ScalingActive`` is
  False ``FailedGetResourceMetric`` (``FailedGetContainerResourceMetric``) with ``the HPA was unable
  to compute the replica count: failed to get cpu utilization: unable to get metrics for resource
  cpu: ...``, ``currentMetrics`` holds one empty status per metric, ``desiredReplicas`` stays as it
  was, and the Events are ``FailedGetResourceMetric`` and ``FailedComputeMetricsReplicas``
  (``invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value:
  ...``);
* writes the status (``currentReplicas``, ``desiredReplicas``, ``lastScaleTime``, ``currentMetrics``,
  ``conditions``) when it changed, by ``kube-controller-manager``.

Events come from ``horizontal-pod-autoscaler``, written with the status write they go with: a
reconcile that changes nothing writes nothing (upstream repeats its Warning Events every 15
seconds, and the event recorder folds them into one Event's ``count``). An autoscaler with a Pods,
Object or External metric is not reconciled, nor is the selector shared by two autoscalers noticed
(``AmbiguousSelector``). docs/quota-disruption-autoscaling.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.status_writes import CONTROLLER_MANAGER, write_status
from fakeapi._state.clock import parse_timestamp
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext
    from fakeapi._state.resources import ResourceType

__all__ = ["AutoscalerSync", "autoscaler_due", "sync_autoscalers"]

AUTOSCALERS = builtin_type("autoscaling", "v2", "HorizontalPodAutoscaler")
SYNC_PERIOD = 15
COMPONENT = "horizontal-pod-autoscaler"
NO_METRICS_SERVER = (
    "unable to fetch metrics from resource metrics API: "
    "the server could not find the requested resource (get pods.metrics.k8s.io)"
)
_SIMULATED_METRICS = frozenset({"Resource", "ContainerResource"})


@dataclass(frozen=True)
class AutoscalerSync:
    """The last reconcile of one autoscaler: its instant, and the rescale whose status is still to write."""

    tick: float
    rescaled: tuple[int, int] | None = None
    """After a rescale: the replicas set and those the target had before."""


Event = tuple[str, str, str]


def sync_autoscalers(simulation: ControllerContext) -> None:
    now = simulation.store.clock.now()
    for hpa in simulation.store.items(AUTOSCALERS, None):
        if not _simulated(hpa):
            continue
        uid = str(metadata_of(hpa).get("uid"))
        done = simulation.autoscaler_syncs.get(uid)
        if done is not None and done.rescaled is not None:
            _finish_rescale(simulation, hpa, done)
            continue
        tick = _latest_tick(hpa, now)
        if tick is not None and (done is None or done.tick < tick):
            _reconcile(simulation, hpa, tick)


def autoscaler_due(simulation: ControllerContext) -> float | None:
    """The next reconcile instant of any autoscaler."""
    now = simulation.store.clock.now()
    times = []
    for hpa in simulation.store.items(AUTOSCALERS, None):
        created = parse_timestamp(str(metadata_of(hpa).get("creationTimestamp")))
        if created is None or not _simulated(hpa):
            continue
        elapsed = max(0, math.floor((now - created) / SYNC_PERIOD))
        times.append(created + SYNC_PERIOD * (elapsed + 1))
    return min(times, default=None)


def _latest_tick(hpa: dict[str, Any], now: float) -> float | None:
    created = parse_timestamp(str(metadata_of(hpa).get("creationTimestamp")))
    if created is None or now < created + SYNC_PERIOD:
        return None
    return created + SYNC_PERIOD * math.floor((now - created) / SYNC_PERIOD)


def _simulated(hpa: dict[str, Any]) -> bool:
    metrics = _metrics(hpa)
    return bool(metrics) and all(m.get("type") in _SIMULATED_METRICS for m in metrics)


def _metrics(hpa: dict[str, Any]) -> list[dict[str, Any]]:
    """The v2 metrics; an object written as autoscaling/v1 is read as the apiserver converts it, its
    CPU target a Resource metric (80 % when it has none, the v2 default)."""
    spec = hpa.get("spec") or {}
    if hpa.get("apiVersion") != "autoscaling/v1" and "targetCPUUtilizationPercentage" not in spec:
        return [m for m in spec.get("metrics") or [] if isinstance(m, dict)]
    utilization = spec.get("targetCPUUtilizationPercentage")
    target = {"type": "Utilization", "averageUtilization": utilization if isinstance(utilization, int) else 80}
    return [{"type": "Resource", "resource": {"name": "cpu", "target": target}}]


def _reconcile(simulation: ControllerContext, hpa: dict[str, Any], tick: float) -> None:
    store = simulation.store
    spec, status = hpa.get("spec") or {}, hpa.get("status") or {}
    conditions: list[dict[str, Any]] = [dict(c) for c in status.get("conditions") or [] if isinstance(c, dict)]
    now = store.clock.timestamp()
    uid = str(metadata_of(hpa).get("uid"))
    found = _scale_of(simulation, hpa)
    if isinstance(found, str):
        message = f"the HPA controller was unable to get the target's current scale: {found}"
        conditions = _set(conditions, "AbleToScale", "False", "FailedGetScale", message, now)
        _write(simulation, hpa, {**status, "conditions": conditions}, [("Warning", "FailedGetScale", found)])
        simulation.autoscaler_syncs[uid] = AutoscalerSync(tick)
        return
    target_type, target, current, selector = found
    conditions = _set(
        conditions,
        "AbleToScale",
        "True",
        "SucceededGetScale",
        "the HPA controller was able to get the target's current scale",
        now,
    )
    minimum, maximum = spec.get("minReplicas"), spec.get("maxReplicas")
    minimum = minimum if isinstance(minimum, int) else 1
    maximum = maximum if isinstance(maximum, int) else 0
    if current == 0 and minimum != 0:
        message = "scaling is disabled since the replica count of the target is zero"
        conditions = _set(conditions, "ScalingActive", "False", "ScalingDisabled", message, now)
        new_status = _status(current, 0, status.get("lastScaleTime"), None, conditions)
        _write(simulation, hpa, new_status, [])
    elif current > maximum or current < minimum:
        desired = maximum if current > maximum else minimum
        reason = (
            "Current number of replicas above Spec.MaxReplicas"
            if current > maximum
            else "Current number of replicas below Spec.MinReplicas"
        )
        _rescale(simulation, target_type, target, desired)
        simulation.autoscaler_syncs[uid] = AutoscalerSync(tick, (desired, current))
        simulation.recorder.record(
            hpa,
            "Normal",
            "SuccessfulRescale",
            f"New size: {desired}; reason: {reason}",
            component=COMPONENT,
            manager=CONTROLLER_MANAGER,
        )
        _finish_rescale(simulation, hpa, simulation.autoscaler_syncs[uid])
        return
    else:
        _without_metrics(simulation, hpa, current, selector, conditions, now)
    simulation.autoscaler_syncs[uid] = AutoscalerSync(tick)


def _without_metrics(
    simulation: ControllerContext,
    hpa: dict[str, Any],
    current: int,
    selector: bool,
    conditions: list[dict[str, Any]],
    now: str,
) -> None:
    """``computeReplicasForMetrics`` with no metrics to be had, and the status it leaves."""
    status = hpa.get("status") or {}
    events: list[Event] = []
    statuses: list[dict[str, Any]] | None = None
    if not selector:
        events.append(("Warning", "SelectorRequired", "selector is required"))
        message = "the HPA target's scale is missing a selector"
        conditions = _set(conditions, "ScalingActive", "False", "InvalidSelector", message, now)
        failure = "selector is required"
    else:
        metrics = _metrics(hpa)
        statuses = [{"type": ""} for _ in metrics]
        failures = [_metric_failure(metric) for metric in metrics]
        events.extend(("Warning", reason, error) for reason, error, _ in failures)
        reason, error, wrapped = failures[0]
        message = f"the HPA was unable to compute the replica count: {error}"
        conditions = _set(conditions, "ScalingActive", "False", reason, message, now)
        failure = f"invalid metrics ({len(metrics)} invalid out of {len(metrics)}), first error is: {wrapped}"
    new_status = _status(current, status.get("desiredReplicas") or 0, status.get("lastScaleTime"), statuses, conditions)
    events.append(("Warning", "FailedComputeMetricsReplicas", failure))
    _write(simulation, hpa, new_status, events)


def _metric_failure(metric: dict[str, Any]) -> tuple[str, str, str]:
    """A Resource or ContainerResource metric's failure: the condition reason, the error, and the
    error as ``computeReplicasForMetric`` wraps it."""
    container = metric.get("type") == "ContainerResource"
    source = (metric.get("containerResource") if container else metric.get("resource")) or {}
    name, target = source.get("name", ""), source.get("target") or {}
    fetch = f"unable to get metrics for resource {name}: {NO_METRICS_SERVER}"
    if target.get("averageValue") is not None:
        error = f"failed to get {name} usage: {fetch}"
    elif target.get("averageUtilization") is None:
        error = (
            "invalid resource metric source: neither an average utilization target nor an average value "
            "(usage) target was set"
        )
    else:
        error = f"failed to get {name} utilization: {fetch}"
    if container:
        wrapped = f"failed to get {source.get('container', '')} container metric value: {error}"
        return "FailedGetContainerResourceMetric", error, wrapped
    return "FailedGetResourceMetric", error, f"failed to get {name} resource metric value: {error}"


def _finish_rescale(simulation: ControllerContext, hpa: dict[str, Any], done: AutoscalerSync) -> None:
    """The status write after a rescale (a step of its own when the controller is stepped)."""
    assert done.rescaled is not None
    desired, before = done.rescaled
    status = hpa.get("status") or {}
    now = simulation.store.clock.timestamp()
    conditions = [dict(c) for c in status.get("conditions") or [] if isinstance(c, dict)]
    got = "the HPA controller was able to get the target's current scale"
    conditions = _set(conditions, "AbleToScale", "True", "SucceededGetScale", got, now)
    message = f"the HPA controller was able to update the target scale to {desired}"
    conditions = _set(conditions, "AbleToScale", "True", "SucceededRescale", message, now)
    _write(simulation, hpa, _status(before, desired, now, None, conditions), [])
    simulation.autoscaler_syncs[str(metadata_of(hpa).get("uid"))] = AutoscalerSync(done.tick)


def _status(
    current: int, desired: int, scaled: Any, metrics: list[dict[str, Any]] | None, conditions: list[dict[str, Any]]
) -> dict[str, Any]:
    """``setStatus``: the status rebuilt from these fields alone, in the struct's order."""
    status: dict[str, Any] = {}
    if scaled:
        status["lastScaleTime"] = scaled
    if current:
        status["currentReplicas"] = current
    status["desiredReplicas"] = desired
    if metrics:
        status["currentMetrics"] = metrics
    if conditions:
        status["conditions"] = conditions
    return status


def _set(
    conditions: list[dict[str, Any]], kind: str, status: str, reason: str, message: str, now: str
) -> list[dict[str, Any]]:
    """``setConditionInList``: the condition added at the end if new, its transition time moved on a change."""
    result = [dict(c) for c in conditions]
    found = next((c for c in result if c.get("type") == kind), None)
    if found is None:
        found = {"type": kind}
        result.append(found)
    changed = found.get("status") != status
    transition = now if changed else found.get("lastTransitionTime")
    found.clear()
    found.update(
        {"type": kind, "status": status, "lastTransitionTime": transition, "reason": reason, "message": message}
    )
    return result


def _write(simulation: ControllerContext, hpa: dict[str, Any], status: dict[str, Any], events: list[Event]) -> None:
    """``updateStatusIfNeeded``, then the Events of this reconcile (only when something changed)."""
    if _same(hpa.get("status") or {}, status):
        return
    write_status(simulation, AUTOSCALERS, hpa, status)
    for event_type, reason, message in events:
        simulation.recorder.record(hpa, event_type, reason, message, component=COMPONENT, manager=CONTROLLER_MANAGER)


def _same(stored: dict[str, Any], wanted: dict[str, Any]) -> bool:
    kept = {key: value for key, value in stored.items() if value not in (None, [], {}, 0, "")}
    return kept == {key: value for key, value in wanted.items() if value not in (None, [], {}, 0, "")}


def _scale_of(
    simulation: ControllerContext, hpa: dict[str, Any]
) -> tuple[ResourceType, dict[str, Any], int, bool] | str:
    """The target's kind, object, ``/scale`` replicas and whether its scale has a selector; or the error."""
    store = simulation.store
    reference = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
    api_version, kind = str(reference.get("apiVersion") or ""), str(reference.get("kind") or "")
    group = api_version.rpartition("/")[0]
    candidates = [t for t in store.registry.all_types() if t.group == group and t.kind == kind]
    if not candidates:
        return f'no matches for kind "{kind}" in group "{group}"'
    rtype = candidates[0]
    if "scale" not in rtype.subresources:
        return "the server could not find the requested resource"
    namespace = metadata_of(hpa).get("namespace", "")
    name = str(reference.get("name") or "")
    target = store.find(rtype, namespace, name)
    if target is None:
        return f'{rtype.group_resource} "{name}" not found'
    replicas_path, _, selector_path = rtype.scale_paths
    replicas = _at(target, replicas_path)
    if rtype.custom:
        selector = bool(_at(target, selector_path)) if selector_path else False
    else:
        given = (target.get("spec") or {}).get("selector")
        selector = bool(given.get("matchLabels") or given.get("matchExpressions")) if isinstance(given, dict) else False
        if rtype.kind == "ReplicationController":
            selector = bool(given)
    return rtype, target, replicas if isinstance(replicas, int) else 0, selector


def _at(obj: dict[str, Any], path: str) -> Any:
    value: Any = obj
    for part in path.lstrip(".").split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _rescale(simulation: ControllerContext, rtype: ResourceType, target: dict[str, Any], replicas: int) -> None:
    """The scale client's update of the target's ``/scale``: its replicas field set."""
    meta = metadata_of(target)
    path = rtype.scale_paths[0].lstrip(".").split(".")

    def scaled(current: dict[str, Any]) -> dict[str, Any]:
        new = dict(current)
        holder = new
        for part in path[:-1]:
            holder[part] = dict(holder.get(part) or {})
            holder = holder[part]
        holder[path[-1]] = replicas
        return new

    simulation.store.update(
        rtype,
        meta.get("namespace", ""),
        meta.get("name", ""),
        scaled,
        subresource="scale",
        manager=CONTROLLER_MANAGER,
        unconditional=True,
    )
