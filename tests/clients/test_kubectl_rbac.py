"""kubectl against RBAC authorization (docs/rbac.md): ``auth can-i`` and ``--list`` agree with what
requests get, ``--as`` and ``--as-group`` impersonate, and a refusal reads as a real cluster's.

The server serves HTTPS, as kubectl sends a bearer token only to a server it can verify.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server

RBAC = "rbac.authorization.k8s.io/v1"
ROLE_REF = {"apiGroup": "rbac.authorization.k8s.io"}
ALICE = {"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}


def _objects() -> list[dict[str, Any]]:
    """alice reads ConfigMaps in default. Discovery and asking what one may do are every
    authenticated user's on a new cluster (the bootstrap policy's system:discovery and
    system:basic-user)."""
    return [
        {
            "apiVersion": RBAC,
            "kind": "Role",
            "metadata": {"name": "reader", "namespace": "default"},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}],
        },
        {
            "apiVersion": RBAC,
            "kind": "RoleBinding",
            "metadata": {"name": "reader", "namespace": "default"},
            "roleRef": {**ROLE_REF, "kind": "Role", "name": "reader"},
            "subjects": [ALICE],
        },
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "default"}},
    ]


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    with threaded_server(tls=True, authorization="RBAC") as running:
        running.load(*_objects())
        yield running


kubectl = run_kubectl


def test_can_i_answers_what_requests_get(server: FakeAPIServer, tmp_path: Path) -> None:
    alice = server.kubeconfig(tmp_path / "alice", user="alice")
    assert kubectl(alice, tmp_path, "auth", "can-i", "list", "configmaps") == (0, "yes\n", "")
    listed = kubectl(alice, tmp_path, "get", "configmaps", "-o", "name")
    assert listed == (0, "configmap/kube-root-ca.crt\nconfigmap/settings\n", "")
    assert kubectl(alice, tmp_path, "auth", "can-i", "delete", "configmaps") == (1, "no\n", "")
    assert kubectl(alice, tmp_path, "delete", "configmap", "settings") == (
        1,
        "",
        'Error from server (Forbidden): configmaps "settings" is forbidden: User "alice" cannot delete resource '
        '"configmaps" in API group "" in the namespace "default"\n',
    )
    assert server.find("v1", "ConfigMap", "settings") is not None


def test_can_i_list_shows_the_rules_of_every_binding(server: FakeAPIServer, tmp_path: Path) -> None:
    alice = server.kubeconfig(tmp_path / "alice", user="alice")
    code, table, errors = kubectl(alice, tmp_path, "auth", "can-i", "--list")
    assert (code, errors) == (0, "")
    rows = [line.split() for line in table.splitlines()]
    assert rows[0] == ["Resources", "Non-Resource", "URLs", "Resource", "Names", "Verbs"]
    assert ["configmaps", "[]", "[]", "[get", "list]"] in rows
    assert ["selfsubjectaccessreviews.authorization.k8s.io", "[]", "[]", "[create]"] in rows
    assert ["[/version]", "[]", "[get]"] in rows
    assert not any(row[0] == "pods" for row in rows)


def test_the_admin_impersonates_with_as_and_as_group(server: FakeAPIServer, tmp_path: Path) -> None:
    admin = server.kubeconfig(tmp_path / "admin")
    assert kubectl(admin, tmp_path, "auth", "can-i", "delete", "configmaps", "--as", "alice") == (1, "no\n", "")
    assert kubectl(admin, tmp_path, "auth", "can-i", "get", "configmaps", "--as", "alice") == (0, "yes\n", "")
    assert kubectl(admin, tmp_path, "get", "pods", "--as", "bob", "--as-group", "devs") == (
        1,
        "",
        'Error from server (Forbidden): pods is forbidden: User "bob" cannot list resource "pods" in API group "" '
        'in the namespace "default"\n',
    )
    impersonated = [entry for entry in server.journal if entry.user == "bob"]
    assert impersonated and {(entry.actor, entry.groups) for entry in impersonated} == {
        ("admin", ("devs", "system:authenticated"))
    }


def test_a_user_cannot_impersonate_without_the_impersonate_verb(server: FakeAPIServer, tmp_path: Path) -> None:
    alice = server.kubeconfig(tmp_path / "alice", user="alice")
    code, output, errors = kubectl(alice, tmp_path, "get", "configmaps", "--as", "bob")
    # kubectl's discovery client reads a 403 to /api as an unstructured error: it says "unknown"
    # whatever the Status says, so the Status is checked in the journal.
    assert (code, output, errors.splitlines()[-1]) == (1, "", "Error from server (Forbidden): unknown")
    refused = [entry for entry in server.journal if entry.path == "/api"]
    assert refused and {entry.status for entry in refused} == {403}
    assert refused[0].response_body == (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"users \\"bob\\" is '
        b'forbidden: User \\"alice\\" cannot impersonate resource \\"users\\" in API group \\"\\" at the '
        b'cluster scope","reason":"Forbidden","details":{"name":"bob","kind":"users"},"code":403}\n'
    )
