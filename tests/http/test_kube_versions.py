"""One server is one Kubernetes release: its Go structs decode bodies, its discovery lists what that
release's kube-apiserver serves by default, and ``/version`` names it (docs/kinds.md)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import threaded_server

STOP_SIGNAL_POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web"},
    "spec": {"containers": [{"name": "web", "image": "nginx", "lifecycle": {"stopSignal": "SIGUSR1"}}]},
}
CLAIM: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaim",
    "metadata": {"name": "gpu"},
    "spec": {"devices": {"requests": [{"name": "one", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
}
AGGREGATED_V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"


@pytest.fixture(scope="module", params=["1.32", "1.33", "1.34"])
def server(request: pytest.FixtureRequest) -> Iterator[FakeAPIServer]:
    with threaded_server(kube_version=request.param) as running:
        yield running


def call(
    server: FakeAPIServer, method: str, path: str, body: Any = None, accept: str = "application/json"
) -> tuple[int, dict[str, str], Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        server.url + path, data=data, method=method, headers={"Content-Type": "application/json", "Accept": accept}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            raw = response.read()
            return response.status, dict(response.headers), json.loads(raw) if raw.startswith(b"{") else raw
    except urllib.error.HTTPError as error:
        raw = error.read()
        return error.code, dict(error.headers), json.loads(raw) if raw.startswith(b"{") else raw


# What the released kube-apiserver binaries of each .0 tag answer (docs/discovery.md says where seen).
RELEASED_BINARIES = {
    "32": ("70d3cc986aa8221cd1dfb1121852688902d3bf53", "2024-12-11T17:59:15Z", "go1.23.3"),
    "33": ("60a317eadfcb839692a68eab88b2096f4d708f4f", "2025-04-23T13:00:14Z", "go1.24.2"),
    "34": ("f28b4c9efbca5c5c0af716d9f2d5702667ee8a45", "2025-08-27T10:09:04Z", "go1.24.6"),
}


def test_version_names_the_release(server: FakeAPIServer) -> None:
    status, _, info = call(server, "GET", "/version")

    minor = server.kube_version.split(".")[1]
    commit, built, go = RELEASED_BINARIES[minor]
    emulation = (
        ["emulationMajor", "emulationMinor", "minCompatibilityMajor", "minCompatibilityMinor"] if minor != "32" else []
    )
    assert status == 200
    trailing = ["gitVersion", "gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"]
    assert list(info) == ["major", "minor", *emulation, *trailing]
    assert (info["major"], info["minor"]) == ("1", minor)
    assert (info["gitVersion"], info["gitCommit"], info["buildDate"], info["goVersion"]) == (
        f"v1.{minor}.0",
        commit,
        built,
        go,
    )
    if emulation:
        assert [info[key] for key in emulation] == ["1", minor, "1", str(int(minor) - 1)]


def test_a_field_new_in_1_33_is_unknown_to_1_32_under_strict(server: FakeAPIServer) -> None:
    status, _, body = call(server, "POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", STOP_SIGNAL_POD)
    call(server, "DELETE", "/api/v1/namespaces/default/pods/web?gracePeriodSeconds=0")

    if server.kube_version == "1.32":
        assert status == 400
        assert body["reason"] == "BadRequest"
        assert body["message"] == (
            'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
            'unknown field "spec.containers[0].lifecycle.stopSignal"'
        )
    else:
        assert status == 201, body


def test_resource_k8s_io_v1_is_served_from_1_34(server: FakeAPIServer) -> None:
    status, _, body = call(server, "POST", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", CLAIM)
    groups = [group["name"] for group in call(server, "GET", "/apis")[2]["groups"]]

    if server.kube_version == "1.34":
        assert status == 201, body
        assert list(body) == ["kind", "apiVersion", "metadata", "spec", "status"]
        assert body["spec"] == CLAIM["spec"]
        assert groups.index("resource.k8s.io") == groups.index("discovery.k8s.io") + 1
        assert call(server, "GET", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/gpu")[0] == 200
    else:
        assert status == 404
        assert body == b"404 page not found\n"
        assert "resource.k8s.io" not in groups


def test_networking_v1_lists_ipaddresses_and_servicecidrs_from_1_33(server: FakeAPIServer) -> None:
    _, _, resources = call(server, "GET", "/apis/networking.k8s.io/v1")
    entries = {entry["name"]: entry for entry in resources["resources"]}

    new = {"ipaddresses", "servicecidrs", "servicecidrs/status"}
    if server.kube_version == "1.32":
        assert not new & set(entries)
    else:
        assert new <= set(entries)
        assert entries["ipaddresses"]["namespaced"] is False
        assert "shortNames" not in entries["ipaddresses"]
        assert entries["servicecidrs/status"]["verbs"] == ["get", "patch", "update"]


def test_aggregated_discovery_v2beta1_is_not_served_from_1_33(server: FakeAPIServer) -> None:
    status, headers, body = call(server, "GET", "/apis", accept=AGGREGATED_V2BETA1)

    assert status == 200
    if server.kube_version == "1.32":
        assert body["apiVersion"] == "apidiscovery.k8s.io/v2beta1"
        assert body["kind"] == "APIGroupDiscoveryList"
    else:
        assert body["kind"] == "APIGroupList"
        assert "ETag" not in headers


def test_an_unknown_release_is_refused() -> None:
    for version in ("1.31", "1.35", "latest"):
        with pytest.raises(
            ValueError, match=f"unknown Kubernetes version '{version}': fakeapi serves 1.32, 1.33, 1.34"
        ):
            FakeAPIServer(kube_version=version)


def test_endpoints_are_deprecated_from_1_33_on_every_verb(server: FakeAPIServer) -> None:
    endpoints = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "web"}}
    answers = [
        call(server, "POST", "/api/v1/namespaces/default/endpoints", endpoints),
        call(server, "GET", "/api/v1/namespaces/default/endpoints/web"),
        call(server, "GET", "/api/v1/endpoints"),
        call(server, "GET", "/api/v1/namespaces/default/endpoints/missing"),
        call(server, "DELETE", "/api/v1/namespaces/default/endpoints/web"),
    ]

    statuses = [status for status, _, _ in answers]
    warned = [headers.get("Warning") for _, headers, _ in answers]
    assert statuses == [201, 200, 200, 404, 200]
    if server.kube_version == "1.32":
        assert warned == [None] * 5
    else:
        assert warned == ['299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"'] * 5


def test_component_statuses_are_deprecated_since_1_19(server: FakeAPIServer) -> None:
    status, headers, _ = call(server, "GET", "/api/v1/componentstatuses")

    assert status == 200
    assert headers["Warning"] == '299 - "v1 ComponentStatus is deprecated in v1.19+"'
