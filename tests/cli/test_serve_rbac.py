"""``fakeapi serve --authorization rbac`` as a user runs it: a ServiceAccount's token printed before
the ready line, its requests authorized from the loaded Role, and the permissions report written at
exit naming what it used and what it was refused (docs/rbac.md)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import yaml

from tests.cli.serving import READY_LINE, Background, console_script, home_env

MANIFESTS = [
    {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "op", "namespace": "default"}},
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "op", "namespace": "default"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}],
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "op", "namespace": "default"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "op"},
        "subjects": [{"kind": "ServiceAccount", "name": "op", "namespace": "default"}],
    },
]


def status_of(url: str, token: str) -> int:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        body = json.loads(error.read())
        assert body["reason"] == "Forbidden"
        return error.code


def test_serve_under_rbac_prints_the_accounts_token_and_writes_the_report(tmp_path: Path) -> None:
    manifests = tmp_path / "rbac.yaml"
    manifests.write_text(yaml.safe_dump_all(MANIFESTS))
    report = tmp_path / "permissions.md"
    argv = [*console_script(), "serve", "--port", "0", "--authorization", "rbac", "--load", str(manifests)]
    argv += ["--service-account", "default/op", "--permissions-report", str(report)]
    with Background(argv, env=home_env(tmp_path)) as server:
        announced = server.next_line()
        assert announced is not None and announced.startswith("fakeapi token for default/op: fakeapi-")
        token = announced.rpartition(": ")[2]
        ready = READY_LINE.fullmatch(server.next_line() or "")
        assert ready is not None
        base = ready.group(1) + "/api/v1/namespaces/default"
        assert status_of(base + "/configmaps", token) == 200
        assert status_of(base + "/secrets", token) == 403
        assert server.stop() == 0
    text = report.read_text()
    assert text.startswith("# Permissions of system:serviceaccount:default:op\n")
    assert "- list configmaps, namespace default: 1 allowed, 0 refused" in text
    assert "- list secrets, namespace default: 0 allowed, 1 refused" in text
