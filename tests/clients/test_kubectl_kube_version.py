"""kubectl 1.32 against a server of each release: ``kubectl version`` names it, and
``kubectl api-resources`` and short names show what that release serves by default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.clients.local import run_kubectl, threaded_server

NEW_IN_1_33 = {"ipaddresses.networking.k8s.io", "servicecidrs.networking.k8s.io"}
NEW_IN_1_34 = {
    "deviceclasses.resource.k8s.io",
    "resourceclaims.resource.k8s.io",
    "resourceclaimtemplates.resource.k8s.io",
    "resourceslices.resource.k8s.io",
    "volumeattributesclasses.storage.k8s.io",
}


@pytest.mark.parametrize("version", ["1.33", "1.34"])
def test_kubectl_version_names_the_servers_release(tmp_path: Path, version: str) -> None:
    with threaded_server(kube_version=version) as server:
        code, out, err = run_kubectl(server.kubeconfig(tmp_path / "kubeconfig"), tmp_path, "version", "-o", "json")

    assert code == 0, err
    reported = json.loads(out)["serverVersion"]
    assert reported["gitVersion"] == f"v{version}.0"
    assert (reported["major"], reported["minor"]) == ("1", version.split(".")[1])


@pytest.mark.parametrize(
    ("version", "added"), [("1.32", set()), ("1.33", NEW_IN_1_33), ("1.34", NEW_IN_1_33 | NEW_IN_1_34)]
)
def test_api_resources_list_what_the_release_serves(tmp_path: Path, version: str, added: set[str]) -> None:
    with threaded_server(kube_version=version) as server:
        code, out, err = run_kubectl(
            server.kubeconfig(tmp_path / "kubeconfig"), tmp_path, "api-resources", "-o", "name"
        )

    assert code == 0, err
    names = set(out.split())
    assert "pods" in names
    assert names & (NEW_IN_1_33 | NEW_IN_1_34) == added


def test_a_short_name_of_1_34_is_unknown_to_1_33(tmp_path: Path) -> None:
    with threaded_server(kube_version="1.33") as older:
        old = run_kubectl(older.kubeconfig(tmp_path / "old"), tmp_path / "old-home", "get", "vac")
    with threaded_server(kube_version="1.34") as newer:
        newer.load(
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "VolumeAttributesClass",
                "metadata": {"name": "fast"},
                "driverName": "csi.example.com",
            }
        )
        new = run_kubectl(newer.kubeconfig(tmp_path / "new"), tmp_path / "new-home", "get", "vac", "-o", "name")

    assert old[0] == 1
    assert 'the server doesn\'t have a resource type "vac"' in old[2]
    assert new[0] == 0, new[2]
    assert new[1] == "volumeattributesclass.storage.k8s.io/fast\n"


def test_kubectl_get_endpoints_warns_from_1_33(tmp_path: Path) -> None:
    with threaded_server(kube_version="1.33") as server:
        code, out, err = run_kubectl(server.kubeconfig(tmp_path / "kubeconfig"), tmp_path, "get", "endpoints", "-A")

    assert code == 0, err
    assert "kubernetes" in out
    assert err == "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n"
