"""A conversion webhook, a server that maps the webhook's Service to it, and a client with the
webhook-converted CRD created."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest_asyncio

from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient
from tests.conversion.crds import CRDS, webhook_crd
from tests.conversion.webhook_server import ConversionWebhook


@pytest_asyncio.fixture
async def hook() -> AsyncIterator[ConversionWebhook]:
    async with ConversionWebhook(names=("converter.system.svc",)) as running:
        yield running


@pytest_asyncio.fixture
async def server(hook: ConversionWebhook) -> AsyncIterator[FakeAPIServer]:
    services = {"system/converter:443": f"127.0.0.1:{hook.port}"}
    async with FakeAPIServer(webhook_services=services) as running:
        yield running
        assert running.errors == [], "\n".join(running.errors)


@pytest_asyncio.fixture
async def client(server: FakeAPIServer, hook: ConversionWebhook) -> AsyncIterator[RawClient]:
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        raw = RawClient(session, server.url)
        reply = await raw.post(CRDS, webhook_crd({"url": hook.url, "caBundle": hook.ca_bundle}))
        assert reply.status == 201, reply.body
        yield raw
