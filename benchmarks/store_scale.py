"""A FakeAPIServer holding 100,000 objects: the process's memory, and LIST of 10,000 of them over HTTP.

A child process (this script with ``--serve-store``) creates a FakeAPIServer, loads ``--objects``
ConfigMaps of about 600 bytes each as stored (managedFields included), spread evenly over
``--namespaces`` namespaces, through ``FakeAPIServer.load`` (the store's create path: uid,
resourceVersion, managedFields, history), then serves them. This process reads the child's RSS
from /proc, once for an empty server and once for the loaded one, and then LISTs one namespace
(10,000 objects with the defaults) and the first 10,000 of all namespaces (``?limit=10000``) over
HTTP with aiohttp, timing each request until its last byte arrived, and checking that the list
holds the expected number of items. Then it creates and deletes one ConfigMap at a time, each
write followed by a one-item LIST of all namespaces (``?limit=1``), timed the same way: what a list
costs when the store changed just before it (the key order must follow the write).

Goals (issue 3): 100,000 stored objects in at most 500 MB RSS (MB = 10^6 bytes); LIST of 10,000
objects in at most 300 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import signal
import sys
import time
from collections.abc import Iterator
from typing import Any

import aiohttp
import orjson
from _common import (
    ServerProcess,
    Stats,
    cpu_seconds,
    memory_of,
    print_footer,
    print_header,
    print_table,
    seconds,
    verdict,
)

GOAL_RSS_BYTES = 500 * 10**6
GOAL_LIST_SECONDS = 0.300
READY = r"store serving on (http://\S+)"
BATCH = 1000


def namespace_name(index: int) -> str:
    return f"bench-{index:02d}"


def config_map(index: int, namespaces: int) -> dict[str, Any]:
    """A ConfigMap of about 600 bytes as stored (half of it what the server adds), a small settings object."""
    name = f"app-settings-{index:06d}"
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": namespace_name(index % namespaces),
            "labels": {"app.kubernetes.io/component": f"worker-{index % 7}"},
        },
        "data": {
            "LOG_LEVEL": "info",
            "settings.yaml": f"replicas: {index % 5 + 1}\ntimeout: 30s\nqueue: orders-{index % 13}\n",
        },
    }


def config_maps(count: int, namespaces: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for index in range(count):
        batch.append(config_map(index, namespaces))
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


async def serve_store(count: int, namespaces: int) -> None:
    """The child: load the objects, report how long that took, serve until SIGTERM."""
    from fakeapi import FakeAPIServer

    server = FakeAPIServer()
    started = time.perf_counter()
    server.load(
        [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace_name(i)}} for i in range(namespaces)]
    )
    for batch in config_maps(count, namespaces):
        server.load(batch)
    loaded = time.perf_counter() - started
    gc.collect()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await server.start()
    print(f"loaded {count} objects in {loaded:.3f} s", flush=True)
    print(f"store serving on {server.url}", flush=True)
    await stop.wait()
    await server.stop()


def child(count: int, namespaces: int) -> ServerProcess:
    command = [
        sys.executable,
        os.path.abspath(__file__),
        "--serve-store",
        f"--objects={count}",
        f"--namespaces={namespaces}",
    ]
    return ServerProcess(command, READY, timeout=3600)


async def list_times(
    url: str, path: str, params: dict[str, str], expected: int, repeats: int, warmup: int
) -> tuple[Stats, int, list[str]]:
    """Time ``repeats`` LISTs (after ``warmup``) until the last byte; check the first one's item count."""
    times: list[float] = []
    problems: list[str] = []
    size = 0
    timeout = aiohttp.ClientTimeout(total=600)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        for attempt in range(warmup + repeats):
            started = time.perf_counter()
            async with session.get(url + path, params=params) as response:
                body = await response.read()
            elapsed = time.perf_counter() - started
            if attempt == 0:
                size = len(body)
                if response.status != 200:
                    problems.append(f"{path}: {response.status} {body[:200]!r}")
                else:
                    items = len(orjson.loads(body)["items"])
                    if items != expected:
                        problems.append(f"{path}: {items} items, expected {expected}")
            if attempt >= warmup:
                times.append(elapsed)
    return Stats.of(times), size, problems


async def list_after_writes(url: str, namespace: str, repeats: int) -> tuple[Stats, list[str]]:
    """Create, then delete, one ConfigMap ``repeats`` times; time the one-item LIST after each write."""
    times: list[float] = []
    problems: list[str] = []
    collection = f"{url}/api/v1/namespaces/{namespace}/configmaps"
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as session:
        for index in range(repeats):
            name = f"written-{index:04d}"
            body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
            for method, target, data in (("POST", collection, body), ("DELETE", f"{collection}/{name}", None)):
                async with session.request(method, target, json=data) as response:
                    if response.status not in (200, 201):
                        problems.append(f"{method} {target}: {response.status}")
                started = time.perf_counter()
                async with session.get(f"{url}/api/v1/configmaps", params={"limit": "1"}) as response:
                    listed = await response.read()
                times.append(time.perf_counter() - started)
                if response.status != 200 or len(orjson.loads(listed)["items"]) != 1:
                    problems.append(f"LIST after {method}: {response.status} {listed[:200]!r}")
    return Stats.of(times), problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objects", type=int, default=100_000, help="ConfigMaps to store (default: %(default)s)")
    parser.add_argument(
        "--namespaces", type=int, default=10, help="namespaces they are spread over (default: %(default)s)"
    )
    parser.add_argument("--repeats", type=int, default=10, help="measured LISTs of each kind (default: %(default)s)")
    parser.add_argument(
        "--warmup", type=int, default=2, help="unmeasured LISTs of each kind first (default: %(default)s)"
    )
    parser.add_argument(
        "--serve-store", action="store_true", help="internal: be the child process that serves the store"
    )
    args = parser.parse_args(argv)
    if args.serve_store:
        asyncio.run(serve_store(args.objects, args.namespaces))
        return 0
    print_header(f"FakeAPIServer with {args.objects:,} stored ConfigMaps: memory and LIST", args)

    with child(0, args.namespaces) as empty:
        time.sleep(0.5)
        empty_rss = memory_of(empty.pid).get("VmRSS", 0)

    per_namespace = args.objects // args.namespaces
    list_size = min(10_000, args.objects)
    with child(args.objects, args.namespaces) as server:
        load_seconds = next(
            (float(line.split()[-2]) for line in server.output if line.startswith("loaded ")), float("nan")
        )
        time.sleep(0.5)
        loaded = memory_of(server.pid)
        cpu_before = cpu_seconds(server.pid)
        namespace_stats, namespace_bytes, problems = asyncio.run(
            list_times(
                server.url,
                f"/api/v1/namespaces/{namespace_name(0)}/configmaps",
                {},
                per_namespace,
                args.repeats,
                args.warmup,
            )
        )
        limit_stats, limit_bytes, more = asyncio.run(
            list_times(
                server.url, "/api/v1/configmaps", {"limit": str(list_size)}, list_size, args.repeats, args.warmup
            )
        )
        lists_cpu = (cpu_seconds(server.pid) - cpu_before) / (2 * (args.repeats + args.warmup))
        problems += more
        after_write_stats, more = asyncio.run(list_after_writes(server.url, namespace_name(0), args.repeats))
        problems += more
        after = memory_of(server.pid)

    rss = loaded.get("VmRSS", 0)
    per_object = (rss - empty_rss) / args.objects if args.objects else 0.0
    print(
        f"FakeAPIServer.load of {args.objects:,} ConfigMaps took {load_seconds:.1f} s "
        f"({args.objects / load_seconds:,.0f} objects/s); a listed ConfigMap is "
        f"{namespace_bytes / max(1, per_namespace):,.0f} bytes on the wire\n"
    )
    print_table(
        ["memory (MB = 10^6 B)", "value", "goal", "verdict"],
        [
            ["RSS, empty server", f"{empty_rss / 1e6:.1f} MB", "", ""],
            [
                f"RSS with {args.objects:,} objects",
                f"{rss / 1e6:.1f} MB",
                f"≤ {GOAL_RSS_BYTES / 1e6:.0f} MB",
                verdict(rss <= GOAL_RSS_BYTES),
            ],
            ["per object, above the empty server", f"{per_object:,.0f} B", "", ""],
            ["peak RSS while loading (VmHWM)", f"{loaded.get('VmHWM', 0) / 1e6:.1f} MB", "", ""],
            ["RSS after the LISTs", f"{after.get('VmRSS', 0) / 1e6:.1f} MB", "", ""],
        ],
        right=(1,),
    )
    print_table(
        ["LIST over HTTP", "items", "body", "p50", "p99", "min", "goal", "verdict"],
        [
            [
                f"one namespace (/api/v1/namespaces/{namespace_name(0)}/configmaps)",
                f"{per_namespace:,}",
                f"{namespace_bytes / 1e6:.1f} MB",
                seconds(namespace_stats.median),
                seconds(namespace_stats.p99),
                seconds(namespace_stats.minimum),
                f"≤ {seconds(GOAL_LIST_SECONDS)}" if per_namespace == 10_000 else "",
                verdict(namespace_stats.median <= GOAL_LIST_SECONDS) if per_namespace == 10_000 else "",
            ],
            [
                f"all namespaces, first page (/api/v1/configmaps?limit={list_size})",
                f"{list_size:,}",
                f"{limit_bytes / 1e6:.1f} MB",
                seconds(limit_stats.median),
                seconds(limit_stats.p99),
                seconds(limit_stats.minimum),
                f"≤ {seconds(GOAL_LIST_SECONDS)}" if list_size == 10_000 else "",
                verdict(limit_stats.median <= GOAL_LIST_SECONDS) if list_size == 10_000 else "",
            ],
            [
                "all namespaces, one item, right after a create or a delete (?limit=1)",
                "1",
                "",
                seconds(after_write_stats.median),
                seconds(after_write_stats.p99),
                seconds(after_write_stats.minimum),
                "",
                "",
            ],
        ],
        right=(1, 2, 3, 4, 5),
    )
    print(f"server CPU per LIST (both kinds): {seconds(lists_cpu)}; p99 over {args.repeats} LISTs is the slowest")
    for problem in problems:
        print(f"problem: {problem}")
    print_footer()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
