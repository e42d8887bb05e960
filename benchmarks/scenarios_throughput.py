"""Figures for the scenarios engine: schedules per second with real kubernetes_asyncio clients, the
exhaustive ``completion-claim resource-version`` exploration (schedule count and time), and what
the partial-order reduction saves; then, past the engine's start and a first schedule, process CPU
per schedule and schedules/s of seeded random schedules of each ``--steady`` scenario (by default
``pod-outcome-claims resource-version``, whose replicas open a watch per tick).
Prints figures; asserts nothing.

    python benchmarks/scenarios_throughput.py [--schedules 300] [--workers 2] [--skip-off]
        [--steady NAME/VARIANT ...] [--steady-schedules 40] [--steady-only]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time

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
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
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
