"""The plugin's documentation is its module docstring; the example in it runs here as written."""

from __future__ import annotations

import json
import textwrap
import urllib.request

import pytest

import fakeapi.pytest_plugin
from fakeapi.pytest_plugin import FakeAPI
from tests.conftest import crd


def docstring_example() -> str:
    text = fakeapi.pytest_plugin.__doc__ or ""
    _, _, after = text.partition("::\n\n")
    block = []
    for line in after.splitlines():
        if line and not line.startswith("        "):
            break
        block.append(line)
    return textwrap.dedent("\n".join(block))


@pytest.mark.fakeapi(
    crds=[crd("jobs", "Job", status=False)],
    objects=[{"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "job-1"}}],
)
def test_the_journal_example_in_the_docstring(fakeapi: FakeAPI) -> None:
    version = fakeapi.get("example.com/v1", "Job", "job-1")["metadata"]["resourceVersion"]
    claim = [
        {"op": "test", "path": "/metadata/resourceVersion", "value": version},
        {"op": "add", "path": "/status", "value": {"phase": "Done"}},
    ]
    request = urllib.request.Request(
        f"{fakeapi.url}/apis/example.com/v1/namespaces/default/jobs/job-1",
        data=json.dumps(claim).encode(),
        method="PATCH",
        headers={"Content-Type": "application/json-patch+json"},
    )
    urllib.request.urlopen(request).close()

    example = docstring_example()
    assert "fakeapi.requests(" in example
    exec(compile(example, "fakeapi.pytest_plugin docstring", "exec"), {"fakeapi": fakeapi})
