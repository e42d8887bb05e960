"""kubectl sees a deleted namespace Terminating, and its create refused, until the simulated
namespace controller has emptied and finalized it (docs/namespace-deletion.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    with threaded_server(controllers="namespace") as running:
        yield running


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def test_delete_without_waiting_then_get_and_create(server: FakeAPIServer, tmp_path: Path) -> None:
    assert kubectl(server, tmp_path, "create", "namespace", "x") == (0, "namespace/x created\n", "")
    assert kubectl(server, tmp_path, "delete", "namespace", "x", "--wait=false") == (0, 'namespace "x" deleted\n', "")

    code, out, _ = kubectl(server, tmp_path, "get", "namespace", "x", "-o", "yaml")
    namespace = yaml.safe_load(out)
    assert code == 0
    assert namespace["metadata"]["deletionTimestamp"] == namespace["metadata"]["creationTimestamp"]
    assert namespace["spec"] == {"finalizers": ["kubernetes"]}
    assert namespace["status"] == {"phase": "Terminating"}
    code, out, _ = kubectl(server, tmp_path, "get", "namespace", "x", "--no-headers")
    assert (code, out.split()[:2]) == (0, ["x", "Terminating"])

    code, out, err = kubectl(server, tmp_path, "create", "configmap", "c", "-n", "x", "--from-literal=k=v")
    assert (code, out) == (1, "")
    assert err == (
        'error: failed to create configmap: configmaps "c" is forbidden: unable to create new content in '
        "namespace x because it is being terminated\n"
    )

    server.advance(0)

    code, out, err = kubectl(server, tmp_path, "get", "namespace", "x")
    assert (code, out, err) == (1, "", 'Error from server (NotFound): namespaces "x" not found\n')
