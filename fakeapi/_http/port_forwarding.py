"""``pods/<name>/portforward`` for a pod the simulated kubelet runs (docs/kubelet-endpoints.md).

The apiserver decodes ``ports`` (``Convert_Slice_string_To_Slice_int32``: repeated or comma
separated, each a ``strconv.ParseUint(v, 10, 16)``) and hands the request to the kubelet, whose
WebSocket port forwarding (``pkg/kubelet/cri/streaming/portforward/websocket.go``) speaks
``v4.channel.k8s.io``, ``v4.base64.channel.k8s.io`` or no protocol at all. Each port has two
channels, data ``2i`` and error ``2i+1``; the server first writes the port, two bytes little-endian,
on both. Bytes on a data channel go to the port in the pod, and back; a port the pod does not
listen on gets ``error forwarding port <port> to pod <sandbox>, uid : <dial error>`` on its error
channel. Here a port listens when a test named the local address it stands for
(:meth:`~fakeapi.FakeAPIServer.forward_port`), or, in a pod with a process-backed container, on the
local port the process stands for (docs/process-containers.md); the connection ends when every
port's connection has.

Any other upgrade is kubectl's SPDY/3.1, tunnelled in a WebSocket (the apiserver's tunnelling
handler takes a WebSocket offering ``SPDY/3.1+...k8s.io``) or plain (``Upgrade: SPDY/3.1``):
``spdy_upgrades`` answers it, with the same dialling and the same refusal text. A request that is
no upgrade (no ``Connection: upgrade``, ``httpstream.IsUpgradeRequest``) is the apiserver's 400.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import hashlib
from collections.abc import Sequence
from typing import Any

from aiohttp import WSMsgType, web

from fakeapi._cluster.kubelet_endpoints import KubeletEndpoints
from fakeapi._http.spdy_upgrades import offers_spdy_tunnel, serve_spdy, serve_spdy_tunnel
from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError

__all__ = ["serve_port_forward"]

PROTOCOLS = ("v4.channel.k8s.io", "v4.base64.channel.k8s.io", "")
READ_SIZE = 32 * 1024


def _ports(request: web.BaseRequest) -> list[int]:
    ports = []
    for value in request.query.getall("ports", []):
        for part in value.split(","):
            if not part.isascii() or not part.isdigit():
                raise APIError.bad_request(
                    f'cannot convert to []int32: strconv.ParseUint: parsing "{part}": invalid syntax'
                )
            if int(part) > 65535:
                raise APIError.bad_request(
                    f'cannot convert to []int32: strconv.ParseUint: parsing "{part}": value out of range'
                )
            ports.append(int(part))
    return ports


def _negotiate(request: web.BaseRequest) -> str | None:
    offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
    return next((protocol for protocol in offered or [""] if protocol in PROTOCOLS), None)


def _sandbox_id(pod: dict[str, Any]) -> str:
    return hashlib.sha256(f"{metadata_of(pod).get('uid')}/sandbox".encode()).hexdigest()


def _runs_a_container(pod: dict[str, Any]) -> bool:
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return any("running" in (entry.get("state") or {}) for entry in statuses if isinstance(entry, dict))


class _Forwarding:
    """One port-forward connection: the socket, its framing, and a writer per connected port."""

    def __init__(self, socket: web.WebSocketResponse, protocol: str, ports: list[int]) -> None:
        self.socket = socket
        self.binary = "base64" not in protocol
        self.ports = ports
        self.writers: dict[int, asyncio.StreamWriter] = {}
        # One message at a time: the ports' tasks send concurrently, and two sends interleaving
        # their writes would corrupt the frames.
        self.sending = asyncio.Lock()
        # What the client sent a port before its connection was made, as the kubelet's channel
        # buffers it until the forwarder reads.
        self.pending: dict[int, list[bytes]] = {index: [] for index in range(len(ports))}

    async def send(self, channel: int, data: bytes) -> None:
        async with self.sending:
            if self.socket.closed:
                return
            if self.binary:
                await self.socket.send_bytes(bytes([channel]) + data)
            else:
                await self.socket.send_str(chr(ord("0") + channel) + base64.b64encode(data).decode("ascii"))

    async def receive(self) -> None:
        """Bytes on a data channel go to its port's connection; the rest is dropped."""
        async for message in self.socket:
            if message.type not in (WSMsgType.BINARY, WSMsgType.TEXT):
                continue
            raw = message.data if isinstance(message.data, bytes) else message.data.encode()
            if not raw:
                continue
            channel, data = raw[0], raw[1:]
            if not self.binary:
                channel, data = channel - ord("0"), base64.b64decode(data)
            if channel % 2 or channel // 2 >= len(self.ports) or not data:
                continue
            writer = self.writers.get(channel // 2)
            if writer is None:
                self.pending[channel // 2].append(data)
                continue
            writer.write(data)
            with contextlib.suppress(ConnectionError):
                await writer.drain()

    async def forward(self, index: int, kubelet: KubeletEndpoints, pod: dict[str, Any]) -> None:
        dialled = await _dial(kubelet, pod, self.ports[index])
        if isinstance(dialled, str):
            await self.send(2 * index + 1, dialled.encode())
            return
        reader, writer = dialled
        self.writers[index] = writer
        writer.write(b"".join(self.pending[index]))
        self.pending[index] = []
        try:
            while data := await reader.read(READ_SIZE):
                await self.send(2 * index, data)
        finally:
            self.writers.pop(index, None)
            writer.close()


async def _dial(
    kubelet: KubeletEndpoints, pod: dict[str, Any], port: int
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | str:
    """A connection to the pod's ``port``, or the text the kubelet writes on the port's error stream."""
    target = kubelet.target_of(pod, port)
    try:
        if target is None:
            raise ConnectionRefusedError
        return await asyncio.open_connection(*target)
    except OSError:
        return (
            f"error forwarding port {port} to pod {_sandbox_id(pod)}, uid : "
            f"dial tcp4 127.0.0.1:{port}: connect: connection refused"
        )


def _pod_not_found(pod: dict[str, Any]) -> web.Response:
    meta = metadata_of(pod)
    return web.Response(status=500, text=f'pod not found ("{meta.get("name", "")}_{meta.get("namespace", "")}")')


def _is_upgrade(request: web.BaseRequest) -> bool:
    """``httpstream.IsUpgradeRequest``: a ``Connection`` header that names ``upgrade``."""
    return any("upgrade" in value.lower() for value in request.headers.getall("Connection", []))


async def serve_port_forward(
    request: web.BaseRequest, kubelet: KubeletEndpoints, pod: dict[str, Any]
) -> web.StreamResponse:
    ports = _ports(request)
    if not _is_upgrade(request):
        raise APIError.bad_request("Upgrade request required")
    websocket = request.headers.get("Upgrade", "").lower() == "websocket"
    if offers_spdy_tunnel(request) or not websocket:
        if not _runs_a_container(pod):
            return _pod_not_found(pod)
        serve = serve_spdy_tunnel if websocket else serve_spdy
        return await serve(request, functools.partial(_dial, kubelet, pod))
    protocol = _negotiate(request)
    if protocol is None:
        return web.Response(status=403)
    if not ports:
        return web.Response(status=400, text='query parameter "port" is required')
    if not _runs_a_container(pod):
        return _pod_not_found(pod)
    socket = web.WebSocketResponse(protocols=(protocol,) if protocol else ())
    await socket.prepare(request)
    forwarding = _Forwarding(socket, protocol, ports)
    for index, port in enumerate(ports):
        announced = port.to_bytes(2, "little")
        await forwarding.send(2 * index, announced)
        await forwarding.send(2 * index + 1, announced)
    reader = asyncio.get_running_loop().create_task(forwarding.receive())
    forwards = [asyncio.ensure_future(forwarding.forward(index, kubelet, pod)) for index in range(len(ports))]
    every_port = asyncio.ensure_future(_all_of(forwards))
    try:
        await asyncio.wait([reader, every_port], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (reader, every_port, *forwards):
            task.cancel()
        await asyncio.gather(reader, every_port, *forwards, return_exceptions=True)
        await socket.close()
    return socket


async def _all_of(tasks: Sequence[asyncio.Future[None]]) -> None:
    await asyncio.gather(*tasks)
