"""The real ``kubectl port-forward`` (1.32) against ``fakeapi serve``: through the SPDY-in-WebSocket
tunnel it tries first, and through plain SPDY (``KUBECTL_PORT_FORWARD_WEBSOCKETS=false``), to a pod
whose container a local process backs and whose port 7 stands for the test's echo server
(docs/kubelet-endpoints.md, docs/process-containers.md)."""

from __future__ import annotations

import json
import re
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cli.serving import READ_TIMEOUT, Background, ServeProcess, home_env, require_tool
from tests.clients.local import run_kubectl

FORWARDING = re.compile(r"Forwarding from 127\.0\.0\.1:(\d+) -> (\d+)")
PATHS = pytest.mark.parametrize(
    ("websockets", "upgrade"), [("true", "GET"), ("false", "POST")], ids=["websocket-tunnel", "spdy"]
)


def _echo(connection: socket.socket) -> None:
    with connection:
        while data := connection.recv(4096):
            connection.sendall(data)


@contextmanager
def echo_server() -> Iterator[int]:
    """A TCP server that sends back what it receives and closes when its client has sent all."""
    listener = socket.create_server(("127.0.0.1", 0))

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=_echo, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


@contextmanager
def refusing_port() -> Iterator[int]:
    """A local port that refuses connections for as long as it is held (bound, never listening)."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    try:
        yield held.getsockname()[1]
    finally:
        held.close()


@contextmanager
def cluster_with_echo_pod(home: Path, ports: dict[str, int]) -> Iterator[tuple[ServeProcess, Path]]:
    """``fakeapi serve`` running pod ``echo``, its container a sleeping local process whose ports stand
    for ``ports``; on leaving, the server stopped cleanly and said nothing on stderr."""
    kubeconfig = home / "kubeconfig"
    process = {"command": [sys.executable, "-c", "import time; time.sleep(600)"], "ports": ports}
    flags = ("--port", "0", "--controllers", "all", "--kubeconfig", str(kubeconfig))
    with ServeProcess(*flags, "--outcome", f"echo=process {json.dumps(process)}", env=home_env(home)) as server:
        assert run_kubectl(kubeconfig, home, "run", "echo", "--image=echo")[0] == 0
        waited = run_kubectl(
            kubeconfig, home, "wait", "--for=condition=Ready", "pod/echo", f"--timeout={READ_TIMEOUT:.0f}s"
        )
        assert waited == (0, "pod/echo condition met\n", "")
        yield server, kubeconfig
        assert server.stop() == 0
    assert server.stderr_text() == ""


def port_forward(kubeconfig: Path, home: Path, websockets: str, *args: str) -> Background:
    binary = require_tool("kubectl", "driving the real kubectl")
    env = {**home_env(home), "KUBECTL_PORT_FORWARD_WEBSOCKETS": websockets}
    return Background([binary, "--kubeconfig", str(kubeconfig), "port-forward", "pod/echo", *args], env=env)


def forwarded_port(forward: Background, remote: int) -> int:
    """Waits for kubectl's ``Forwarding from 127.0.0.1:<local> -> <remote>``; the local port."""
    line = forward.next_line()
    match = FORWARDING.fullmatch(line or "")
    assert match and int(match.group(2)) == remote, (line, forward.stderr_text())
    return int(match.group(1))


def received_until_closed(connection: socket.socket) -> bytes:
    received = b""
    while chunk := connection.recv(4096):
        received += chunk
    return received


@PATHS
def test_bytes_echo_through_kubectl_port_forward(tmp_path: Path, websockets: str, upgrade: str) -> None:
    with echo_server() as echo, cluster_with_echo_pod(tmp_path, {"7": echo}) as (_, kubeconfig):
        with port_forward(kubeconfig, tmp_path, websockets, "0:7", "-v=6") as forward:
            local = forwarded_port(forward, 7)
            first = socket.create_connection(("127.0.0.1", local), timeout=READ_TIMEOUT)
            second = socket.create_connection(("127.0.0.1", local), timeout=READ_TIMEOUT)
            with first, second:
                second.sendall(b"second connection")
                first.sendall(b"first connection")
                assert first.recv(4096) == b"first connection"
                assert second.recv(4096) == b"second connection"
                first.sendall(b", more")
                first.shutdown(socket.SHUT_WR)  # the echo sees the end, closes, and kubectl closes ours
                assert received_until_closed(first) == b", more"
                second.shutdown(socket.SHUT_WR)
                assert received_until_closed(second) == b""
            assert forward.stop(signal.SIGINT) == 0
        log = forward.stderr_text()
        assert re.search(rf"{upgrade} http://[^ ]+/api/v1/namespaces/default/pods/echo/portforward 101 Switching", log)
        assert "Unhandled Error" not in log


@PATHS
def test_a_port_the_pod_does_not_listen_on(tmp_path: Path, websockets: str, upgrade: str) -> None:
    with refusing_port() as closed, cluster_with_echo_pod(tmp_path, {"9": closed}) as (_, kubeconfig):
        with port_forward(kubeconfig, tmp_path, websockets, "0:9") as forward:
            local = forwarded_port(forward, 9)
            with socket.create_connection(("127.0.0.1", local), timeout=READ_TIMEOUT) as connection:
                assert received_until_closed(connection) == b""
            assert forward.wait() == 1
        # kubectl announces its IPv6 listener (where the machine has one) after the IPv4 one the test
        # connects to at once, so that line may come before or after the connection's.
        rest = forward.rest_of_stdout()
        assert f"Handling connection for {local}" in rest, rest
        assert set(rest) <= {f"Handling connection for {local}", f"Forwarding from [::1]:{local} -> 9"}, rest
        assert len(rest) == len(set(rest)), rest
        logged, last = forward.stderr_text().splitlines()
        assert re.fullmatch(
            r'E\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ portforward\.go:\d+\] "Unhandled Error" '
            rf'err="an error occurred forwarding {local} -> 9: error forwarding port 9 to pod [0-9a-f]{{64}}, '
            r'uid : dial tcp4 127\.0\.0\.1:9: connect: connection refused"',
            logged,
        ), logged
        assert last == "error: lost connection to pod"
