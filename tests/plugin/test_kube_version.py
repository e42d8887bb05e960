"""The fixture's Kubernetes release: the ``fakeapi_kube_version`` ini, ``fakeapi_server_options`` and
``@pytest.mark.fakeapi(kube_version=...)``, each test reset on the server of its release."""

from __future__ import annotations

from collections.abc import Callable

import pytest

RELEASE_TESTS = """
import json
import urllib.request

import pytest

def version(fakeapi):
    with urllib.request.urlopen(fakeapi.url + "/version") as response:
        return json.loads(response.read())["gitVersion"]

CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}}

def test_the_session_release(fakeapi):
    assert version(fakeapi) == "v1.33.0"
    assert fakeapi.server.kube_version == "1.33"

@pytest.mark.fakeapi(kube_version="1.34", objects=[CLASS])
def test_a_marked_release(fakeapi):
    assert version(fakeapi) == "v1.34.0"
    assert fakeapi.get("resource.k8s.io/v1", "DeviceClass", "gpu")["metadata"]["generation"] == 1

@pytest.mark.fakeapi(kube_version="1.34")
def test_the_marked_release_again_starts_new(fakeapi):
    assert fakeapi.find("resource.k8s.io/v1", "DeviceClass", "gpu") is None

def test_back_on_the_session_release(fakeapi):
    assert version(fakeapi) == "v1.33.0"

@pytest.mark.fakeapi(kube_version="1.31")
def test_a_release_fakeapi_is_not(fakeapi):
    pass
"""


def test_ini_and_marker_choose_the_release(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    ini(fakeapi_kube_version="1.33")
    pytester.makepyfile(test_releases=RELEASE_TESTS)

    result = pytester.runpytest()

    result.assert_outcomes(passed=4, errors=1)
    result.stdout.fnmatch_lines(
        ["*@pytest.mark.fakeapi(kube_version=...): unknown Kubernetes version '1.31': fakeapi serves 1.32, 1.33, 1.34"]
    )


def test_server_options_win_over_the_ini(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    ini(fakeapi_kube_version="1.33")
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture(scope="session")
        def fakeapi_server_options():
            return {"kube_version": "1.34"}
        """
    )
    pytester.makepyfile(
        test_options="""
        def test_release(fakeapi):
            assert fakeapi.server.kube_version == "1.34"
        """
    )

    pytester.runpytest().assert_outcomes(passed=1)
