"""/healthz latency while four 3 MB writes with 200,000 keys each run at once, through ``fakeapi serve``.

kube-apiserver serves each request on its own goroutine: a large write takes its time and every
other client is served meanwhile. fakeapi serves every request on one event loop, and a large
write's synchronous stages pause so that the loop turns (docs/http-limits.md, "One request among
others"). This script starts ``python -m fakeapi serve`` in a child process and measures:

- the floor: /healthz polled alone, one request after another on one keep-alive connection;
- for each kind of large write (a dry-run create, a create, a PUT of each created object, a merge
  patch of one key of each), four of them at once, each on its own connection, while /healthz is
  polled as above until all four have answered: the /healthz latency percentiles and maximum, and
  each large write's time (the slowest of the four, and one alone, before the four);
- in this process, with the server on this script's loop: four dry-run creates at once, and the CPU
  time the loop's thread spends between two turns of its loop (the longest is what any other
  request could have waited for, in CPU, which a busy machine stretches least).

The object is a ConfigMap whose ``data`` holds 200,000 keys (``key000000`` ... with empty values),
3,000,073 bytes of JSON, under the apiserver's 3 MiB request limit. Every answer is checked (201 or
200, with the object's key count). Goal (issue 28 item 9): /healthz p99 under 100 ms while the four
run, on the project's 2-core machine. ``--apply`` adds server-side apply of the same object (YAML
parsing makes it about ten times slower). Run: ``python benchmarks/large_request_latency.py
[--keys 200000 --kinds dry-run,create,update,patch]`` (about a minute on an idle machine).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiohttp
from _common import fakeapi_server, percentile, print_footer, print_header, print_table, seconds, verdict

GOAL_P99 = 0.100
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
CONCURRENT = 4
KINDS = ("dry-run", "create", "update", "patch", "apply")


def configmap_body(name: str, keys: int) -> bytes:
    data = {f"key{index:06d}": "" for index in range(keys)}
    document = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
    return json.dumps(document, separators=(",", ":")).encode()


@dataclass
class Round:
    kind: str
    alone: float
    slowest: float
    healthz: list[float]


async def poll_healthz(session: aiohttp.ClientSession, base: str, done: Callable[[], bool]) -> list[float]:
    samples = []
    while not done():
        started = time.perf_counter()
        async with session.get(base + "/healthz") as response:
            await response.read()
            assert response.status == 200, response.status
        samples.append(time.perf_counter() - started)
    return samples


async def floor(base: str, count: int) -> list[float]:
    async with aiohttp.ClientSession() as session:
        remaining = [count]

        def done() -> bool:
            remaining[0] -= 1
            return remaining[0] < 0

        return await poll_healthz(session, base, done)


def large_write(kind: str, base: str, name: str, body: bytes) -> Callable[[aiohttp.ClientSession], Awaitable[None]]:
    """One large write of ``kind`` on object ``name``, checked."""
    if kind == "dry-run":
        method, url, content_type, expected = "POST", f"{base}{CONFIGMAPS}?dryRun=All", "application/json", 201
    elif kind == "create":
        method, url, content_type, expected = "POST", base + CONFIGMAPS, "application/json", 201
    elif kind == "update":
        method, url, content_type, expected = "PUT", f"{base}{CONFIGMAPS}/{name}", "application/json", 200
    elif kind == "patch":
        method, url, content_type, expected = "PATCH", f"{base}{CONFIGMAPS}/{name}", "application/merge-patch+json", 200
        body = json.dumps({"data": {"key000001": "patched"}}).encode()
    else:
        method, url, content_type = "PATCH", f"{base}{CONFIGMAPS}/{name}?fieldManager=bench&force=true", ""
        content_type, expected = "application/apply-patch+yaml", 200

    async def send(session: aiohttp.ClientSession) -> None:
        async with session.request(method, url, data=body, headers={"Content-Type": content_type}) as response:
            answer = await response.read()
            if response.status != expected:
                raise RuntimeError(f"{kind} of {name}: {response.status} {answer[:300]!r}")

    return send


def bodies_for(kind: str, keys: int, names: list[str]) -> list[bytes]:
    if kind != "update":
        return [configmap_body(name, keys) for name in names]
    # A PUT replaces the created object: one key changed, the resourceVersion left out.
    bodies = []
    for name in names:
        document = json.loads(configmap_body(name, keys))
        document["data"]["key000000"] = "updated"
        bodies.append(json.dumps(document, separators=(",", ":")).encode())
    return bodies


async def one_round(base: str, kind: str, keys: int, index: int) -> Round:
    names = [f"big-{index}-{n}" for n in range(CONCURRENT)]
    alone_name = f"big-{index}-alone"
    if kind in ("update", "patch", "apply"):  # they act on objects created first
        async with aiohttp.ClientSession() as session:
            for name in [*names, alone_name]:
                await large_write("create", base, name, configmap_body(name, keys))(session)
    alone_body = bodies_for(kind, keys, [alone_name])[0]
    async with aiohttp.ClientSession() as session:
        started = time.perf_counter()
        await large_write(kind, base, alone_name, alone_body)(session)
        alone = time.perf_counter() - started
    writes = [
        large_write(kind, base, name, body) for name, body in zip(names, bodies_for(kind, keys, names), strict=True)
    ]
    sessions = [aiohttp.ClientSession() for _ in range(CONCURRENT + 1)]
    try:
        finished: list[float] = []

        async def timed(
            write: Callable[[aiohttp.ClientSession], Awaitable[None]], session: aiohttp.ClientSession
        ) -> None:
            await write(session)
            finished.append(time.perf_counter() - started)

        started = time.perf_counter()
        tasks = [asyncio.ensure_future(timed(write, session)) for write, session in zip(writes, sessions, strict=False)]
        healthz = await poll_healthz(sessions[-1], base, lambda: all(task.done() for task in tasks))
        await asyncio.gather(*tasks)
    finally:
        for session in sessions:
            await session.close()
    return Round(kind, alone, max(finished), healthz)


async def loop_gaps(keys: int) -> tuple[list[float], float]:
    """In this process: a server on this loop, four dry-run creates at once, and a task that notes
    the CPU time of this thread between two of its turns of the loop: how long the loop was held,
    in the figure machine load disturbs least. Returns the gaps and the four writes' wall time."""
    from fakeapi.server import FakeAPIServer

    gaps: list[float] = []
    async with FakeAPIServer() as server, aiohttp.ClientSession() as session:
        bodies = [configmap_body(f"gap-{n}", keys) for n in range(CONCURRENT)]
        writes = [large_write("dry-run", server.url, f"gap-{n}", body) for n, body in enumerate(bodies)]

        async def heartbeat() -> None:
            last = time.thread_time()
            while True:
                await asyncio.sleep(0)
                now = time.thread_time()
                gaps.append(now - last)
                last = now

        beating = asyncio.ensure_future(heartbeat())
        started = time.perf_counter()
        await asyncio.gather(*(write(session) for write in writes))
        elapsed = time.perf_counter() - started
        beating.cancel()
    return gaps, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keys", type=int, default=200_000, help="keys in the ConfigMap's data")
    parser.add_argument("--kinds", default="dry-run,create,update,patch", help=f"comma-separated, of {','.join(KINDS)}")
    parser.add_argument("--apply", action="store_true", help="add server-side apply to the kinds")
    parser.add_argument("--floor-samples", type=int, default=500)
    parser.add_argument("--no-loop-gaps", action="store_true", help="skip the in-process measure of the loop's gaps")
    args = parser.parse_args()
    kinds = [kind for kind in args.kinds.split(",") if kind] + (["apply"] if args.apply else [])
    for kind in kinds:
        if kind not in KINDS:
            parser.error(f"unknown kind {kind!r}")
    print_header("Large requests and /healthz (large_request_latency.py)", args)
    print(f"object   ConfigMap with {args.keys:,} keys, {len(configmap_body('big-0-0', args.keys)):,} bytes of JSON\n")

    async def run() -> tuple[list[float], list[Round]]:
        with fakeapi_server() as server:
            alone = await floor(server.url, args.floor_samples)
            rounds = [await one_round(server.url, kind, args.keys, index) for index, kind in enumerate(kinds)]
        return alone, rounds

    alone, rounds = asyncio.run(run())
    rows = [
        [
            "alone (floor)",
            "-",
            "-",
            len(alone),
            seconds(percentile(alone, 50)),
            seconds(percentile(alone, 99)),
            seconds(max(alone)),
            "",
        ]
    ]
    for measured in rounds:
        p99 = percentile(measured.healthz, 99)
        rows.append(
            [
                f"four {measured.kind} at once",
                seconds(measured.alone),
                seconds(measured.slowest),
                len(measured.healthz),
                seconds(percentile(measured.healthz, 50)),
                seconds(p99),
                seconds(max(measured.healthz)),
                verdict(p99 < GOAL_P99),
            ]
        )
    print_table(
        ["/healthz while", "one write alone", "four: slowest", "healthz n", "p50", "p99", "max", "p99 < 100 ms"],
        rows,
        right=(1, 2, 3, 4, 5, 6),
    )
    if not args.no_loop_gaps:
        gaps, elapsed = asyncio.run(loop_gaps(args.keys))
        print(
            f"In this process, four dry-run creates at once ({seconds(elapsed)}): CPU of the loop's thread between two turns"
        )
        print_table(
            ["turns", "p50", "p99", "max"],
            [[len(gaps), seconds(percentile(gaps, 50)), seconds(percentile(gaps, 99)), seconds(max(gaps))]],
            right=(0, 1, 2, 3),
        )
    print_footer()


if __name__ == "__main__":
    main()
