"""``authentication.k8s.io/v1``: the reviews that ask who a token or a request is (create only, never stored)."""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType
from fakeapi._state.reviews import SELF_SUBJECT_REVIEW, TOKEN_REVIEW

__all__ = ["TYPES"]

TYPES: tuple[ResourceType, ...] = (
    builtin(
        "authentication.k8s.io",
        "v1",
        "selfsubjectreviews",
        "SelfSubjectReview",
        False,
        verbs=("create",),
        strategy=SELF_SUBJECT_REVIEW,
    ),
    builtin(
        "authentication.k8s.io", "v1", "tokenreviews", "TokenReview", False, verbs=("create",), strategy=TOKEN_REVIEW
    ),
)
