"""Figures for CRD conversion by webhook: a GET and a list of 100 at the storage version and at a
version the webhook converts (one review per object, each a new HTTPS connection).

Run: ``python benchmarks/conversion_webhook.py``. Prints milliseconds per request; asserts nothing.
"""

from __future__ import annotations

import asyncio
import time

import aiohttp

from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient
from tests.conversion.test_webhook_conversion import CRDS, V1, V2, job, webhook_crd
from tests.conversion.webhook_server import ConversionWebhook

ROUNDS = 50


async def _timed(client: RawClient, path: str, rounds: int) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        reply = await client.get(path)
        assert reply.status == 200, reply.body
    return (time.perf_counter() - start) / rounds * 1000


async def main() -> None:
    async with ConversionWebhook() as hook, FakeAPIServer() as server, aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        await client.post(CRDS, webhook_crd({"url": hook.url, "caBundle": hook.ca_bundle}))
        for index in range(100):
            await client.post(V1, job("v1", f"job-{index}", a=index))
        print(f"GET storage version:        {await _timed(client, f'{V1}/job-1', ROUNDS):8.2f} ms")
        print(f"GET converted by webhook:   {await _timed(client, f'{V2}/job-1', ROUNDS):8.2f} ms")
        print(f"LIST 100, storage version:  {await _timed(client, V1, 5):8.2f} ms")
        print(f"LIST 100, converted:        {await _timed(client, V2, 5):8.2f} ms")
        print(f"webhook calls: {len(hook.reviews)}")


if __name__ == "__main__":
    asyncio.run(main())
