"""``authorization.k8s.io/v1``: the reviews a client asks about itself (create only, never stored)."""

from __future__ import annotations

from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType

__all__ = ["TYPES"]

TYPES: tuple[ResourceType, ...] = (
    builtin(
        "authorization.k8s.io",
        "v1",
        "selfsubjectaccessreviews",
        "SelfSubjectAccessReview",
        False,
        verbs=("create",),
        protobuf_message="SelfSubjectAccessReview",
    ),
)
