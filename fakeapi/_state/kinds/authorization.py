"""``authorization.k8s.io/v1``: the reviews a client asks about itself (create only, never stored)."""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType
from fakeapi._state.reviews import ACCESS_REVIEW, RULES_REVIEW

__all__ = ["TYPES"]

_GROUP = "authorization.k8s.io"
_CREATE = ("create",)

TYPES: tuple[ResourceType, ...] = (
    builtin(
        _GROUP, "v1", "localsubjectaccessreviews", "LocalSubjectAccessReview", verbs=_CREATE, strategy=ACCESS_REVIEW
    ),
    builtin(
        _GROUP,
        "v1",
        "selfsubjectaccessreviews",
        "SelfSubjectAccessReview",
        False,
        verbs=_CREATE,
        strategy=ACCESS_REVIEW,
    ),
    builtin(
        _GROUP, "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", False, verbs=_CREATE, strategy=RULES_REVIEW
    ),
    builtin(_GROUP, "v1", "subjectaccessreviews", "SubjectAccessReview", False, verbs=_CREATE, strategy=ACCESS_REVIEW),
)
