"""A webhook server beside a fresh fakeapi: HTTPS with its own CA, answers chosen by each test."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import pytest_asyncio
from aiohttp import web

from fakeapi._http.certificates import generate_certificates
from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient

Answer = Callable[[dict[str, Any]], Awaitable[web.StreamResponse] | dict[str, Any]]


def allow(**response: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """An answer that allows (or, with ``allowed=False``, refuses) with these response fields."""

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        return {"allowed": True, **response}

    return answer


def json_patch(operations: list[dict[str, Any]], **response: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def answer(request: dict[str, Any]) -> dict[str, Any]:
        patch = base64.b64encode(json.dumps(operations).encode()).decode()
        return {"allowed": True, "patchType": "JSONPatch", "patch": patch, **response}

    return answer


class WebhookServer:
    """Serves every path; each path answers with the function set for it, and records what came."""

    def __init__(self, name: str = "127.0.0.1") -> None:
        self.certificates = generate_certificates(name)
        self.answers: dict[str, Any] = {}
        self.received: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        self.raw: list[bytes] = []
        self.port = 0
        self._runner: web.AppRunner | None = None

    @property
    def ca_bundle(self) -> str:
        return base64.b64encode(self.certificates.ca_certificate).decode()

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def client_config(self, path: str) -> dict[str, Any]:
        return {"url": self.url(path), "caBundle": self.ca_bundle}

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        self.raw.append(body)
        review = json.loads(body)
        self.received.append((request.path, review, dict(request.headers)))
        answer = self.answers[request.path]
        result = answer(review["request"])
        if isinstance(result, Awaitable):
            result = await result
        if isinstance(result, web.StreamResponse):
            return result
        response = {"uid": review["request"]["uid"], **result}
        return web.json_response({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response})

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("POST", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=self.certificates.server_context())
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


def configuration(kind: str, name: str, *webhooks: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": name},
        "webhooks": list(webhooks),
    }


def webhook(
    name: str,
    client_config: dict[str, Any],
    *,
    resources: list[str] | None = None,
    operations: list[str] | None = None,
    groups: list[str] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    return {
        "name": name,
        "clientConfig": client_config,
        "rules": [
            {
                "operations": operations or ["*"],
                "apiGroups": groups if groups is not None else [""],
                "apiVersions": ["*"],
                "resources": resources or ["configmaps"],
            }
        ],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
        **fields,
    }


def store_unvalidated(server: FakeAPIServer, document: dict[str, Any]) -> None:
    """Store a configuration the way an older apiserver left it, past today's validation.

    A cluster upgraded from the days of ``admissionregistration.k8s.io/v1beta1`` (served until 1.22) can
    hold webhooks with ``sideEffects: Unknown`` or only unknown review versions: v1beta1 defaulted and
    accepted them, and the v1 rules never look at a stored object again. A create can no longer make one.
    """
    rtype = server.resource_type(document["apiVersion"], document["kind"])
    server._state.store.create(rtype, "", document, manager="test", validate=False)


@pytest_asyncio.fixture
async def hooks() -> AsyncIterator[WebhookServer]:
    running = WebhookServer()
    await running.start()
    yield running
    await running.stop()


@pytest_asyncio.fixture
async def server() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer() as running:
        yield running
        assert running.errors == [], "\n".join(running.errors)


@pytest_asyncio.fixture
async def client(server: FakeAPIServer) -> AsyncIterator[RawClient]:
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        yield RawClient(session, server.url)
