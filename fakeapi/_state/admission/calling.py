"""Where a webhook is called and how the call can fail (``pkg/util/webhook/client.go``, ``service.go``).

A webhook's ``clientConfig`` names a ``url`` or a ``service``. The apiserver's REST client posts to
the configured scheme and host with the path cleaned (Go's ``path.Join``) and a ``timeout`` query
parameter of the webhook's ``timeoutSeconds`` (``?timeout=10s``); a service reference becomes
``https://<name>.<namespace>.svc:<port><path>``, verified as that host name, and is dialled where
the Service routes (its ClusterIP, or the address ``service_addresses`` maps it to: one machine has
no cluster network, and a Service not mapped is refused as a ClusterIP without endpoints is,
docs/admission.md). The ``caBundle``, when given, is the only trusted root.

The HTTP call itself is an injected :data:`WebhookCaller`, so that a test or the scenarios engine
can hold it or fail it; the server's own caller is in ``fakeapi._http.webhook_client``.
"""

from __future__ import annotations

import base64
import binascii
import functools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fakeapi._state.admission.review import CallFailed, HTTPAnswer
from fakeapi._state.storeview import StoreView

__all__ = [
    "ServiceAddresses",
    "TransportError",
    "WebhookCall",
    "WebhookCaller",
    "parse_webhook_services",
    "resolve_call",
]

ServiceAddresses = Mapping[tuple[str, str, int], tuple[str, int]]
"""``(namespace, name, port)`` of a Service -> the ``(host, port)`` its webhook listens on here."""


class TransportError(Exception):
    """The call did not get an answer; ``str()`` is Go's error text after ``Post "<url>": ``."""


@dataclass(frozen=True)
class WebhookCall:
    """One POST of an AdmissionReview: where to, how to trust it, and what."""

    webhook: str
    url: str
    host: str
    port: int
    server_name: str
    ca_bundle: bytes
    body: bytes
    timeout: float
    # Set when the Service could not be resolved: the dialler's error, the call is never made.
    dial_error: str = ""


WebhookCaller = Callable[[WebhookCall], Awaitable[HTTPAnswer]]


def _go_clean(path: str) -> str:
    """``path.Join("/", p)``: rooted, ``.`` and ``..`` resolved, no doubled or trailing slash."""
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/" + "/".join(parts)


def _ca_bundle(config: Mapping[str, Any]) -> bytes:
    raw = config.get("caBundle")
    if not isinstance(raw, str) or not raw:
        return b""
    return _decoded_bundle(raw)


@functools.lru_cache(maxsize=64)
def _decoded_bundle(raw: str) -> bytes:
    try:
        return base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        return raw.encode()


@functools.lru_cache(maxsize=256)
def _split_url(raw_url: str) -> tuple[str, str, str, int | None, str]:
    """Scheme, authority, host name, port and cleaned path of a webhook URL (``ValueError`` when unparsable)."""
    parts = urlsplit(raw_url)
    return parts.scheme, parts.netloc, parts.hostname or "", parts.port, _go_clean(parts.path)


def _service_target(
    store: StoreView, service: Mapping[str, Any], port: int, addresses: ServiceAddresses
) -> tuple[str, int] | str:
    """Where the Service routes: the mapped address (or an ExternalName's host); else the error text of
    ``ResolveCluster``, or of the refused dial to a ClusterIP that nothing serves here."""
    namespace, name = str(service.get("namespace") or ""), str(service.get("name") or "")
    services = store.registry.resolve("", "v1", "services")
    found = store.find(services, namespace, name) if services is not None else None
    if found is None:
        return f'service "{name}" not found'
    mapped = addresses.get((namespace, name, port))
    if mapped is not None:
        return mapped
    raw_spec = found.get("spec")
    spec: Mapping[str, Any] = raw_spec if isinstance(raw_spec, dict) else {}
    kind = spec.get("type") or "ClusterIP"
    if kind == "ExternalName":
        return (str(spec.get("externalName") or ""), port)
    if kind not in ("ClusterIP", "NodePort", "LoadBalancer"):
        return f'unsupported service type "{kind}"'
    cluster_ip = str(spec.get("clusterIP") or "")
    if kind == "ClusterIP" and cluster_ip == "None":
        return 'cannot route to service with ClusterIP "None"'
    if not any(isinstance(entry, dict) and entry.get("port") == port for entry in spec.get("ports") or []):
        return f'no service port {port} found for service "{name}"'
    # Nothing on this machine serves a Service that is not mapped: a cluster's kube-proxy refuses a
    # connection to a ClusterIP without ready endpoints, and fakeapi sends nothing out to that address.
    address = f"[{cluster_ip}]:{port}" if ":" in cluster_ip else f"{cluster_ip}:{port}"
    return f"dial tcp {address}: connect: connection refused"


def resolve_call(store: StoreView, webhook: Mapping[str, Any], body: bytes, addresses: ServiceAddresses) -> WebhookCall:
    """The call a webhook's ``clientConfig`` makes, or :class:`CallFailed` (the REST client could not be built)."""
    name = str(webhook.get("name") or "")
    raw_config = webhook.get("clientConfig")
    config: Mapping[str, Any] = raw_config if isinstance(raw_config, dict) else {}
    timeout_seconds = webhook.get("timeoutSeconds")
    timeout = int(timeout_seconds) if isinstance(timeout_seconds, int) and timeout_seconds > 0 else 10
    query = f"?timeout={timeout}s"
    ca_bundle = _ca_bundle(config)
    service = config.get("service")
    if isinstance(service, dict):
        raw_port = service.get("port")
        port = raw_port if isinstance(raw_port, int) else 443
        server_name = f"{service.get('name') or ''}.{service.get('namespace') or ''}.svc"
        url = f"https://{server_name}:{port}{_go_clean(str(service.get('path') or ''))}{query}"
        target = _service_target(store, service, port, addresses)
        if isinstance(target, str):
            return WebhookCall(name, url, "", 0, server_name, ca_bundle, body, float(timeout), dial_error=target)
        return WebhookCall(name, url, target[0], target[1], server_name, ca_bundle, body, float(timeout))
    raw_url = config.get("url")
    if not isinstance(raw_url, str) or not raw_url:
        raise CallFailed("webhook configuration must have either service or URL")
    try:
        scheme, authority, host, url_port, path = _split_url(raw_url)
    except ValueError as error:
        raise CallFailed(f"Unparsable URL: {error}") from None
    default_port = 80 if scheme == "http" else 443
    url = f"{scheme}://{authority}{path}{query}"
    return WebhookCall(name, url, host, url_port or default_port, host, ca_bundle, body, float(timeout))


def _host_port(text: str, what: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"{what} must be host:port, not {text!r}")
    return host.strip("[]"), int(port)


def parse_webhook_services(mapping: Mapping[str, str]) -> dict[tuple[str, str, int], tuple[str, int]]:
    """``{"namespace/name[:port]": "host:port"}`` as :data:`ServiceAddresses`; a ``ValueError`` names a bad entry."""
    parsed: dict[tuple[str, str, int], tuple[str, int]] = {}
    for service, address in mapping.items():
        namespace, slash, rest = service.partition("/")
        name, colon, port = rest.partition(":")
        if not slash or not namespace or not name or (colon and not port.isdigit()):
            raise ValueError(f"a webhook service must be namespace/name[:port], not {service!r}")
        parsed[(namespace, name, int(port) if colon else 443)] = _host_port(address, "a webhook service's address")
    return parsed
