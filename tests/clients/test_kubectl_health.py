"""kubectl reads the health endpoints as it reads a kube-apiserver's (docs/health.md): the verbose
listing, one check alone, and kubectl's own message for a check that does not exist."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAPIServer]:
    with threaded_server(tls=True, token_auth=True, authorization="RBAC") as running:
        yield running


def kubectl(server: FakeAPIServer, home: Path, *args: str) -> tuple[int, str, str]:
    return run_kubectl(server.kubeconfig(home / "kubeconfig"), home, *args)


def test_get_raw_readyz_verbose(server: FakeAPIServer, tmp_path: Path) -> None:
    code, out, err = kubectl(server, tmp_path, "get", "--raw", "/readyz?verbose&exclude=etcd")
    lines = out.splitlines()
    assert (code, err) == (0, "")
    assert lines[:5] == [
        "[+]ping ok",
        "[+]log ok",
        "[+]etcd excluded: ok",
        "[+]etcd-readiness ok",
        "[+]informer-sync ok",
    ]
    assert lines[-2:] == ["[+]shutdown ok", "readyz check passed"]
    assert len(lines) == 35


def test_get_raw_one_check_and_a_missing_one(server: FakeAPIServer, tmp_path: Path) -> None:
    assert kubectl(server, tmp_path, "get", "--raw", "/livez/poststarthook/rbac/bootstrap-roles") == (0, "ok", "")
    code, out, err = kubectl(server, tmp_path, "get", "--raw", "/livez/shutdown")
    assert (code, out) == (1, "")
    assert err == "Error from server (NotFound): the server could not find the requested resource\n"
