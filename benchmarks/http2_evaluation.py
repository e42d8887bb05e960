"""What HTTP/2 over TLS would cost on a Python server stack, measured: the figures behind docs/http2.md.

kube-apiserver offers ``h2`` by ALPN and client-go takes it; fakeapi's server (aiohttp) speaks
HTTP/1.1 only and offers ``http/1.1``, so every client falls back. The candidate to serve ``h2``
from Python is hypercorn (ASGI, framing by the ``h2`` library). Three servers answer the same GET
with the same canned 1 KB JSON body over TLS, each in its own process:

- ``aiohttp``: a bare aiohttp app, HTTP/1.1 (the floor fakeapi is built on);
- ``hypercorn h1``: hypercorn with a minimal ASGI app, HTTP/1.1;
- ``hypercorn h2``: the same, HTTP/2 negotiated by ALPN;

and, for scale, ``fakeapi`` (``fakeapi serve --tls``) answering a GET of a ConfigMap over HTTP/1.1.
An httpx client in this process keeps ``--concurrency`` requests in flight (one connection per
in-flight request for HTTP/1.1, one multiplexed connection for HTTP/2). Printed: requests/s, and the
server's CPU per request read from /proc (the figure load disturbs least), with its ratio to the
aiohttp floor of the same run. Needs the ``bench`` extra (hypercorn, httpx with h2).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import functools
import socket
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import yaml
from _common import REPO, ServerProcess, cpu_seconds, print_footer, print_header, print_table

from fakeapi._http.certificates import generate_certificates

BODY_SIZE = 1024

AIOHTTP_SERVER = """
import ssl, sys
from aiohttp import web
body = b'{"kind":"ConfigMap","apiVersion":"v1","data":{"k":"' + b"x" * (BODY_SIZE - 48) + b'"}}'
async def handle(request):
    return web.Response(body=body, content_type="application/json")
app = web.Application()
app.router.add_get("/{tail:.*}", handle)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.set_alpn_protocols(["http/1.1"])
context.load_cert_chain(CERT, KEY)
print(f"ready https://127.0.0.1:{PORT}", flush=True)
web.run_app(app, host="127.0.0.1", port=PORT, ssl_context=context, print=None, access_log=None)
"""

HYPERCORN_SERVER = """
import asyncio
from hypercorn.asyncio import serve
from hypercorn.config import Config
body = b'{"kind":"ConfigMap","apiVersion":"v1","data":{"k":"' + b"x" * (BODY_SIZE - 48) + b'"}}'
headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
config = Config()
config.bind = [f"127.0.0.1:{PORT}"]
config.certfile, config.keyfile = CERT, KEY
config.alpn_protocols = ALPN
config.accesslog = None
config.errorlog = None
config.keep_alive_max_requests = 10**9
print(f"ready https://127.0.0.1:{PORT}", flush=True)
asyncio.run(serve(app, config))
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def server_command(template: str, folder: Path, **values: object) -> list[str]:
    prelude = "".join(f"{name} = {value!r}\n" for name, value in values.items())
    prelude += f"CERT = {str(folder / 'serving.crt')!r}\nKEY = {str(folder / 'serving.key')!r}\n"
    prelude += f"BODY_SIZE = {BODY_SIZE}\n"
    return [sys.executable, "-c", prelude + textwrap.dedent(template)]


async def drive(base: str, path: str, *, http2: bool, concurrency: int, requests: int, ca: str) -> float:
    """Send ``requests`` GETs with ``concurrency`` in flight; the wall time they took."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, http2=http2, http1=not http2, verify=ca, limits=limits) as client:
        first = await client.get(path)
        first.raise_for_status()
        expected = "HTTP/2" if http2 else "HTTP/1.1"
        if first.http_version != expected:
            raise RuntimeError(f"{base} answered over {first.http_version}, not {expected}")
        remaining = requests

        async def worker() -> None:
            nonlocal remaining
            while remaining > 0:
                remaining -= 1
                reply = await client.get(path)
                if reply.status_code != 200:
                    raise RuntimeError(f"{base}{path}: {reply.status_code}")

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started


def wait_until_listening(url: str, timeout: float = 30.0) -> None:
    """The ready lines of the two canned servers come just before they bind: wait for the port."""
    host, port = url.removeprefix("https://").split("/")[0].rsplit(":", 1)
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection((host, int(port)), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def measure(
    name: str,
    command: list[str],
    ready: str,
    path: str,
    *,
    http2: bool,
    args: argparse.Namespace,
    ca: str | Callable[[], str],
) -> tuple[str, float, float]:
    with ServerProcess(command, ready) as server:
        ca = ca if isinstance(ca, str) else ca()
        wait_until_listening(server.url)
        asyncio.run(drive(server.url, path, http2=http2, concurrency=args.concurrency, requests=200, ca=ca))
        before = cpu_seconds(server.pid)
        wall = asyncio.run(
            drive(server.url, path, http2=http2, concurrency=args.concurrency, requests=args.requests, ca=ca)
        )
        cpu = cpu_seconds(server.pid) - before
    return name, args.requests / wall, cpu / args.requests * 1e6


def fakeapi_ca(kubeconfig: Path, target: Path) -> str:
    """The CA ``fakeapi serve --tls`` generated, from the kubeconfig it wrote, as a file for httpx."""
    cluster = yaml.safe_load(kubeconfig.read_text())["clusters"][0]["cluster"]
    target.write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
    return str(target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=4000, help="GETs per server and round (default 4000)")
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight (default 8)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, the servers alternated in each (default 2)")
    args = parser.parse_args()
    print_header("HTTP/2 over TLS on a Python stack: requests/s and server CPU per request", args)
    certificates = generate_certificates("127.0.0.1")
    with tempfile.TemporaryDirectory(prefix="http2-eval-") as directory:
        folder = Path(directory)
        (folder / "serving.crt").write_bytes(certificates.certificate + certificates.ca_certificate)
        (folder / "serving.key").write_bytes(certificates.private_key)
        ca = str(folder / "ca.crt")
        (folder / "ca.crt").write_bytes(certificates.ca_certificate)
        rows = []
        for round_index in range(args.rounds):
            results = []
            port = free_port()
            results.append(
                measure(
                    "aiohttp h1",
                    server_command(AIOHTTP_SERVER, folder, PORT=port),
                    r"ready (\S+)",
                    "/",
                    http2=False,
                    args=args,
                    ca=ca,
                )
            )
            for label, alpn, http2 in (("hypercorn h1", ["http/1.1"], False), ("hypercorn h2", ["h2"], True)):
                port = free_port()
                command = server_command(HYPERCORN_SERVER, folder, PORT=port, ALPN=alpn)
                results.append(measure(label, command, r"ready (\S+)", "/", http2=http2, args=args, ca=ca))
            kubeconfig = folder / "kubeconfig"
            fakeapi = [
                sys.executable,
                "-m",
                "fakeapi",
                "serve",
                "--port",
                "0",
                "--tls",
                "--kubeconfig",
                str(kubeconfig),
            ]
            results.append(
                measure(
                    "fakeapi h1 (GET configmap)",
                    fakeapi,
                    r"fakeapi serving on (https://\S+)",
                    "/api/v1/namespaces/default/configmaps/kube-root-ca.crt",
                    http2=False,
                    args=args,
                    ca=functools.partial(fakeapi_ca, kubeconfig, folder / "fakeapi-ca.crt"),
                )
            )
            floor = results[0][2]
            for name, rate, micros in results:
                rows.append((round_index + 1, name, f"{rate:,.0f}", f"{micros:,.0f}", f"{micros / floor:.2f}x"))
        print_table(["round", "server", "requests/s", "server CPU µs/request", "vs aiohttp h1"], rows, right=(2, 3, 4))
    print(f"\nsource: {REPO}")
    print_footer()


if __name__ == "__main__":
    main()
