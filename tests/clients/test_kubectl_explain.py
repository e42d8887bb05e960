"""The real kubectl reading the OpenAPI documents (docs/discovery.md): ``explain`` at any depth over
built-in kinds and custom resources, from v3 and from v2's protobuf, and ``apply`` of a kind typo
ending at the REST mapping's message, as against a kube-apiserver."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server

WIDGETS: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "description": "A widget.",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "description": "What the widget should be.",
                                "properties": {"x": {"type": "integer", "description": "The x of the widget."}},
                            }
                        },
                    }
                },
            }
        ],
    },
}


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAPIServer]:
    with threaded_server() as running:
        running.load(WIDGETS)
        yield running


@pytest.fixture
def kubectl(server: FakeAPIServer, tmp_path: Path) -> Any:
    def run(*args: str) -> tuple[int, str, str]:
        return run_kubectl(server.kubeconfig(tmp_path / "kubeconfig"), tmp_path, *args)

    return run


def test_explain_pod_prints_the_kind_and_its_fields(kubectl: Any) -> None:
    code, out, err = kubectl("explain", "pod")
    assert (code, err) == (0, "")
    assert out.startswith(
        "KIND:       Pod\nVERSION:    v1\n\nDESCRIPTION:\n"
        "    Pod is a collection of containers that can run on a host. This resource is\n"
        "    created by clients and scheduled onto hosts.\n"
    )
    assert "  metadata\t<ObjectMeta>\n    Standard object's metadata." in out
    assert "  spec\t<PodSpec>\n    Specification of the desired behavior of the pod." in out
    assert "  status\t<PodStatus>\n" in out


def test_explain_reaches_a_field_deep_in_the_pod_spec(kubectl: Any) -> None:
    code, out, err = kubectl("explain", "pod.spec.containers.image")
    assert (code, err) == (0, "")
    assert out.startswith(
        "KIND:       Pod\nVERSION:    v1\n\nFIELD: image <string>\n\n\nDESCRIPTION:\n"
        "    Container image name. More info:\n"
        "    https://kubernetes.io/docs/concepts/containers/images This field is optional\n"
    )


def test_explain_recursive_walks_the_references(kubectl: Any) -> None:
    code, out, err = kubectl("explain", "deployment.spec.strategy", "--recursive")
    assert (code, err) == (0, "")
    assert out == (
        "GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\n"
        "FIELD: strategy <DeploymentStrategy>\n\n\nDESCRIPTION:\n"
        "    The deployment strategy to use to replace existing pods with new ones.\n"
        "    DeploymentStrategy describes how to replace existing pods with new ones.\n"
        "    \nFIELDS:\n"
        "  rollingUpdate\t<RollingUpdateDeployment>\n"
        "    maxSurge\t<IntOrString>\n"
        "    maxUnavailable\t<IntOrString>\n"
        "  type\t<string>\n"
        "  enum: Recreate, RollingUpdate\n\n"
    )


def test_explain_lists_an_enum_fields_values_and_their_meaning(kubectl: Any) -> None:
    code, out, err = kubectl("explain", "deployment.spec.strategy")
    assert (code, err) == (0, "")
    assert out.endswith(
        "  type\t<string>\n"
        "  enum: Recreate, RollingUpdate\n"
        '    Type of deployment. Can be "Recreate" or "RollingUpdate". Default is\n'
        "    RollingUpdate.\n"
        "    \n"
        "    Possible enum values:\n"
        '     - `"Recreate"` Kill all existing pods before creating new ones.\n'
        '     - `"RollingUpdate"` Replace the old ReplicaSets by new one using rolling\n'
        "    update i.e gradually scale down the old ReplicaSets and scale up the new\n"
        "    one.\n\n\n"
    )


def test_explain_a_custom_resource_has_type_meta_and_object_meta(kubectl: Any) -> None:
    code, out, err = kubectl("explain", "widget")
    assert (code, err) == (0, "")
    assert out.startswith(
        "GROUP:      example.com\nKIND:       Widget\nVERSION:    v1\n\nDESCRIPTION:\n    A widget.\n"
    )
    for field in ("  apiVersion\t<string>\n", "  kind\t<string>\n", "  metadata\t<ObjectMeta>\n", "  spec\t<Object>\n"):
        assert field in out
    code, out, err = kubectl("explain", "widget.metadata")
    assert (code, err) == (0, "")
    assert out.startswith(
        "GROUP:      example.com\nKIND:       Widget\nVERSION:    v1\n\nFIELD: metadata <ObjectMeta>\n\n\n"
        "DESCRIPTION:\n    Standard object's metadata. More info:\n"
    )
    assert "  name\t<string>\n    Name must be unique within a namespace." in out
    code, out, err = kubectl("explain", "widget.spec.x")
    assert (code, err) == (0, "")
    assert "FIELD: x <integer>\n\n\nDESCRIPTION:\n    The x of the widget.\n" in out


def test_explain_a_field_that_does_not_exist_is_kubectls_own_error(kubectl: Any) -> None:
    code, out, err = kubectl("explain", "pod.spec.nope")
    assert code == 1
    assert out == "KIND:       Pod\nVERSION:    v1\n\n"
    assert err == 'error: field "nope" does not exist\n'


def test_explain_from_the_v2_protobuf_document(kubectl: Any) -> None:
    code, out, err = kubectl("explain", "pod.spec.containers.image", "--output=plaintext-openapiv2")
    assert (code, err) == (0, "")
    assert out.startswith("KIND:     Pod\nVERSION:  v1\n\nFIELD:    image <string>\n\nDESCRIPTION:\n")
    code, out, err = kubectl("explain", "widget.metadata.name", "--output=plaintext-openapiv2")
    assert (code, err) == (0, "")
    assert "FIELD:    name <string>\n" in out


def test_apply_of_a_kind_typo_reports_no_matches(kubectl: Any, tmp_path: Path) -> None:
    manifest = tmp_path / "typo.yaml"
    manifest.write_text("apiVersion: apps/v1\nkind: Deploymnet\nmetadata:\n  name: web\n")
    code, out, err = kubectl("apply", "-f", str(manifest))
    assert (code, out) == (1, "")
    assert err == (
        f'error: resource mapping not found for name: "web" namespace: "" from "{manifest}": '
        'no matches for kind "Deploymnet" in version "apps/v1"\nensure CRDs are installed first\n'
    )
