"""The plugin is tested the way users meet it: inner pytest runs (pytester) of small test files.

``pytester`` is registered here rather than with ``pytest_plugins``, which pytest refuses in a
conftest below the rootdir. Inner runs load the plugin through its ``pytest11`` entry point, as an
installed fakeapi does in an operator repo; ``ini`` writes their pytest-asyncio settings.

An in-process inner run forgets the modules it imported, so the heavy ones its tests use are
imported here once; and it leaves out hypothesis's plugin, which imports all of hypothesis at
every run's end and has nothing to do with these tests.
"""

from __future__ import annotations

from collections.abc import Callable

import kubernetes_asyncio.client  # noqa: F401 - imported once for all inner runs
import pytest

import fakeapi.server  # noqa: F401 - imported once for all inner runs

CRD_YAML = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.import_plugin("pytester")


@pytest.fixture
def ini(pytester: pytest.Pytester) -> Callable[..., None]:
    """Write the inner run's ini: pytest-asyncio's mode, plus any other ``key = value`` lines."""

    def write(asyncio_mode: str = "strict", **options: str) -> None:
        lines = [
            f"asyncio_mode = {asyncio_mode}",
            "asyncio_default_fixture_loop_scope = function",
            "addopts = -p no:hypothesispytest",
        ]
        lines.extend(f"{key} = {value}" for key, value in options.items())
        pytester.makeini("[pytest]\n" + "\n".join(lines) + "\n")

    return write
