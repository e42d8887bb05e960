"""``KindCluster`` as pytest-kind names it, backed by a ``fakeapi serve`` process.

The server runs with ``--tls --controllers all`` and the flags in ``FAKEAPI_SERVE_FLAGS`` (split
on spaces), writes its kubeconfig where ``kubeconfig_path`` says, and stops on ``delete()``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["KindCluster"]


class KindCluster:
    def __init__(self, name: str = "pytest-kind", image: str | None = None, **_: object) -> None:
        self.name = name
        self.image = image
        self.folder = Path(tempfile.mkdtemp(prefix=f"fakeapi-{name}-"))
        self.kubeconfig_path = self.folder / "kubeconfig"
        self.kubectl_path = shutil.which("kubectl") or "kubectl"
        self.process: subprocess.Popen[str] | None = None

    def create(self, *_: object, **__: object) -> None:
        flags = shlex.split(os.environ.get("FAKEAPI_SERVE_FLAGS", ""))
        command = [sys.executable, "-m", "fakeapi", "serve", "--port", "0", "--tls", "--controllers", "all"]
        command += ["--kubeconfig", str(self.kubeconfig_path), *flags]
        log = (self.folder / "server.log").open("w")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if "serving on" in line:
                return
        raise RuntimeError(f"fakeapi serve exited before it was ready; see {self.folder / 'server.log'}")

    def kubectl(self, *args: str, **_: object) -> str:
        command = [self.kubectl_path, "--kubeconfig", str(self.kubeconfig_path), *args]
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout

    def delete(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None
