"""kubectl on a new RBAC cluster (docs/rbac.md, the bootstrap policy): a ServiceAccount whose token
was made with ``kubectl create token`` and that no binding names may discover the API, list what it
may do and say who it is, and nothing more; a user bound to ``view`` reads pods but not secrets.

The server serves HTTPS, as kubectl sends a bearer token only to a server it can verify.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from fakeapi import FakeAPIServer
from tests.clients.local import run_kubectl, threaded_server

kubectl = run_kubectl
ROBOT = "system:serviceaccount:default:robot"


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    with threaded_server(tls=True, authorization="RBAC") as running:
        yield running


def _with_token(kubeconfig: Path, token: str, path: Path) -> Path:
    config = yaml.safe_load(kubeconfig.read_text())
    config["users"][0]["user"] = {"token": token}
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.fixture
def robot(server: FakeAPIServer, tmp_path: Path) -> Path:
    """A kubeconfig with the token of the ServiceAccount default/robot, which no binding names."""
    admin = server.kubeconfig(tmp_path / "admin")
    assert kubectl(admin, tmp_path, "create", "serviceaccount", "robot") == (0, "serviceaccount/robot created\n", "")
    code, token, errors = kubectl(admin, tmp_path, "create", "token", "robot")
    assert (code, errors) == (0, "")
    return _with_token(admin, token.strip(), tmp_path / "robot")


def test_a_service_account_discovers_the_api(robot: Path, tmp_path: Path) -> None:
    code, table, errors = kubectl(robot, tmp_path, "api-resources", "--api-group=apps")
    assert (code, errors) == (0, "")
    assert [line.split()[0] for line in table.splitlines()] == [
        "NAME",
        "controllerrevisions",
        "daemonsets",
        "deployments",
        "replicasets",
        "statefulsets",
    ]


def test_a_service_account_lists_what_the_bootstrap_policy_lets_it_do(robot: Path, tmp_path: Path) -> None:
    code, table, errors = kubectl(robot, tmp_path, "auth", "can-i", "--list")
    assert (code, errors) == (0, "")
    rows = [line.split() for line in table.splitlines()]
    # system:basic-user, then the URLs of system:discovery, system:public-info-viewer (the health and
    # version paths again) and system:service-account-issuer-discovery.
    assert rows == [
        ["Resources", "Non-Resource", "URLs", "Resource", "Names", "Verbs"],
        ["selfsubjectreviews.authentication.k8s.io", "[]", "[]", "[create]"],
        ["selfsubjectaccessreviews.authorization.k8s.io", "[]", "[]", "[create]"],
        ["selfsubjectrulesreviews.authorization.k8s.io", "[]", "[]", "[create]"],
        ["[/.well-known/openid-configuration/]", "[]", "[get]"],
        ["[/.well-known/openid-configuration]", "[]", "[get]"],
        ["[/api/*]", "[]", "[get]"],
        ["[/api]", "[]", "[get]"],
        ["[/apis/*]", "[]", "[get]"],
        ["[/apis]", "[]", "[get]"],
        ["[/healthz]", "[]", "[get]"],
        ["[/healthz]", "[]", "[get]"],
        ["[/livez]", "[]", "[get]"],
        ["[/livez]", "[]", "[get]"],
        ["[/openapi/*]", "[]", "[get]"],
        ["[/openapi]", "[]", "[get]"],
        ["[/openid/v1/jwks/]", "[]", "[get]"],
        ["[/openid/v1/jwks]", "[]", "[get]"],
        ["[/readyz]", "[]", "[get]"],
        ["[/readyz]", "[]", "[get]"],
        ["[/version/]", "[]", "[get]"],
        ["[/version/]", "[]", "[get]"],
        ["[/version]", "[]", "[get]"],
        ["[/version]", "[]", "[get]"],
    ]


def test_a_service_account_says_who_it_is(robot: Path, tmp_path: Path) -> None:
    code, table, errors = kubectl(robot, tmp_path, "auth", "whoami")
    assert (code, errors) == (0, "")
    rows = dict(line.split(None, 1) for line in table.splitlines())
    assert rows["Username"].strip() == ROBOT
    assert rows["Groups"].strip() == "[system:serviceaccounts system:serviceaccounts:default system:authenticated]"


def test_a_service_account_may_not_list_pods(robot: Path, tmp_path: Path) -> None:
    assert kubectl(robot, tmp_path, "auth", "can-i", "list", "pods") == (1, "no\n", "")
    assert kubectl(robot, tmp_path, "get", "pods") == (
        1,
        "",
        f'Error from server (Forbidden): pods is forbidden: User "{ROBOT}" cannot list resource "pods" in API '
        'group "" in the namespace "default"\n',
    )


def test_a_user_bound_to_view_reads_pods_but_not_secrets(server: FakeAPIServer, tmp_path: Path) -> None:
    admin = server.kubeconfig(tmp_path / "admin")
    bound = kubectl(admin, tmp_path, "create", "rolebinding", "carol-views", "--clusterrole=view", "--user=carol")
    assert bound == (0, "rolebinding.rbac.authorization.k8s.io/carol-views created\n", "")
    carol = server.kubeconfig(tmp_path / "carol", user="carol")
    assert kubectl(carol, tmp_path, "get", "pods") == (0, "", "No resources found in default namespace.\n")
    assert kubectl(carol, tmp_path, "get", "secrets") == (
        1,
        "",
        'Error from server (Forbidden): secrets is forbidden: User "carol" cannot list resource "secrets" in API '
        'group "" in the namespace "default"\n',
    )
