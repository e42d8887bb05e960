"""The SPDY upgrades of ``pods/<name>/portforward``: plain SPDY/3.1, and SPDY tunnelled in a WebSocket
(docs/kubelet-endpoints.md).

kubectl 1.32 first asks for a WebSocket whose subprotocol is ``SPDY/3.1+portforward.k8s.io``. The
apiserver's ``TunnelingHandler`` (``k8s.io/apiserver/pkg/util/proxy/streamtunnel.go``) takes every
offered subprotocol that starts with ``SPDY/3.1+`` and ends with ``.k8s.io``, asks the kubelet for
a SPDY upgrade with the rest of them as ``X-Stream-Protocol-Version``, and answers the WebSocket
upgrade with the kubelet's choice behind the prefix; from then on the SPDY connection's bytes
travel in binary messages, in pieces of any size (``tunneling_connection.go`` of client-go). A
refusal of the kubelet reaches the client as the kubelet wrote it.

Without WebSockets (``KUBECTL_PORT_FORWARD_WEBSOCKETS=false``, or a server that refuses them)
kubectl sends ``Upgrade: SPDY/3.1`` with ``X-Stream-Protocol-Version: portforward.k8s.io``, which the
apiserver relays to the kubelet. The kubelet's ``httpstream.Handshake``
(``k8s.io/apimachinery/pkg/util/httpstream/httpstream.go``) picks the first protocol the client
offers that it speaks (only ``portforward.k8s.io``), refuses with a 403 naming both lists when there
is none, and writes nothing at all when the client offers none; ``spdy.responseUpgrader``
(``httpstream/spdy/upgrade.go``) then wants ``Upgrade: SPDY/3.1`` and answers ``101``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import WSMsgType, web

from fakeapi._http.spdy_port_forwarding import Dial, SpdyPortForwarding

__all__ = ["offers_spdy_tunnel", "serve_spdy", "serve_spdy_tunnel"]

TUNNEL_PREFIX = "SPDY/3.1+"
KUBELET_PROTOCOLS = ("portforward.k8s.io",)
# What the client may send ahead of the server's reading before its reading is paused.
READ_AHEAD = 1 << 20


def _tunnelled_protocols(request: web.BaseRequest) -> list[str]:
    offered = request.headers.get("Sec-WebSocket-Protocol", "").split(",")
    return [
        protocol.strip().removeprefix(TUNNEL_PREFIX)
        for protocol in offered
        if protocol.strip().startswith(TUNNEL_PREFIX) and protocol.strip().endswith(".k8s.io")
    ]


def offers_spdy_tunnel(request: web.BaseRequest) -> bool:
    """``wsstream.IsWebSocketRequestWithTunnelingProtocol``."""
    return request.headers.get("Upgrade", "").lower() == "websocket" and bool(_tunnelled_protocols(request))


def _handshake(offered: list[str]) -> str | web.Response:
    """The negotiated protocol, or the kubelet's refusal."""
    chosen = next((protocol for protocol in offered if protocol in KUBELET_PROTOCOLS), None)
    if chosen is not None:
        return chosen
    text = (
        f"unable to upgrade: unable to negotiate protocol: client supports [{' '.join(offered)}], "
        f"server accepts [{' '.join(KUBELET_PROTOCOLS)}]"
    )
    headers = {"X-Accepted-Stream-Protocol-Versions": ", ".join(KUBELET_PROTOCOLS)}
    return _go_error(403, text, headers)


def _go_error(status: int, text: str, headers: dict[str, str] | None = None) -> web.Response:
    """``http.Error``: the text and a newline, as plain text the client must not sniff."""
    response = web.Response(
        status=status, text=text + "\n", headers={"X-Content-Type-Options": "nosniff", **(headers or {})}
    )
    response.content_type, response.charset = "text/plain", "utf-8"
    return response


def _go_headers(request: web.BaseRequest) -> str:
    """The request's headers as Go's ``%#v`` prints an ``http.Header`` (names canonical, sorted;
    ``Host`` is the request's, not a header)."""
    values: dict[str, list[str]] = {}
    for name, value in request.headers.items():
        if name.lower() == "host":
            continue
        values.setdefault("-".join(part.capitalize() for part in name.split("-")), []).append(value)
    entries = (
        f'"{name}":[]string{{{", ".join(chr(34) + value + chr(34) for value in values[name])}}}'
        for name in sorted(values)
    )
    return f"http.Header{{{', '.join(entries)}}}"


class _UpgradedBytes:
    """What the client sends after the ``101``. aiohttp's connection hands it over as it hands a
    WebSocket its frames; reading pauses while too much waits to be handled."""

    def __init__(self, transport: asyncio.Transport | None) -> None:
        self._transport = transport
        self._chunks: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._queued = 0
        self._paused = False

    def feed_data(self, data: bytes) -> tuple[bool, bytes]:
        self._chunks.put_nowait(bytes(data))
        self._queued += len(data)
        if self._queued > READ_AHEAD and not self._paused and self._transport is not None:
            self._paused = True
            self._transport.pause_reading()
        return False, b""

    def feed_eof(self) -> None:
        self._chunks.put_nowait(None)

    async def chunks(self) -> AsyncIterator[bytes]:
        while (chunk := await self._chunks.get()) is not None:
            self._queued -= len(chunk)
            if self._paused and self._queued <= READ_AHEAD // 2 and self._transport is not None:
                self._paused = False
                self._transport.resume_reading()
            yield chunk


async def serve_spdy(request: web.BaseRequest, dial: Dial) -> web.StreamResponse:
    """Plain SPDY: ``handleHTTPStreams`` of the kubelet's streaming server."""
    offered = [
        protocol.strip()
        for value in request.headers.getall("X-Stream-Protocol-Version", [])
        for protocol in value.split(",")
        if protocol.strip()
    ]
    if not offered:
        return web.Response(status=200)  # the handshake fails without writing an answer
    chosen = _handshake(offered)
    if isinstance(chosen, web.Response):
        return chosen
    if "spdy/3.1" not in request.headers.get("Upgrade", "").lower():
        return _go_error(400, f"unable to upgrade: missing upgrade headers in request: {_go_headers(request)}")
    upgraded = _UpgradedBytes(request.transport)
    # The connection's bytes go to the SPDY reader from now on, not to the HTTP parser: the
    # same hand-over aiohttp makes for a WebSocket (RequestHandler.set_parser).
    connection: Any = request.protocol
    connection.set_parser(upgraded)
    response = web.StreamResponse(
        status=101, headers={"Connection": "Upgrade", "Upgrade": "SPDY/3.1", "X-Stream-Protocol-Version": chosen}
    )
    response.force_close()
    await response.prepare(request)

    async def send(data: bytes) -> None:
        await response.write(data)

    await SpdyPortForwarding(send, dial).serve(upgraded.chunks())
    return response


async def serve_spdy_tunnel(request: web.BaseRequest, dial: Dial) -> web.StreamResponse:
    """SPDY in a WebSocket: the apiserver's ``TunnelingHandler`` in front of the kubelet's SPDY."""
    chosen = _handshake(_tunnelled_protocols(request))
    if isinstance(chosen, web.Response):
        return chosen
    socket = web.WebSocketResponse(protocols=(TUNNEL_PREFIX + chosen,))
    await socket.prepare(request)

    async def incoming() -> AsyncIterator[bytes]:
        async for message in socket:
            if message.type != WSMsgType.BINARY:
                return  # the tunnel reads binary messages only, and fails on any other
            yield message.data

    async def send(data: bytes) -> None:
        if socket.closed:
            raise ConnectionResetError
        await socket.send_bytes(data)

    await SpdyPortForwarding(send, dial).serve(incoming())
    await socket.close()
    return socket
