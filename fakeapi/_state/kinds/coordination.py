"""``coordination.k8s.io/v1``: Leases, what leader election writes (``pkg/registry/coordination/lease``)."""

from __future__ import annotations

from fakeapi._state.defaults.core import lease_defaults
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType
from fakeapi._state.tables.core import LEASE_PRINTER

__all__ = ["TYPES"]

TYPES: tuple[ResourceType, ...] = (
    builtin(
        "coordination.k8s.io",
        "v1",
        "leases",
        "Lease",
        defaulter=lease_defaults,
        printer=LEASE_PRINTER,
    ),
)
