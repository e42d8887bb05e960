"""The review kinds: created, answered and never stored (docs/subresources.md).

A review is a question whose answer comes back in the created object's ``status``:

* ``SelfSubjectReview`` (``kubectl auth whoami``): the requester's user info
  (``selfsubjectreview/rest.go``);
* ``SelfSubjectAccessReview``, ``LocalSubjectAccessReview``, ``SubjectAccessReview``
  (``kubectl auth can-i``): a spec validated as ``pkg/apis/authorization/validation`` does
  (:mod:`fakeapi._state.validation.authorization`), then under RBAC authorization, the RBAC authorizer's decision and reason
  (docs/rbac.md); otherwise allowed, since every request is;
* ``SelfSubjectRulesReview`` (``kubectl auth can-i --list``): under RBAC authorization the rules
  that apply to the requester in the namespace; otherwise the rules of an allow-all authorizer,
  every verb on every resource and every non-resource URL, as the RBAC authorizer lists them for
  ``cluster-admin``;
* ``TokenReview``: who a token authenticates as, through the server's own token authenticators
  (docs/authentication.md).

Each kind's descriptor holds its :class:`ReviewStrategy`. Each answer echoes the request's ``metadata`` (``creationTimestamp`` null, as a zero time encodes)
and ``spec``, keys in Go struct order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fakeapi._state.authorization import (
    RBACSource,
    self_subject_access_review_status,
    self_subject_rules_review_status,
    subject_access_review_status,
    with_authenticated,
)
from fakeapi._state.authorization import UserInfo as AuthorizingUser
from fakeapi._state.strategy import Strategy
from fakeapi._state.token_authentication import TokenUser
from fakeapi._state.validation import field as field_errors
from fakeapi._state.validation.authorization import validate_access_review
from fakeapi.errors import APIError, GroupResource

__all__ = [
    "ACCESS_REVIEW",
    "RULES_REVIEW",
    "SELF_SUBJECT_REVIEW",
    "TOKEN_REVIEW",
    "ReviewContext",
    "ReviewStrategy",
    "UserInfo",
]


@dataclass(frozen=True)
class UserInfo:
    """Who a request comes from, as an authenticator names it."""

    username: str
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: dict[str, list[str]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.username:
            out["username"] = self.username
        if self.uid:
            out["uid"] = self.uid
        if self.groups:
            out["groups"] = list(self.groups)
        if self.extra:
            out["extra"] = self.extra
        return out


@dataclass(frozen=True)
class ReviewContext:
    """What a review is answered from. ``rbac`` is the RBAC objects under RBAC authorization; None
    means every request is allowed, and the access and rules reviews say so."""

    user: UserInfo
    authenticate_token: Callable[[str, Sequence[str]], TokenUser | None]
    rbac: RBACSource | None = None

    @property
    def requester(self) -> AuthorizingUser:
        return AuthorizingUser(self.user.username, self.user.groups)


def _echo(review: dict[str, Any], status: dict[str, Any], *, spec: bool = True) -> dict[str, Any]:
    metadata = {**(review.get("metadata") or {}), "creationTimestamp": None}
    out: dict[str, Any] = {"kind": review.get("kind"), "apiVersion": review.get("apiVersion"), "metadata": metadata}
    if spec:
        out["spec"] = review.get("spec") or {}
    out["status"] = status
    return out


def _self_subject_review(review: dict[str, Any], context: ReviewContext) -> dict[str, Any]:
    return _echo(review, {"userInfo": context.user.as_json()}, spec=False)


def _access_review(review: dict[str, Any], context: ReviewContext) -> dict[str, Any]:
    """``subjectaccessreview/rest.go`` and its kin: the spec validated (422, no name), then answered."""
    errors = validate_access_review(review)
    if errors:
        kind = GroupResource("authorization.k8s.io", str(review.get("kind") or ""))
        raise APIError.invalid(kind, "", field_errors.causes(errors))
    if context.rbac is None:
        return _echo(review, {"allowed": True})
    spec = review.get("spec") or {}
    if review.get("kind") == "SelfSubjectAccessReview":
        return _echo(review, self_subject_access_review_status(context.rbac, context.requester, spec))
    return _echo(review, subject_access_review_status(context.rbac, spec))


def _rules_review(review: dict[str, Any], context: ReviewContext) -> dict[str, Any]:
    if context.rbac is not None:
        spec = review.get("spec") or {}
        return _echo(review, self_subject_rules_review_status(context.rbac, context.requester, spec))
    status = {
        "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
        "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
        "incomplete": False,
    }
    return _echo(review, status)


def _token_review(review: dict[str, Any], context: ReviewContext) -> dict[str, Any]:
    """``tokenreview/storage.go``: the token through the same authenticators as a request's bearer
    token, for the audiences asked for (the API's own by default)."""
    spec = review.get("spec") or {}
    token = spec.get("token") if isinstance(spec.get("token"), str) else ""
    if not token:
        raise APIError.bad_request("token is required for TokenReview in authentication")
    wanted = [audience for audience in spec.get("audiences") or [] if isinstance(audience, str)]
    found = context.authenticate_token(token, wanted)
    if found is None:
        # bearertoken.Authenticator's error when no token authenticator knew the token
        return _echo(review, {"user": {}, "error": "invalid bearer token"})
    if not found.authenticated:
        return _echo(review, {"user": {}, "error": found.error})
    groups = with_authenticated(found.groups)
    extra = {key: list(values) for key, values in found.extra.items()}
    user = UserInfo(found.name, tuple(groups), found.uid, extra).as_json()
    return _echo(review, {"authenticated": True, "user": user, "audiences": list(found.audiences)})


class ReviewStrategy(Strategy):
    """The strategy of a review kind: no storage, only an answer (``rest.Creater`` without a store)."""

    def __init__(self, answer: Callable[[dict[str, Any], ReviewContext], dict[str, Any]]) -> None:
        self.answer = answer


SELF_SUBJECT_REVIEW = ReviewStrategy(_self_subject_review)
TOKEN_REVIEW = ReviewStrategy(_token_review)
ACCESS_REVIEW = ReviewStrategy(_access_review)
RULES_REVIEW = ReviewStrategy(_rules_review)
