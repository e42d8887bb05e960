"""Admission webhooks inside a scenario: the scenario's handlers answer them, and every call a write
makes is a step of the writing actor, which the ``webhook-down`` fault can fail.

Which webhooks a write calls, with which AdmissionReview, and what a failed call does to the write
are fakeapi's admission chain's business (rules, selectors, matchConditions, ``failurePolicy``:
docs/admission.md). The engine only installs the caller (:meth:`FakeAPIServer.set_webhook_caller`,
"Tests and engines: holding or answering a call"): a call made while an actor's write runs is held
like a request, so the write waits at admission as it does on a real apiserver, holding nothing in
the store, while the schedule decides what happens next. Released, the call is answered by the
scenario's handler, or fails as a real call does: the connection refused (``dial tcp <address>:
connect: connection refused``, what a webhook whose Service has no ready endpoint gets from
kube-proxy) or no answer within the webhook's ``timeoutSeconds`` (the chain words that one: its
deadline, ``context deadline exceeded``). docs/scenarios-faults.md says what a cluster shows.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from fakeapi import APIError, GateRequest, WebhookAnswer, WebhookCall, WebhookTransportError
from scenarios._faults import Fault
from scenarios._gating import Conductor, Held
from scenarios._model import ObjectKey, Option, WebhookHandler

__all__ = ["WebhookDesk", "service_routes", "waiting_call", "webhook_names"]

_LOG = logging.getLogger("scenarios")
_CONFIGURATIONS = ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
_RUN_OVER = APIError("the run is over", reason="ServiceUnavailable", code=503)


def webhook_names(objects: Iterable[dict[str, Any]]) -> list[str]:
    """The names of the webhooks the scenario's configurations declare, in order."""
    names: list[str] = []
    for obj in objects:
        if obj.get("kind") in _CONFIGURATIONS and str(obj.get("apiVersion", "")).startswith("admissionregistration."):
            names += [str(hook.get("name", "")) for hook in obj.get("webhooks") or [] if isinstance(hook, dict)]
    return names


def service_routes(objects: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Where the webhooks referenced by a Service are dialled: the Service's clusterIP and port, as
    kube-apiserver dials them (``{"namespace/name:port": "clusterIP:port"}``, for
    :meth:`FakeAPIServer.set_webhook_services`). A Service among the objects without a clusterIP is
    left out: fakeapi then refuses its calls as a cluster refuses a Service without endpoints."""
    objects = list(objects)
    addresses: dict[tuple[str, str], str] = {}
    for obj in objects:
        if obj.get("kind") == "Service" and obj.get("apiVersion") == "v1":
            metadata = obj.get("metadata") or {}
            cluster_ip = str((obj.get("spec") or {}).get("clusterIP") or "")
            if cluster_ip and cluster_ip != "None":
                addresses[(metadata.get("namespace") or "default", metadata.get("name", ""))] = cluster_ip
    routes: dict[str, str] = {}
    for obj in objects:
        if obj.get("kind") not in _CONFIGURATIONS:
            continue
        for hook in obj.get("webhooks") or []:
            service = (hook.get("clientConfig") or {}).get("service") if isinstance(hook, dict) else None
            if not isinstance(service, dict):
                continue
            port = service.get("port") if isinstance(service.get("port"), int) else 443
            address = addresses.get((str(service.get("namespace", "")), str(service.get("name", ""))))
            if address is not None:
                host = f"[{address}]" if ":" in address else address
                routes[f"{service.get('namespace')}/{service.get('name')}:{port}"] = f"{host}:{port}"
    return routes


def _refused(call: WebhookCall) -> WebhookTransportError:
    """Go's dialler's words for a connection nobody accepts, naming the address it dialled."""
    address = f"[{call.host}]:{call.port}" if ":" in call.host else f"{call.host}:{call.port}"
    return WebhookTransportError(f"dial tcp {address}: connect: connection refused")


class WebhookDesk:
    """The engine's webhook caller: holds each call of a running write, then answers or fails it."""

    def __init__(self, handlers: Mapping[str, WebhookHandler], conductor: Conductor) -> None:
        self.handlers = dict(handlers)
        self.conductor = conductor
        self.releasing: tuple[str, GateRequest] | None = None
        """The actor and the write the engine is letting run: the calls made now are that write's."""

    def check(self, objects: Iterable[dict[str, Any]]) -> None:
        """Every webhook of the scenario's configurations has a handler, and every handler a webhook."""
        declared = webhook_names(objects)
        missing = sorted(set(declared) - set(self.handlers))
        if missing:
            raise ValueError(f"webhooks without a handler in the scenario's webhooks: {', '.join(missing)}")
        unused = sorted(set(self.handlers) - set(declared))
        if unused:
            raise ValueError(
                f"webhook handlers for no webhook of the scenario's configurations: {', '.join(unused)} "
                f"(declared: {', '.join(declared) or 'none'})"
            )

    async def __call__(self, call: WebhookCall) -> WebhookAnswer:
        releasing = self.releasing
        if releasing is None or not self.conductor.active:
            return await self.answer(call)
        actor, request = releasing
        held = Held(request, asyncio.get_running_loop().create_future(), "webhook", call=call)
        decision = await self.conductor.hold(actor, held)
        if decision is not None:
            # The run ended with the call held: the write must not go on (under Ignore it would).
            raise decision.fail_before or _RUN_OVER
        if held.fault == "webhook-timeout":
            raise TimeoutError
        if held.fault is not None:
            raise _refused(call)
        return await self.answer(call)

    async def answer(self, call: WebhookCall) -> WebhookAnswer:
        """The handler's answer as a webhook server sends it; a handler that raises answers 500."""
        handler = self.handlers.get(call.webhook)
        if handler is None:
            raise _refused(call)  # nothing serves it
        review = json.loads(call.body)
        try:
            outcome = handler(review)
            response = await outcome if inspect.isawaitable(outcome) else outcome
        except Exception as error:
            _LOG.exception("webhook handler %s raised", call.webhook)
            return WebhookAnswer(500, "text/plain; charset=utf-8", f"{type(error).__name__}: {error}".encode())
        request = review.get("request") if isinstance(review, dict) else None
        uid = request.get("uid", "") if isinstance(request, dict) else ""
        answer = {
            "apiVersion": review.get("apiVersion", "admission.k8s.io/v1"),
            "kind": "AdmissionReview",
            "response": {"uid": uid, **response},
        }
        return WebhookAnswer(200, "application/json", json.dumps(answer).encode())

    def options(
        self, actor: str, held: Held, target: ObjectKey, reaches: bool, faults: Iterable[Fault]
    ) -> list[Option]:
        """The held call answered, then failed by each webhook fault given (those the budget allows)."""
        assert held.call is not None and held.request is not None
        request, name = held.request, held.call.webhook
        path = f"{request.path}#webhook={name}"
        return [
            Option(actor, fault, request.method, path, request.verb, target, reaches, webhook=name)
            for fault in (None, *(fault.name for fault in faults if fault.webhook is not None))
        ]


def waiting_call(conductor: Conductor, actor: str, sequence: int) -> WebhookCall | None:
    """The webhook call the actor's request ``sequence`` waits on, if it has not answered yet."""
    for held in conductor.held.get(actor, []):
        if held.call is not None and held.request is not None and held.request.sequence == sequence:
            return held.call
    return None
