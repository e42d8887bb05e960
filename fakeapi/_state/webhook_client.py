"""Where a webhook is called and what its answer means, as the apiserver's webhook client sees it.

Reproduces ``k8s.io/apiserver/pkg/util/webhook``: ``ClientManager.hookClientConfig`` (a ``url`` is
called as given, port 443 by default; a ``service`` reference becomes
``https://<name>.<namespace>.svc:<port><path>`` with that name as the TLS server name, its address
resolved by the service resolver), the rest client's ``?timeout=30s`` query
(``setGlobalDefaults``), and client-go's reading of the answer (``rest/request.go
transformResponse``, ``apimachinery/pkg/api/errors NewGenericServerResponse``). Shared by every
webhook caller (docs/conversion.md, "The webhook client").

The HTTP call itself is injected (:data:`HookTransport`): the server gives an HTTPS client; a
test or a scenario may give another. A Service has no address on one machine: the server's
``webhook_services`` (the admission webhooks' map too) maps ``(namespace, name, port)`` to a local
``(host, port)``, where a real cluster's resolver would have found the Service's cluster IP.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fakeapi._patching.godecode import decode
from fakeapi._patching.gostrconv import quote

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "HookError",
    "HookResponse",
    "HookTarget",
    "HookTransport",
    "failure_status_message",
    "go_duration",
    "hook_target",
    "unexpected_response_error",
]

DEFAULT_TIMEOUT_SECONDS = 30.0  # authentication.go setGlobalDefaults: config.Timeout
MAX_UNSTRUCTURED_RESPONSE_TEXT = 2048  # rest/request.go maxUnstructuredResponseTextBytes


class HookError(Exception):
    """A failure to get an answer, worded as client-go words it (``Post "<url>": <cause>``)."""


@dataclass(frozen=True)
class HookTarget:
    """One webhook call's destination: the URL the apiserver names, and where it really connects."""

    url: str
    connect_host: str
    connect_port: int
    server_name: str
    ca_bundle: bytes
    timeout: float

    def failure(self, cause: str) -> HookError:
        """``url.Error``: what net/http says of a request that got no answer."""
        return HookError(f'Post "{self.url}": {cause}')


@dataclass(frozen=True)
class HookResponse:
    status: int
    content_type: str
    body: bytes


HookTransport = Callable[[HookTarget, bytes], Awaitable[HookResponse]]
"""POSTs a JSON body to a target: the answer, or :class:`HookError` when there is none."""


def go_duration(seconds: float) -> str:
    """``time.Duration.String`` for the durations a timeout takes (``30s``, ``1.5s``, ``500ms``)."""
    if seconds >= 1:
        text = f"{seconds:.9f}".rstrip("0").rstrip(".")
        return text + "s"
    millis = seconds * 1000
    return (f"{millis:.6f}".rstrip("0").rstrip(".") or "0") + "ms"


def _ca_bundle(client_config: Mapping[str, Any]) -> bytes:
    text = client_config.get("caBundle") or ""
    try:
        return base64.b64decode(str(text), validate=True) if text else b""
    except (binascii.Error, ValueError):
        return b""


def hook_target(
    client_config: Mapping[str, Any],
    services: Mapping[tuple[str, str, int], tuple[str, int]],
    *,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> HookTarget:
    """The destination of a ``WebhookClientConfig`` (``hookClientConfig``); :class:`HookError` when a
    Service reference has no address."""
    query = f"?timeout={go_duration(timeout)}"
    ca_bundle = _ca_bundle(client_config)
    service = client_config.get("service")
    if isinstance(service, Mapping):
        name, namespace = str(service.get("name") or ""), str(service.get("namespace") or "")
        port = int(service.get("port") or 443)
        server_name = f"{name}.{namespace}.svc"
        url = f"https://{server_name}:{port}{service.get('path') or ''}{query}"
        address = services.get((namespace, name, port))
        target = HookTarget(url, "", 0, server_name, ca_bundle, timeout)
        if address is None:
            # The cluster IP resolver's lister answer for a Service it does not know.
            raise target.failure(f'service "{name}" not found')
        return HookTarget(url, address[0], address[1], server_name, ca_bundle, timeout)
    url = str(client_config.get("url") or "")
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or 443
    return HookTarget(f"{url}{query}", host, port, host, ca_bundle, timeout)


def _is_text(content_type: str) -> bool:
    return content_type.split(";")[0].strip().lower().startswith("text/")


_MESSAGES = {
    400: "the server rejected our request for an unknown reason",
    401: "the server has asked for the client to provide credentials",
    404: "the server could not find the requested resource",
    405: "the server does not allow this method on the requested resource",
    409: "the server reported a conflict",
    422: "the server rejected our request due to an error in our request",
    429: "the server has received too many requests and has asked us to try again later",
    503: "the server is currently unable to handle the request",
    504: "the server was unable to return a response in the time allotted, but may still be processing the request",
}


def unexpected_response_error(response: HookResponse) -> str:
    """The error of an answer outside 200-206: its Status when it is one, else
    ``newUnstructuredResponseError``."""
    status_message = failure_status_message(response)
    if status_message is not None:
        return status_message
    body = response.body[:MAX_UNSTRUCTURED_RESPONSE_TEXT]
    server_message = body.decode("utf-8", "replace").strip() if _is_text(response.content_type) else "unknown"
    code = response.status
    if code in _MESSAGES:
        return _MESSAGES[code]
    if code in (403, 415):
        return server_message
    if code == 406:
        if server_message in ("", "unknown"):
            return "the server was unable to respond with a content type that the client supports"
        return server_message
    if code >= 500:
        return f"an error on the server ({quote(server_message)}) has prevented the request from succeeding"
    return f"the server responded with the status code {code} but did not return more information"


def failure_status_message(response: HookResponse) -> str | None:
    """``Result.Error``: a non-2xx answer whose body is a ``Status`` of status Failure is that error."""
    try:
        value = decode(response.body, mark_numbers=False)
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("kind") != "Status" or value.get("status") != "Failure":
        return None
    return str(value.get("message") or "")
