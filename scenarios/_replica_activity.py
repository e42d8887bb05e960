"""What a kopf replica is doing when it sends a request, for the step tables.

Runs inside the replica process. Every request the replica sends through aiohttp (kopf's own
client, and kubernetes_asyncio in a handler) or through ``http.client`` (the synchronous
``kubernetes`` client and ``requests``, both on urllib3, in a sync handler's executor thread)
carries an ``X-Fakeapi-Activity`` header naming the kopf handler running and the object it handles
(kopf's ``handler_var`` and ``cause_var`` context variables, which kopf copies into the thread of a
sync handler), or else the kopf task that sends it (its watcher, the worker of an object, the
event poster, peering). The server answers as if the header were not there; the gate hands it to
the engine, which shows it beside the step.
"""

from __future__ import annotations

import asyncio
import http.client
import re
from typing import Any

import aiohttp
from multidict import CIMultiDict

__all__ = ["ACTIVITY_HEADER", "describe_activity", "label_requests"]

ACTIVITY_HEADER = "X-Fakeapi-Activity"
_LONGEST = 160


def _object_of(cause: Any) -> str:
    body: Any = getattr(cause, "body", None)
    metadata: Any = body.get("metadata") if body is not None and hasattr(body, "get") else None
    if not metadata or not metadata.get("name"):
        return ""
    name, namespace = metadata.get("name"), metadata.get("namespace")
    return f"{namespace}/{name}" if namespace else str(name)


def describe_activity() -> str:
    """The current kopf handler and its object, or the kopf task's name; empty outside both."""
    from kopf._core.actions import execution

    handler = execution.handler_var.get(None)
    if handler is not None:
        target = _object_of(execution.cause_var.get(None))
        return f"kopf handler {handler.id}" + (f" for {target}" if target else "")
    try:
        task = asyncio.current_task()
    except RuntimeError:  # a thread without a running loop: an executor thread outside a handler
        return ""
    if task is None or task.get_name().startswith("Task-"):
        return ""
    return "kopf " + _task_label(task.get_name())


def _task_label(name: str) -> str:
    """kopf's task names without what varies from run to run or says nothing: a worker's key holds
    the object's uid (the request names the object anyway), a watcher's ``@None`` is "every
    namespace"."""
    match = re.fullmatch(r"worker for \((\S+), '[^']*'\)", name)
    if match:
        return f"worker for a {match.group(1)} object"
    return name.removesuffix("@None")


def _header_value(text: str) -> str:
    ascii_text = text.encode("ascii", "backslashreplace").decode("ascii")
    printable = "".join(char if " " <= char <= "~" else " " for char in ascii_text)
    return printable[:_LONGEST]


def label_requests() -> None:
    """Make every aiohttp and ``http.client`` request of this process carry the activity header."""
    original = aiohttp.ClientSession._request

    async def _request(self: aiohttp.ClientSession, method: str, str_or_url: Any, **kwargs: Any) -> Any:
        activity = describe_activity()
        if activity:
            headers: CIMultiDict[str] = CIMultiDict(kwargs.get("headers") or {})
            headers[ACTIVITY_HEADER] = _header_value(activity)
            kwargs["headers"] = headers
        return await original(self, method, str_or_url, **kwargs)

    aiohttp.ClientSession._request = _request  # type: ignore[method-assign]

    blocking_request = http.client.HTTPConnection.putrequest

    def putrequest(self: http.client.HTTPConnection, method: str, url: str, *args: Any, **kwargs: Any) -> None:
        blocking_request(self, method, url, *args, **kwargs)
        activity = describe_activity()
        if activity:
            self.putheader(ACTIVITY_HEADER, _header_value(activity))

    http.client.HTTPConnection.putrequest = putrequest  # type: ignore[method-assign]
