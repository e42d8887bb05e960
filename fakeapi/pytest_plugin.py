"""The pytest plugin: a faithful apiserver per test, registered through the ``pytest11`` entry point.

One server per session (per xdist worker), running in a background thread so sync and async tests
of any event loop scope can use it, and reset before every test, so a test costs only the reset.

Fixtures:

* ``fakeapi``: the running :class:`~fakeapi.server.FakeAPIServer`, empty but for the initial
  namespaces and what the ``fakeapi`` marker preloads; failures inside the server fail the test.
* ``fakeapi_kubeconfig``: the path of a kubeconfig for it, with ``KUBECONFIG`` pointing at it for
  the duration of the test, so code that loads kubeconfig the usual way talks to the fake.
* ``kube_api_client``: a kubernetes_asyncio ``ApiClient`` configured for it (async tests).

Marker: ``@pytest.mark.fakeapi(crds=[...], objects=[...])`` preloads CRDs and objects (dicts, or
paths of YAML/JSON files and folders).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from fakeapi.server import FakeAPIServer

__all__ = ["fakeapi", "fakeapi_kubeconfig", "fakeapi_server", "kube_api_client"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fakeapi(crds=[...], objects=[...]): preload CRDs and objects into the fakeapi server for this test",
    )


@pytest.fixture(scope="session")
def fakeapi_server() -> Iterator[FakeAPIServer]:
    """The session's server (one per xdist worker); tests use ``fakeapi``, which resets it."""
    server = FakeAPIServer(port=0).start_in_thread()
    try:
        yield server
    finally:
        server.stop_thread()


@pytest.fixture
def fakeapi(request: pytest.FixtureRequest, fakeapi_server: FakeAPIServer) -> Iterator[FakeAPIServer]:
    fakeapi_server.reset()
    marker = request.node.get_closest_marker("fakeapi")
    if marker is not None:
        crds = marker.kwargs.get("crds") or []
        objects = marker.kwargs.get("objects") or []
        if crds:
            fakeapi_server.load(*crds)
        if objects:
            fakeapi_server.load(*objects)
    yield fakeapi_server
    errors = list(fakeapi_server.errors)
    if errors:
        pytest.fail("fakeapi failed while serving this test:\n" + "\n".join(errors), pytrace=False)


@pytest.fixture
def fakeapi_kubeconfig(
    fakeapi: FakeAPIServer, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    path = fakeapi.kubeconfig(tmp_path_factory.mktemp("fakeapi") / "kubeconfig")
    monkeypatch.setenv("KUBECONFIG", str(path))
    return path


try:
    import pytest_asyncio
except ImportError:  # pragma: no cover - pytest-asyncio is what async tests need anyway
    pass
else:

    @pytest_asyncio.fixture
    async def kube_api_client(fakeapi_kubeconfig: Path) -> AsyncIterator[Any]:
        from kubernetes_asyncio import config

        client = await config.new_client_from_config(config_file=str(fakeapi_kubeconfig))
        async with client:
            yield client
