"""``certificates.k8s.io/v1``: CertificateSigningRequests, with their approval and status subresources."""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.tables.access import CSR_PRINTER

__all__ = ["TYPES"]

TYPES: tuple[ResourceType, ...] = (
    builtin(
        "certificates.k8s.io",
        "v1",
        "certificatesigningrequests",
        "CertificateSigningRequest",
        False,
        short_names=("csr",),
        subresources=(Subresource("approval", writes=(("status", "conditions"),)), Subresource("status")),
        printer=CSR_PRINTER,
    ),
)
