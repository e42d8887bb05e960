"""``rbac.authorization.k8s.io/v1``: Roles, ClusterRoles and their bindings, stored and served.

Under RBAC authorization a write of one of these is refused when it grants more than its writer
holds (escalation prevention, kubernetes ``pkg/registry/rbac/*/policybased``; docs/rbac.md). Every
write of a ClusterRole is followed, inside the same write, by what the clusterrole-aggregation
controller does: each ClusterRole with an ``aggregationRule`` gets the rules of the ClusterRoles
its selectors pick (``pkg/controller/clusterroleaggregation``). They are validated as
``pkg/apis/rbac/validation`` does (:mod:`fakeapi._state.validation.rbac`), after the escalation
check, as the policy-based storage runs it before the generic store.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from fakeapi._state.authorization import aggregation_updates, confirm_binding_write, confirm_role_write
from fakeapi._state.defaults.rbac import binding_defaults
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.objects import metadata_of
from fakeapi._state.rbac_objects import StoredRBAC
from fakeapi._state.requesters import current_requester
from fakeapi._state.resources import ResourceType
from fakeapi._state.strategy import Strategy
from fakeapi._state.tables.access import CLUSTER_ROLE_BINDING_PRINTER, ROLE_BINDING_PRINTER
from fakeapi._state.validation import rbac

if TYPE_CHECKING:
    from fakeapi._state.storeview import StoreView

__all__ = ["AGGREGATION_CONTROLLER", "TYPES", "aggregation_after"]

_GROUP = "rbac.authorization.k8s.io"
AGGREGATION_CONTROLLER = "clusterrole-aggregation-controller"
# Set while a batch of ClusterRoles is written whose aggregation runs once, after the last.
_DEFERRED: ContextVar[bool] = ContextVar("aggregation_deferred", default=False)


class RBACStrategy(Strategy):
    """Escalation checks on create and update, when the server enforces authorization."""

    def validate_create(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        self._confirm(store, rtype, obj, None)
        super().validate_create(store, rtype, obj)

    def validate_update(
        self, store: StoreView, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> None:
        self._confirm(store, rtype, new, old)
        super().validate_update(store, rtype, new, old, subresource)

    def _confirm(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        requester = current_requester()
        if requester is None:
            return
        attributes = requester.attributes
        if rtype.plural in ("roles", "clusterroles"):
            confirm_role_write(StoredRBAC(store), attributes, obj, old)
        else:
            confirm_binding_write(StoredRBAC(store), attributes, obj, old)


class ClusterRoleStrategy(RBACStrategy):
    """A ClusterRole's writes also run the aggregation controller."""

    def after_create(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        aggregate_cluster_roles(store, rtype)

    def after_update(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any], old: dict[str, Any]) -> None:
        aggregate_cluster_roles(store, rtype)

    def after_delete(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        aggregate_cluster_roles(store, rtype)


@contextmanager
def aggregation_after(store: StoreView) -> Iterator[None]:
    """Writes of ClusterRoles inside run the aggregation controller once, when they are all done.

    The apiserver's bootstrap hook writes its ClusterRoles before kube-controller-manager's
    controller sees any of them, so the aggregated roles are filled in after the last one.
    """
    token = _DEFERRED.set(True)
    try:
        yield
    finally:
        _DEFERRED.reset(token)
    rtype = store.registry.resolve(_GROUP, "v1", "clusterroles")
    assert rtype is not None, "the built-in clusterroles are always served"
    aggregate_cluster_roles(store, rtype)


def aggregate_cluster_roles(store: StoreView, rtype: ResourceType) -> None:
    """Write the rules every aggregating ClusterRole should have, where they differ."""
    if _DEFERRED.get():
        return
    roles = [obj for _, obj in sorted(store.bucket(rtype).items())]
    updates = aggregation_updates(roles)
    # The updates are the controller's fixpoint already: the syncs its own writes set off change
    # nothing more, so they are not run again.
    token = _DEFERRED.set(True)
    try:
        for name, rules in updates.items():

            def with_rules(current: dict[str, Any], rules: list[dict[str, Any]] = rules) -> dict[str, Any]:
                return {**current, "rules": rules}

            current = store.find(rtype, "", name)
            if current is not None and metadata_of(current).get("deletionTimestamp") is None:
                store.update(rtype, "", name, with_rules, manager=AGGREGATION_CONTROLLER, unconditional=True)
    finally:
        _DEFERRED.reset(token)


TYPES: tuple[ResourceType, ...] = (
    builtin(
        _GROUP,
        "v1",
        "clusterrolebindings",
        "ClusterRoleBinding",
        False,
        strategy=RBACStrategy(rbac.CLUSTER_ROLE_BINDING),
        defaulter=binding_defaults,
        printer=CLUSTER_ROLE_BINDING_PRINTER,
    ),
    builtin(_GROUP, "v1", "clusterroles", "ClusterRole", False, strategy=ClusterRoleStrategy(rbac.CLUSTER_ROLE)),
    builtin(
        _GROUP,
        "v1",
        "rolebindings",
        "RoleBinding",
        strategy=RBACStrategy(rbac.ROLE_BINDING),
        defaulter=binding_defaults,
        printer=ROLE_BINDING_PRINTER,
    ),
    builtin(_GROUP, "v1", "roles", "Role", strategy=RBACStrategy(rbac.ROLE)),
)
