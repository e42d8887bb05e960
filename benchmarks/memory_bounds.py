"""The server's memory under the two loads that once grew it without bound: RSS before and after.

``fakeapi serve`` runs in a child process; this process reads its RSS (and peak RSS) from /proc.

1. **A watcher that never reads.** A raw connection opens a watch on a ConfigMap collection and
   reads nothing; then ``--writes`` PATCHes change one ConfigMap (8 concurrent clients). Before the
   journal and watch bounds, the events piled up in the watcher's queue (100,000 writes: 45 to
   247 MiB, never released). Now the watcher is ended once it falls ``--watch-queue-events``
   behind, as the apiserver's cacher ends a watcher that cannot keep up; the script reports whether
   the stream ended, once the watcher finally reads.
2. **Large bodies.** ``--rejected`` PUTs of 3 MiB + 1 byte (413: over the body limit), then
   ``--accepted`` updates of a ConfigMap holding 1 MiB of data. Before the journal bound, every body
   was kept whole (1,000 + 1,000 of them: 44 MiB to over 6 GiB). Now the journal keeps the first
   ``--journal-body-bytes`` of each and at most ``--journal-max-bytes`` in all.

Goal: RSS after each run within 100 MB (10^6 bytes) of RSS at the start (after the warm-up).
Run: ``python benchmarks/memory_bounds.py [--writes 100000 --rejected 1000 --accepted 1000]``
(about two minutes).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json

import aiohttp
from _common import (
    ServerProcess,
    fakeapi_command,
    megabytes,
    memory_of,
    print_footer,
    print_header,
    print_table,
    verdict,
)

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
GOAL = 100e6


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=100_000, help="writes while a watcher does not read")
    parser.add_argument("--rejected", type=int, default=1000, help="PUTs of 3 MiB + 1 byte (413)")
    parser.add_argument("--accepted", type=int, default=1000, help="updates holding 1 MiB each")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients for the writes")
    parser.add_argument("--server-option", action="append", default=[], help="extra `fakeapi serve` flag")
    return parser.parse_args()


async def _put(session: aiohttp.ClientSession, url: str, body: bytes) -> int:
    async with session.put(url, data=body, headers={"Content-Type": "application/json"}) as response:
        await response.read()
        return response.status


async def _patch_many(session: aiohttp.ClientSession, url: str, count: int, clients: int) -> dict[int, int]:
    statuses: dict[int, int] = {}
    numbers = iter(range(count))

    async def client() -> None:
        for number in numbers:
            body = json.dumps({"data": {"n": str(number)}}).encode()
            headers = {"Content-Type": "application/merge-patch+json"}
            async with session.patch(url, data=body, headers=headers) as response:
                await response.read()
                statuses[response.status] = statuses.get(response.status, 0) + 1

    await asyncio.gather(*(client() for _ in range(clients)))
    return statuses


async def _silent_watch(server: ServerProcess) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    host, _, port = server.url.removeprefix("http://").partition(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"GET {CONFIGMAPS}?watch=1 HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    await writer.drain()
    await reader.readuntil(b"\r\n\r\n")  # the headers; from now on it reads nothing
    return reader, writer


async def _drain(reader: asyncio.StreamReader) -> tuple[int, bool]:
    """Read what the watch sent: the events, and whether the stream ended (the last chunk came)."""
    received = b""
    with contextlib.suppress(TimeoutError):
        while True:
            chunk = await asyncio.wait_for(reader.read(1 << 20), 10)
            if not chunk:
                break
            received += chunk
            if received.endswith(b"\r\n0\r\n\r\n"):
                return received.count(b'"type":"MODIFIED"'), True
    return received.count(b'"type":"MODIFIED"'), False


async def _run(args: argparse.Namespace, server: ServerProcess) -> list[list[str]]:
    rows: list[list[str]] = []
    async with aiohttp.ClientSession() as session:
        base = server.url
        create = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "counter"}, "data": {"n": "0"}}
        async with session.post(base + CONFIGMAPS, json=create) as response:
            assert response.status == 201, await response.text()
        await _patch_many(session, f"{base}{CONFIGMAPS}/counter", 200, args.clients)  # warm-up
        start = memory_of(server.pid)["VmRSS"]
        rows.append(["start (after 200 warm-up writes)", megabytes(start), "", "", ""])

        reader, writer = await _silent_watch(server)
        statuses = await _patch_many(session, f"{base}{CONFIGMAPS}/counter", args.writes, args.clients)
        during = memory_of(server.pid)["VmRSS"]
        events, ended = await _drain(reader)
        writer.close()
        after = memory_of(server.pid)["VmRSS"]
        rows.append(
            [
                f"{args.writes:,} writes, a watcher that does not read",
                megabytes(during),
                megabytes(after),
                f"{statuses}; watcher got {events:,} events, stream ended: {ended}",
                verdict(after - start <= GOAL),
            ]
        )

        too_large = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"x":"'
        too_large += b"a" * (3 * 1024 * 1024 + 1 - len(too_large) - 3) + b'"}}'
        rejected = [await _put(session, f"{base}{CONFIGMAPS}/big", too_large) for _ in range(args.rejected)]
        mid = memory_of(server.pid)["VmRSS"]
        rows.append(
            [
                f"{args.rejected:,} PUTs of 3 MiB + 1 byte",
                megabytes(mid),
                "",
                f"statuses {sorted(set(rejected))}",
                verdict(mid - start <= GOAL),
            ]
        )
        async with session.post(
            base + CONFIGMAPS, json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "mib"}}
        ) as response:
            assert response.status == 201, await response.text()
        accepted = []
        for number in range(args.accepted):
            body = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "mib"},
                "data": {"x": str(number % 10) * (1024 * 1024)},
            }
            accepted.append(await _put(session, f"{base}{CONFIGMAPS}/mib", json.dumps(body).encode()))
        end = memory_of(server.pid)
        rows.append(
            [
                f"{args.accepted:,} updates of 1 MiB",
                megabytes(end["VmRSS"]),
                "",
                f"statuses {sorted(set(accepted))}; peak RSS {megabytes(end['VmHWM'])}",
                verdict(end["VmRSS"] - start <= GOAL),
            ]
        )
    return rows


def main() -> None:
    args = _arguments()
    print_header("Memory under a watcher that does not read, and under large bodies", args)
    with ServerProcess(fakeapi_command(*args.server_option), r"fakeapi serving on (http://\S+)") as server:
        rows = asyncio.run(_run(args, server))
    print_table(["run", "RSS", "RSS after the watcher read", "what happened", "within 100 MB of start"], rows)
    print_footer()


if __name__ == "__main__":
    main()
