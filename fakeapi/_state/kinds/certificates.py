"""``certificates.k8s.io/v1``: CertificateSigningRequests, with their approval and status subresources."""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource

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
    ),
)
