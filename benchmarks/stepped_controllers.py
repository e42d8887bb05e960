"""What racing the simulated controllers costs the scenarios engine (docs/controllers.md, stepped).

Seeded random schedules of the built-in ``pod-outcome-claims`` (two replicas, the kubelet's pod
workers stepped one write at a time, each write probed first) against the floor of
``completion-claim`` (two replicas and kopf, no controllers), in alternating rounds in one process:
process CPU per schedule and per step. Then, once, the exhaustive ``pod-outcome-claims
resource-version`` search: schedules, time, and the verdict. Prints figures; asserts nothing.

    python benchmarks/stepped_controllers.py [--rounds 3] [--schedules 40] [--skip-exhaustive]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from _common import print_footer, print_header

from scenarios import Settings, builtin_scenario
from scenarios._exploring import explore_async


def _sample(name: str, variant: str, schedules: int) -> tuple[float, float]:
    """CPU seconds per schedule and per step of ``schedules`` seeded random runs."""
    steps = 0

    def count(exploration: object) -> None:
        nonlocal steps
        last = getattr(exploration, "last", None)
        steps += len(last.steps) if last is not None else 0

    settings = Settings(exhaustive=False, schedules=schedules, seed=1, keep_going=True, shrink=False)
    started = time.process_time()
    result = asyncio.run(explore_async(builtin_scenario(name, variant), settings, progress=count))
    spent = time.process_time() - started
    return spent / max(result.runs, 1), spent / max(steps, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default: %(default)s)")
    parser.add_argument("--schedules", type=int, default=40, help="random schedules a round (default: %(default)s)")
    parser.add_argument("--skip-exhaustive", action="store_true", help="skip the exhaustive search (minutes)")
    args = parser.parse_args()
    print_header("scenarios with stepped controllers", args)
    floor: list[tuple[float, float]] = []
    stepped: list[tuple[float, float]] = []
    for _ in range(args.rounds):
        floor.append(_sample("completion-claim", "resource-version", args.schedules))
        stepped.append(_sample("pod-outcome-claims", "resource-version", args.schedules))
    per_run = (statistics.median(f[0] for f in floor), statistics.median(s[0] for s in stepped))
    per_step = (statistics.median(f[1] for f in floor), statistics.median(s[1] for s in stepped))
    print(f"{'measure':<52}{'per schedule':>14}{'per step':>12}")
    print(f"{'completion-claim, no controllers (floor)':<52}{per_run[0] * 1e3:>11.1f} ms{per_step[0] * 1e3:>9.2f} ms")
    print(f"{'pod-outcome-claims, kubelet stepped':<52}{per_run[1] * 1e3:>11.1f} ms{per_step[1] * 1e3:>9.2f} ms")
    print(f"\nratio to the floor: per schedule {per_run[1] / per_run[0]:.2f}, per step {per_step[1] / per_step[0]:.2f}")
    if not args.skip_exhaustive:
        started = time.perf_counter()
        result = asyncio.run(
            explore_async(builtin_scenario("pod-outcome-claims", "resource-version"), Settings(exhaustive=True))
        )
        elapsed = time.perf_counter() - started
        print(f"exhaustive pod-outcome-claims resource-version: {result.verdict}, {result.runs} schedules judged, "
              f"{result.pruned} cut short, {elapsed:.1f} s")  # fmt: skip
    print_footer()


if __name__ == "__main__":
    main()
