"""Figures for kopf operators explored as replica processes (docs/scenarios-operators.md): what a
replica start costs, and schedules per second and CPU per schedule for a two-replica kopf operator
on one object (the seed-shaped operator of tests/scenarios/operators). Floors measured in the same
run: starting a Python interpreter (``python -c pass``), which a start without the launcher's fork
would cost at least, a bare ``fork`` of the launcher-sized process, and kopf alone.

Kopf alone is what the operator costs without the engine: a process that has imported kopf and
loaded the operator as the launcher does (TLS contexts deferred as in replicas, the heap frozen)
forks as many plain ``kopf run`` processes as the scenario has replicas, against ``fakeapi serve``,
on a real clock, with no gate, no valve and no agent; a user marks the job done; once the job is
claimed and a quarter of a second passes without a write to it, the processes are killed and their
CPU (all threads) read from the kernel, and each has also said its CPU when kopf began its first
watch (its start-up). That is the work of one schedule of the same operator and replicas with
nothing of the engine around it, in whatever order the kernel ran them, or less (work still to come
after the quiet quarter is cut off, never added): a lower bound on what a schedule costs, whatever
the engine does around it. Prints figures; asserts nothing.

    python benchmarks/replica_operators.py [--schedules 40] [--replicas 2] [--handler async|sync] [--alone-runs 10]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _common import FAKEAPI_READY, ApiConnection, ServerProcess, fakeapi_command  # noqa: E402

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


async def _starts(replicas: int, runs: int) -> tuple[float, float, float, float]:
    """Launcher start, then the wall time to start a replica and let it wait: in the first run (its
    template's start-up included) and in the later ones (a fork from the template), and steps per run."""
    engine = Engine(_scenario(replicas))
    started = time.perf_counter()
    await engine.start()
    launcher = time.perf_counter() - started
    starting: list[float] = []
    steps = 0
    original = engine.start_replica

    async def timed(runtime: Any) -> None:
        begun = time.perf_counter()
        await original(runtime)
        starting[-1] += time.perf_counter() - begun

    engine.start_replica = timed  # type: ignore[method-assign]
    try:
        for _ in range(runs):
            starting.append(0.0)
            record = await engine.run(Replay([]))
            steps += len(record.steps)
    finally:
        await engine.stop()
    return launcher, starting[0] / replicas, sum(starting[1:]) / ((runs - 1) * replicas), steps / runs


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


JOBS = "/apis/example.com/v1/namespaces/default/jobs"
COMPLETED = "example.com/completed-by"
ALONE_TIMEOUT = 60.0


def _kopf_alone(operator: str, replicas: int, runs: int) -> tuple[list[float], list[float]]:
    """Per run, the CPU seconds of ``replicas`` plain kopf processes on one job: at their first watch
    (summed), and in all (summed, once the job was claimed and the server saw no write for 0.25 s)."""
    with ServerProcess(fakeapi_command(), FAKEAPI_READY) as server, tempfile.TemporaryDirectory() as folder:
        api = ApiConnection(server.url, timeout=60)
        api.send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", job_crd())
        api.wait_served(JOBS, timeout=30)
        kubeconfig = Path(folder) / "kubeconfig"
        kubeconfig.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [{"name": "fake", "cluster": {"server": server.url}}],
                    "users": [{"name": "alone", "user": {"token": "alone"}}],
                    "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "alone"}}],
                    "current-context": "fake",
                }
            )
        )
        spec = {
            "operator": operator,
            "server": server.url,
            "kubeconfig": str(kubeconfig),
            "replicas": replicas,
            "runs": runs,
            "log": str(Path(folder) / "kopf.log"),
        }
        done = subprocess.run(
            [sys.executable, __file__, "--alone-launcher", json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=ALONE_TIMEOUT * (runs + 1),
        )
        if done.returncode != 0:
            raise RuntimeError(f"kopf alone failed:\n{done.stderr[-2000:]}")
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        return figures["started"], figures["total"]


def _settled(api: ApiConnection, path: str, quiet: float) -> None:
    """Wait until the job is claimed and no write changed it for ``quiet`` seconds (real time: plain
    kopf has no engine to say it waits)."""
    deadline = time.monotonic() + ALONE_TIMEOUT
    last, since = "", time.monotonic()
    while time.monotonic() < deadline:
        found = api.request("GET", path)["metadata"]
        version = found["resourceVersion"] if COMPLETED in (found.get("annotations") or {}) else ""
        if version != last:
            last, since = version, time.monotonic()
        elif version and time.monotonic() - since >= quiet:
            return
        time.sleep(0.02)
    raise SystemExit(f"kopf did not settle on {path} within {ALONE_TIMEOUT:.0f} s")


def _alone_launcher(spec: dict[str, Any]) -> None:
    """Import kopf and the operator once, as the replica launcher does, then fork plain ``kopf run``
    processes per run, and read their CPU from the kernel when they are killed."""
    from kopf import cli
    from kopf._cogs.clients import watching
    from kopf._cogs.helpers import loaders

    from scenarios import _deferred_trust as deferred_trust

    os.environ["KUBECONFIG"] = spec["kubeconfig"]
    os.environ["SEED_GUARD"] = "resource-version"
    pipe: dict[str, int] = {}
    real_watch = watching.continuous_watch

    def first_watch(*args: Any, **kwargs: Any) -> Any:
        if "first" in pipe:
            os.write(pipe.pop("first"), f"{time.process_time()!r}\n".encode())
        return real_watch(*args, **kwargs)

    watching.continuous_watch = first_watch
    loaders.preload(paths=[spec["operator"]], modules=[])
    for module_name in ("kubernetes.config.kube_config", "kubernetes_asyncio.config.kube_config"):
        module = sys.modules.get(module_name)
        if module is not None:
            module.KUBE_CONFIG_DEFAULT_LOCATION = spec["kubeconfig"]  # type: ignore[attr-defined]
    deferred_trust.install()
    gc.collect()
    gc.freeze()
    api = ApiConnection(spec["server"], timeout=60)
    started: list[float] = []
    totals: list[float] = []
    for run in range(spec["runs"]):
        name = f"job-{run}"
        api.send("POST", JOBS, job(name, {"payload": "a<b", "done": False}))
        children: list[tuple[int, int]] = []
        for replica in range(1, spec["replicas"] + 1):
            readable, writable = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(readable)
                pipe["first"] = writable
                os.environ["POD_ID"] = f"replica-{replica}"
                log = os.open(spec["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                os.dup2(log, 1)
                os.dup2(log, 2)
                try:
                    cli.main(args=["run", "--standalone", "-A"], standalone_mode=False)
                finally:
                    os._exit(1)
            os.close(writable)
            children.append((pid, readable))
        api.send("PATCH", f"{JOBS}/{name}", {"spec": {"done": True}}, "application/merge-patch+json")
        _settled(api, f"{JOBS}/{name}", quiet=0.25)
        first = total = 0.0
        for pid, readable in children:
            with os.fdopen(readable) as reported:
                first += float(reported.readline() or "nan")
            os.kill(pid, signal.SIGKILL)
            _, _, usage = os.wait4(pid, 0)
            total += usage.ru_utime + usage.ru_stime
        started.append(first)
        totals.append(total)
        api.request("DELETE", f"{JOBS}/{name}")
    print(json.dumps({"started": started, "total": totals}))


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--alone-launcher":
        _alone_launcher(json.loads(sys.argv[2]))
        return
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
    parser.add_argument("--alone-runs", type=int, default=10, help="plain kopf runs for the kopf-alone floor")
    args = parser.parse_args()
    global OPERATOR
    OPERATOR = OPERATORS[args.handler]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, python {sys.version.split()[0]}")
    interpreter, fork = _floors()
    print(f"floors: python -c pass {interpreter * 1000:.1f} ms; bare fork+exit {fork * 1000:.2f} ms")
    alone_started, alone_totals = _kopf_alone(OPERATOR, args.replicas, args.alone_runs)
    alone = statistics.median(alone_totals)
    alone_start = statistics.median(alone_started)
    print(
        f"kopf alone ({args.alone_runs} runs of {args.replicas} plain replicas, CPU from fork, all replicas, medians): "
        f"{alone * 1000:.0f} ms a run (range {min(alone_totals) * 1000:.0f}-{max(alone_totals) * 1000:.0f} ms), "
        f"{alone_start * 1000:.0f} ms of it until their first watches"
    )
    launcher, first_start, start, steps = asyncio.run(_starts(args.replicas, 5))
    print(
        f"launcher (imports kopf, loads the operator) {launcher * 1000:.0f} ms once per exploration; replica start "
        f"(until it waits): first run {first_start * 1000:.1f} ms (its template's kopf start-up included), later runs "
        f"{start * 1000:.1f} ms (a fork from the template) = {start / interpreter:.2f}x an interpreter start; "
        f"{steps:.0f} steps per default schedule"
    )
    count, elapsed, engine_cpu, replica_cpu = asyncio.run(_schedules(args.replicas, args.schedules))
    print(
        f"{args.replicas} replicas, seed operator ({args.handler} handler), {count} random schedules in {elapsed:.1f} s = "
        f"{count / elapsed:.2f} schedules/s; CPU per schedule: engine and server {engine_cpu / count * 1000:.0f} ms, "
        f"replicas {replica_cpu / count * 1000:.0f} ms"
    )
    cores = os.cpu_count() or 1
    print(
        f"against kopf alone ({alone * 1000:.0f} ms a run): the replicas use {replica_cpu / count / alone:.2f}x that per "
        f"schedule, the whole schedule {(engine_cpu + replica_cpu) / count / alone:.2f}x; kopf alone's CPU bounds "
        f"{cores} cores to {cores / alone:.1f} runs/s with a fresh process per replica, "
        f"{cores / (alone - alone_start):.1f} runs/s if replicas started where their first watch begins"
    )


if __name__ == "__main__":
    main()
