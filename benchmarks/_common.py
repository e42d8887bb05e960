"""What the benchmark scripts share: the machine header, statistics, tables, goals, inputs and server processes.

Every script prints the machine it ran on and the load at the time, because the figures mean little
without them (the project's machine has 2 cores and is often shared). Inputs are built here from
fixed values, never at random, so two runs measure the same thing. A goal is printed next to its
figure with a verdict; nothing asserts, a benchmark only reports.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import http.client
import json
import math
import os
import platform
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import aiohttp

REPO = Path(__file__).resolve().parent.parent

# -- the machine ------------------------------------------------------------------------------------


def cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def load_average() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "unknown"
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1/5/15 min)"


def source_version() -> str:
    """The commit the figures belong to, and whether the working tree differs from it."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "fakeapi"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"{commit} + uncommitted changes in fakeapi/" if dirty else commit


def print_header(title: str, args: argparse.Namespace | None = None) -> None:
    cores = os.cpu_count() or 0
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    lines = [
        title,
        "=" * len(title),
        f"date     {datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%d %H:%M:%S UTC')}",
        f"machine  {cpu_model()}, {cores} cores ({usable} usable), {platform.system()} {platform.release()}",
        f"python   {platform.python_implementation()} {platform.python_version()} ({sys.executable})",
        f"fakeapi  {source_version()}",
        f"load     {load_average()} at start",
    ]
    if args is not None:
        options = " ".join(
            f"--{key.replace('_', '-')}={value}" for key, value in vars(args).items() if not key.startswith("serve_")
        )
        lines.append(f"options  {options}")
    print("\n".join(lines), flush=True)
    print(flush=True)


def print_footer() -> None:
    print(f"\nload     {load_average()} at end", flush=True)


# -- statistics -------------------------------------------------------------------------------------


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile: with fewer than 100 samples, p99 is the largest one."""
    if not samples:
        return math.nan
    ordered = sorted(samples)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class Stats:
    """Summary of repeated measurements (seconds, or any unit the caller keeps to)."""

    count: int
    median: float
    p99: float
    minimum: float
    maximum: float

    @classmethod
    def of(cls, samples: Sequence[float]) -> Stats:
        if not samples:
            return cls(0, math.nan, math.nan, math.nan, math.nan)
        ordered = sorted(samples)
        middle = len(ordered) // 2
        median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
        return cls(len(ordered), median, percentile(ordered, 99), ordered[0], ordered[-1])


def seconds(value: float) -> str:
    """A duration with a unit that keeps three significant digits readable."""
    if math.isnan(value):
        return "-"
    if value < 1e-3:
        return f"{value * 1e6:.1f} µs"
    if value < 1:
        return f"{value * 1e3:.2f} ms"
    return f"{value:.2f} s"


def megabytes(value: float) -> str:
    return f"{value / 2**20:.1f} MiB"


# -- goals and tables -------------------------------------------------------------------------------


def verdict(met: bool | None) -> str:
    if met is None:
        return "n/a"
    return "met" if met else "NOT met"


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, right: Sequence[int] = ()) -> None:
    """A plain monospace table; columns listed in ``right`` are right-aligned (numbers)."""
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [max(len(headers[i]), *(len(row[i]) for row in cells)) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        parts = [cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]) for i, cell in enumerate(row)]
        return "  ".join(parts).rstrip()

    print(line(headers))
    print(line(["-" * width for width in widths]))
    for row in cells:
        print(line(row))
    print(flush=True)


# -- inputs -----------------------------------------------------------------------------------------

GROUP = "bench.example.com"
VERSION = "v1"
KIND = "BenchJob"
PLURAL = "benchjobs"
NAMESPACE = "default"
KOPF_LAST_HANDLED = "kopf.zalando.org/last-handled-configuration"
STORY_COMMAND = 'sh -c "echo hi > /tmp/x"'


def crd_manifest() -> dict[str, Any]:
    """The CRD of :func:`custom_resource`: namespaced, a status subresource, open spec and status."""
    open_object = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{PLURAL}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": PLURAL, "singular": KIND.lower(), "kind": KIND, "listKind": f"{KIND}List"},
            "versions": [
                {
                    "name": VERSION,
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {"spec": open_object, "status": open_object},
                        }
                    },
                }
            ],
        },
    }


def _spec(index: int) -> dict[str, Any]:
    return {
        "command": STORY_COMMAND,
        "image": "registry.example.com/aiperf/benchmark:1.4.2",
        "args": ["--model", "llama-3-8b-instruct", "--url", "http://inference.default.svc:8000", "--streaming"],
        "counter": 0,
        "parallelism": 4,
        "backoffLimit": 3,
        "timeoutSeconds": 3600,
        "workload": {
            "concurrency": 64,
            "requestRate": 12.5,
            "warmupRequests": 100,
            "durationSeconds": 600,
            "inputTokens": {"mean": 550, "stddev": 150.0},
            "outputTokens": {"mean": 200, "stddev": 40.5},
            "prompt": "Summarise the report & list the risks <in order>",
        },
        "env": [
            {"name": "AIPERF_LOG_LEVEL", "value": "info"},
            {"name": "AIPERF_RESULTS_DIR", "value": "/results"},
            {"name": "HF_HOME", "value": "/cache/huggingface"},
            {"name": "JOB_INDEX", "value": str(index)},
            {"name": "NCCL_DEBUG", "value": "WARN"},
            {"name": "PYTHONUNBUFFERED", "value": "1"},
        ],
        "resources": {
            "limits": {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": 1},
            "requests": {"cpu": "2", "memory": "4Gi"},
        },
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "nodeSelector": {"node.kubernetes.io/instance-type": "g5.2xlarge"},
        "owner": "Émile Zoë",
    }


def custom_resource(index: int = 0, *, stored: bool = True) -> dict[str, Any]:
    """A realistic ~4 KB custom resource, as kopf-managed objects look on a cluster.

    Its spec holds the seed operator's ``sh -c "echo hi > /tmp/x"``; kopf's last-handled-configuration
    annotation holds ``json.dumps`` of that spec, so the stored (Go) spelling of the annotation
    differs from the one a Python client sends. ``stored=False`` leaves out what the server sets
    (uid, resourceVersion, generation, creationTimestamp, managedFields).
    """
    name = f"job-{index:05d}"
    spec = _spec(index)
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": NAMESPACE,
        "labels": {
            "app.kubernetes.io/name": "aiperf",
            "app.kubernetes.io/instance": name,
            "app.kubernetes.io/managed-by": "aiperf-operator",
            "aiperf.example.com/tier": "gpu",
        },
        "annotations": {
            KOPF_LAST_HANDLED: json.dumps({"spec": spec}),
            "kopf.zalando.org/touch-dummy": "2025-01-15T10:20:30.123456",
            "aiperf.example.com/submitted-by": "ci-pipeline #4812",
        },
        "finalizers": ["kopf.zalando.org/KopfFinalizerMarker"],
    }
    if stored:
        metadata.update(
            uid=f"6f1c2a3b-4d5e-4f60-8a7b-{index:012x}",
            resourceVersion=str(481516 + index),
            generation=3,
            creationTimestamp="2025-01-15T10:20:00Z",
            managedFields=[
                {
                    "apiVersion": f"{GROUP}/{VERSION}",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:metadata": {"f:labels": {".": {}, "f:app.kubernetes.io/name": {}}},
                        "f:spec": {".": {}, "f:command": {}, "f:image": {}, "f:workload": {}},
                    },
                    "manager": "kubectl-client-side-apply",
                    "operation": "Update",
                    "time": "2025-01-15T10:20:00Z",
                },
                {
                    "apiVersion": f"{GROUP}/{VERSION}",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:metadata": {"f:annotations": {f"f:{KOPF_LAST_HANDLED}": {}}}},
                    "manager": "kopf",
                    "operation": "Update",
                    "time": "2025-01-15T10:20:05Z",
                },
            ],
        )
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": KIND,
        "metadata": metadata,
        "spec": spec,
        "status": {
            "phase": "Running",
            "startedAt": "2025-01-15T10:20:07Z",
            "progress": 0.625,
            "throughput": 1234.5,
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "PodsRunning",
                    "message": "4/4 pods running & ready",
                    "lastTransitionTime": "2025-01-15T10:20:07Z",
                },
                {
                    "type": "Progressing",
                    "status": "True",
                    "reason": "Benchmarking",
                    "message": "request rate < target (12.5/s)",
                    "lastTransitionTime": "2025-01-15T10:21:07Z",
                },
            ],
            "kopf": {"progress": {"create_fn": {"started": "2025-01-15T10:20:05Z", "retries": 0, "success": True}}},
        },
    }


# -- server processes -------------------------------------------------------------------------------


class ServerProcess:
    """A server in a child process, started by a command and ready when it prints its URL on stdout.

    The benchmark's own client work then competes with the server only for CPU, not for one event
    loop. ``stop`` sends SIGTERM and waits. The child's stderr goes to a temporary file (a pipe nobody
    reads could block it); if the child dies early, its exit code and the end of that file are shown.
    """

    def __init__(
        self, command: Sequence[str], ready: str, *, timeout: float = 120.0, env: dict[str, str] | None = None
    ):
        self.command = list(command)
        self._ready = re.compile(ready)
        self._timeout = timeout
        self._env = env
        self.process: subprocess.Popen[str] | None = None
        self.url = ""
        self.output: list[str] = []  # what the child printed before its ready line
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: IO[str] | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self) -> ServerProcess:
        env = {**os.environ, **(self._env or {})}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            self.command, stdout=subprocess.PIPE, stderr=self._stderr, text=True, cwd=REPO, env=env
        )
        assert self.process.stdout is not None
        threading.Thread(target=self._pump, args=(self.process.stdout,), daemon=True).start()
        deadline = time.monotonic() + self._timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.stop()
                raise RuntimeError(f"{self.name} printed no ready line within {self._timeout:.0f} s") from None
            if line is None:
                self.process.wait()
                raise RuntimeError(f"{self.name} exited before it was ready:\n{self.stderr_tail()}")
            match = self._ready.search(line)
            if match:
                self.url = match.group(1)
                return self
            self.output.append(line.rstrip("\n"))

    @property
    def name(self) -> str:
        return " ".join(self.command[1:5])

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def stderr_tail(self, limit: int = 4000) -> str:
        if self._stderr is None:
            return ""
        self._stderr.flush()
        self._stderr.seek(0)
        return self._stderr.read()[-limit:]

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is not None:
            print(
                f"warning: {self.name} had exited by itself (code {self.process.returncode}); its stderr ends:\n"
                f"{self.stderr_tail()}",
                file=sys.stderr,
            )
        else:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self.process = None

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class ApiConnection:
    """One keep-alive HTTP/1.1 connection to a server; every answer is read whole, anything but a 2xx
    raises, and a JSON answer is returned decoded ({} for an empty one)."""

    def __init__(self, url: str, timeout: float = 600) -> None:
        parts = urlsplit(url)
        self._connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)

    def request(self, method: str, path: str, body: bytes | None = None, content_type: str = "") -> Any:
        headers = {"Content-Type": content_type} if content_type else {}
        self._connection.request(method, path, body=body, headers=headers)
        response = self._connection.getresponse()
        data = response.read()
        if response.status // 100 != 2:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:300]!r}")
        return json.loads(data) if data else {}

    def send(self, method: str, path: str, document: Any, content_type: str = "application/json") -> Any:
        """``document`` as JSON."""
        return self.request(method, path, json.dumps(document).encode(), content_type)

    def wait_served(self, path: str, timeout: float) -> None:
        """Until a GET of ``path`` succeeds (a new CRD's resource is served a moment after its creation)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.request("GET", path)
                return
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def close(self) -> None:
        self._connection.close()


def fakeapi_command(*extra: str) -> list[str]:
    return [sys.executable, "-m", "fakeapi", "serve", "--port", "0", *extra]


FAKEAPI_READY = r"fakeapi serving on (http://\S+)"


@contextlib.contextmanager
def fakeapi_server(*extra: str) -> Iterator[ServerProcess]:
    with ServerProcess(fakeapi_command(*extra), FAKEAPI_READY) as server:
        yield server


def memory_of(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` (peak RSS) of a process, in bytes, from /proc."""
    found: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) * 1024
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (from /proc, so only on Linux; else NaN)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return math.nan
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- setting up a server over HTTP ------------------------------------------------------------------

JSON_PATCH = "application/json-patch+json"


def collection_path(namespace: str = NAMESPACE) -> str:
    return f"/apis/{GROUP}/{VERSION}/namespaces/{namespace}/{PLURAL}"


async def install_crd(
    session: aiohttp.ClientSession, base_url: str, *, wait: bool = True, timeout: float = 30.0
) -> None:
    """Create the benchmark CRD and (``wait``) wait until its collection answers 200."""
    async with session.post(
        f"{base_url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd_manifest()
    ) as response:
        if response.status not in (200, 201, 409):
            raise RuntimeError(f"creating the CRD: {response.status} {await response.text()}")
    if not wait:
        return
    deadline = time.monotonic() + timeout
    while True:
        async with session.get(base_url + collection_path()) as response:
            if response.status == 200:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the CRD's collection still answers {response.status} after {timeout:.0f} s")
        await asyncio.sleep(0.1)


async def create_objects(
    session: aiohttp.ClientSession, base_url: str, count: int, *, with_uid: bool = False
) -> list[tuple[str, str]]:
    """Create ``count`` custom resources; returns each one's URL path and uid (as the server answered)."""
    created = []
    for index in range(count):
        body = custom_resource(index, stored=False)
        if with_uid:  # for servers that assign none (kmock): what the workload's uid test compares with
            body["metadata"]["uid"] = f"6f1c2a3b-4d5e-4f60-8a7b-{index:012x}"
        async with session.post(base_url + collection_path(), json=body) as response:
            if response.status not in (200, 201):
                raise RuntimeError(f"creating {body['metadata']['name']}: {response.status} {await response.text()}")
            answer = await response.json(content_type=None)
        uid = answer.get("metadata", {}).get("uid", "")
        created.append((f"{collection_path()}/{body['metadata']['name']}", uid))
    return created


async def current_revision(session: aiohttp.ClientSession, base_url: str) -> int | None:
    """The list resourceVersion of the benchmark collection; None when the server has no integer one."""
    async with session.get(base_url + collection_path(), params={"limit": "1"}) as response:
        answer = await response.json(content_type=None)
    revision = answer.get("metadata", {}).get("resourceVersion", "")
    return int(revision) if str(revision).isdigit() else None
