"""Generated hostile requests (Hypothesis, derandomized, bounded): the server always answers, in time,
never fails on its own account, and a refused request stores nothing.

A 500 is allowed only as a Status the apiserver answers too (docs/http-limits.md): a resourceVersion
the watch cache cannot parse, a DELETE body that does not decode, a create carrying a
resourceVersion. Anything that reaches fakeapi's own error path is a traceback in
``server.errors`` and fails the example.
"""

from __future__ import annotations

import http.client
import json
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakeapi.server import FakeAPIServer
from tests.conftest import crd

JOBS = "/apis/example.com/v1/namespaces/default/jobs"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
APISERVER_500S = (
    "resourceVersion: Invalid value: ",
    "json: cannot unmarshal ",
    "couldn't get version/kind; json parse error: ",
    "decoded object cannot be converted to DeleteOptions",
    "resourceVersion should not be set on objects to be created",
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=12,
)
names = st.sampled_from(["job-1", "job-2", "x", "", "UPPER", "a" * 70, "bad name", "..", "é"])
metadata = st.fixed_dictionaries(
    {"name": names},
    optional={
        "resourceVersion": st.sampled_from(["", "0", "1", "5", "v1", "²", "-1", "99999999999999999999"]) | json_values,
        "labels": st.dictionaries(st.text(max_size=6), json_values, max_size=2),
        "finalizers": st.lists(st.text(max_size=10), max_size=2) | json_values,
        "generateName": st.text(max_size=6),
    },
)
objects = st.fixed_dictionaries(
    {
        "apiVersion": st.sampled_from(["example.com/v1", "v1", "example.com/v2", ""]),
        "kind": st.sampled_from(["Job", "ConfigMap", "Secret", ""]),
        "metadata": metadata,
    },
    optional={"spec": json_values, "data": json_values},
)
json_patches = st.lists(
    st.fixed_dictionaries(
        {
            "op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "bogus"]),
            "path": st.sampled_from(["/spec", "/spec/a", "/metadata/labels/x", "/metadata/resourceVersion", "", "/-"]),
        },
        optional={"value": json_values, "from": st.sampled_from(["/spec", "/metadata", "/nope"])},
    ),
    max_size=4,
)
yaml_texts = st.sampled_from(
    [
        b"spec: &s {a: *s}",
        b"a: &a [1,2]\nb: [*a, *a, *a]",
        b"~: 1",
        b"? [1]\n: 2",
        b"apiVersion: example.com/v1\nkind: Job\nmetadata: {name: yaml}\nspec: {a: .nan}",
        b"apiVersion: example.com/v1\nkind: Job\nmetadata: {name: yaml}\nspec: {b: !!binary gIGC}",
        b"[" * 50 + b"]" * 50,
        b"\t- broken: [",
    ]
)
bodies = (
    objects.map(lambda value: ("application/json", json.dumps(value).encode()))
    | json_values.map(lambda value: ("application/json", json.dumps(value).encode()))
    | json_patches.map(lambda value: ("application/json-patch+json", json.dumps(value).encode()))
    | json_values.map(lambda value: ("application/merge-patch+json", json.dumps(value).encode()))
    | yaml_texts.map(lambda text: ("application/yaml", text))
    | yaml_texts.map(lambda text: ("application/apply-patch+yaml", text))
    | st.binary(max_size=40).map(lambda raw: ("application/json", raw))
    | st.just(("application/json", b'{"preconditions":[1]}'))
)
queries = st.dictionaries(
    st.sampled_from(
        [
            "resourceVersion",
            "limit",
            "continue",
            "labelSelector",
            "fieldSelector",
            "pretty",
            "fieldManager",
            "dryRun",
            "resourceVersionMatch",
            "fieldValidation",
            "propagationPolicy",
            "gracePeriodSeconds",
            "force",
        ]
    ),
    st.sampled_from(["", "0", "1", "-1", "²", "١٢", "abc", "All", "Strict", "Exact", "a in (b", "true", "x" * 300]),
    max_size=3,
)
requests = st.tuples(
    st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]),
    st.sampled_from([JOBS, f"{JOBS}/job-1", f"{JOBS}/job-1/status", CONFIGMAPS, f"{CONFIGMAPS}/cm", "/api", "/apis/x"]),
    queries,
    bodies | st.none(),
    st.sampled_from([{}, {"Content-Encoding": "gzip"}, {"User-Agent": "curl/8"}, {"Accept": "application/yaml"}]),
)


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAPIServer]:
    running = FakeAPIServer(header_timeout=5.0).start_in_thread()
    running.load(crd())
    running.load({"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "job-1"}, "spec": {"a": 1}})
    try:
        yield running
    finally:
        running.stop_thread()


def _send(server: FakeAPIServer, request: tuple[str, str, dict[str, str], Any, dict[str, str]]) -> tuple[int, bytes]:
    method, path, query, body, headers = request
    connection = http.client.HTTPConnection(server.host, server.port, timeout=20)  # no hang: an answer within 20 s
    try:
        target = path + ("?" + urllib.parse.urlencode(query) if query else "")
        all_headers = dict(headers)
        payload = None
        if body is not None:
            all_headers["Content-Type"], payload = body
        connection.request(method, target, body=payload, headers=all_headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@settings(
    max_examples=400,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(request=requests)
def test_generated_requests_are_answered_and_refused_ones_store_nothing(
    server: FakeAPIServer, request: tuple[str, str, dict[str, str], Any, dict[str, str]]
) -> None:
    before = server.revision
    status, body = _send(server, request)
    assert server.errors == [], "\n".join(server.errors)
    if status >= 400:
        assert server.revision == before, f"a {status} answer changed the store"
    if status >= 500:
        answer = yaml.safe_load(body)  # the Status in the negotiated JSON or YAML
        assert answer["kind"] == "Status" and answer["code"] == status
        assert answer["message"].startswith(APISERVER_500S), answer["message"]
