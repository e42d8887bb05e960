"""``POST pods/<name>/eviction``: delete a pod unless its PodDisruptionBudget forbids it
(``pkg/registry/core/pod/storage/eviction.go`` ``EvictionREST.Create``).

* A pod that is Pending, Succeeded or Failed, or already being deleted, is deleted without looking
  at budgets (``canIgnorePDB``); a Pending one under the resourceVersion it was read at.
* Otherwise the budgets of its namespace whose selector takes its labels (an empty selector takes
  every pod, none takes none) are looked at: with more than one the answer is a Failure Status with
  code 500, sent as the create's result (HTTP 201, ``create.go`` keeps its code); none lets it go.
* An unready pod goes without spending the budget when the budget says ``unhealthyPodEvictionPolicy:
  AlwaysAllow``, or when the budget is met (``currentHealthy >= desiredHealthy > 0``), deleted under
  the resourceVersion it was read at (a conflict then is the 429 below, ``still being processed``).
* Otherwise ``checkAndDecrement``: a budget whose ``observedGeneration`` lags its generation is 429
  ``The disruption budget <name> is still being processed by the server.`` (Retry-After 10); with no
  disruption allowed it is 429 ``The disruption budget <name> needs <d> healthy pods and has <c>
  currently``; else the budget's status is written (``disruptionsAllowed`` one less, the pod in
  ``disruptedPods`` at the current time, the ``DisruptionAllowed`` condition False once none is left)
  by the apiserver's own client, unless this is a dry run.
* The pod then gets the ``DisruptionTarget`` condition (reason ``EvictionByEvictionAPI``, message
  ``Eviction API: evicting``) through the status store, not on a dry run, and is deleted with the
  eviction's delete options.

Every 429 carries the message ``Cannot evict pod as it would violate the pod's disruption budget.``
and a ``DisruptionBudget`` cause. docs/quota-disruption-autoscaling.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.label_selectors import requirements_match
from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError, GroupResource, status_body

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.store import Store

__all__ = ["evict_pod"]

_DENIED = "Cannot evict pod as it would violate the pod's disruption budget."
_POD_KIND = GroupResource("", "Pod")
_BUDGETS = GroupResource("policy", "poddisruptionbudget")
_MAX_DISRUPTED_PODS = 2000
APISERVER_MANAGER = "kube-apiserver"


def evict_pod(
    store: Store, pods: ResourceType, budgets: ResourceType, namespace: str, name: str, eviction: dict[str, Any]
) -> dict[str, Any] | None:
    """Evict the pod, or raise what the eviction subresource answers instead; a failure it answers
    as its result rather than as an error (several budgets) is returned: a Status sent with 201."""
    if metadata_of(eviction).get("name") != name:
        raise APIError.bad_request("name in URL does not match name in Eviction object")
    options = _mapping(eviction.get("deleteOptions"))
    dry_run = bool(options.get("dryRun"))
    preconditions = _mapping(options.get("preconditions"))
    uid, version = preconditions.get("uid"), preconditions.get("resourceVersion")
    pod = store.get(pods, namespace, name)
    meta = metadata_of(pod)
    phase = (pod.get("status") or {}).get("phase")
    deleting = meta.get("deletionTimestamp") is not None
    if phase in ("Pending", "Succeeded", "Failed") or deleting:
        if phase not in ("Succeeded", "Failed") and not deleting and not version:
            version = meta.get("resourceVersion")
        _delete_with_condition(store, pods, pod, options, uid, version, dry_run)
        return None
    covering = [b for b in store.items(budgets, namespace) if _selects(b, meta.get("labels") or {})]
    if len(covering) > 1:
        return status_body(
            500, "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
        )
    budget = covering[0] if covering else None
    pinned = False
    if budget is not None:
        if not _ready(pod) and _spares_unhealthy(budget):
            pinned = True
        else:
            _check_and_decrement(store, budgets, budget, name, dry_run)
    if pinned and budget is not None:
        # Deleted under the resourceVersion read, so that a pod turning ready meanwhile is not lost.
        try:
            _delete_with_condition(store, pods, pod, options, uid, meta.get("resourceVersion"), dry_run)
            return None
        except APIError as error:
            if error.code == 409 and not version:
                raise _too_many(
                    f"The disruption budget {_name(budget)} is still being processed by the server.", 10
                ) from None
            raise
    _delete_with_condition(store, pods, pod, options, uid, version, dry_run)
    return None


def _spares_unhealthy(budget: dict[str, Any]) -> bool:
    """An unready pod may go without spending the budget."""
    if (budget.get("spec") or {}).get("unhealthyPodEvictionPolicy") == "AlwaysAllow":
        return True
    status = budget.get("status") or {}
    desired = status.get("desiredHealthy") or 0
    return bool((status.get("currentHealthy") or 0) >= desired > 0)


def _check_and_decrement(
    store: Store, budgets: ResourceType, budget: dict[str, Any], pod_name: str, dry_run: bool
) -> None:
    meta, status = metadata_of(budget), budget.get("status") or {}
    name = _name(budget)
    if (status.get("observedGeneration") or 0) < (meta.get("generation") or 0):
        raise _too_many(f"The disruption budget {name} is still being processed by the server.", 10)
    allowed = status.get("disruptionsAllowed") or 0
    if allowed < 0:
        raise APIError.forbidden(_BUDGETS, name, "pdb disruptions allowed is negative")
    if len(status.get("disruptedPods") or {}) > _MAX_DISRUPTED_PODS:
        raise APIError.forbidden(
            _BUDGETS, name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller"
        )
    if allowed == 0:
        desired, current = status.get("desiredHealthy") or 0, status.get("currentHealthy") or 0
        raise _too_many(f"The disruption budget {name} needs {desired} healthy pods and has {current} currently", 0)
    if dry_run:
        return
    now = store.clock.timestamp()

    def decremented(current: dict[str, Any]) -> dict[str, Any]:
        new_status = dict(current.get("status") or {})
        new_status["disruptionsAllowed"] = allowed - 1
        if allowed - 1 == 0:
            new_status["conditions"] = _insufficient(new_status, now)
        new_status["disruptedPods"] = {**(new_status.get("disruptedPods") or {}), pod_name: now}
        return {**current, "status": new_status}

    store.update(
        budgets,
        meta.get("namespace", ""),
        name,
        decremented,
        subresource="status",
        manager=APISERVER_MANAGER,
        unconditional=True,
    )


def _insufficient(status: dict[str, Any], now: str) -> list[dict[str, Any]]:
    """``UpdateDisruptionAllowedCondition`` with none allowed: ``DisruptionAllowed`` False, ``InsufficientPods``."""
    conditions = [dict(c) for c in status.get("conditions") or [] if isinstance(c, dict)]
    found = next((c for c in conditions if c.get("type") == "DisruptionAllowed"), None)
    wanted = {"status": "False", "reason": "InsufficientPods", "message": ""}
    generation = status.get("observedGeneration")
    if found is None:
        condition: dict[str, Any] = {"type": "DisruptionAllowed", "status": "False"}
        if generation:
            condition["observedGeneration"] = generation
        condition.update({"lastTransitionTime": now, "reason": "InsufficientPods", "message": ""})
        return [*conditions, condition]
    if found.get("status") != "False":
        found["lastTransitionTime"] = now
    found.update(wanted)
    if generation:
        found["observedGeneration"] = generation
    return conditions


def _delete_with_condition(
    store: Store,
    pods: ResourceType,
    pod: dict[str, Any],
    options: dict[str, Any],
    uid: Any,
    version: Any,
    dry_run: bool,
) -> None:
    """``addConditionAndDeletePod``: the ``DisruptionTarget`` condition, then the delete."""
    meta = metadata_of(pod)
    namespace, name = meta.get("namespace", ""), meta.get("name", "")
    if not dry_run:
        latest = store.get(pods, namespace, name)
        latest_meta = metadata_of(latest)
        if uid and uid != latest_meta.get("uid"):
            problem = (
                f"the UID in the precondition ({uid}) does not match the UID in record ({latest_meta.get('uid')}). "
                "The object might have been deleted and then recreated"
            )
            raise APIError.conflict(_POD_KIND, name, problem)
        if version and version != latest_meta.get("resourceVersion"):
            problem = (
                f"the ResourceVersion in the precondition ({version}) does not match the ResourceVersion in "
                f"record ({latest_meta.get('resourceVersion')}). The object might have been modified"
            )
            raise APIError.conflict(_POD_KIND, name, problem)
        now = store.clock.timestamp()
        updated = store.update(
            pods,
            namespace,
            name,
            lambda current: _with_disruption_target(current, now),
            subresource="status",
            unconditional=True,
            track_fields=False,
        )
        if version:
            version = metadata_of(updated.object).get("resourceVersion")
    store.delete(
        pods, namespace, name, uid=uid, resource_version=version, grace_period=_grace(options), dry_run=dry_run
    )


def _with_disruption_target(pod: dict[str, Any], now: str) -> dict[str, Any]:
    """``UpdatePodCondition`` with ``DisruptionTarget`` True: the condition replaced, its transition time kept if it was True."""
    status = dict(pod.get("status") or {})
    conditions = [dict(c) for c in status.get("conditions") or [] if isinstance(c, dict)]
    wanted = {
        "type": "DisruptionTarget",
        "status": "True",
        "lastProbeTime": None,
        "lastTransitionTime": now,
        "reason": "EvictionByEvictionAPI",
        "message": "Eviction API: evicting",
    }
    for index, condition in enumerate(conditions):
        if condition.get("type") == "DisruptionTarget":
            if condition.get("status") == "True":
                wanted["lastTransitionTime"] = condition.get("lastTransitionTime")
            conditions[index] = wanted
            break
    else:
        conditions.append(wanted)
    status["conditions"] = conditions
    return {**pod, "status": status}


def _grace(options: dict[str, Any]) -> int | None:
    value = options.get("gracePeriodSeconds")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _ready(pod: dict[str, Any]) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _selects(budget: dict[str, Any], labels: dict[str, str]) -> bool:
    """``LabelSelectorAsSelector(spec.selector).Matches``: no selector takes nothing, an empty one everything."""
    selector = (budget.get("spec") or {}).get("selector")
    if not isinstance(selector, dict):
        return False
    expressions = [e for e in selector.get("matchExpressions") or [] if isinstance(e, dict)]
    return requirements_match(selector.get("matchLabels") or {}, expressions, labels)


def _name(budget: dict[str, Any]) -> str:
    return str(metadata_of(budget).get("name") or "")


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _too_many(cause: str, retry_after: int) -> APIError:
    details: dict[str, Any] = {"causes": [{"reason": "DisruptionBudget", "message": cause}]}
    if retry_after:
        details["retryAfterSeconds"] = retry_after
    return APIError(_DENIED, reason="TooManyRequests", code=429, details=details, retry_after=retry_after)
