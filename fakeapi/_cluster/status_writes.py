"""The status write every simulated controller makes: some status fields set or removed, as an
update of the object's ``status`` subresource by ``kube-controller-manager``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext
    from fakeapi._state.resources import ResourceType

__all__ = ["CONTROLLER_MANAGER", "write_status_fields"]

CONTROLLER_MANAGER = "kube-controller-manager"


def write_status_fields(
    simulation: ControllerContext, rtype: ResourceType, obj: dict[str, Any], fields: dict[str, Any]
) -> None:
    """Set each of ``fields`` in the stored object's status (a None value removes the field)."""
    meta = metadata_of(obj)

    def with_status(current: dict[str, Any]) -> dict[str, Any]:
        status = dict(current.get("status") or {})
        for key, value in fields.items():
            if value is None:
                status.pop(key, None)
            else:
                status[key] = value
        return {**current, "status": status}

    simulation.store.update(
        rtype,
        meta.get("namespace", ""),
        meta.get("name", ""),
        with_status,
        subresource="status",
        manager=CONTROLLER_MANAGER,
        unconditional=True,
    )
