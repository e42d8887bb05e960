"""``KindCluster`` as pytest-kind names it, backed by a ``fakeapi serve`` process.

The server runs with ``--tls --controllers all`` and the flags in ``FAKEAPI_SERVE_FLAGS`` (split
on spaces), writes its kubeconfig where ``kubeconfig_path`` says (where pytest-kind writes kind's,
``.pytest-kind/NAME/kubeconfig`` under the working directory, unless ``kubeconfig`` names a file;
a suite's CI may point ``KUBECONFIG`` there before the session starts), its log beside it, and
stops on ``delete()``.
``load_docker_image`` loads nothing: fakeapi runs no image, and what a container does comes from
the server's outcome rules (a process rule names a local program). ``port_forward`` runs
``kubectl port-forward`` as pytest-kind does.
"""

from __future__ import annotations

import os
import random
import shlex
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["KindCluster"]


class KindCluster:
    def __init__(
        self, name: str = "pytest-kind", kubeconfig: Path | None = None, image: str | None = None, **_: object
    ) -> None:
        self.name = name
        self.image = image
        self.path = (Path(".pytest-kind") / name).resolve()
        self.path.mkdir(parents=True, exist_ok=True)
        self.kubeconfig_path = Path(kubeconfig) if kubeconfig is not None else self.path / "kubeconfig"
        self.kubectl_path = shutil.which("kubectl") or "kubectl"
        self.process: subprocess.Popen[str] | None = None

    def create(self, *_: object, **__: object) -> None:
        flags = shlex.split(os.environ.get("FAKEAPI_SERVE_FLAGS", ""))
        command = [sys.executable, "-m", "fakeapi", "serve", "--port", "0", "--tls", "--controllers", "all"]
        command += ["--kubeconfig", str(self.kubeconfig_path), *flags]
        log = (self.path / "server.log").open("w")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if "serving on" in line:
                return
        raise RuntimeError(f"fakeapi serve exited before it was ready; see {self.path / 'server.log'}")

    def kubectl(self, *args: str, **_: object) -> str:
        command = [self.kubectl_path, "--kubeconfig", str(self.kubeconfig_path), *args]
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout

    def load_docker_image(self, docker_image: str) -> None:
        """Nothing to load: no image runs; the outcome rules say what a container of it does."""

    @contextmanager
    def port_forward(
        self, service_or_pod_name: str, remote_port: int, *args: str, local_port: int | None = None, retries: int = 10
    ) -> Iterator[int]:
        """Forward a local port to the pod behind ``service_or_pod_name`` while the block runs.

        This is pytest-kind 22.11.1's ``port_forward``, ``kubectl port-forward`` down to its loop,
        which has no ``break``: it starts kubectl ``retries`` times, each on a new random port after
        stopping the one before, starts again if kubectl exits (it does while the pod is not
        Running), checks that the port accepts a connection, and yields the last port. Where
        pytest-kind sleeps a second for kubectl to listen, this waits for kubectl to say it listens
        (or to exit).
        """
        environment = {**os.environ, "KUBECONFIG": str(self.kubeconfig_path)}
        forwarders: list[subprocess.Popen[str]] = []
        try:
            port = 0
            for attempt in range(retries):
                port = local_port or random.randrange(5000, 30000)
                command = ["kubectl", "port-forward", service_or_pod_name, f"{port}:{remote_port}"]
                forwarder = _start_forwarder([*command, *args], environment, forwarders)
                if forwarder.poll() is not None:
                    if attempt == retries - 1:
                        raise RuntimeError(f"port-forward returned exit code {forwarder.returncode}")
                    continue
                with socket.socket() as probe:
                    try:
                        probe.connect(("127.0.0.1", port))
                    except OSError:
                        if attempt == retries - 1:
                            raise
            yield port
        finally:
            _stop_forwarders(forwarders)

    def delete(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None


def _start_forwarder(
    command: list[str], environment: dict[str, str], forwarders: list[subprocess.Popen[str]]
) -> subprocess.Popen[str]:
    """Stop the forwarder before, start one, and return once it listens or has exited."""
    _stop_forwarders(forwarders)
    forwarder = subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, text=True)
    forwarders.append(forwarder)
    assert forwarder.stdout is not None
    if not forwarder.stdout.readline().startswith("Forwarding from"):
        forwarder.wait()
    return forwarder


def _stop_forwarders(forwarders: list[subprocess.Popen[str]]) -> None:
    while forwarders:
        forwarder = forwarders.pop()
        forwarder.kill()
        forwarder.wait()
