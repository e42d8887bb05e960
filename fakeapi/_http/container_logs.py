"""``GET pods/<name>/log`` for a pod the simulated kubelet runs (docs/kubelet-endpoints.md).

The apiserver streams what the kubelet answers (``LocationStreamer.InputStream`` in
``k8s.io/apiserver/pkg/registry/generic/rest/streamer.go``, written by ``StreamObject``): the
kubelet's refusal becomes a 400 with its text (``GenericHttpResponseChecker``); otherwise a 200
``Content-Type: text/plain``, headers flushed at once, then the log. With ``follow`` the stream
stays open and carries each line as it is written, and ends when the container instance it reads
stops running (it terminated, the pod went away) or when ``limitBytes`` are sent. It waits on the
store's pod changes and on appended lines, never on a timer.
"""

from __future__ import annotations

import contextlib
from typing import Any

from aiohttp import web

from fakeapi._cluster.container_logs import LogCursor, instance_for, still_running
from fakeapi._cluster.kubelet_endpoints import KubeletEndpoints
from fakeapi._http.context import ServerState
from fakeapi._http.keys import STREAM
from fakeapi._state.objects import metadata_of
from fakeapi._state.pod_log_options import PodLogOptions
from fakeapi._state.pod_subresources import container_for
from fakeapi._state.resources import ResourceType
from fakeapi._state.watching import Watcher

__all__ = ["serve_container_log"]


async def serve_container_log(
    request: web.BaseRequest,
    state: ServerState,
    kubelet: KubeletEndpoints,
    pods: ResourceType,
    pod: dict[str, Any],
    options: PodLogOptions,
) -> web.StreamResponse:
    meta = metadata_of(pod)
    namespace, name = str(meta.get("namespace", "")), str(meta.get("name", ""))
    container = container_for(pod, options.container, name=name)
    instance = instance_for(pod, container, previous=options.previous)
    printed = kubelet.printed(pod, container)
    cursor = LogCursor(options, state.clock.now())
    watcher = Watcher(pods.storage_key, namespace, lambda obj: metadata_of(obj).get("name") == name)
    watcher.on_queued = kubelet.logs.wake
    if options.follow:
        state.store.hub.subscribe(watcher)
    response = web.StreamResponse(status=200)
    response.headers["Content-Type"] = "text/plain"
    response.enable_chunked_encoding()
    await response.prepare(request)
    request[STREAM] = response
    try:
        await response.write(cursor.take(kubelet.logs.lines(instance, printed)))
        while options.follow and not cursor.exhausted:
            current = state.store.find(pods, namespace, name)
            if current is not None and metadata_of(current).get("uid") != meta.get("uid"):
                current = None
            if not still_running(current, instance) or watcher.closed:
                # What the instance wrote before it stopped is read out before the stream ends.
                await response.write(cursor.take(kubelet.logs.lines(instance, printed)))
                break
            waiter = kubelet.logs.waiter()
            chunk = cursor.take(kubelet.logs.lines(instance, printed))
            if chunk:
                waiter.cancel()
                await response.write(chunk)
                continue
            watcher.take()
            await waiter
    finally:
        state.store.hub.unsubscribe(watcher)
    with contextlib.suppress(ConnectionResetError, RuntimeError):
        await response.write_eof()
    return response
