"""``kubectl port-forward`` as the pytest-kind stand-in runs it for dask-kubernetes' suite
(``tools/client_suites/pytest_kind/cluster.py``): ``service/NAME :PORT`` reaches the program that
stands for the pod behind the Service, through the Service's named ``targetPort``, and a pod that is
not Running is refused by kubectl itself (docs/client-suites.md)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from kubernetes import client, config

from fakeapi import FakeAPIServer, Outcome, OutcomeRule
from tests.cli.serving import READ_TIMEOUT, home_env
from tests.clients.local import threaded_server

START = 1_700_000_000.0
PYTHON = sys.executable


def create_web(server: FakeAPIServer, kubeconfig: Path, image: str) -> client.CoreV1Api:
    """A pod ``web`` (container port 8000, named ``http``) and a Service ``web`` (port 80 to ``http``)."""
    api = client.CoreV1Api(config.new_client_from_config(str(kubeconfig)))
    container = {"name": "web", "image": image, "ports": [{"name": "http", "containerPort": 8000}]}
    pod = {"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"containers": [container]}}
    api.create_namespaced_pod("default", {"apiVersion": "v1", "kind": "Pod", **pod})
    service = {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "http"}]}
    api.create_namespaced_service(
        "default", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": service}
    )
    server.advance(0)
    return api


def start_forwarder(kubeconfig: Path, home: Path, *args: str) -> subprocess.Popen[str]:
    environment = home_env(home) | {"KUBECONFIG": str(kubeconfig)}
    command = ["kubectl", "port-forward", *args]
    return subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_service_port_reaches_the_program_behind_its_named_target_port(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello through the stand-in\n")
    listener = socket.create_server(("127.0.0.1", 0))
    local_port = listener.getsockname()[1]
    listener.close()  # the container's program listens there instead
    serve = [PYTHON, "-u", "-m", "http.server", str(local_port), "--bind", "127.0.0.1"]
    rules = [OutcomeRule(Outcome.process(serve, working_dir=tmp_path, ports={8000: local_port}), image="web")]
    with threaded_server(controllers="all", outcomes=rules, clock=lambda: START) as server:
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig")
        api = create_web(server, kubeconfig, "web")
        log = api.read_namespaced_pod_log("web", "default", follow=True, _preload_content=False)
        assert log.readline().startswith(b"Serving HTTP on 127.0.0.1 port ")  # listening from here on
        log.release_conn()

        forwarder = start_forwarder(kubeconfig, tmp_path, "service/web", ":80", "-n", "default")
        try:
            assert forwarder.stdout is not None
            announced = forwarder.stdout.readline()
            assert announced.startswith("Forwarding from 127.0.0.1:") and announced.endswith(" -> 8000\n")
            port = int(announced.split(":")[1].split(" ")[0])
            with socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT) as connection:
                connection.sendall(b"GET /hello.txt HTTP/1.0\r\nHost: web\r\n\r\n")
                received = b""
                while chunk := connection.recv(4096):
                    received += chunk
        finally:
            forwarder.kill()
            forwarder.wait()
        head, _, content = received.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.0 200 OK\r\n")
        assert content == b"hello through the stand-in\n"


def test_a_pod_that_is_not_running_is_refused_as_kubectl_refuses_it(tmp_path: Path) -> None:
    rules = [OutcomeRule(Outcome.pull_failure(), image="web")]
    with threaded_server(controllers="all", outcomes=rules, clock=lambda: START) as server:
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig")
        api = create_web(server, kubeconfig, "web")
        assert api.read_namespaced_pod("web", "default").status.phase == "Pending"
        forwarder = start_forwarder(kubeconfig, tmp_path, "service/web", ":80", "-n", "default")
        out, err = forwarder.communicate(timeout=READ_TIMEOUT)
        assert (forwarder.returncode, out) == (1, "")
        assert err == "error: unable to forward port because pod is not running. Current status=Pending\n"
        forwarder = start_forwarder(kubeconfig, tmp_path, "pod/absent", "8000:8000", "-n", "default")
        out, err = forwarder.communicate(timeout=READ_TIMEOUT)
        assert (forwarder.returncode, out, err) == (1, "", 'Error from server (NotFound): pods "absent" not found\n')
