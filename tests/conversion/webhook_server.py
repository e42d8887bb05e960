"""A conversion webhook for the tests: HTTPS on loopback with a self-signed certificate.

``spec.a`` at example.com/v1 is ``spec.b`` at example.com/v2; ``answer`` may be replaced by a test to
answer something else (a failure, garbage, a wrong uid); every review received is kept.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import ssl
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

Answer = Callable[[dict[str, Any]], Awaitable[web.StreamResponse]]


def _self_signed(names: list[str]) -> tuple[bytes, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "conversion-webhook")])
    now = datetime.datetime.now(datetime.UTC)
    alternatives: list[x509.GeneralName] = [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    alternatives += [x509.DNSName(name) for name in names]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return certificate.public_bytes(serialization.Encoding.PEM), key_pem


def convert(obj: dict[str, Any], desired: str) -> dict[str, Any]:
    """v1 keeps ``spec.a``; v2 calls it ``spec.b``."""
    spec = dict(obj.get("spec") or {})
    if desired.endswith("/v2") and "a" in spec:
        spec["b"] = spec.pop("a")
    if desired.endswith("/v1") and "b" in spec:
        spec["a"] = spec.pop("b")
    return {**obj, "apiVersion": desired, "spec": spec}


async def converting(review: dict[str, Any]) -> web.StreamResponse:
    request = review["request"]
    return web.json_response(
        {
            "apiVersion": review["apiVersion"],
            "kind": "ConversionReview",
            "response": {
                "uid": request["uid"],
                "result": {"status": "Success"},
                "convertedObjects": [convert(obj, request["desiredAPIVersion"]) for obj in request["objects"]],
            },
        }
    )


def answering(body: bytes, status: int = 200, content_type: str = "application/json") -> Answer:
    """An answer of these bytes, whatever the review."""

    async def answer(review: dict[str, Any]) -> web.StreamResponse:
        return web.Response(body=body, status=status, content_type=content_type)

    return answer


class ConversionWebhook:
    """``async with ConversionWebhook() as hook``: serving at ``hook.url``, trusted by ``hook.ca_bundle``."""

    def __init__(self, names: tuple[str, ...] = ()) -> None:
        self.answer: Answer = converting
        self.reviews: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self._names = list(names)
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.ca_bundle = ""

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        review = json.loads(await request.read())
        self.reviews.append(review)
        self.paths.append(request.path_qs)
        return await self.answer(review)

    async def __aenter__(self) -> ConversionWebhook:
        certificate, key = _self_signed(self._names)
        self.ca_bundle = base64.b64encode(certificate).decode()
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        with tempfile.TemporaryDirectory() as folder:
            cert_file, key_file = Path(folder, "tls.crt"), Path(folder, "tls.key")
            cert_file.write_bytes(certificate)
            key_file.write_bytes(key)
            context.load_cert_chain(cert_file, key_file)
        app = web.Application()
        app.router.add_post("/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=context)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._runner is not None
        await self._runner.cleanup()

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/convert"
