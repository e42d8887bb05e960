"""Figures for kopf operators explored as replica processes (docs/scenarios-operators.md): what a
replica start costs, and schedules per second and CPU per schedule for a two-replica kopf operator
on one object (the seed-shaped operator of tests/scenarios/operators). Floors measured in the same
run: starting a Python interpreter (``python -c pass``), which a start without the launcher's fork
would cost at least, and a bare ``fork`` of the launcher-sized process. Prints figures; asserts
nothing.

    python benchmarks/replica_operators.py [--schedules 40] [--replicas 2] [--handler async|sync]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scenarios import CallEffect, Operator, exactly_once, scenario  # noqa: E402
from scenarios._engine import Engine  # noqa: E402
from scenarios._schedules import RandomChooser, Replay  # noqa: E402
from scenarios.builtin._jobs import job, job_crd  # noqa: E402

OPERATORS = {
    "async": str(ROOT / "tests" / "scenarios" / "operators" / "seed_operator.py"),
    "sync": str(ROOT / "tests" / "scenarios" / "operators" / "seed_operator_sync.py"),
}
OPERATOR = OPERATORS["async"]


async def _mark_done(ctx: Any) -> None:
    await ctx.custom.patch_namespaced_custom_object(
        "example.com", "v1", "default", "jobs", "job-1", {"spec": {"done": True}},
        _content_type="application/merge-patch+json",
    )  # fmt: skip


def _scenario(replicas: int) -> Any:
    operator = Operator(
        (OPERATOR, "--standalone", "-A"),
        replicas=replicas,
        effects=(CallEffect("complete", "seed_notify.send_completion", "{namespace}/{name}"),),
        environment={"SEED_GUARD": "resource-version"},
    )
    return scenario(
        objects=[job_crd(), job("job-1", {"payload": "a<b", "done": False})],
        writers={"user": _mark_done},
        operator=operator,
        checks=exactly_once("complete", "default/job-1"),
        horizon=3.0,
    )


def _floors() -> tuple[float, float]:
    started = time.perf_counter()
    for _ in range(5):
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    interpreter = (time.perf_counter() - started) / 5
    started = time.perf_counter()
    for _ in range(20):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    return interpreter, (time.perf_counter() - started) / 20


async def _starts(replicas: int, runs: int) -> tuple[float, float, float, int]:
    """Launcher start, then per run: wall time to start every replica and let each wait."""
    engine = Engine(_scenario(replicas))
    started = time.perf_counter()
    await engine.start()
    launcher = time.perf_counter() - started
    starting = 0.0
    steps = 0
    original = engine.start_replica

    async def timed(runtime: Any) -> None:
        nonlocal starting
        begun = time.perf_counter()
        await original(runtime)
        starting += time.perf_counter() - begun

    engine.start_replica = timed  # type: ignore[method-assign]
    try:
        for _ in range(runs):
            record = await engine.run(Replay([]))
            steps += len(record.steps)
    finally:
        await engine.stop()
    return launcher, starting / (runs * replicas), steps / runs, runs


async def _schedules(replicas: int, schedules: int) -> tuple[int, float, float, float]:
    """Seeded random schedules (no faults) on one engine: wall time, the engine's and the replicas' CPU."""
    engine = Engine(_scenario(replicas))
    await engine.start()
    try:
        assert engine.pool is not None
        engine.pool.cpu = 0.0
        engine_cpu = time.process_time()
        started = time.perf_counter()
        for run in range(schedules):
            await engine.run(RandomChooser(1, run, fault_rate=0.0))
        elapsed = time.perf_counter() - started
        engine_cpu = time.process_time() - engine_cpu
        replica_cpu = engine.pool.cpu
    finally:
        await engine.stop()
    return schedules, elapsed, engine_cpu, replica_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schedules", type=int, default=40, help="random schedules for the throughput figure")
    parser.add_argument("--replicas", type=int, default=2, help="replicas of the operator")
    parser.add_argument(
        "--handler",
        choices=sorted(OPERATORS),
        default="async",
        help="the seed operator with an async handler (kubernetes_asyncio) or a sync one (the kubernetes client, in "
        "kopf's executor thread)",
    )
    args = parser.parse_args()
    global OPERATOR
    OPERATOR = OPERATORS[args.handler]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, python {sys.version.split()[0]}")
    interpreter, fork = _floors()
    print(f"floors: python -c pass {interpreter * 1000:.1f} ms; bare fork+exit {fork * 1000:.2f} ms")
    launcher, start, steps, _ = asyncio.run(_starts(args.replicas, 5))
    print(
        f"launcher (imports kopf, loads the operator) {launcher * 1000:.0f} ms once per exploration; replica start "
        f"(fork, kopf start-up, until it waits) {start * 1000:.1f} ms = {start / interpreter:.2f}x an interpreter start; "
        f"{steps:.0f} steps per default schedule"
    )
    count, elapsed, engine_cpu, replica_cpu = asyncio.run(_schedules(args.replicas, args.schedules))
    print(
        f"{args.replicas} replicas, seed operator ({args.handler} handler), {count} random schedules in {elapsed:.1f} s = "
        f"{count / elapsed:.2f} schedules/s; CPU per schedule: engine and server {engine_cpu / count * 1000:.0f} ms, "
        f"replicas {replica_cpu / count * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
