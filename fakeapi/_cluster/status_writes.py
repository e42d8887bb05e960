"""The status write every simulated controller makes: some status fields set or removed, or the
whole status replaced, as an unconditional update of the object's ``status`` subresource by
``kube-controller-manager`` (or by the kubelet, for a pod)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext
    from fakeapi._state.resources import ResourceType

__all__ = ["CONTROLLER_MANAGER", "update_status", "write_status", "write_status_fields"]

CONTROLLER_MANAGER = "kube-controller-manager"


def write_status_fields(
    simulation: ControllerContext, rtype: ResourceType, obj: dict[str, Any], fields: dict[str, Any]
) -> None:
    """Set each of ``fields`` in the stored object's status (a None value removes the field)."""

    def with_status(current: dict[str, Any]) -> dict[str, Any]:
        status = dict(current.get("status") or {})
        for key, value in fields.items():
            if value is None:
                status.pop(key, None)
            else:
                status[key] = value
        return {**current, "status": status}

    update_status(simulation, rtype, obj, with_status, CONTROLLER_MANAGER)


def write_status(
    simulation: ControllerContext,
    rtype: ResourceType,
    obj: dict[str, Any],
    status: dict[str, Any],
    *,
    manager: str = CONTROLLER_MANAGER,
) -> None:
    """Replace the stored object's status with ``status``."""
    update_status(simulation, rtype, obj, lambda current: {**current, "status": status}, manager)


def update_status(
    simulation: ControllerContext,
    rtype: ResourceType,
    obj: dict[str, Any],
    change: Callable[[dict[str, Any]], dict[str, Any]],
    manager: str = CONTROLLER_MANAGER,
) -> None:
    """Write ``change`` of the stored object (its status) through the ``status`` subresource."""
    meta = metadata_of(obj)
    simulation.store.update(
        rtype,
        meta.get("namespace", ""),
        meta.get("name", ""),
        change,
        subresource="status",
        manager=manager,
        unconditional=True,
    )
