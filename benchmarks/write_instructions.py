"""Instructions the server executes per 4 KB JSON-patch write, against a bare aiohttp app: a figure load does not move.

CPU time per write (``server_throughput.py``) moves by 20 % or more between runs of the same code on a
shared machine, more than most changes to the write path. Instructions do not: this script runs
``fakeapi serve`` and the bare aiohttp app of ``server_throughput.py`` (the same canned answer sizes)
under valgrind's callgrind, sends each the same sequence of requests over one keep-alive connection
from this process, and reads the server's instruction counter (all its threads) with
``callgrind_control`` just before and just after the measured requests, so start-up and set-up are left
out. It prints instructions per write for both, and their ratio: the figure to compare versions of the
write path by, and the one that catches a regression on any machine (it asserts nothing).

Instructions are not time: a cache miss costs more than an add. Against the same floor in the same run,
they still say where the server's work grew or shrank; ``server_throughput.py`` says what it costs.

Needs valgrind (``apt-get install valgrind``). ``PYTHONHASHSEED`` is fixed for the servers, so two runs of
one version count the same within a fraction of a percent.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _common import (
    FAKEAPI_READY,
    JSON_PATCH,
    ApiConnection,
    ServerProcess,
    collection_path,
    crd_manifest,
    custom_resource,
    fakeapi_command,
    print_footer,
    print_header,
    print_table,
)

BASELINE_READY = r"baseline serving on (http://\S+)"
_THREAD_TOTAL = re.compile(r"^\s*Th\s+\d+\s+([\d,]+)\s*$", re.MULTILINE)


def under_callgrind(command: list[str]) -> list[str]:
    return ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command]


def instructions(pid: int) -> int:
    """The process's instructions so far, all threads (``callgrind_control -e Ir``)."""
    shown = subprocess.run(
        ["callgrind_control", "-e", "Ir", str(pid)], capture_output=True, text=True, check=True
    ).stdout
    counts = _THREAD_TOTAL.findall(shown)
    if not counts:
        raise RuntimeError(f"callgrind_control showed no counter for {pid}:\n{shown}")
    return sum(int(count.replace(",", "")) for count in counts)


def prepare(connection: ApiConnection) -> tuple[str, str]:
    """The benchmark CRD and one custom resource; its path and uid."""
    connection.send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd_manifest())
    connection.wait_served(collection_path(), timeout=600)
    body = custom_resource(0, stored=False)
    created = connection.send("POST", collection_path(), body)
    return f"{collection_path()}/{body['metadata']['name']}", created.get("metadata", {}).get("uid", "")


def patch_body(uid: str, counter: int) -> bytes:
    return json.dumps(
        [
            {"op": "test", "path": "/metadata/uid", "value": uid},
            {"op": "replace", "path": "/spec/counter", "value": counter},
        ]
    ).encode()


def measure(server: ServerProcess, *, warmup: int, writes: int) -> float:
    connection = ApiConnection(server.url)
    try:
        path, uid = prepare(connection)
        for counter in range(warmup):
            connection.request("PATCH", path, patch_body(uid, counter), JSON_PATCH)
        before = instructions(server.pid)
        for counter in range(warmup, warmup + writes):
            connection.request("PATCH", path, patch_body(uid, counter), JSON_PATCH)
        after = instructions(server.pid)
    finally:
        connection.close()
    # Two callgrind_control calls fall inside the window; each costs the server nothing it counts
    # beyond waking up, the same for both servers.
    return (after - before) / writes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--writes", type=int, default=300, help="measured writes per server (default: %(default)s)")
    parser.add_argument("--warmup", type=int, default=50, help="unmeasured writes first (default: %(default)s)")
    parser.add_argument(
        "--no-baseline", action="store_true", help="measure fakeapi serve only (to compare versions of it)"
    )
    args = parser.parse_args()
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed (apt-get install valgrind)", file=sys.stderr)
            return 2
    print_header("Instructions per 4 KB JSON-patch write: fakeapi serve against a bare aiohttp app", args)
    env = {"PYTHONHASHSEED": "0"}
    baseline_command = [sys.executable, str(Path(__file__).with_name("server_throughput.py")), "--serve-baseline"]
    rows = []
    figures = {}
    servers = [("fakeapi serve", fakeapi_command(), FAKEAPI_READY)]
    if not args.no_baseline:
        servers.append(("bare aiohttp", baseline_command, BASELINE_READY))
    for name, command, ready in servers:
        started = time.monotonic()
        with ServerProcess(under_callgrind(command), ready, timeout=600, env=env) as server:
            figures[name] = measure(server, warmup=args.warmup, writes=args.writes)
        rows.append([name, f"{figures[name]:,.0f}", f"{time.monotonic() - started:.0f} s"])
    print_table(["server", "instructions per write", "run under callgrind"], rows, right=(1, 2))
    if args.no_baseline:
        print_footer()
        return 0
    print(
        f"ratio: fakeapi serve executes {figures['fakeapi serve'] / figures['bare aiohttp']:.2f}x the bare app's instructions per write"
    )
    print_footer()
    return 0


if __name__ == "__main__":
    sys.exit(main())
