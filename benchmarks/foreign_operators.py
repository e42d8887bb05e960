"""Figures for an operator process without the engine's agent (docs/scenarios-operators.md, "Any
operator process"): schedules per second for two replicas of the JavaScript claim controller of
tests/scenarios/operators/js (@kubernetes/client-node), racy and guarded, seeded random schedules,
no faults. Floor measured in the same run: starting node and importing the client
(``node -e 'import("@kubernetes/client-node")'``), which every replica of every run pays, since a
foreign process cannot be started ahead of its run. Every step then costs at least the quiet period.
Prints figures; asserts nothing. Needs ``npm ci`` in tests/scenarios/operators/js.

    python benchmarks/foreign_operators.py [--schedules 10] [--quiet 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scenarios import Operator, WriteEffect, exactly_once, scenario  # noqa: E402
from scenarios._engine import Engine  # noqa: E402
from scenarios._model import Scenario  # noqa: E402
from scenarios._schedules import RandomChooser  # noqa: E402
from scenarios.builtin._jobs import job, job_crd  # noqa: E402

JS = ROOT / "tests" / "scenarios" / "operators" / "js"
EVENT_KEY = "{object[involvedObject][namespace]}/{object[involvedObject][name]}"


def _scenario(guard: str, quiet: float) -> Scenario:
    operator = Operator(
        ("node", str(JS / "claim-controller.js")),
        replicas=2,
        agent=False,
        quiet=quiet,
        effects=(WriteEffect("complete", "events", verb="create", key=EVENT_KEY),),
        environment={"CLAIM_GUARD": guard},
    )
    return scenario(
        objects=[job_crd(), job("job-1", {"done": True})],
        operator=operator,
        checks=exactly_once("complete", "default/job-1"),
    )


def _node_floor() -> float:
    started = time.perf_counter()
    for _ in range(3):
        subprocess.run(["node", "-e", 'import("@kubernetes/client-node")'], cwd=JS, check=True)
    return (time.perf_counter() - started) / 3


async def _schedules(guard: str, quiet: float, schedules: int) -> tuple[float, float]:
    """Wall time for ``schedules`` seeded random schedules on one engine, and steps per schedule."""
    engine = Engine(_scenario(guard, quiet))
    await engine.start()
    steps = 0
    try:
        started = time.perf_counter()
        for run in range(schedules):
            record = await engine.run(RandomChooser(1, run, fault_rate=0.0))
            steps += len(record.steps)
        elapsed = time.perf_counter() - started
    finally:
        await engine.stop()
    return elapsed, steps / schedules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schedules", type=int, default=10, help="random schedules per version of the controller")
    parser.add_argument("--quiet", type=float, default=0.2, help="the quiet period, in seconds")
    args = parser.parse_args()
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    print(
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, python {sys.version.split()[0]}, "
        f"node {node}"
    )
    floor = _node_floor()
    print(f"floor: node start and import of @kubernetes/client-node {floor * 1000:.0f} ms")
    for guard in ("none", "resource-version"):
        elapsed, steps = asyncio.run(_schedules(guard, args.quiet, args.schedules))
        print(
            f"2 replicas, CLAIM_GUARD={guard}, quiet period {args.quiet:g} s: {args.schedules} random schedules in "
            f"{elapsed:.1f} s = {args.schedules / elapsed:.2f} schedules/s, {steps:.1f} steps per schedule, "
            f"{elapsed / args.schedules * 1000:.0f} ms per schedule"
        )


if __name__ == "__main__":
    main()
