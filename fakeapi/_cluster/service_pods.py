"""What the Endpoints and EndpointSlice controllers share: the pods a Service selects, their ports and
readiness, and the ``endpoints.kubernetes.io/last-change-trigger-time`` annotation.

* The Services handled are those with a selector, not of type ``ExternalName``
  (``syncService`` in both controllers); their pods are those of the namespace whose labels hold
  the selector.
* ``ShouldPodBeInEndpoints`` (``staging/src/k8s.io/endpointslice/util/controller_utils.go``): not
  Succeeded or Failed, with an IP, and not being deleted unless terminating pods are included;
  ``IsPodReady`` is the Ready condition being True.
* ``FindPort`` (``staging/src/k8s.io/endpointslice/utils.go``): a numeric ``targetPort`` as it is, a
  named one looked up in the containers' ports (then in restartable init containers) with the
  Service port's protocol.
* The trigger time (``util/trigger_time_tracker.go`` ``ComputeEndpointLastChangeTriggerTime``): the
  Service's creationTimestamp the first time, then the earliest Ready-condition
  ``lastTransitionTime`` among the pods whose one changed since the previous sync, none (the
  annotation is removed) when no pod's did. Upstream remembers what it saw at the previous sync in
  memory; here the previous sync is taken to be the controller's last write of the object (its
  managedFields time), and a transition in that same second counts when that pod's endpoint differs
  from what the object holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.status_writes import CONTROLLER_MANAGER
from fakeapi._state.clock import format_timestamp, parse_timestamp
from fakeapi._state.kinds import builtin_type
from fakeapi._state.label_selectors import requirements_match
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = [
    "TRIGGER_TIME_ANNOTATION",
    "find_port",
    "handled_services",
    "is_ipv6",
    "last_written",
    "pod_ready",
    "selected_pods",
    "should_be_in_endpoints",
    "trigger_time",
]

SERVICES = builtin_type("", "v1", "Service")
PODS = builtin_type("", "v1", "Pod")
TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time"


def handled_services(simulation: ControllerContext) -> list[dict[str, Any]]:
    services = []
    for service in simulation.store.items(SERVICES, None):
        spec = service.get("spec") or {}
        if spec.get("selector") and spec.get("type") != "ExternalName":
            services.append(service)
    return services


def selected_pods(simulation: ControllerContext, service: dict[str, Any]) -> list[dict[str, Any]]:
    selector = (service.get("spec") or {}).get("selector") or {}
    namespace = metadata_of(service).get("namespace", "")
    return [
        pod
        for pod in simulation.store.items(PODS, namespace)
        if requirements_match(selector, [], metadata_of(pod).get("labels") or {})
    ]


def should_be_in_endpoints(pod: dict[str, Any], include_terminating: bool) -> bool:
    status = pod.get("status") or {}
    if status.get("phase") in ("Succeeded", "Failed"):
        return False
    if not status.get("podIP") and not status.get("podIPs"):
        return False
    return include_terminating or metadata_of(pod).get("deletionTimestamp") is None


def _ready_condition(pod: dict[str, Any]) -> dict[str, Any] | None:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return next((c for c in conditions if c.get("type") == "Ready"), None)


def pod_ready(pod: dict[str, Any]) -> bool:
    condition = _ready_condition(pod)
    return condition is not None and condition.get("status") == "True"


def is_ipv6(address: str) -> bool:
    return ":" in address


def find_port(pod: dict[str, Any], service_port: dict[str, Any]) -> int | None:
    """``FindPort``: the container port a Service port targets on this pod, None if none."""
    target = service_port.get("targetPort", service_port.get("port"))
    if isinstance(target, int):
        return target
    protocol = service_port.get("protocol", "TCP")
    spec = pod.get("spec") or {}
    sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    for container in [*(spec.get("containers") or []), *sidecars]:
        for port in container.get("ports") or []:
            if port.get("name") == target and port.get("protocol", "TCP") == protocol:
                return int(port["containerPort"])
    return None


def last_written(objects: list[dict[str, Any]]) -> float | None:
    """When kube-controller-manager last wrote any of these objects (their managedFields times)."""
    times = [
        parse_timestamp(entry.get("time") or "") or 0.0
        for obj in objects
        for entry in metadata_of(obj).get("managedFields") or []
        if entry.get("manager") == CONTROLLER_MANAGER
    ]
    return max(times, default=None)


def trigger_time(
    service: dict[str, Any], pods: list[dict[str, Any]], written: float | None, changed: set[str]
) -> str | None:
    """``ComputeEndpointLastChangeTriggerTime`` as described above (None: no annotation)."""
    if written is None:
        return metadata_of(service).get("creationTimestamp")
    times = []
    for pod in pods:
        condition = _ready_condition(pod)
        moment = parse_timestamp((condition or {}).get("lastTransitionTime") or "")
        if moment is None:
            continue
        if moment > written or (moment == written and metadata_of(pod).get("name") in changed):
            times.append(moment)
    return format_timestamp(min(times)) if times else None
