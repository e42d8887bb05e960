"""Bytes per second and connection round trips through the real ``kubectl port-forward`` and ``fakeapi serve``.

kubectl 1.32 forwards a local port over SPDY/3.1, tunnelled in a WebSocket by default and plain with
``KUBECTL_PORT_FORWARD_WEBSOCKETS=false`` (docs/kubelet-endpoints.md). This script starts
``python -m fakeapi serve --controllers all`` with a pod whose container a sleeping local process
backs and whose port 7 stands for an echo server in this script (docs/process-containers.md), runs
``kubectl port-forward pod/echo 0:7`` once per path, and measures through the local port:

- echo throughput: ``--megabytes`` MiB written on one connection while the echo comes back on the
  same one, the time from the first byte sent to the last byte received; MiB/s counts one direction;
- connection round trip: a new local connection, one byte, its echo (two SPDY streams opened and
  replied to, a dial of the echo server, the copy), then close;
- the server's CPU time per MiB it carries (each direction counted).

Every echo is checked byte for byte. Goals, for an otherwise idle 2-core machine: at least 10 MiB/s
each way, a connection round trip under 50 ms at p99. Run: ``python benchmarks/port_forward_throughput.py
[--megabytes 32 --repeats 5 --connections 50]`` (about half a minute; needs kubectl on PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _common import (
    FAKEAPI_READY,
    ServerProcess,
    Stats,
    cpu_seconds,
    fakeapi_command,
    print_footer,
    print_header,
    print_table,
    seconds,
    verdict,
)

GOAL_MIB_PER_SECOND = 10.0
GOAL_ROUND_TRIP_P99 = 0.050
CHUNK = 64 * 1024


def _echo(connection: socket.socket) -> None:
    with connection:
        while data := connection.recv(CHUNK):
            connection.sendall(data)


def echo_server() -> socket.socket:
    listener = socket.create_server(("127.0.0.1", 0))

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=_echo, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return listener


def echo_through(port: int, payload: bytes) -> float:
    """Seconds from the first byte sent to the last byte of its echo; the echo is checked."""
    with socket.create_connection(("127.0.0.1", port)) as connection:
        received = bytearray()

        def send() -> None:
            connection.sendall(payload)

        started = time.perf_counter()
        sender = threading.Thread(target=send)
        sender.start()
        while len(received) < len(payload):
            chunk = connection.recv(CHUNK)
            if not chunk:
                break
            received += chunk
        elapsed = time.perf_counter() - started
        sender.join()
    if bytes(received) != payload:
        raise RuntimeError(f"the echo differs: {len(received)} bytes back of {len(payload)}")
    return elapsed


def round_trip(port: int) -> float:
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.sendall(b"x")
        if connection.recv(1) != b"x":
            raise RuntimeError("no echo")
    return time.perf_counter() - started


def kubectl(kubectl_path: str, kubeconfig: Path, home: Path, *args: str) -> str:
    env = {**os.environ, "HOME": str(home)}
    done = subprocess.run(
        [kubectl_path, "--kubeconfig", str(kubeconfig), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def measure_path(
    kubectl_path: str, kubeconfig: Path, home: Path, websockets: str, server_pid: int, args: argparse.Namespace
) -> list[object]:
    env = {**os.environ, "HOME": str(home), "KUBECTL_PORT_FORWARD_WEBSOCKETS": websockets}
    forward = subprocess.Popen(
        [kubectl_path, "--kubeconfig", str(kubeconfig), "port-forward", "pod/echo", "0:7"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert forward.stdout is not None
        line = forward.stdout.readline()  # "Forwarding from 127.0.0.1:<port> -> 7": the port is ready
        port = int(line.split("127.0.0.1:")[1].split()[0])
        threading.Thread(target=lambda: [None for _ in forward.stdout or ()], daemon=True).start()
        payload = bytes(range(256)) * (args.megabytes * 4096)
        echo_through(port, payload[: 1 << 20])  # warm-up
        for _ in range(5):
            round_trip(port)
        cpu_before = cpu_seconds(server_pid)
        times = [echo_through(port, payload) for _ in range(args.repeats)]
        cpu_per_mib = (cpu_seconds(server_pid) - cpu_before) / (args.repeats * args.megabytes * 2)
        trips = Stats.of([round_trip(port) for _ in range(args.connections)])
    finally:
        forward.terminate()
        forward.wait()
    rate = args.megabytes / Stats.of(times).median
    return [
        "websocket tunnel" if websockets == "true" else "plain SPDY",
        f"{rate:.1f} MiB/s",
        verdict(rate >= GOAL_MIB_PER_SECOND),
        seconds(trips.median),
        seconds(trips.p99),
        verdict(trips.p99 <= GOAL_ROUND_TRIP_P99),
        seconds(cpu_per_mib),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=32, help="MiB echoed per measurement")
    parser.add_argument("--repeats", type=int, default=5, help="echo measurements per path")
    parser.add_argument("--connections", type=int, default=50, help="connection round trips per path")
    args = parser.parse_args()
    kubectl_path = shutil.which("kubectl")
    if kubectl_path is None:
        sys.exit("kubectl is not on PATH")
    print_header("kubectl port-forward through fakeapi serve", args)
    listener = echo_server()
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        kubeconfig = home / "kubeconfig"
        process = {"command": [sys.executable, "-c", "import time; time.sleep(3600)"]}
        process["ports"] = {"7": listener.getsockname()[1]}
        command = fakeapi_command("--controllers", "all", "--kubeconfig", str(kubeconfig))
        command += ["--outcome", f"echo=process {json.dumps(process)}"]
        with ServerProcess(command, FAKEAPI_READY) as server:
            kubectl(kubectl_path, kubeconfig, home, "run", "echo", "--image=echo")
            kubectl(kubectl_path, kubeconfig, home, "wait", "--for=condition=Ready", "pod/echo", "--timeout=60s")
            rows = [
                measure_path(kubectl_path, kubeconfig, home, websockets, server.pid, args)
                for websockets in ("true", "false")
            ]
    listener.close()
    print_table(
        ["path", "echo (each way)", "goal >= 10", "round trip p50", "p99", "goal <= 50 ms", "server CPU per MiB"],
        rows,
        right=(1, 3, 4, 6),
    )
    print_footer()


if __name__ == "__main__":
    main()
