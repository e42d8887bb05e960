"""x509 client certificates as kube-apiserver's authenticator reads them (docs/authentication.md).

k8s.io/apiserver ``pkg/authentication/request/x509/x509.go``: a verified client certificate, the
first authenticator in the chain, ahead of bearer tokens; ``CommonNameUserConversion`` makes the
subject's common name the user (no common name: not this authenticator's request) and its
organizations, in order, the groups, with the credential id ``X509SHA256=<hex SHA-256 of the
DER>`` as extra. The TLS layer has already verified the certificate against the server's CA.
"""

from __future__ import annotations

import functools
import hashlib

from cryptography import x509
from cryptography.x509.oid import NameOID

__all__ = ["CREDENTIAL_ID", "CertificateUser", "certificate_user"]

CREDENTIAL_ID = "authentication.kubernetes.io/credential-id"

CertificateUser = tuple[str, tuple[str, ...], dict[str, tuple[str, ...]]]


@functools.lru_cache(maxsize=64)
def certificate_user(der: bytes) -> CertificateUser | None:
    """The name, groups and extra a client certificate authenticates as (None without a common name)."""
    subject = x509.load_der_x509_certificate(der).subject
    names = [str(attribute.value) for attribute in subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
    if not names or not names[-1]:  # Go's pkix.Name keeps the last common name
        return None
    groups = tuple(str(a.value) for a in subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME))
    return names[-1], groups, {CREDENTIAL_ID: ("X509SHA256=" + hashlib.sha256(der).hexdigest(),)}
