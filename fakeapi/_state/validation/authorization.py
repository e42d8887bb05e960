"""The access reviews' specs as ``pkg/apis/authorization/validation/validation.go`` checks them.

``SubjectAccessReview`` and ``LocalSubjectAccessReview`` (``ValidateSubjectAccessReviewSpec``):
exactly one of ``resourceAttributes`` and ``nonResourceAttributes``, and a user or a group;
``SelfSubjectAccessReview`` the attributes only. A ``LocalSubjectAccessReview`` asks about its
own namespace (``spec.resourceAttributes.namespace: must match metadata.namespace``) and never
about a non-resource URL. The REST handlers (``pkg/registry/authorization/*/rest.go``) make the
errors one 422 whose name is empty: ``SubjectAccessReview.authorization.k8s.io "" is invalid``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._patching.gostrconv import quote
from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError, Printed

__all__ = ["validate_access_review"]

Obj = Mapping[str, Any]


def _non_resource(attributes: Any) -> Any:
    """The internal ``authorization.NonResourceAttributes`` a pointer holds, or nil."""
    if not isinstance(attributes, dict):
        return None
    path, verb = str(attributes.get("path") or ""), str(attributes.get("verb") or "")
    go = f"authorization.NonResourceAttributes{{Path:{quote(path)}, Verb:{quote(verb)}}}"
    return Printed(go, f'{{"Path":{quote(path)},"Verb":{quote(verb)}}}')


def _validate_attributes(spec: Obj) -> list[FieldError]:
    errors: list[FieldError] = []
    resource, non_resource = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if resource is not None and non_resource is not None:
        detail = "cannot be specified in combination with resourceAttributes"
        errors.append(field.invalid("spec.nonResourceAttributes", _non_resource(non_resource), detail))
    if resource is None and non_resource is None:
        detail = "exactly one of nonResourceAttributes or resourceAttributes must be specified"
        errors.append(field.invalid("spec.resourceAttributes", None, detail))
    return errors


def validate_access_review(review: Obj) -> list[FieldError]:
    """``ValidateSubjectAccessReview``, ``ValidateSelfSubjectAccessReview`` or ``ValidateLocalSubjectAccessReview``."""
    spec = review.get("spec") if isinstance(review.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    errors = _validate_attributes(spec)
    if review.get("kind") == "SelfSubjectAccessReview":
        return errors
    if not spec.get("user") and not spec.get("groups"):
        errors.append(
            field.invalid("spec.user", str(spec.get("user") or ""), "at least one of user or group must be specified")
        )
    if review.get("kind") == "LocalSubjectAccessReview":
        meta = review.get("metadata") if isinstance(review.get("metadata"), dict) else {}
        assert isinstance(meta, dict)
        resource = spec.get("resourceAttributes")
        if isinstance(resource, dict) and (resource.get("namespace") or "") != (meta.get("namespace") or ""):
            namespace = str(resource.get("namespace") or "")
            errors.append(
                field.invalid("spec.resourceAttributes.namespace", namespace, "must match metadata.namespace")
            )
        if spec.get("nonResourceAttributes") is not None:
            shown = _non_resource(spec["nonResourceAttributes"])
            errors.append(field.invalid("spec.nonResourceAttributes", shown, "disallowed on this kind of request"))
    return errors
