"""The 403 body, as responsewriters/errors.go ``ForbiddenStatusError`` and apimachinery ``NewForbidden`` write it."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi._state.authorization import (
    Attributes,
    StaticRBAC,
    UserInfo,
    authorize,
    forbidden_error,
    service_account_user,
)

OPERATOR = service_account_user("ops", "op")
BOB = UserInfo("bob")


def body(attributes: Attributes, reason: str = "") -> list[tuple[str, Any]]:
    error = forbidden_error(attributes, reason)
    assert error.code == 403
    return list(error.status().items())


def status(message: str, details: dict[str, str]) -> list[tuple[str, Any]]:
    return [
        ("kind", "Status"),
        ("apiVersion", "v1"),
        ("metadata", {}),
        ("status", "Failure"),
        ("message", message),
        ("reason", "Forbidden"),
        ("details", details),
        ("code", 403),
    ]


CASES = [
    (
        Attributes.for_resource(OPERATOR, "list", "pods", namespace="default"),
        'pods is forbidden: User "system:serviceaccount:ops:op" cannot list resource "pods" in API group ""'
        ' in the namespace "default"',
        {"kind": "pods"},
    ),
    (
        Attributes.for_resource(BOB, "get", "widgets", api_group="example.com", namespace="ns1", name="w1"),
        'widgets.example.com "w1" is forbidden: User "bob" cannot get resource "widgets" in API group "example.com"'
        ' in the namespace "ns1"',
        {"name": "w1", "group": "example.com", "kind": "widgets"},
    ),
    (
        Attributes.for_resource(
            BOB, "patch", "widgets", api_group="example.com", namespace="ns1", name="w1", subresource="status"
        ),
        'widgets.example.com "w1" is forbidden: User "bob" cannot patch resource "widgets/status" in API group'
        ' "example.com" in the namespace "ns1"',
        {"name": "w1", "group": "example.com", "kind": "widgets"},
    ),
    (
        Attributes.for_resource(BOB, "list", "nodes"),
        'nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope',
        {"kind": "nodes"},
    ),
    (
        Attributes.for_resource(BOB, "watch", "deployments", api_group="apps"),
        'deployments.apps is forbidden: User "bob" cannot watch resource "deployments" in API group "apps" at the cluster scope',
        {"group": "apps", "kind": "deployments"},
    ),
    # /api/v1/namespaces/ns1/finalize: the RequestInfo reads the namespace's own name as its namespace too.
    (
        Attributes.for_resource(BOB, "update", "namespaces", namespace="ns1", name="ns1", subresource="finalize"),
        'namespaces "ns1" is forbidden: User "bob" cannot update resource "namespaces/finalize" in API group ""'
        ' in the namespace "ns1"',
        {"name": "ns1", "kind": "namespaces"},
    ),
    (
        Attributes.for_path(BOB, "get", "/healthz"),
        'forbidden: User "bob" cannot get path "/healthz"',
        {},
    ),
    (
        Attributes.for_path(UserInfo("system:anonymous", ("system:unauthenticated",)), "post", "/apis"),
        'forbidden: User "system:anonymous" cannot post path "/apis"',
        {},
    ),
]


@pytest.mark.parametrize(("attributes", "message", "details"), CASES)
def test_forbidden_status(attributes: Attributes, message: str, details: dict[str, str]) -> None:
    assert body(attributes) == status(message, details)


def test_the_rbac_reason_follows_the_message() -> None:
    source = StaticRBAC(
        role_bindings=[
            {
                "metadata": {"name": "b", "namespace": "default"},
                "subjects": [{"kind": "User", "name": "bob"}],
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
            }
        ]
    )
    attributes = Attributes.for_resource(BOB, "create", "configmaps", namespace="default")
    decision = authorize(source, attributes)
    assert body(attributes, decision.reason) == status(
        'configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace'
        ' "default": RBAC: clusterrole.rbac.authorization.k8s.io "edit" not found',
        {"kind": "configmaps"},
    )


def test_user_text_is_quoted_and_html_is_escaped_but_not_in_the_reason() -> None:
    attributes = Attributes.for_resource(UserInfo('<b>"x"&'), "get", "pods", namespace="a<b")
    error = forbidden_error(attributes, "RBAC: <kept>")
    assert error.message == (
        'pods is forbidden: User "&lt;b&gt;\\"x\\"&amp;" cannot get resource "pods" in API group "" in the namespace'
        ' "a&lt;b": RBAC: <kept>'
    )


def test_a_non_resource_path_is_quoted_as_go_quotes_it() -> None:
    error = forbidden_error(Attributes.for_path(BOB, "get", "/logs/\u00e9\t"))
    assert error.message == 'forbidden: User "bob" cannot get path "/logs/\u00e9\\t"'
