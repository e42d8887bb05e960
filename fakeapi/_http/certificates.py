"""The certificates of a server that serves HTTPS: a CA of its own and a serving certificate it signs.

kube-apiserver serves TLS with a certificate its cluster's CA signed, and every kubeconfig names
that CA (``certificate-authority-data``), so that clients verify the server without flags. fakeapi
does the same with a CA it generates at start (ECDSA P-256, with the ``cryptography`` library): the
serving certificate names ``localhost``, ``127.0.0.1``, ``::1``, the address it listens on and the
names the ``kubernetes`` Service has in a cluster, as a kubeadm apiserver certificate does
(docs/authentication.md). The same CA signs client certificates (a user as the common name, its
groups as organizations, as kubeadm's admin.conf and kind's kubeconfig carry one), which the server
asks for and verifies. Nothing is written to disk but the files ``ssl`` needs to load them.
"""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["ServingCertificates", "generate_certificates"]

_VALIDITY = datetime.timedelta(days=365)
_CLUSTER_NAMES = ("localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc")


@dataclass(frozen=True)
class ServingCertificates:
    """PEM bytes: the CA certificate (what a kubeconfig carries) and its key, the serving certificate
    and its key."""

    ca_certificate: bytes
    ca_private_key: bytes
    certificate: bytes
    private_key: bytes

    def server_context(self) -> ssl.SSLContext:
        """An ``ssl`` context serving this certificate, HTTP/1.1 only (aiohttp speaks no HTTP/2)."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.set_alpn_protocols(["http/1.1"])
        with tempfile.TemporaryDirectory(prefix="fakeapi-tls-") as folder:
            chain, key = Path(folder) / "serving.crt", Path(folder) / "serving.key"
            chain.write_bytes(self.certificate + self.ca_certificate)
            key.touch(mode=0o600)
            key.write_bytes(self.private_key)
            context.load_cert_chain(chain, key)
        # Ask for a client certificate and verify one that comes (Go's VerifyClientCertIfGiven: a
        # client without one goes on to the other authenticators).
        context.verify_mode = ssl.CERT_OPTIONAL
        context.load_verify_locations(cadata=self.ca_certificate.decode("ascii"))
        return context

    def client_certificate(self, user: str, groups: tuple[str, ...] = ()) -> tuple[bytes, bytes]:
        """A client certificate and its key (PEM) for ``user`` in ``groups``, signed by the CA."""
        ca = x509.load_pem_x509_certificate(self.ca_certificate)
        ca_key = serialization.load_pem_private_key(self.ca_private_key, password=None)
        assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name(
            [x509.NameAttribute(NameOID.ORGANIZATION_NAME, group) for group in groups]
            + [x509.NameAttribute(NameOID.COMMON_NAME, user)]
        )
        certificate = _leaf(subject, key, ca, ca_key, ExtendedKeyUsageOID.CLIENT_AUTH)
        pem = serialization.Encoding.PEM
        private = key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        return certificate.public_bytes(pem), private


def _leaf(
    subject: x509.Name,
    key: ec.EllipticCurvePrivateKey,
    ca: x509.Certificate,
    ca_key: ec.EllipticCurvePrivateKey,
    usage: x509.ObjectIdentifier,
    names: x509.SubjectAlternativeName | None = None,
) -> x509.Certificate:
    """A certificate for ``key`` that the CA signs, good for one extended usage (serving or client)."""
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + _VALIDITY)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_signing_usage(), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    )
    if names is not None:
        builder = builder.add_extension(names, critical=False)
    builder = builder.add_extension(
        x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
    )
    return builder.sign(ca_key, hashes.SHA256())


def _signing_usage() -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=True,
        key_encipherment=False,
        key_cert_sign=False,
        crl_sign=False,
        content_commitment=False,
        data_encipherment=False,
        key_agreement=False,
        encipher_only=False,
        decipher_only=False,
    )


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def generate_certificates(host: str) -> ServingCertificates:
    """A new CA, and a serving certificate for ``host`` and the local and in-cluster names."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("fakeapi-ca"))
        .issuer_name(_name("fakeapi-ca"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + _VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    alternative_names: list[x509.GeneralName] = [x509.DNSName(name) for name in _CLUSTER_NAMES]
    addresses = {"127.0.0.1", "::1"}
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if host and host not in _CLUSTER_NAMES:
            alternative_names.append(x509.DNSName(host))
    else:
        if not ipaddress.ip_address(host).is_unspecified:
            addresses.add(host)
    alternative_names += [x509.IPAddress(ipaddress.ip_address(address)) for address in sorted(addresses)]
    serving = _leaf(
        _name("kube-apiserver"),
        key,
        ca,
        ca_key,
        ExtendedKeyUsageOID.SERVER_AUTH,
        x509.SubjectAlternativeName(alternative_names),
    )
    pem = serialization.Encoding.PEM
    return ServingCertificates(
        ca_certificate=ca.public_bytes(pem),
        ca_private_key=ca_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
        certificate=serving.public_bytes(pem),
        private_key=key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
    )
