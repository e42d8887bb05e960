"""The access reviews' specs validated as ``pkg/apis/authorization/validation`` does: 422 with no name."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RawClient
from tests.http.test_builtin_validation import status_422

pytestmark = pytest.mark.asyncio

AUTHZ = "/apis/authorization.k8s.io/v1"
EXACTLY_ONE = "Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified"
USER_OR_GROUP = 'Invalid value: "": at least one of user or group must be specified'


def review(kind: str, spec: dict[str, Any], **metadata: Any) -> dict[str, Any]:
    return {"apiVersion": "authorization.k8s.io/v1", "kind": kind, "metadata": metadata, "spec": spec}


def review_422(kind: str, *causes: tuple[str, str, str]) -> bytes:
    return status_422(f"{kind}.authorization.k8s.io", "", kind, "authorization.k8s.io", list(causes)).replace(
        b'"details":{"name":"",', b'"details":{'
    )


async def test_a_subject_access_review_names_attributes_and_a_subject(client: RawClient) -> None:
    reply = await client.post(f"{AUTHZ}/subjectaccessreviews", review("SubjectAccessReview", {}))
    expected = review_422(
        "SubjectAccessReview",
        ("FieldValueInvalid", EXACTLY_ONE, "spec.resourceAttributes"),
        ("FieldValueInvalid", USER_OR_GROUP, "spec.user"),
    )
    assert (reply.status, reply.body) == (422, expected)


async def test_a_subject_access_review_asks_about_a_resource_or_a_url_not_both(client: RawClient) -> None:
    spec = {
        "user": "jane",
        "resourceAttributes": {"verb": "get", "resource": "pods"},
        "nonResourceAttributes": {"path": "/healthz", "verb": "get"},
    }
    reply = await client.post(f"{AUTHZ}/subjectaccessreviews", review("SubjectAccessReview", spec))
    expected = review_422(
        "SubjectAccessReview",
        (
            "FieldValueInvalid",
            'Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: '
            "cannot be specified in combination with resourceAttributes",
            "spec.nonResourceAttributes",
        ),
    )
    assert (reply.status, reply.body) == (422, expected)
    allowed = await client.post(
        f"{AUTHZ}/subjectaccessreviews", review("SubjectAccessReview", {**spec, "nonResourceAttributes": None})
    )
    assert allowed.status == 201 and allowed.json()["status"]["allowed"] is True


async def test_a_self_subject_access_review_needs_only_attributes(client: RawClient) -> None:
    reply = await client.post(f"{AUTHZ}/selfsubjectaccessreviews", review("SelfSubjectAccessReview", {}))
    expected = review_422("SelfSubjectAccessReview", ("FieldValueInvalid", EXACTLY_ONE, "spec.resourceAttributes"))
    assert (reply.status, reply.body) == (422, expected)


async def test_a_local_subject_access_review_asks_about_its_own_namespace(client: RawClient) -> None:
    path = f"{AUTHZ}/namespaces/default/localsubjectaccessreviews"
    attributes = {"namespace": "other", "verb": "get", "resource": "pods"}
    spec: dict[str, Any] = {"user": "jane", "resourceAttributes": attributes}
    reply = await client.post(path, review("LocalSubjectAccessReview", spec))
    expected = review_422(
        "LocalSubjectAccessReview",
        (
            "FieldValueInvalid",
            'Invalid value: "other": must match metadata.namespace',
            "spec.resourceAttributes.namespace",
        ),
    )
    assert (reply.status, reply.body) == (422, expected)
    url_spec = {"user": "jane", "nonResourceAttributes": {"path": "/healthz", "verb": "get"}}
    reply = await client.post(path, review("LocalSubjectAccessReview", url_spec))
    expected = review_422(
        "LocalSubjectAccessReview",
        (
            "FieldValueInvalid",
            'Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: '
            "disallowed on this kind of request",
            "spec.nonResourceAttributes",
        ),
    )
    assert (reply.status, reply.body) == (422, expected)
    elsewhere = await client.post(path, review("LocalSubjectAccessReview", spec, namespace="other"))
    assert elsewhere.status == 400
    assert (
        elsewhere.json()["message"]
        == "the namespace of the provided object does not match the namespace sent on the request"
    )
    attributes["namespace"] = "default"
    answered = await client.post(path, review("LocalSubjectAccessReview", spec))
    assert answered.status == 201 and answered.json()["status"]["allowed"] is True
