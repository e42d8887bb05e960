"""Which pods a ReplicaSet deletes first when it scales down (``pkg/controller/controller_utils.go``).

``replica_set.go`` ``getPodsToDelete`` ranks each pod by how many active pods of the same
controller's ReplicaSets share its node (``getPodsRankedByRelatedPodsOnSameNode``) and sorts with
``ActivePodsWithRanks.Less``; the first ones go. A pod comes before another when, in this order:

1. it is not bound to a node and the other is;
2. its phase ranks lower: Pending, then Unknown, then Running;
3. it is not Ready and the other is;
4. its ``controller.kubernetes.io/pod-deletion-cost`` annotation is lower (``PodDeletionCost``);
5. more related pods share its node (doubled up first);
6. both Ready: it became Ready more recently, compared in logarithmic buckets of the time since
   (``LogarithmicScaleDown``: ``floor(log2(nanoseconds))``), the pod with the lower UID first
   within one bucket;
7. its containers restarted more (the highest ``restartCount`` of each);
8. it was created more recently, in the same logarithmic buckets, the lower UID first within one.

Pods equal on every criterion keep the order they were listed in (by name here); the real
controller's ``sort.Sort`` over its informer's list leaves that order unspecified.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from fakeapi._state.clock import parse_timestamp
from fakeapi._state.objects import metadata_of

__all__ = ["pod_ready", "ready_since", "sorted_for_deletion"]

DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_ORDER = {"Pending": 0, "Unknown": 1, "Running": 2}


def pod_ready(pod: dict[str, Any]) -> bool:
    return _ready_condition(pod) is not None


def ready_since(pod: dict[str, Any]) -> float | None:
    """The Ready condition's ``lastTransitionTime`` when the pod is Ready (None when it is not)."""
    condition = _ready_condition(pod)
    if condition is None:
        return None
    return parse_timestamp(condition.get("lastTransitionTime") or "") or 0.0


def sorted_for_deletion(pods: list[dict[str, Any]], related: list[dict[str, Any]], now: float) -> list[dict[str, Any]]:
    """The pods in the order ``getPodsToDelete`` deletes them."""
    on_node: dict[str, int] = {}
    for pod in related:
        phase = (pod.get("status") or {}).get("phase")
        if phase not in ("Succeeded", "Failed") and metadata_of(pod).get("deletionTimestamp") is None:
            node = str((pod.get("spec") or {}).get("nodeName") or "")
            on_node[node] = on_node.get(node, 0) + 1
    ranked = [(pod, on_node.get(str((pod.get("spec") or {}).get("nodeName") or ""), 0)) for pod in pods]
    ordered = sorted(ranked, key=functools.cmp_to_key(functools.partial(_compare, now=now)))
    return [pod for pod, _ in ordered]


def _compare(first: tuple[dict[str, Any], int], second: tuple[dict[str, Any], int], now: float) -> int:
    """-1 when ``first`` goes before ``second`` (``Less(i, j)``), 1 when after, 0 when tied."""
    a, rank_a = first
    b, rank_b = second
    if _less(a, rank_a, b, rank_b, now):
        return -1
    if _less(b, rank_b, a, rank_a, now):
        return 1
    return 0


def _less(a: dict[str, Any], rank_a: int, b: dict[str, Any], rank_b: int, now: float) -> bool:
    node_a, node_b = _node(a), _node(b)
    if node_a != node_b and (not node_a or not node_b):
        return not node_a
    phase_a, phase_b = _PHASE_ORDER.get(_phase(a), 0), _PHASE_ORDER.get(_phase(b), 0)
    if phase_a != phase_b:
        return phase_a < phase_b
    if pod_ready(a) != pod_ready(b):
        return not pod_ready(a)
    cost_a, cost_b = _deletion_cost(a), _deletion_cost(b)
    if cost_a != cost_b:
        return cost_a < cost_b
    if rank_a != rank_b:
        return rank_a > rank_b
    if pod_ready(a) and pod_ready(b):
        since_a, since_b = ready_since(a) or 0.0, ready_since(b) or 0.0
        if since_a != since_b:
            return _newer(a, since_a, b, since_b, now)
    restarts_a, restarts_b = _max_restarts(a), _max_restarts(b)
    if restarts_a != restarts_b:
        return restarts_a > restarts_b
    created_a, created_b = _created(a), _created(b)
    if created_a != created_b:
        return _newer(a, created_a, b, created_b, now)
    return False


def _newer(a: dict[str, Any], time_a: float, b: dict[str, Any], time_b: float, now: float) -> bool:
    """``logarithmicRankDiff`` < 0, the UID breaking a tie; a zero time falls back to ``afterOrZero``."""
    if not time_a or not time_b:
        return not time_a
    bucket_a, bucket_b = _bucket(now - time_a), _bucket(now - time_b)
    if bucket_a == bucket_b:
        return str(metadata_of(a).get("uid") or "") < str(metadata_of(b).get("uid") or "")
    return bucket_a < bucket_b


def _bucket(elapsed: float) -> int:
    nanoseconds = round(elapsed * 1_000_000_000)
    return int(math.log2(nanoseconds)) if nanoseconds > 0 else -1


def _ready_condition(pod: dict[str, Any]) -> dict[str, Any] | None:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition if condition.get("status") == "True" else None
    return None


def _node(pod: dict[str, Any]) -> str:
    return str((pod.get("spec") or {}).get("nodeName") or "")


def _phase(pod: dict[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def _deletion_cost(pod: dict[str, Any]) -> int:
    value = (metadata_of(pod).get("annotations") or {}).get(DELETION_COST)
    try:
        return int(value) if value is not None else 0
    except ValueError:
        return 0


def _max_restarts(pod: dict[str, Any]) -> int:
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return max((int(status.get("restartCount") or 0) for status in statuses), default=0)


def _created(pod: dict[str, Any]) -> float:
    return parse_timestamp(metadata_of(pod).get("creationTimestamp") or "") or 0.0
