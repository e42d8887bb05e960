"""The apiserver's HTTP call to an admission webhook: aiohttp, TLS trusting the ``caBundle``.

The server's :data:`~fakeapi._state.admission.WebhookCaller`: one POST of the AdmissionReview with
the headers client-go sends (``Content-Type: application/json``, ``Accept: application/json, */*``,
``User-Agent: kube-apiserver-admission``), to the address the call names, the TLS server name
checked against the webhook's certificate (a service reference's ``<name>.<namespace>.svc``), and
the ``caBundle`` as the only trusted root when there is one (``rest.TLSConfigFor``). Failures are
raised with Go's words for them (``dial tcp 127.0.0.1:9443: connect: connection refused``, ``EOF``,
``tls: failed to verify certificate: x509: certificate signed by unknown authority``), which the
dispatcher puts after ``Post "<url>": `` (docs/admission.md).
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import socket
import ssl
from pathlib import Path

import aiohttp
from cryptography import x509

from fakeapi._state.admission import CallFailed, HTTPAnswer, TransportError, WebhookCall

__all__ = ["WebhookClient"]

_HEADERS = {
    "Accept": "application/json, */*",
    "Content-Type": "application/json",
    "User-Agent": "kube-apiserver-admission",
}


def _dialled_address(host: str, port: int) -> str:
    """What Go's dialler names in its error: the address it dialled (a host name resolved)."""
    try:
        ipaddress.ip_address(host)
        address = host
    except ValueError:
        try:
            address = str(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][4][0])
        except OSError:
            address = host
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


class WebhookClient:
    """Calls webhooks over a pool of connections kept for the server's life (``close`` ends it)."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None
        self._contexts: dict[bytes, ssl.SSLContext] = {}

    def _context(self, ca_bundle: bytes) -> ssl.SSLContext:
        context = self._contexts.get(ca_bundle)
        if context is None:
            if ca_bundle:
                # The bundle alone is trusted, as Go's RootCAs pool: no system roots beside it.
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
                try:
                    context.load_verify_locations(cadata=ca_bundle.decode("ascii", "replace"))
                except (ssl.SSLError, ValueError):
                    raise CallFailed(
                        "could not get REST client: unable to load root certificates: unable to parse bytes as PEM block"
                    ) from None
            else:
                context = ssl.create_default_context()
            self._contexts[ca_bundle] = context
        return context

    async def __call__(self, call: WebhookCall) -> HTTPAnswer:
        scheme = call.url.split("://", 1)[0]
        context = self._context(call.ca_bundle) if scheme == "https" else None
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0), auto_decompress=True, skip_auto_headers=("User-Agent",)
            )
        path_and_query = call.url.split("://", 1)[1].partition("/")[2]
        host = f"[{call.host}]" if ":" in call.host else call.host
        target = f"{scheme}://{host}:{call.port}/{path_and_query}"
        authority = call.url.split("://", 1)[1].split("/", 1)[0].split("?", 1)[0]
        headers = {**_HEADERS, "Host": authority}
        try:
            async with self._session.post(
                target,
                data=call.body,
                headers=headers,
                ssl=context if context is not None else False,
                server_hostname=call.server_name if context is not None else None,
                allow_redirects=False,
            ) as response:
                body = await response.read()
                return HTTPAnswer(response.status, response.headers.get("Content-Type", ""), body)
        except aiohttp.ClientConnectorCertificateError as error:
            text = str(error.certificate_error)
            if "Hostname mismatch" in text or "IP address mismatch" in text:
                names = await _names_of_certificate(call.host, call.port)
                raise TransportError(_hostname_error(names, call.server_name)) from None
            raise TransportError(_certificate_error(text)) from None
        except aiohttp.ClientConnectorSSLError:
            raise TransportError("http: server gave HTTP response to HTTPS client") from None
        except aiohttp.ClientConnectorDNSError:
            raise TransportError(f"dial tcp: lookup {call.host}{_resolver_suffix()}: no such host") from None
        except aiohttp.ClientConnectorError as error:
            address = _dialled_address(call.host, call.port)
            if error.os_error.errno == errno.ECONNREFUSED:
                raise TransportError(f"dial tcp {address}: connect: connection refused") from None
            reason = (error.os_error.strerror or str(error.os_error)).lower()
            raise TransportError(f"dial tcp {address}: connect: {reason}") from None
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError):
            raise TransportError("EOF") from None
        except aiohttp.ClientResponseError as error:
            raise TransportError(f"net/http: HTTP/1.x transport connection broken: {error.message}") from None
        except aiohttp.ClientOSError as error:
            if isinstance(error.__cause__, ssl.SSLError) or "SSL" in str(error):
                raise TransportError("http: server gave HTTP response to HTTPS client") from None
            raise TransportError("EOF") from None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def _resolver_suffix() -> str:
    """Go's own resolver (kube-apiserver is built without cgo) names the name server it asked."""
    try:
        lines = Path("/etc/resolv.conf").read_text().splitlines()
    except OSError:
        return ""
    for line in lines:
        fields = line.split()
        if len(fields) >= 2 and fields[0] == "nameserver":
            server = fields[1]
            return f" on [{server}]:53" if ":" in server else f" on {server}:53"
    return ""


def _certificate_error(text: str) -> str:
    """Go's words for a certificate no trusted root signed, or one out of its validity."""
    if "expired" in text:
        return "tls: failed to verify certificate: x509: certificate has expired or is not yet valid"
    return "tls: failed to verify certificate: x509: certificate signed by unknown authority"


async def _names_of_certificate(host: str, port: int) -> tuple[list[str], list[str]] | None:
    """The DNS and IP names of the certificate the server presents (read without verifying it)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        _, writer = await asyncio.open_connection(host, port, ssl=context)
    except OSError:
        return None
    try:
        transport_ssl = writer.get_extra_info("ssl_object")
        der = transport_ssl.getpeercert(binary_form=True) if transport_ssl is not None else None
    finally:
        writer.close()
    if der is None:
        return None
    certificate = x509.load_der_x509_certificate(der)
    try:
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return ([], [])
    return names.get_values_for_type(x509.DNSName), [str(ip) for ip in names.get_values_for_type(x509.IPAddress)]


def _hostname_error(names: tuple[list[str], list[str]] | None, server_name: str) -> str:
    """``x509.HostnameError``: the names the certificate is valid for, and the one that was wanted."""
    prefix = "tls: failed to verify certificate: x509: "
    if names is None:
        return prefix + f"certificate is not valid for any names, but wanted to match {server_name}"
    dns_names, addresses = names
    try:
        ipaddress.ip_address(server_name)
    except ValueError:
        valid = ", ".join(dns_names)
    else:
        if not addresses:
            return prefix + f"cannot validate certificate for {server_name} because it doesn't contain any IP SANs"
        valid = ", ".join(addresses)
    if not valid:
        return prefix + f"certificate is not valid for any names, but wanted to match {server_name}"
    return prefix + f"certificate is valid for {valid}, not {server_name}"
