"""The webhook client's HTTPS call (``k8s.io/apiserver/pkg/util/webhook`` over client-go's transport).

One POST of a JSON body to a :class:`~fakeapi._state.webhook_client.HookTarget`: TLS verified
against the target's ``caBundle`` (the system's roots when it has none) for the target's server
name, the connection made to the target's address (a Service's mapped address), the whole call
bounded by the target's timeout; connections are kept between calls. What net/http would say of
a call that got no answer is the :class:`~fakeapi._state.webhook_client.HookError` raised
(docs/conversion.md, "The webhook client").
"""

from __future__ import annotations

import asyncio
import ssl
from urllib.parse import urlsplit

import aiohttp

from fakeapi._state.webhook_client import HookResponse, HookTarget

__all__ = ["HttpsTransport"]


def _tls_context(target: HookTarget) -> ssl.SSLContext:
    if not target.ca_bundle:
        return ssl.create_default_context()
    try:
        return ssl.create_default_context(cadata=target.ca_bundle.decode("ascii", "replace"))
    except ssl.SSLError:
        # An unreadable bundle adds no root: nothing the webhook serves is then trusted.
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def _certificate_problem(error: aiohttp.ClientConnectorCertificateError) -> str:
    """crypto/tls and crypto/x509's words for the verification failures a test meets."""
    certificate_error = error.certificate_error
    message = getattr(certificate_error, "verify_message", "") or str(certificate_error)
    if "mismatch" in message:
        return f"tls: failed to verify certificate: x509: certificate is not valid for {error.host}"
    if "expired" in message:
        return "tls: failed to verify certificate: x509: certificate has expired or is not yet valid"
    return "tls: failed to verify certificate: x509: certificate signed by unknown authority"


class HttpsTransport:
    """POSTs over HTTPS, keeping connections open between calls: one pool per trusted bundle and
    server name, as the webhook client manager keeps one client per configuration (``HookClient``)."""

    def __init__(self) -> None:
        self._sessions: dict[tuple[bytes, str], aiohttp.ClientSession] = {}

    def _session(self, target: HookTarget) -> aiohttp.ClientSession:
        key = (target.ca_bundle, target.server_name)
        session = self._sessions.get(key)
        if session is None or session.closed:
            connector = aiohttp.TCPConnector(ssl=_tls_context(target))
            session = aiohttp.ClientSession(connector=connector, auto_decompress=True)
            self._sessions[key] = session
        return session

    async def __call__(self, target: HookTarget, body: bytes) -> HookResponse:
        """POST ``body`` as ``application/json`` and read the whole answer."""
        try:
            return await self._post(target, body)
        except aiohttp.ServerDisconnectedError:
            # A kept connection the webhook closed meanwhile: net/http sends the request again.
            return await self._post(target, body)

    async def _post(self, target: HookTarget, body: bytes) -> HookResponse:
        parts = urlsplit(target.url)
        host = target.connect_host
        address = f"[{host}]" if ":" in host else host
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        url = f"https://{address}:{target.connect_port}{path}"
        headers = {"Content-Type": "application/json", "Accept": "application/json, */*", "Host": parts.netloc}
        timeout = aiohttp.ClientTimeout(total=target.timeout)
        try:
            async with self._session(target).post(
                url, data=body, headers=headers, server_hostname=target.server_name, timeout=timeout
            ) as response:
                data = await response.read()
                return HookResponse(response.status, response.headers.get("Content-Type", ""), data)
        except TimeoutError:
            raise target.failure("context deadline exceeded") from None
        except aiohttp.ClientConnectorCertificateError as error:
            raise target.failure(_certificate_problem(error)) from None
        except aiohttp.ClientConnectorError as error:
            dialed = f"{address}:{target.connect_port}"
            if isinstance(error.os_error, ConnectionRefusedError):
                raise target.failure(f"dial tcp {dialed}: connect: connection refused") from None
            if isinstance(error.os_error, ssl.SSLError) and error.os_error.reason == "WRONG_VERSION_NUMBER":
                # Go reads the first record: a plain HTTP server's answer is what makes it not TLS.
                raise target.failure("http: server gave HTTP response to HTTPS client") from None
            raise target.failure(f"dial tcp {dialed}: {error.os_error.strerror or error.os_error}") from None
        except aiohttp.ServerDisconnectedError:
            raise
        except (aiohttp.ClientError, asyncio.IncompleteReadError, OSError) as error:
            raise target.failure(str(error) or type(error).__name__) from None

    async def aclose(self) -> None:
        sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            await session.close()
