"""``fakeapi serve --kube-version``: documented in --help, a usage error for a release fakeapi is not,
and the release the running server reports."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.cli.serving import READ_TIMEOUT, ServeProcess
from tests.cli.test_serve import run_cli


def test_help_documents_the_kube_version_and_its_choices() -> None:
    result = run_cli("serve", "--help")

    text = " ".join(result.stdout.split())
    assert result.returncode == 0
    assert "--kube-version VERSION" in text
    assert "1.32, 1.33, 1.34 (default: 1.32)" in text


@pytest.mark.parametrize("version", ["1.31", "1.35"])
def test_a_release_fakeapi_is_not_is_a_usage_error(version: str) -> None:
    result = run_cli("serve", "--kube-version", version)

    assert result.returncode == 2
    assert result.stdout == ""
    assert (
        f"fakeapi serve: error: argument --kube-version: unknown Kubernetes version '{version}': "
        "fakeapi serves 1.32, 1.33, 1.34"
    ) in result.stderr


def test_the_server_reports_the_release_it_was_started_as() -> None:
    with (
        ServeProcess("--port", "0", "--kube-version", "1.34") as served,
        urllib.request.urlopen(served.url + "/version", timeout=READ_TIMEOUT) as response,
    ):
        info = json.loads(response.read())

    assert info["gitVersion"] == "v1.34.0"
    assert info["minor"] == "34"
