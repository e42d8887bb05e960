"""kube-controller-manager's resource quota controller (``pkg/controller/resourcequota``
``resource_quota_controller.go`` ``syncResourceQuota``): each quota's ``status.hard`` and ``status.used``.

For each ResourceQuota, ``status.hard`` becomes ``spec.hard`` and ``status.used`` what the namespace
uses of each of those names (``quota.CalculateUsage``): every evaluator that charges one of them
(pods, services, claims, and an object count for every namespaced resource that can be created,
listed, watched and deleted, custom ones included) sums the usage of the objects in the quota's
scopes, each name starting at ``0``. A name no evaluator charges keeps the usage last written (none
at first, so admission answers ``status unknown`` for it). The status is written, by
``kube-controller-manager``, when ``hard`` changed, when it was never written, or when ``used``
changed.

Upstream the controller reacts to the writes of the resources it counts (replenishment) and
recounts everything every five minutes; here it recounts each quota whenever it runs, which gives
the same status as soon as the controllers settle. docs/quota-disruption-autoscaling.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._cluster.status_writes import write_status_fields
from fakeapi._state.admission.quota_evaluators import Evaluator, evaluator_for, scopes_of
from fakeapi._state.admission.resource_lists import ZERO, ResourceList, add, equal, from_object, mask, to_object
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext
    from fakeapi._state.resources import ResourceType

__all__ = ["sync_resource_quotas"]

QUOTAS = builtin_type("", "v1", "ResourceQuota")
_QUOTABLE_VERBS = frozenset({"create", "list", "watch", "delete"})


def sync_resource_quotas(simulation: ControllerContext) -> None:
    """One ``syncResourceQuota`` per quota, in namespace and name order."""
    store = simulation.store
    quotas = store.items(QUOTAS, None)
    if not quotas:
        return
    evaluators = _quotable(simulation)
    for quota in quotas:
        _sync(simulation, quota, evaluators)


def _quotable(simulation: ControllerContext) -> list[tuple[Evaluator, ResourceType]]:
    """``GetQuotableResources``: the namespaced resources served with all four verbs, one version each."""
    seen: dict[tuple[str, str], ResourceType] = {}
    for rtype in simulation.store.registry.all_types():
        if rtype.namespaced and set(rtype.verbs) >= _QUOTABLE_VERBS:
            seen.setdefault((rtype.group, rtype.plural), rtype)
    found = []
    for (group, plural), rtype in sorted(seen.items()):
        evaluator = evaluator_for(group, plural)
        if evaluator is not None:
            found.append((evaluator, rtype))
    return found


def _sync(
    simulation: ControllerContext, quota: dict[str, Any], evaluators: list[tuple[Evaluator, ResourceType]]
) -> None:
    store = simulation.store
    meta = metadata_of(quota)
    namespace = meta.get("namespace", "")
    spec_hard = (quota.get("spec") or {}).get("hard") or {}
    status = quota.get("status") or {}
    hard = from_object(spec_hard)
    previous = from_object(status.get("used"))
    scopes = scopes_of(quota)
    now = store.clock.now()
    counted: ResourceList = {}
    matched: set[str] = set()
    for evaluator, rtype in evaluators:
        names = evaluator.matching(hard)
        if not names:
            continue
        matched.update(names)
        usage: ResourceList = dict.fromkeys(names, ZERO)
        for item in store.items(rtype, namespace):
            if all(evaluator.scope_matches(scope, item) for scope in scopes):
                usage = add(usage, evaluator.usage(item, now))
        counted = add(counted, usage)
    used = mask({**previous, **mask(counted, matched)}, hard)
    dirty = (
        "hard" not in status
        or "used" not in status
        or not equal(from_object(status.get("hard")), hard)
        or not equal(used, previous)
    )
    if dirty:
        fields = {"hard": {name: spec_hard[name] for name in sorted(spec_hard)}, "used": to_object(used)}
        write_status_fields(simulation, QUOTAS, quota, fields)
