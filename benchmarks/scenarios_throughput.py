"""Figures for the scenarios engine: schedules per second with real kubernetes_asyncio clients, the
exhaustive ``completion-claim resource-version`` exploration (schedule count and time), and what
the partial-order reduction saves; then, past the engine's start and a first schedule, process CPU
per schedule and schedules/s of seeded random schedules of each ``--steady`` scenario (by default
``pod-outcome-claims resource-version``, whose replicas open a watch per tick).
Prints figures; asserts nothing.

First, the floor a ``completion-claim`` schedule stands on (``--floor-only`` prints just that): the
requests one schedule sends (five GETs and three JSON patches of the job, as the server's journal of
a run shows), made by kubernetes_asyncio with the engine's client settings, answered by a bare
aiohttp app with canned bodies of the job's size. Its CPU per schedule is read twice: with the app in
another process (the client libraries alone: what a schedule costs even if the engine and fakeapi
cost nothing) and in this process (client and a bare server on one loop, as the engine runs them).
The engine's own CPU per steady ``completion-claim resource-version`` schedule, measured after it,
is given as a ratio to both.

    python benchmarks/scenarios_throughput.py [--schedules 300] [--workers 2] [--skip-off]
        [--steady NAME/VARIANT ...] [--steady-schedules 40] [--steady-only] [--floor-only]
        [--floor-schedules 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

from aiohttp import web

from scenarios import Settings, Shard, builtin_scenario
from scenarios._exploring import explore_async


def _random(scenario_name: str, variant: str, schedules: int, shard: Shard) -> tuple[int, float]:
    import asyncio

    target = builtin_scenario(scenario_name, variant)
    settings = Settings(exhaustive=False, schedules=schedules, seed=1, shard=shard, keep_going=True, shrink=False)
    started = time.perf_counter()
    result = asyncio.run(explore_async(target, settings))
    return result.runs, time.perf_counter() - started


def _worker(arguments: tuple[str, str, int, int, int]) -> tuple[int, float]:
    name, variant, schedules, index, count = arguments
    return _random(name, variant, schedules, Shard(index, count))


def _exhaustive(reduction: str) -> tuple[int, int, float]:
    import asyncio

    target = builtin_scenario("completion-claim", "resource-version")
    settings = Settings(exhaustive=True, reduction=reduction)
    started = time.perf_counter()
    result = asyncio.run(explore_async(target, settings))
    assert result.holds, result.report()
    return result.runs, result.pruned, time.perf_counter() - started


def _steady(scenario_name: str, variant: str, schedules: int) -> tuple[int, float, float, str]:
    """Schedules, CPU seconds and wall seconds of ``schedules`` seeded random runs, once the engine
    has started and run one schedule (start-up and first imports left out), and the verdict."""
    import asyncio

    from scenarios._engine import Engine

    async def measure() -> tuple[int, float, float, str]:
        engine = Engine(builtin_scenario(scenario_name, variant))
        await engine.start()
        try:
            warm = Settings(exhaustive=False, schedules=1, seed=99, keep_going=True, shrink=False)
            await explore_async(engine.scenario, warm, engine=engine)
            settings = Settings(exhaustive=False, schedules=schedules, seed=1, keep_going=True, shrink=False)
            cpu, wall = time.process_time(), time.perf_counter()
            result = await explore_async(engine.scenario, settings, engine=engine)
            return result.runs, time.process_time() - cpu, time.perf_counter() - wall, str(result.verdict)
        finally:
            await engine.stop()

    return asyncio.run(measure())


# The job as a completion-claim run stores it (the size of the bodies the floor answers with), and the
# requests one schedule sends.
FLOOR_UID = "0d2c6a4e-5b7f-4c1e-9a53-1f4b2a7c9e10"
FLOOR_JOB = json.dumps(
    {
        "apiVersion": "example.com/v1",
        "kind": "Job",
        "metadata": {
            "name": "job-1",
            "namespace": "default",
            "uid": FLOOR_UID,
            "resourceVersion": "512",
            "generation": 1,
            "creationTimestamp": "2026-12-08T00:00:00Z",
            "annotations": {
                "kopf.zalando.org/last-handled-configuration": '{"spec":{"command":"sh -c \\"echo hi > /tmp/x\\""}}'
            },
        },
        "spec": {"command": 'sh -c "echo hi > /tmp/x"', "image": "busybox:1.36", "retries": 3},
    }
).encode()
FLOOR_GETS, FLOOR_PATCHES = 5, 3
FLOOR_CLAIM = [
    {"op": "test", "path": "/metadata/uid", "value": FLOOR_UID},
    {"op": "test", "path": "/metadata/resourceVersion", "value": "512"},
    {"op": "add", "path": "/metadata/annotations/example.com~1completed-by", "value": "replica-a"},
]
BARE_APP = """
import asyncio
import sys

sys.path.insert(0, sys.argv[1])
from scenarios_throughput import _bare_app_in_this_process


async def serve():
    runner, port = await _bare_app_in_this_process()
    print(port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the benchmark closes it
    await runner.cleanup()


asyncio.run(serve())
"""


async def _bare_app_in_this_process() -> tuple[web.AppRunner, int]:
    async def answer(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(body=FLOOR_JOB, content_type="application/json")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, runner.addresses[0][1]


async def _client_cpu_per_schedule(port: int, schedules: int) -> float:
    """CPU seconds of this process per schedule's requests, sent by kubernetes_asyncio to ``port``."""
    from kubernetes_asyncio import client

    configuration = client.Configuration(host=f"http://127.0.0.1:{port}")
    async with client.ApiClient(configuration) as api:
        # As the engine's clients: no netrc or proxy lookups (scenarios/_actors.py).
        api.rest_client.pool_manager._trust_env = False
        custom = client.CustomObjectsApi(api)

        async def one_schedule() -> None:
            for _ in range(FLOOR_GETS):
                await custom.get_namespaced_custom_object("example.com", "v1", "default", "jobs", "job-1")
            for _ in range(FLOOR_PATCHES):
                await custom.patch_namespaced_custom_object(
                    "example.com", "v1", "default", "jobs", "job-1", FLOOR_CLAIM
                )

        for _ in range(max(20, schedules // 10)):
            await one_schedule()
        started = time.process_time()
        for _ in range(schedules):
            await one_schedule()
        return (time.process_time() - started) / schedules


def _client_floor(schedules: int) -> tuple[float, float]:
    """CPU per schedule of the client libraries alone (the bare app in another process), and of the
    client with the bare app on this process's loop."""
    here = str(Path(__file__).resolve().parent)
    with subprocess.Popen(
        [sys.executable, "-c", BARE_APP, here], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as app:
        assert app.stdin is not None and app.stdout is not None
        port = int(app.stdout.readline())
        try:
            alone = asyncio.run(_client_cpu_per_schedule(port, schedules))
        finally:
            app.stdin.close()

    async def together() -> float:
        runner, port = await _bare_app_in_this_process()
        try:
            return await _client_cpu_per_schedule(port, schedules)
        finally:
            await runner.cleanup()

    return alone, asyncio.run(together())


def _print_floor(floor_schedules: int, engine_schedules: int) -> None:
    alone, together = _client_floor(floor_schedules)
    requests = FLOOR_GETS + FLOOR_PATCHES
    print(
        f"client floor, completion-claim schedule ({FLOOR_GETS} GETs and {FLOOR_PATCHES} JSON patches by "
        f"kubernetes_asyncio): {alone * 1e3:.2f} ms CPU per schedule with a bare aiohttp app in another process "
        f"({alone / requests * 1e6:.0f} us a request; at most {1 / alone:.0f} schedules/s of one core), "
        f"{together * 1e3:.2f} ms with the bare app on the same loop (at most {1 / together:.0f} schedules/s)"
    )
    runs, cpu, wall, verdict = _steady("completion-claim", "resource-version", engine_schedules)
    per_schedule = cpu / runs
    print(
        f"completion-claim resource-version, steady: {runs} random schedules, {per_schedule * 1e3:.2f} ms CPU per "
        f"schedule ({per_schedule / alone:.2f}x the client alone, {per_schedule / together:.2f}x client and bare app), "
        f"{runs / wall:.0f} schedules/s wall ({verdict.partition(':')[0]}), load average {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schedules", type=int, default=300, help="random schedules for the throughput figure")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes for the sharded figure")
    parser.add_argument("--skip-off", action="store_true", help="skip the slow exploration without reduction")
    parser.add_argument(
        "--steady",
        action="append",
        metavar="NAME/VARIANT",
        help="a built-in variant for the steady-state figure (default: pod-outcome-claims/resource-version)",
    )
    parser.add_argument("--steady-schedules", type=int, default=40, help="random schedules for the steady figure")
    parser.add_argument("--steady-only", action="store_true", help="print only the steady-state figures")
    parser.add_argument(
        "--floor-only", action="store_true", help="print only the client floor and the engine's ratio to it"
    )
    parser.add_argument(
        "--floor-schedules", type=int, default=1000, help="schedules' requests sent for the client floor"
    )
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    if not args.steady_only:
        _print_floor(args.floor_schedules, args.steady_schedules * 5)
    if args.floor_only:
        return
    for target in args.steady or ["pod-outcome-claims/resource-version"]:
        name, _, variant = target.partition("/")
        runs, cpu, wall, verdict = _steady(name, variant, args.steady_schedules)
        print(
            f"{name} {variant}, steady: {runs} random schedules, {cpu / runs * 1e3:.1f} ms CPU per schedule, "
            f"{runs / wall:.1f} schedules/s wall ({verdict.partition(':')[0]}), load average {os.getloadavg()[0]:.1f}"
        )
    if args.steady_only:
        return

    for name, variant in (("completion-claim", "resource-version"), ("non-ascii", "resource-version")):
        runs, elapsed = _random(name, variant, args.schedules, Shard())
        print(
            f"{name} {variant}: {runs} random schedules in {elapsed:.1f} s = {runs / elapsed:.0f} schedules/s (1 process)"
        )
    if args.workers > 1:
        jobs = [("completion-claim", "resource-version", args.schedules, i, args.workers) for i in range(args.workers)]
        started = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            results = pool.map(_worker, jobs)
        elapsed = time.perf_counter() - started
        runs = sum(count for count, _ in results)
        busy = max(seconds for _, seconds in results)
        print(
            f"completion-claim resource-version: {runs} schedules over {args.workers} shard processes in {elapsed:.1f} s "
            f"wall ({busy:.1f} s exploring) = {runs / busy:.0f} schedules/s"
        )

    reductions = ("dpor", "sleep-sets") if args.skip_off else ("dpor", "sleep-sets", "off")
    figures = {reduction: _exhaustive(reduction) for reduction in reductions}
    for reduction, (runs, pruned, elapsed) in figures.items():
        print(
            f"exhaustive completion-claim resource-version, reduction {reduction}: {runs} schedules "
            f"(+{pruned} cut short) in {elapsed:.1f} s"
        )
    if "off" in figures:
        print(
            f"reduction effect: {figures['off'][0]} schedules without, {figures['dpor'][0]} with dpor "
            f"({figures['off'][0] / figures['dpor'][0]:.1f}x fewer, {figures['off'][2] / figures['dpor'][2]:.1f}x faster)"
        )


if __name__ == "__main__":
    main()
