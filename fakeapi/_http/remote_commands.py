"""``pods/<name>/exec`` and ``attach`` over WebSocket for a pod the simulated kubelet runs
(docs/kubelet-endpoints.md).

The channel protocol (``k8s.io/apimachinery/pkg/util/httpstream/wsstream/conn.go``): every message
starts with its channel, 0 stdin, 1 stdout, 2 stderr, 3 the error channel, 4 terminal resizes;
binary messages for ``v5.channel.k8s.io``, ``v4.channel.k8s.io`` and ``channel.k8s.io``, text
messages (the channel as an ASCII digit, the data in base64) for the ``base64`` ones. A request
offering ``v5.channel.k8s.io`` is answered by the apiserver's stream translator
(``k8s.io/apiserver/pkg/util/proxy/streamtranslator.go``), which speaks only v5, where a message
``255, <channel>`` half-closes a channel; any other is passed to the kubelet, whose streaming
server speaks v4 and the older ones, in the client's order of preference. A protocol neither knows
is refused with a 403 and no body, as ``golang.org/x/net/websocket`` refuses a handshake.

Once the connection is up the server writes an empty message to the first writable channel
(stdout, else stderr, else the error channel), then the command's output, then on the error
channel a ``metav1.Status``: Success, or ``NonZeroExitCode`` with an ``ExitCode`` cause (v4 and
v5; the older protocols write only a failure's message). The message differs with the path: the
translator wraps client-go's ``command terminated with exit code N``, the kubelet's streaming
server the runtime's ``error executing command [cmd args], exit code N``.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from aiohttp import web

from fakeapi._cluster.container_logs import ContainerInstance, instance_for, still_running
from fakeapi._cluster.kubelet_endpoints import ExecResult, KubeletEndpoints
from fakeapi._http.channel_sockets import ERROR, KUBELET_PROTOCOLS, STDERR, STDOUT, V5, ChannelSocket, StreamOptions
from fakeapi._http.context import ServerState
from fakeapi._http.local_exec import run_local_command
from fakeapi._state.objects import metadata_of
from fakeapi._state.pod_subresources import container_for
from fakeapi._state.resources import ResourceType
from fakeapi._state.watching import Watcher
from fakeapi.errors import APIError

__all__ = ["serve_remote_command"]


def _negotiate(request: web.BaseRequest) -> str | None:
    offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
    if V5 in offered:
        return V5
    for protocol in offered or [""]:
        if protocol in KUBELET_PROTOCOLS:
            return protocol
    return None


async def serve_remote_command(
    request: web.BaseRequest,
    state: ServerState,
    kubelet: KubeletEndpoints,
    pods: ResourceType,
    pod: dict[str, Any],
    subresource: str,
) -> web.StreamResponse:
    meta = metadata_of(pod)
    namespace, name = str(meta.get("namespace", "")), str(meta.get("name", ""))
    container = container_for(pod, request.query.get("container", ""), name=name)
    if request.headers.get("Upgrade", "").lower() != "websocket":
        raise APIError.bad_request("Upgrade request required")
    protocol = _negotiate(request)
    if protocol is None:
        return web.Response(status=403)
    instance = _running(pod, container)
    options = StreamOptions.of(request.query)
    if instance is None and protocol != V5:
        return web.Response(status=500, text=f'container not found ("{container}")')
    socket = web.WebSocketResponse(protocols=(protocol,) if protocol else ())
    await socket.prepare(request)
    command = request.query.getall("command", [])
    launched = None
    if instance is not None and subresource == "exec" and command:
        # A test's script for the command wins over running it.
        scripted = kubelet.scripted(namespace, name, container, command)
        launched = None if scripted else kubelet.process_of(instance.container_id)
    # stdin is kept for a command that reads it from the first byte on, and dropped otherwise.
    channels = ChannelSocket(socket, protocol, keep_stdin=launched is not None and options.stdin)
    reader = asyncio.get_running_loop().create_task(channels.receive())
    try:
        first = STDOUT if options.stdout else STDERR if options.stderr else ERROR
        await channels.send(first, b"")
        if instance is None:
            cause = f'unable to upgrade connection: container not found ("{container}")'
            await channels.send_status(_internal_error(cause))
        elif subresource == "exec":
            if launched is not None:
                where = f"container {container} of pod {namespace}/{name}"
                code = await run_local_command(channels, options, launched, command, where)
                await _send_exit(channels, code, command)
            else:
                result = kubelet.result_of(namespace, name, container, command)
                await _run(channels, options, result, command)
        else:
            await _attach(channels, options, state, kubelet, pods, pod, instance)
        await socket.close()
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
    return socket


def _running(pod: dict[str, Any], container: str) -> ContainerInstance | None:
    """The container's running instance: the kubelet's ``findContainer`` sees only running ones."""
    try:
        instance = instance_for(pod, container, previous=False)
    except APIError:
        return None
    return instance if instance.running else None


async def _run(channels: ChannelSocket, options: StreamOptions, result: ExecResult, command: list[str]) -> None:
    if result.stdout and options.stdout:
        await channels.send(STDOUT, result.stdout)
    if result.stderr:
        if options.stderr:
            await channels.send(STDERR, result.stderr)
        elif options.tty and options.stdout:
            await channels.send(STDOUT, result.stderr)
    await _send_exit(channels, result.exit_code, command)


async def _send_exit(channels: ChannelSocket, code: int, command: list[str]) -> None:
    """The exit's Status on the error channel: Success, or ``NonZeroExitCode`` worded by the path."""
    if code == 0:
        await channels.send_status({"metadata": {}, "status": "Success"})
        return
    if channels.protocol == V5:
        message = f"command terminated with non-zero exit code: command terminated with exit code {code}"
    else:
        shown = "[" + " ".join(command) + "]"
        message = f"command terminated with non-zero exit code: error executing command {shown}, exit code {code}"
    await channels.send_status(
        {
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]},
        }
    )


async def _attach(
    channels: ChannelSocket,
    options: StreamOptions,
    state: ServerState,
    kubelet: KubeletEndpoints,
    pods: ResourceType,
    pod: dict[str, Any],
    instance: ContainerInstance,
) -> None:
    """The lines the container writes from now on, until it stops running or the client leaves."""
    meta = metadata_of(pod)
    namespace, name, uid = str(meta.get("namespace", "")), str(meta.get("name", "")), meta.get("uid")
    printed = kubelet.printed(pod, instance.name)
    seen = len(kubelet.logs.lines(instance, printed))
    watcher = Watcher(pods.storage_key, namespace, lambda obj: metadata_of(obj).get("name") == name)
    watcher.on_queued = kubelet.logs.wake
    state.store.hub.subscribe(watcher)
    channels.on_gone = kubelet.logs.wake
    try:
        while True:
            lines = kubelet.logs.lines(instance, printed)
            fresh, seen = lines[seen:], len(lines)
            if fresh and options.stdout:
                await channels.send(STDOUT, b"".join((line.text + "\n").encode() for line in fresh))
            current = state.store.find(pods, namespace, name)
            if current is not None and metadata_of(current).get("uid") != uid:
                current = None
            if not still_running(current, instance) or watcher.closed or channels.gone:
                break
            waiter = kubelet.logs.waiter()
            watcher.take()
            await waiter
    finally:
        state.store.hub.unsubscribe(watcher)
    if not channels.gone:
        await channels.send_status({"metadata": {}, "status": "Success"})


def _internal_error(cause: str) -> dict[str, Any]:
    """``NewInternalError`` as the translator writes it to the error channel."""
    return {
        "metadata": {},
        "status": "Failure",
        "message": f"Internal error occurred: {cause}",
        "reason": "InternalError",
        "details": {"causes": [{"message": cause}]},
        "code": 500,
    }
