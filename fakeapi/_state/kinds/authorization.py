"""``authorization.k8s.io/v1``: the reviews a client asks about itself (create only, never stored)."""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType

__all__ = ["TYPES"]

_GROUP = "authorization.k8s.io"
_CREATE = ("create",)

TYPES: tuple[ResourceType, ...] = (
    builtin(_GROUP, "v1", "localsubjectaccessreviews", "LocalSubjectAccessReview", verbs=_CREATE),
    builtin(
        _GROUP,
        "v1",
        "selfsubjectaccessreviews",
        "SelfSubjectAccessReview",
        False,
        verbs=_CREATE,
    ),
    builtin(_GROUP, "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", False, verbs=_CREATE),
    builtin(_GROUP, "v1", "subjectaccessreviews", "SubjectAccessReview", False, verbs=_CREATE),
)
