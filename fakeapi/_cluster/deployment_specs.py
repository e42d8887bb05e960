"""What a Deployment's spec and its ReplicaSets' annotations say (``pkg/controller/deployment/util/deployment_util.go``).

The sizes a rollout works within (``ResolveFenceposts``, ``MaxSurge``, ``MaxUnavailable``: a
percentage of ``spec.replicas``, the surge rounded up and the unavailable down, never both zero),
the annotations the controller keeps on ReplicaSets, their revisions and age order
(``ReplicaSetsByCreationTimestamp``), and ``EqualIgnoreHash``, which tells the new ReplicaSet
from the old ones.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from fakeapi._state.clock import parse_timestamp
from fakeapi._state.objects import metadata_of

__all__ = [
    "ANNOTATIONS_TO_SKIP",
    "DESIRED_REPLICAS",
    "HASH_LABEL",
    "MAX_INT32",
    "MAX_REPLICAS",
    "MAX_REVISION_HISTORY_CHARS",
    "REVISION",
    "REVISION_HISTORY",
    "by_creation",
    "equal_ignore_hash",
    "fenceposts",
    "has_progress_deadline",
    "int_or_percent",
    "is_rolling",
    "max_surge",
    "max_unavailable",
    "replicas_of",
    "revision_of",
]

HASH_LABEL = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
ANNOTATIONS_TO_SKIP = frozenset(
    (
        "kubectl.kubernetes.io/last-applied-configuration",
        REVISION,
        REVISION_HISTORY,
        DESIRED_REPLICAS,
        MAX_REPLICAS,
        "deprecated.deployment.rollback.to",
    )
)
MAX_REVISION_HISTORY_CHARS = 2000
MAX_INT32 = 2**31 - 1


def has_progress_deadline(deployment: dict[str, Any]) -> bool:
    seconds = (deployment.get("spec") or {}).get("progressDeadlineSeconds")
    return seconds is not None and int(seconds) != MAX_INT32


def replicas_of(obj: dict[str, Any]) -> int:
    return int((obj.get("spec") or {}).get("replicas", 1))


def revision_of(replicaset: dict[str, Any]) -> int:
    try:
        return int((metadata_of(replicaset).get("annotations") or {}).get(REVISION, "0"))
    except ValueError:
        return 0


def by_creation(replicaset: dict[str, Any]) -> tuple[float, str]:
    """``controller.ReplicaSetsByCreationTimestamp``: creation time, then name."""
    meta = metadata_of(replicaset)
    return (parse_timestamp(meta.get("creationTimestamp") or "") or 0.0, str(meta.get("name") or ""))


def int_or_percent(value: Any, total: int, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``."""
    if isinstance(value, str):
        percent = int(value.removesuffix("%"))
        scaled = percent * float(total) / 100
        return int(math.ceil(scaled) if round_up else math.floor(scaled))
    return int(value or 0)


def fenceposts(deployment: dict[str, Any]) -> tuple[int, int]:
    """``ResolveFenceposts``: maxSurge rounded up, maxUnavailable rounded down, never both zero."""
    spec = deployment.get("spec") or {}
    rolling = (spec.get("strategy") or {}).get("rollingUpdate") or {}
    desired = replicas_of(deployment)
    surge = int_or_percent(rolling.get("maxSurge", 0), desired, True)
    unavailable = int_or_percent(rolling.get("maxUnavailable", 0), desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def is_rolling(deployment: dict[str, Any]) -> bool:
    strategy = (deployment.get("spec") or {}).get("strategy") or {}
    return bool(strategy.get("type", "RollingUpdate") == "RollingUpdate")


def max_surge(deployment: dict[str, Any]) -> int:
    return fenceposts(deployment)[0] if is_rolling(deployment) else 0


def max_unavailable(deployment: dict[str, Any]) -> int:
    desired = replicas_of(deployment)
    if not is_rolling(deployment) or desired == 0:
        return 0
    return min(fenceposts(deployment)[1], desired)


def _template_without_hash(template: dict[str, Any]) -> Any:
    template = copy.deepcopy(template or {})
    labels = (template.get("metadata") or {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(HASH_LABEL, None)
    return _pruned(template)


def _pruned(value: Any) -> Any:
    """A decoded template as the informer holds it: empty lists and maps are nil, a null time is zero."""
    if isinstance(value, dict):
        pruned = {key: _pruned(item) for key, item in value.items()}
        return {key: item for key, item in pruned.items() if item is not None and item != [] and item != {}}
    if isinstance(value, list):
        return [_pruned(item) for item in value]
    return value


def equal_ignore_hash(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """``EqualIgnoreHash``."""
    return bool(_template_without_hash(first) == _template_without_hash(second))
