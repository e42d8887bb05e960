"""kubectl 1.32 and the ``kubernetes`` Python client against the simulated kubelet's logs, exec and
port-forward (docs/kubelet-endpoints.md)."""

from __future__ import annotations

import signal
import socket
import subprocess
import threading
from pathlib import Path

from kubernetes import client, config
from kubernetes.stream import portforward, stream

from fakeapi import FakeAPIServer, OutcomeRule
from tests.cli.serving import READ_TIMEOUT, Background, home_env, require_tool
from tests.clients.local import run_kubectl, threaded_server

START = 1_700_000_000.0
RULES = [OutcomeRule('succeed after 10s logs ["booting", "ready"]', image="job")]


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def test_kubectl_logs_tail_and_follow(tmp_path: Path) -> None:
    with threaded_server(controllers="all", outcomes=RULES, clock=lambda: START) as server:
        assert kubectl(server, tmp_path, "run", "job", "--image=job", "--restart=Never")[0] == 0
        server.advance(1)
        server.append_log("job", "working")
        assert kubectl(server, tmp_path, "logs", "job") == (0, "booting\nready\nworking\n", "")
        assert kubectl(server, tmp_path, "logs", "job", "--tail=1") == (0, "working\n", "")
        stamped = kubectl(server, tmp_path, "logs", "job", "--timestamps", "--since-time=2023-11-14T22:13:21Z")
        assert stamped == (0, "2023-11-14T22:13:21Z working\n", "")
        binary = require_tool("kubectl", "driving the real kubectl")
        follow = subprocess.Popen(
            [binary, "--kubeconfig", str(tmp_path / "kubeconfig"), "logs", "-f", "job"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=home_env(tmp_path),
        )
        try:
            assert follow.stdout is not None
            assert [follow.stdout.readline() for _ in range(3)] == ["booting\n", "ready\n", "working\n"]
            server.append_log("job", "finishing")
            assert follow.stdout.readline() == "finishing\n"
            server.advance(9)  # the container exits: the stream ends, and kubectl with it
            out, err = follow.communicate(timeout=READ_TIMEOUT)
        finally:
            follow.kill()
        assert (follow.returncode, out, err) == (0, "", "")
        code, _, err = kubectl(server, tmp_path, "logs", "job", "--previous")
        assert (code, err) == (
            1,
            'Error from server (BadRequest): previous terminated container "job" in pod "job" not found\n',
        )


def test_kubectl_exec_speaks_websocket_v5_and_shows_the_exit_code(tmp_path: Path) -> None:
    with threaded_server(controllers="all", clock=lambda: START) as server:
        assert kubectl(server, tmp_path, "run", "web", "--image=nginx")[0] == 0
        server.advance(0)
        server.script_exec("web", ["cat", "/etc/hostname"], stdout="web\n")
        server.script_exec("web", ["sh", "-c", "exit 3"], exit_code=3, stderr="failing\n")
        assert kubectl(server, tmp_path, "exec", "web", "--", "cat", "/etc/hostname") == (0, "web\n", "")
        code, out, err = kubectl(server, tmp_path, "exec", "web", "-v=6", "--", "sh", "-c", "exit 3")
        assert (code, out) == (3, "")
        assert "101 Switching Protocols" in err
        assert "The subprotocol is v5.channel.k8s.io" in err
        assert err.endswith("failing\ncommand terminated with exit code 3\n")
        assert kubectl(server, tmp_path, "exec", "web", "--", "ls") == (
            127,
            "",
            "fakeapi: no exec script for 'ls' in container web of pod default/web\n"
            "command terminated with exit code 127\n",
        )


def test_kubectl_port_forward_reaches_the_address_a_test_named(tmp_path: Path) -> None:
    """kubectl 1.32 tunnels SPDY through a WebSocket for port-forward (tests/clients/test_kubectl_port_forward.py
    has both paths against ``fakeapi serve``)."""
    with threaded_server(controllers="all", clock=lambda: START) as server:
        assert kubectl(server, tmp_path, "run", "web", "--image=nginx")[0] == 0
        server.advance(0)
        listener = socket.create_server(("127.0.0.1", 0))
        server.forward_port("web", 80, f"127.0.0.1:{listener.getsockname()[1]}")
        binary = require_tool("kubectl", "driving the real kubectl")
        argv = [binary, "--kubeconfig", str(tmp_path / "kubeconfig"), "port-forward", "pod/web", ":80"]
        forward = Background(argv, env=home_env(tmp_path))
        listener.settimeout(READ_TIMEOUT)
        with listener, forward:
            line = forward.next_line() or ""
            assert line.startswith("Forwarding from 127.0.0.1:") and line.endswith(" -> 80"), forward.stderr_text()
            local = int(line.split(":")[1].split()[0])
            with socket.create_connection(("127.0.0.1", local), timeout=READ_TIMEOUT) as connection:
                connection.sendall(b"ping")
                accepted, _ = listener.accept()
                with accepted:
                    assert accepted.recv(4) == b"ping"
                    accepted.sendall(b"pong")
                assert connection.recv(4) == b"pong"
            assert forward.stop(signal.SIGINT) == 0


def test_python_client_exec_and_port_forward(tmp_path: Path) -> None:
    with threaded_server(controllers="all", clock=lambda: START) as server:
        api = client.CoreV1Api(config.new_client_from_config(str(server.kubeconfig(tmp_path / "kubeconfig"))))
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
        body["spec"] = {"containers": [{"name": "main", "image": "web"}]}
        api.create_namespaced_pod("default", body)
        server.advance(0)
        server.script_exec("p", ["hostname"], stdout="p\n")
        server.script_exec("p", ["false"], exit_code=1, stderr="no\n")
        common = {"stderr": True, "stdin": False, "stdout": True, "tty": False}
        assert stream(api.connect_get_namespaced_pod_exec, "p", "default", command=["hostname"], **common) == "p\n"
        failing = stream(
            api.connect_get_namespaced_pod_exec, "p", "default", command=["false"], _preload_content=False, **common
        )
        failing.run_forever(timeout=READ_TIMEOUT)
        assert (failing.returncode, failing.read_stderr()) == (1, "no\n")

        listener = socket.create_server(("127.0.0.1", 0))
        server.forward_port("p", 8080, f"127.0.0.1:{listener.getsockname()[1]}")

        def answer() -> None:
            connection, _ = listener.accept()
            with connection:
                connection.sendall(b"echo " + connection.recv(4))

        answering = threading.Thread(target=answer)
        answering.start()
        forwarded = portforward(api.connect_get_namespaced_pod_portforward, "p", "default", ports="8080")
        connection = forwarded.socket(8080)
        connection.setblocking(True)
        connection.sendall(b"ping")
        received = b""
        while chunk := connection.recv(64):
            received += chunk
        answering.join(READ_TIMEOUT)
        listener.close()
        assert received == b"echo ping"
        assert forwarded.error(8080) is None
