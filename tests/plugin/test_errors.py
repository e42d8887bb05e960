"""A failure inside the server fails the test that caused it, at teardown, instead of vanishing.

The client only sees a 500; the inner tests plant a bug in a handler to make one, since a faithful
fake has none to offer on purpose.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

TESTS = """
import urllib.error
import urllib.request

import pytest

from fakeapi._http import routing


def planted_bug(*args, **kwargs):
    raise RuntimeError("planted bug")


def read_default_namespace(fakeapi):
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(fakeapi.url + "/api/v1/namespaces/default")
    return answer.value.code


def test_hits_a_server_bug(fakeapi, monkeypatch):
    monkeypatch.setattr(routing, "handle_get", planted_bug)
    assert read_default_namespace(fakeapi) == 500


def test_after_it(fakeapi):
    assert fakeapi.errors == []
    urllib.request.urlopen(fakeapi.url + "/api/v1/namespaces/default").read()


def test_expects_the_bug_and_says_so(fakeapi, monkeypatch):
    monkeypatch.setattr(routing, "handle_get", planted_bug)
    assert read_default_namespace(fakeapi) == 500
    assert len(fakeapi.errors) == 1
    fakeapi.errors.clear()
"""


def test_server_side_errors_fail_the_test_that_caused_them(pytester: pytest.Pytester, ini: Callable[..., None]) -> None:
    ini()
    pytester.makepyfile(test_server_bug=TESTS)
    result = pytester.runpytest()
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_hits_a_server_bug*",
            "*fakeapi failed while serving this test (1 server-side error):",
            "*GET /api/v1/namespaces/default: Traceback (most recent call last):",
            "*RuntimeError: planted bug",
        ],
        consecutive=False,
    )
    assert "ERROR at teardown of test_after_it" not in result.stdout.str()
    assert "ERROR at teardown of test_expects_the_bug_and_says_so" not in result.stdout.str()
