"""What a conversion webhook costs a read: a GET and a list of ``--objects`` custom resources, at the
storage version and at a version a webhook converts (docs/conversion.md).

One process: a fakeapi server and a webhook (aiohttp over HTTPS with a self-signed certificate,
answering every review by rewriting apiVersion) on loopback. A converted GET is one review, a
converted list one review per object, over connections the webhook client keeps. Each figure is
the median and p99 of ``--rounds`` timed requests after ``--warmup`` unmeasured ones.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import datetime
import ipaddress
import ssl
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
from _common import Stats, print_footer, print_header, print_table, seconds
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from fakeapi.server import FakeAPIServer

GROUP = "bench.example.com"
COLLECTION = f"/apis/{GROUP}/{{version}}/namespaces/default/widgets"


def _tls_files(folder: Path) -> tuple[Path, Path, str]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "bench-webhook")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    pem = certificate.public_bytes(serialization.Encoding.PEM)
    cert_file, key_file = folder / "tls.crt", folder / "tls.key"
    cert_file.write_bytes(pem)
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_file, key_file, base64.b64encode(pem).decode()


async def _convert(request: web.Request) -> web.Response:
    review = await request.json()
    desired = review["request"]["desiredAPIVersion"]
    objects = [{**obj, "apiVersion": desired} for obj in review["request"]["objects"]]
    response = {"uid": review["request"]["uid"], "result": {"status": "Success"}, "convertedObjects": objects}
    return web.json_response({"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": response})


def _crd(url: str, ca_bundle: str) -> dict[str, Any]:
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [
                {"name": "v1", "served": True, "storage": True, "schema": schema},
                {"name": "v2", "served": True, "storage": False, "schema": schema},
            ],
            "conversion": {
                "strategy": "Webhook",
                "webhook": {"clientConfig": {"url": url, "caBundle": ca_bundle}, "conversionReviewVersions": ["v1"]},
            },
        },
    }


async def _timed(session: aiohttp.ClientSession, url: str, warmup: int, rounds: int) -> Stats:
    samples = []
    for index in range(warmup + rounds):
        start = time.perf_counter()
        async with session.get(url) as response:
            await response.read()
            assert response.status == 200, response.status
        if index >= warmup:
            samples.append(time.perf_counter() - start)
    return Stats.of(samples)


async def _run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cert_file, key_file, ca_bundle = _tls_files(Path(folder))
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert_file, key_file)
    app = web.Application()
    app.router.add_post("/convert", _convert)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context).start()
    hook_url = f"https://127.0.0.1:{runner.addresses[0][1]}/convert"
    try:
        async with FakeAPIServer() as server, aiohttp.ClientSession() as session:
            async with session.post(
                f"{server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=_crd(hook_url, ca_bundle)
            ) as reply:
                assert reply.status == 201, await reply.text()
            for index in range(args.objects):
                body = {
                    "apiVersion": f"{GROUP}/v1",
                    "kind": "Widget",
                    "metadata": {"name": f"w-{index}"},
                    "spec": {"n": index},
                }
                async with session.post(server.url + COLLECTION.format(version="v1"), json=body) as reply:
                    assert reply.status == 201
            rows = []
            for label, path, rounds in (
                ("GET, storage version", COLLECTION.format(version="v1") + "/w-0", args.rounds),
                ("GET, converted by webhook", COLLECTION.format(version="v2") + "/w-0", args.rounds),
                (f"LIST {args.objects}, storage version", COLLECTION.format(version="v1"), args.list_rounds),
                (f"LIST {args.objects}, converted by webhook", COLLECTION.format(version="v2"), args.list_rounds),
            ):
                stats = await _timed(session, server.url + path, args.warmup, rounds)
                rows.append((label, stats.count, seconds(stats.median), seconds(stats.p99)))
            print_table(("request", "n", "median", "p99"), rows, right=(1, 2, 3))
    finally:
        await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--list-rounds", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    print_header("CRD conversion by webhook: the cost of a converted read", args)
    asyncio.run(_run(args))
    print_footer()


if __name__ == "__main__":
    main()
