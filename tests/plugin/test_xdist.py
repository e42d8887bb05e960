"""Under pytest-xdist each worker has its own server, reset between the tests it runs."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

TESTS = """
import json
import os
import urllib.request

import pytest


@pytest.mark.parametrize("index", range(8))
def test_creates_the_same_object(fakeapi, index, tmp_path_factory):
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "same"}}).encode()
    request = urllib.request.Request(
        fakeapi.url + "/api/v1/namespaces/default/configmaps", data=body, method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        assert response.status == 201
    record = {"worker": os.environ["PYTEST_XDIST_WORKER"], "url": fakeapi.url}
    with open(os.environ["SEEN"], "a") as seen:
        seen.write(json.dumps(record) + "\\n")
"""


def test_a_server_per_worker(
    pytester: pytest.Pytester, ini: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    ini()
    pytester.makepyfile(test_parallel=TESTS)
    seen = pytester.path / "seen.jsonl"
    monkeypatch.setenv("SEEN", str(seen))
    pytester.runpytest_subprocess("-n", "2").assert_outcomes(passed=8)
    records = [json.loads(line) for line in seen.read_text().splitlines()]
    urls_by_worker: dict[str, set[str]] = {}
    for record in records:
        urls_by_worker.setdefault(record["worker"], set()).add(record["url"])
    assert sorted(urls_by_worker) == ["gw0", "gw1"]
    assert all(len(urls) == 1 for urls in urls_by_worker.values())
    assert urls_by_worker["gw0"] != urls_by_worker["gw1"]
