"""Figures for the scenarios engine: schedules per second with real kubernetes_asyncio clients, the
exhaustive ``completion-claim resource-version`` exploration (schedule count and time), and what
the partial-order reduction saves. Prints figures; asserts nothing.

    python benchmarks/scenarios_throughput.py [--schedules 300] [--workers 2] [--skip-off]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schedules", type=int, default=300, help="random schedules for the throughput figure")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes for the sharded figure")
    parser.add_argument("--skip-off", action="store_true", help="skip the slow exploration without reduction")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")

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
