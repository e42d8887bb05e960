"""What one object uses of a quota: the evaluators of pods, services, claims and object counts.

Reproduces ``pkg/quota/v1/evaluator/core`` (``pods.go``, ``services.go``,
``persistent_volume_claims.go``, ``registry.go``) and the object count evaluator of
``k8s.io/apiserver/pkg/quota/v1/generic/evaluator.go``, as kube-apiserver and
kube-controller-manager 1.32 both use them:

* every resource counts as ``count/<resource>`` (``count/<resource>.<group>`` outside the core
  group), and configmaps, secrets, replicationcontrollers and resourcequotas also under their legacy
  names; a pod, service or claim is counted by its own evaluator, the rest only on create;
* a pod charges ``count/pods`` always and, unless it is terminal or its deletion grace period has
  passed (``QuotaV1Pod``), ``pods`` and its requests and limits (``cpu``, ``requests.cpu``,
  ``limits.cpu``, the same for ``memory``, ``ephemeral-storage``, hugepages) as
  ``resourcehelper.PodRequests``/``PodLimits`` sum them (init containers by their maximum, sidecars
  added, overhead on top); pods are quota'd on create only;
* a service charges ``services`` and ``services.loadbalancers``/``services.nodeports`` by its type;
* a claim charges ``persistentvolumeclaims`` and ``requests.storage``, also per storage class
  (``<class>.storageclass.storage.k8s.io/...``).

Scopes (``Terminating``, ``NotTerminating``, ``BestEffort``, ``NotBestEffort``, ``PriorityClass``,
``CrossNamespacePodAffinity``) select pods; any other resource matches no scoped quota
(``MatchesNoScopeFunc``). docs/quota-disruption-autoscaling.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from fakeapi._state.admission.resource_lists import ONE, ZERO, Quantity, ResourceList, add, from_object
from fakeapi._state.clock import parse_timestamp
from fakeapi._state.defaults.qos import qos_class
from fakeapi._state.objects import metadata_of

__all__ = ["Evaluator", "evaluator_for", "matching_resources", "quota_matches", "scopes_of"]

_COMPUTE = ("cpu", "memory", "ephemeral-storage")
_POD_RESOURCES = (
    "count/pods",
    "pods",
    *_COMPUTE,
    *(f"requests.{name}" for name in _COMPUTE),
    *(f"limits.{name}" for name in _COMPUTE),
)
_POD_PREFIXES = ("hugepages-", "requests.hugepages-")
# Quota'd cpu or memory must be stated by every container ("it was a mistake", pods.go).
_MUST_SPECIFY = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})
_SERVICE_RESOURCES = ("count/services", "services", "services.loadbalancers", "services.nodeports")
_CLAIM_RESOURCES = ("persistentvolumeclaims", "requests.storage")
_BY_CLASS = ".storageclass.storage.k8s.io/"
_LEGACY_ALIASES = {
    "configmaps": "configmaps",
    "resourcequotas": "resourcequotas",
    "replicationcontrollers": "replicationcontrollers",
    "secrets": "secrets",
}
# install.DefaultIgnoredResources: never quota'd, not even counted.
IGNORED = frozenset({("", "events")})

Scope = tuple[str, str, tuple[str, ...]]  # (scopeName, operator, values)


def count_name(group: str, plural: str) -> str:
    """``ObjectCountQuotaResourceNameFor``."""
    return f"count/{plural}" if not group else f"count/{plural}.{group}"


@dataclass(frozen=True)
class Evaluator:
    """How quota sees one resource: the names it charges, what it charges, when, and its scopes."""

    group: str
    plural: str

    @property
    def kind(self) -> str:
        if (self.group, self.plural) == ("", "pods"):
            return "pods"
        if (self.group, self.plural) == ("", "services"):
            return "services"
        if (self.group, self.plural) == ("", "persistentvolumeclaims"):
            return "claims"
        return "count"

    def handles(self, operation: str) -> bool:
        """``Handles`` for a write to the resource itself (subresources never reach quota in 1.32)."""
        if self.kind in ("services", "claims"):
            return operation in ("CREATE", "UPDATE")
        return operation == "CREATE"

    def matching(self, names: Iterable[str]) -> list[str]:
        """``MatchingResources``: which of the quota's names this resource charges."""
        kind = self.kind
        if kind == "pods":
            return [n for n in names if n in _POD_RESOURCES or n.startswith(_POD_PREFIXES)]
        if kind == "services":
            return [n for n in names if n in _SERVICE_RESOURCES]
        if kind == "claims":
            claim_names = ("count/persistentvolumeclaims", *_CLAIM_RESOURCES)
            return [n for n in names if n in claim_names or any(n.endswith(_BY_CLASS + r) for r in _CLAIM_RESOURCES)]
        own = {count_name(self.group, self.plural)}
        if not self.group and self.plural in _LEGACY_ALIASES:
            own.add(_LEGACY_ALIASES[self.plural])
        return [n for n in names if n in own]

    def scope_matches(self, scope: Scope, obj: dict[str, Any]) -> bool:
        return self.kind == "pods" and _pod_in_scope(scope, obj)

    def usage(self, obj: dict[str, Any], now: float) -> ResourceList:
        kind = self.kind
        if kind == "pods":
            return _pod_usage(obj, now)
        if kind == "services":
            return _service_usage(obj)
        if kind == "claims":
            return _claim_usage(obj)
        usage = {count_name(self.group, self.plural): ONE}
        if not self.group and self.plural in _LEGACY_ALIASES:
            usage[_LEGACY_ALIASES[self.plural]] = ONE
        return usage

    def constraints(self, required: Iterable[str], obj: dict[str, Any]) -> str:
        """``Constraints``: the ``must specify ...`` text when a container leaves out a quota'd cpu or
        memory ("" when none does; only pods have constraints)."""
        if self.kind != "pods":
            return ""
        needed = set(required) & _MUST_SPECIFY
        missing: dict[str, set[str]] = {}
        spec = obj.get("spec") or {}
        for container in [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]:
            if not isinstance(container, dict):
                continue
            resources = container.get("resources") or {}
            stated = _compute_usage(from_object(resources.get("requests")), from_object(resources.get("limits")))
            for name in needed - stated.keys():
                missing.setdefault(name, set()).add(str(container.get("name") or ""))
        if not missing:
            return ""
        parts = [f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing)]
        return "must specify " + "; ".join(parts)


def evaluator_for(group: str, plural: str) -> Evaluator | None:
    """The evaluator of a resource, None for one quota ignores."""
    if (group, plural) in IGNORED:
        return None
    return Evaluator(group, plural)


def scopes_of(quota: dict[str, Any]) -> list[Scope]:
    """``getScopeSelectorsFromQuota``: ``spec.scopes`` as ``Exists``, then the scope selector's expressions."""
    spec = quota.get("spec") or {}
    scopes: list[Scope] = [(str(s), "Exists", ()) for s in spec.get("scopes") or []]
    selector = spec.get("scopeSelector") or {}
    for expression in selector.get("matchExpressions") or []:
        if isinstance(expression, dict):
            values = tuple(str(v) for v in expression.get("values") or [])
            scopes.append((str(expression.get("scopeName")), str(expression.get("operator")), values))
    return scopes


def matching_resources(evaluator: Evaluator, quota: dict[str, Any], *, hard_from: str = "status") -> list[str]:
    hard = (quota.get(hard_from) or {}).get("hard") or {}
    return evaluator.matching(hard)


def quota_matches(evaluator: Evaluator, quota: dict[str, Any], obj: dict[str, Any]) -> bool:
    """``generic.Matches``: the quota's ``status.hard`` names something the resource charges, and the
    object is in every one of its scopes."""
    if not matching_resources(evaluator, quota):
        return False
    return all(evaluator.scope_matches(scope, obj) for scope in scopes_of(quota))


def _pod_in_scope(scope: Scope, pod: dict[str, Any]) -> bool:
    name, operator, values = scope
    spec = pod.get("spec") or {}
    if name in ("Terminating", "NotTerminating"):
        deadline = spec.get("activeDeadlineSeconds")
        terminating = isinstance(deadline, int) and deadline >= 0
        return terminating if name == "Terminating" else not terminating
    if name in ("BestEffort", "NotBestEffort"):
        best_effort = qos_class(spec) == "BestEffort"
        return best_effort if name == "BestEffort" else not best_effort
    if name == "PriorityClass":
        priority_class = str(spec.get("priorityClassName") or "")
        if operator == "Exists":
            return bool(priority_class)
        if operator == "DoesNotExist":
            return not priority_class
        if operator == "In":
            return bool(priority_class) and priority_class in values
        if operator == "NotIn":
            return not priority_class or priority_class not in values
        return False
    if name == "CrossNamespacePodAffinity":
        return _cross_namespace_affinity(spec)
    return False


def _cross_namespace_affinity(spec: dict[str, Any]) -> bool:
    affinity = spec.get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        rules = affinity.get(kind) or {}
        terms = list(rules.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        terms += [
            w.get("podAffinityTerm") or {}
            for w in rules.get("preferredDuringSchedulingIgnoredDuringExecution") or []
            if isinstance(w, dict)
        ]
        for term in terms:
            if isinstance(term, dict) and (term.get("namespaces") or term.get("namespaceSelector") is not None):
                return True
    return False


def _pod_usage(pod: dict[str, Any], now: float) -> ResourceList:
    usage: ResourceList = {"count/pods": ONE}
    if not _charged(pod, now):
        return usage
    spec = pod.get("spec") or {}
    return add(usage, _compute_usage(_pod_total(spec, "requests"), _pod_total(spec, "limits")))


def _charged(pod: dict[str, Any], now: float) -> bool:
    """``QuotaV1Pod``: not terminal, and not past the grace period of its deletion."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return False
    meta = metadata_of(pod)
    deleted, grace = parse_timestamp(str(meta.get("deletionTimestamp"))), meta.get("deletionGracePeriodSeconds")
    if deleted is not None and isinstance(grace, int):
        return not now > deleted + grace
    return True


def _compute_usage(requests: ResourceList, limits: ResourceList) -> ResourceList:
    """``podComputeUsageHelper``."""
    usage: ResourceList = {"pods": ONE}
    for name in _COMPUTE:
        if name in requests:
            usage[name] = usage[f"requests.{name}"] = requests[name]
        if name in limits:
            usage[f"limits.{name}"] = limits[name]
    for name, quantity in requests.items():
        if name.startswith("hugepages-"):
            usage[name] = usage[f"requests.{name}"] = quantity
    return usage


def _pod_total(spec: dict[str, Any], field: str) -> ResourceList:
    """``PodRequests``/``PodLimits``: containers summed, sidecars added, the largest init container
    (with the sidecars started before it) if larger, then the overhead (on limits, only where set)."""
    total: ResourceList = {}
    for container in spec.get("containers") or []:
        total = add(total, _of(container, field))
    sidecars: ResourceList = {}
    largest_init: ResourceList = {}
    for container in spec.get("initContainers") or []:
        own = _of(container, field)
        if isinstance(container, dict) and container.get("restartPolicy") == "Always":
            total = add(total, own)
            sidecars = add(sidecars, own)
        else:
            largest_init = _larger(largest_init, add(own, sidecars))
    total = _larger(total, largest_init)
    overhead = from_object(spec.get("overhead"))
    if field == "requests":
        return add(total, overhead)
    return {name: quantity.plus(overhead[name]) if name in overhead else quantity for name, quantity in total.items()}


def _of(container: Any, field: str) -> ResourceList:
    if not isinstance(container, dict):
        return {}
    return from_object((container.get("resources") or {}).get(field))


def _larger(current: ResourceList, other: ResourceList) -> ResourceList:
    """``maxResourceList``."""
    result = dict(current)
    for name, quantity in other.items():
        if name not in result or quantity.amount > result[name].amount:
            result[name] = quantity
    return result


def _service_usage(service: dict[str, Any]) -> ResourceList:
    spec = service.get("spec") or {}
    ports = [p for p in spec.get("ports") or [] if isinstance(p, dict)]
    usage: ResourceList = {
        "count/services": ONE,
        "services": ONE,
        "services.loadbalancers": ZERO,
        "services.nodeports": ZERO,
    }
    kind = spec.get("type")
    if kind == "NodePort":
        usage["services.nodeports"] = Quantity(Decimal(len(ports)))
    elif kind == "LoadBalancer":
        if spec.get("allocateLoadBalancerNodePorts") is False:
            usage["services.nodeports"] = Quantity(Decimal(sum(1 for p in ports if p.get("nodePort"))))
        else:
            usage["services.nodeports"] = Quantity(Decimal(len(ports)))
        usage["services.loadbalancers"] = ONE
    return usage


def _claim_usage(claim: dict[str, Any]) -> ResourceList:
    usage: ResourceList = {"persistentvolumeclaims": ONE, "count/persistentvolumeclaims": ONE}
    annotations = metadata_of(claim).get("annotations") or {}
    spec = claim.get("spec") or {}
    storage_class = str(
        annotations.get("volume.beta.kubernetes.io/storage-class") or spec.get("storageClassName") or ""
    )
    if storage_class:
        usage[f"{storage_class}{_BY_CLASS}persistentvolumeclaims"] = ONE
    requested = from_object((spec.get("resources") or {}).get("requests")).get("storage")
    if requested is None:
        return usage
    requested = _whole(requested)
    allocated = from_object((claim.get("status") or {}).get("allocatedResources")).get("storage")
    if allocated is not None and allocated.amount > requested.amount:
        requested = _whole(allocated)
    usage["requests.storage"] = requested
    if storage_class:
        usage[f"{storage_class}{_BY_CLASS}requests.storage"] = requested
    return usage


def _whole(quantity: Quantity) -> Quantity:
    """``RoundUp(0)``: storage counted in whole bytes."""
    if quantity.amount == quantity.amount.to_integral_value():
        return quantity
    return Quantity(Decimal(math.ceil(quantity.amount)), quantity.form)
