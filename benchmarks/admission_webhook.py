"""What a call to a local admission webhook adds to a write, next to an aiohttp round trip of the same size.

Everything runs in this process, on one event loop, so both figures are the same kind of cost (the
work of the two ends of a call on one core, with no other process's scheduling in between): a
``FakeAPIServer``, a webhook server (aiohttp over HTTPS with a CA of its own, answering ``allowed``
to every AdmissionReview), and one keep-alive client sending one request at a time:

- ``round trip``: POSTs to the webhook server, with aiohttp over HTTPS, the very AdmissionReview
  bytes fakeapi last sent it, and reads the same answer;
- ``create``: POSTs a ConfigMap to fakeapi with no webhook configured;
- ``create + webhook``: the same with a ValidatingWebhookConfiguration matching it.

Each round measures the three in a rotating order, so a change of the machine's load falls on all.
Printed: the medians, the added cost (``create + webhook`` minus ``create``) and its ratio to the
round trip, against the goal: at most 2x.
Run: ``python benchmarks/admission_webhook.py [--rounds 6 --requests 200]``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import ssl
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from _common import REPO, print_footer, print_header, print_table, seconds, verdict

sys.path.insert(0, str(REPO))

from aiohttp import web

from fakeapi._http.certificates import generate_certificates
from fakeapi.server import FakeAPIServer

VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


class Webhook:
    """Allows everything; keeps the last AdmissionReview it received."""

    def __init__(self) -> None:
        self.certificates = generate_certificates("127.0.0.1")
        self.last = b""
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def review(self, request: web.Request) -> web.Response:
        self.last = await request.read()
        uid = json.loads(self.last)["request"]["uid"]
        answer = {
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "response": {"uid": uid, "allowed": True},
        }
        return web.json_response(answer)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/validate", self.review)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=self.certificates.server_context())
        await site.start()
        self.url = f"https://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/validate"  # type: ignore[union-attr]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def configuration(self) -> dict[str, Any]:
        ca = base64.b64encode(self.certificates.ca_certificate).decode()
        rule = {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}
        return {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "bench"},
            "webhooks": [
                {
                    "name": "bench.example.com",
                    "clientConfig": {"url": self.url, "caBundle": ca},
                    "rules": [rule],
                    "sideEffects": "None",
                    "admissionReviewVersions": ["v1"],
                }
            ],
        }


async def timed(count: int, one: Callable[[int], Awaitable[None]], first: int = 0) -> list[float]:
    samples = []
    for index in range(first, first + count):
        started = time.perf_counter()
        await one(index)
        samples.append(time.perf_counter() - started)
    return samples


async def measure(args: argparse.Namespace) -> None:
    hook = Webhook()
    await hook.start()
    context = ssl.create_default_context(cadata=hook.certificates.ca_certificate.decode())
    samples: dict[str, list[float]] = {"trip": [], "plain": [], "hooked": []}
    counter = iter(range(10**9))
    try:
        async with (
            FakeAPIServer() as server,
            aiohttp.ClientSession() as session,
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=context)) as direct,
        ):

            async def create(_: int) -> None:
                body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{next(counter)}"}}
                body["data"] = {"key": "v" * 512}
                async with session.post(server.url + CONFIGMAPS, json=body) as reply:
                    await reply.read()
                    assert reply.status == 201, reply.status

            async def trip(_: int) -> None:
                headers = {"Content-Type": "application/json"}
                async with direct.post(hook.url, data=hook.last, headers=headers) as reply:
                    await reply.read()

            async def configured(on: bool) -> None:
                if on:
                    async with session.post(server.url + VALIDATING, json=hook.configuration()) as reply:
                        assert reply.status == 201, await reply.text()
                else:
                    async with session.delete(f"{server.url}{VALIDATING}/bench") as reply:
                        assert reply.status == 200

            await configured(True)
            await create(0)  # one call, so the webhook holds an AdmissionReview to replay
            await configured(False)
            kinds = ["plain", "hooked", "trip"]
            for round_number in range(args.rounds):
                for kind in kinds[round_number % 3 :] + kinds[: round_number % 3]:
                    if kind == "hooked":
                        await configured(True)
                    samples[kind] += await timed(args.requests, trip if kind == "trip" else create)
                    if kind == "hooked":
                        await configured(False)
    finally:
        await hook.stop()
    medians = {kind: statistics.median(values) for kind, values in samples.items()}
    added = medians["hooked"] - medians["plain"]
    print(f"AdmissionReview body: {len(hook.last)} bytes; {len(samples['plain'])} requests of each kind\n")
    print_table(
        ["measure", "median"],
        [
            ["aiohttp round trip to the webhook (HTTPS, same bytes)", seconds(medians["trip"])],
            ["create, no webhook", seconds(medians["plain"])],
            ["create + validating webhook", seconds(medians["hooked"])],
            ["added by the webhook call", seconds(added)],
        ],
        right=[1],
    )
    ratio = added / medians["trip"]
    print(f"added / round trip = {ratio:.2f} (goal: at most 2.00): {verdict(ratio <= 2.0)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    print_header("Admission webhook call cost", args)
    asyncio.run(measure(args))
    print_footer()


if __name__ == "__main__":
    main()
