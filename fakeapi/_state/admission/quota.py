"""The ResourceQuota admission plugin (``plugin/pkg/admission/resourcequota``): refuse what a quota
cannot hold, and charge the quotas for what it admits.

``controller.go`` ``checkRequest`` for one create or update, then ``checkQuotas``' status write:

* the quotas of the namespace whose ``status.hard`` names something the resource charges, and whose
  scopes take the object, are the ones in play (a quota the controller has not synced yet has no
  ``status.hard`` and takes nothing);
* a pod that leaves out a quota'd cpu or memory is 403 ``failed quota: <quota>: must specify
  limits.cpu for: a,b; ...``; a quota in play whose ``status.used`` lacks one of those names is 403
  ``status unknown for quota: <quota>, resources: <names>``;
* the object's usage (on an update, what it adds to its old usage) is added to each such quota's
  ``status.used``; a sum above ``status.hard`` is 403 ``exceeded quota: <quota>, requested: <r>,
  used: <u>, limited: <h>`` (each ``name=quantity`` pairs in name order);
* otherwise each quota whose usage changed gets the new ``status.used``, written before the object
  is stored, by the apiserver's own client (manager ``kube-apiserver``), except on a dry run.

It runs last in validating admission, after the webhooks, on writes to the resource itself (not
its subresources) in a namespace. docs/quota-disruption-autoscaling.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.admission.plugins import RESOURCE_QUOTA
from fakeapi._state.admission.quota_evaluators import evaluator_for, quota_matches
from fakeapi._state.admission.resource_lists import (
    ResourceList,
    add,
    equal,
    exceeding,
    from_object,
    is_zero,
    mask,
    negative,
    pretty,
    subtract,
    to_object,
)
from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.storeview import StoreView

__all__ = ["charge_quotas"]

APISERVER_MANAGER = "kube-apiserver"


def charge_quotas(
    store: StoreView,
    rtype: ResourceType,
    namespace: str,
    obj: dict[str, Any],
    old: dict[str, Any] | None,
    *,
    dry_run: bool = False,
) -> None:
    """Admit ``obj`` (a create, or an update of ``old``) against the namespace's quotas, or raise the 403."""
    if RESOURCE_QUOTA not in store.admission_plugins or not rtype.namespaced or not namespace:
        return
    evaluator = evaluator_for(rtype.group, rtype.plural)
    if evaluator is None or not evaluator.handles("CREATE" if old is None else "UPDATE"):
        return
    quotas_type = store.registry.resolve("", "v1", "resourcequotas")
    if quotas_type is None:
        return
    quotas = store.items(quotas_type, namespace)
    if not quotas:
        return

    def forbidden(problem: str) -> APIError:
        return APIError.forbidden(rtype.group_resource, str(metadata_of(obj).get("name") or ""), problem)

    in_play = []
    for quota in quotas:
        if not quota_matches(evaluator, quota, obj):
            continue
        name = metadata_of(quota).get("name", "")
        status = quota.get("status") or {}
        restricted = evaluator.matching(status.get("hard") or {})
        problem = evaluator.constraints(restricted, obj)
        if problem:
            raise forbidden(f"failed quota: {name}: {problem}")
        used = status.get("used") or {}
        if any(resource not in used for resource in restricted):
            raise forbidden(f"status unknown for quota: {name}, resources: {','.join(sorted(restricted))}")
        in_play.append(quota)
    now = store.clock.now()
    delta = evaluator.usage(obj, now)
    below_zero = negative(delta)
    if below_zero:
        raise forbidden(f"quota usage is negative for resource(s): {','.join(sorted(below_zero))}")
    if old is not None and metadata_of(old).get("resourceVersion"):
        delta = subtract(delta, evaluator.usage(old, now), non_negative=True)
    if is_zero(delta) or not in_play:
        return
    charged: list[tuple[dict[str, Any], ResourceList]] = []
    for quota in in_play:
        status = quota.get("status") or {}
        hard, used = from_object(status.get("hard")), from_object(status.get("used"))
        requested = mask(delta, hard)
        new_used = add(used, requested)
        exceeded = exceeding(mask(new_used, requested), hard)
        if exceeded:
            name = metadata_of(quota).get("name", "")
            raise forbidden(
                f"exceeded quota: {name}, requested: {pretty(mask(requested, exceeded))}, "
                f"used: {pretty(mask(used, exceeded))}, limited: {pretty(mask(hard, exceeded))}"
            )
        if not equal(used, new_used):
            charged.append((quota, new_used))
    if dry_run:
        return
    for quota, new_used in charged:
        _write_used(store, quotas_type, quota, new_used)


def _write_used(store: StoreView, quotas_type: ResourceType, quota: dict[str, Any], used: ResourceList) -> None:
    meta = metadata_of(quota)

    def with_used(current: dict[str, Any]) -> dict[str, Any]:
        return {**current, "status": {**(current.get("status") or {}), "used": to_object(used)}}

    store.update(
        quotas_type,
        meta.get("namespace", ""),
        meta.get("name", ""),
        with_used,
        subresource="status",
        manager=APISERVER_MANAGER,
        unconditional=True,
    )
