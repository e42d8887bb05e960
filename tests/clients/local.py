"""What the client tests that run a server in their own process share: the server, and kubectl."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fakeapi import FakeAPIServer
from tests.cli.serving import READ_TIMEOUT, home_env, require_tool

__all__ = ["run_kubectl", "threaded_server"]


@contextmanager
def threaded_server(**options: Any) -> Iterator[FakeAPIServer]:
    """A server on a thread of its own for the test, which must have served without a server error."""
    running = FakeAPIServer(**options).start_in_thread()
    try:
        yield running
    finally:
        running.stop_thread()
    assert running.errors == []


def run_kubectl(kubeconfig: Path, home: Path, *args: str) -> tuple[int, str, str]:
    """The real kubectl with ``kubeconfig`` and a cache and home of the test's own: exit code, stdout, stderr."""
    binary = require_tool("kubectl", "driving the real kubectl")
    done = subprocess.run(
        [binary, "--kubeconfig", str(kubeconfig), "--cache-dir", str(home / "cache"), *args],
        capture_output=True,
        text=True,
        timeout=READ_TIMEOUT,
        env=home_env(home),
    )
    return done.returncode, done.stdout, done.stderr
