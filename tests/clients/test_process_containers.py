"""kubectl 1.32 and the ``kubernetes`` Python client against containers backed by a local process:
``kubectl logs`` and ``exec``, and an HTTP server reached through a port-forward
(docs/process-containers.md)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

from kubernetes import client, config
from kubernetes.stream import portforward, stream

from fakeapi import FakeAPIServer, Outcome, OutcomeRule
from tests.cli.serving import READ_TIMEOUT
from tests.clients.local import run_kubectl, threaded_server

START = 1_700_000_000.0
PYTHON = sys.executable


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def test_kubectl_logs_and_exec_of_a_process_backed_container(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "data.txt").write_text("in the working directory\n")
    code = "import time\nprint('started')\ntime.sleep(600)"
    rules = [OutcomeRule(Outcome.process([PYTHON, "-u", "-c", code], working_dir=workdir), image="local/app")]
    with threaded_server(controllers="all", outcomes=rules, clock=lambda: START) as server:
        assert kubectl(server, tmp_path, "run", "app", "--image=local/app")[0] == 0
        server.advance(0)
        # ``logs -f`` ends only with the container: its first line is the process's first line.
        code_, out, _ = kubectl(server, tmp_path, "logs", "app", "--limit-bytes=8", "-f")
        assert (code_, out) == (0, "started\n")
        assert kubectl(server, tmp_path, "logs", "app") == (0, "started\n", "")
        assert kubectl(server, tmp_path, "exec", "app", "--", "cat", "data.txt") == (
            0,
            "in the working directory\n",
            "",
        )
        assert kubectl(server, tmp_path, "exec", "app", "--", "pwd") == (0, f"{workdir}\n", "")
        code_, out, err = kubectl(server, tmp_path, "exec", "app", "--", PYTHON, "-c", "import sys; sys.exit(5)")
        assert (code_, out, err) == (5, "", "command terminated with exit code 5\n")


def test_kubectl_sees_the_exit_code_of_a_process_that_ends(tmp_path: Path) -> None:
    code = "import sys\nprint('working')\nprint('failing', file=sys.stderr)\nsys.exit(2)"
    rules = [OutcomeRule(Outcome.process([PYTHON, "-u", "-c", code]), image="local/job")]
    with threaded_server(controllers="all", outcomes=rules, clock=lambda: START) as server:
        assert kubectl(server, tmp_path, "run", "job", "--image=local/job", "--restart=Never")[0] == 0
        server.advance(0)
        waited = kubectl(server, tmp_path, "wait", "--for=jsonpath={.status.phase}=Failed", "pod/job")
        assert waited == (0, "pod/job condition met\n", "")
        jsonpath = "jsonpath={.status.containerStatuses[0].state.terminated.exitCode}"
        assert kubectl(server, tmp_path, "get", "pod", "job", "-o", jsonpath) == (0, "2", "")
        code_, out, _ = kubectl(server, tmp_path, "logs", "job")
        assert (code_, sorted(out.splitlines())) == (0, ["failing", "working"])


def test_python_client_exec_and_a_port_forward_to_an_http_server_run_as_the_container(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello through the port-forward\n")
    listener = socket.create_server(("127.0.0.1", 0))
    local_port = listener.getsockname()[1]
    listener.close()  # the container's program listens there instead
    serve = [PYTHON, "-u", "-m", "http.server", str(local_port), "--bind", "127.0.0.1"]
    rules = [OutcomeRule(Outcome.process(serve, working_dir=tmp_path, ports={8000: local_port}), image="web")]
    with threaded_server(controllers="all", outcomes=rules, clock=lambda: START) as server:
        api = client.CoreV1Api(config.new_client_from_config(str(server.kubeconfig(tmp_path / "kubeconfig"))))
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}}
        body["spec"] = {"containers": [{"name": "web", "image": "web", "ports": [{"containerPort": 8000}]}]}
        api.create_namespaced_pod("default", body)
        server.advance(0)
        log = api.read_namespaced_pod_log("web", "default", follow=True, _preload_content=False)
        assert log.readline().startswith(b"Serving HTTP on 127.0.0.1 port ")  # listening from here on
        log.release_conn()

        common = {"stderr": True, "stdin": False, "stdout": True, "tty": False}
        listed = stream(api.connect_get_namespaced_pod_exec, "web", "default", command=["ls"], **common)
        assert listed == "hello.txt\nkubeconfig\n"

        forwarded = portforward(api.connect_get_namespaced_pod_portforward, "web", "default", ports="8000")
        connection = forwarded.socket(8000)
        connection.setblocking(True)
        connection.settimeout(READ_TIMEOUT)
        connection.sendall(b"GET /hello.txt HTTP/1.0\r\nHost: web\r\n\r\n")
        received = b""
        while chunk := connection.recv(4096):
            received += chunk
        assert forwarded.error(8000) is None
        head, _, content = received.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.0 200 OK\r\n")
        assert content == b"hello through the port-forward\n"
        logged = api.read_namespaced_pod_log("web", "default")
        assert '"GET /hello.txt HTTP/1.0" 200 -' in logged
