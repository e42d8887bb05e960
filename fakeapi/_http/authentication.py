"""Who sent a request: the apiserver's authentication chain, and its 401 and 403 answers.

kube-apiserver runs its authenticators in turn (``pkg/authentication/request/union``,
``bearertoken``, ``anonymous``): an ``Authorization: Bearer <token>`` header names a token that an
authenticator accepts, or the request fails with ``401 Unauthorized``; a request with no bearer
token at all (none, an empty one, or any other scheme: basic auth was removed in 1.19) is
``system:anonymous`` in ``system:unauthenticated``, which the default RBAC policy lets read only
``/healthz``, ``/livez``, ``/readyz`` and ``/version`` (``system:public-info-viewer``, with GET only and
not the paths below them, such as ``/livez/ping``): anything
else is 403 with the authorizer's message (``responsewriters.Forbidden``, built by
:func:`fakeapi._state.authorization.forbidden_error`).

fakeapi has two modes (docs/authentication.md):

- by default nothing is checked: a bearer token names the user, in ``system:masters``, and the
  journal's and the gate's actor (the scenarios engine gives each actor a kubeconfig whose token is
  its name), and TokenReview says the same of that token; a request without one is anonymous, and
  everything is allowed;
- with ``token_auth``, only tokens the server issued are accepted: one per actor name it was asked
  for (``FakeAPIServer.token_for``), plus ``admin``'s. The user a token was issued for is the
  actor, so scenarios and journal queries read the same names in both modes.

The authenticated user is on every request (:data:`USER`, set before any handler runs), with its
groups, for whatever needs to know who asks. Further ways to authenticate (client certificates,
ServiceAccount tokens) are further :class:`TokenAuthenticator`-like sources in
:class:`Authentication`.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aiohttp import web

from fakeapi._http.client_certificates import certificate_user
from fakeapi._http.requestinfo import RequestInfo
from fakeapi._state.authorization import (
    ALL_AUTHENTICATED,
    ALL_UNAUTHENTICATED,
    PRIVILEGED_GROUP,
    Attributes,
    UserInfo,
    forbidden_error,
    service_account_user,
    with_authenticated,
)
from fakeapi._state.authorization import ANONYMOUS as ANONYMOUS_NAME
from fakeapi._state.selectors import SelectorError, parse_field_selector
from fakeapi._state.token_authentication import API_AUDIENCES, TokenUser, authenticate_service_account_token
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = [
    "ADMIN",
    "ANONYMOUS",
    "USER",
    "Authentication",
    "Identity",
    "TokenAuthenticator",
    "User",
    "request_attributes",
]

AUTHENTICATED = ALL_AUTHENTICATED
MASTERS = PRIVILEGED_GROUP
_PUBLIC_PATHS = frozenset({"/healthz", "/livez", "/readyz", "/version", "/version/"})


@dataclass(frozen=True)
class User:
    """``user.Info``: the name, uid, groups and extra of whoever sent a request.

    ``actor`` is fakeapi's own: the name the journal and the gate know the sender by (a scenario's
    actor, a test's client), which stays the sender's when a request impersonates another user,
    and is the user's name when nothing else was said.
    """

    name: str
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    actor: str = ""

    @property
    def anonymous(self) -> bool:
        return self.name == ANONYMOUS_NAME

    @property
    def actor_name(self) -> str | None:
        """The journal's and the gate's name for the sender (None for an anonymous request)."""
        if self.actor:
            return self.actor
        return None if self.anonymous else self.name

    def info(self) -> UserInfo:
        """The user as authorization reads it."""
        return UserInfo(self.name, self.groups)


ANONYMOUS = User(ANONYMOUS_NAME, (ALL_UNAUTHENTICATED,))
ADMIN = "admin"

USER: web.RequestKey[User] = web.RequestKey("fakeapi_user", User)
"""The authenticated user of a request, for any handler that needs it (SelfSubjectReview, audit)."""


@dataclass(frozen=True)
class Identity:
    """Who a token authenticates as, when it is not simply the actor's own name: a user with groups
    (``system:authenticated`` is added, as the authenticator chain adds it), or a ServiceAccount
    (``namespace/name``), with the groups its token carries."""

    user: str = ""
    groups: tuple[str, ...] = ()
    service_account: str = ""

    def as_user(self, actor: str) -> User:
        if self.service_account:
            namespace, _, name = self.service_account.partition("/")
            if not namespace or not name or "/" in name:
                raise ValueError(f"a ServiceAccount is NAMESPACE/NAME: {self.service_account!r}")
            account = service_account_user(namespace, name)
            return User(account.name, account.groups, actor=actor)
        groups = tuple(dict.fromkeys((*self.groups, AUTHENTICATED)))
        return User(self.user or actor, groups, actor=actor)


class TokenAuthenticator:
    """Bearer tokens the server issued, each for one user (``token/tokenfile``'s static tokens)."""

    def __init__(self) -> None:
        self._users: dict[str, User] = {}
        self._tokens: dict[tuple[str, str, tuple[str, ...]], str] = {}

    def issue(self, user: User) -> str:
        """The token for ``user``: issued once, the same one every time it is asked for again."""
        key = (user.actor, user.name, user.groups)
        token = self._tokens.get(key)
        if token is None:
            token = "fakeapi-" + secrets.token_urlsafe(24)
            self._tokens[key] = token
            self._users[token] = User(user.name, user.groups, uid=secrets.token_hex(8), actor=user.actor)
        return token

    def authenticate(self, token: str) -> User | None:
        return self._users.get(token)


class Authentication:
    """The chain a request goes through before it is handled (``filters.WithAuthentication``)."""

    def __init__(self, *, token_auth: bool, store: Store, authorizing: bool = False) -> None:
        self.token_auth = token_auth
        # Under RBAC an anonymous request goes on to the authorizer, which allows what the
        # ClusterRoleBindings of ``system:unauthenticated`` grant (``system:public-info-viewer`` on a
        # new cluster); with token checks but no authorizer, those public paths are all it may read.
        self.authorizing = authorizing
        self.store = store
        self.tokens = TokenAuthenticator()
        self.tokens.issue(_admin())

    def authenticate_token(self, token: str, audiences: Sequence[str] = ()) -> TokenUser | None:
        """The token authenticators in kube-apiserver's order, for a request's bearer token and for
        TokenReview: the tokens the server issued (its token file: good for the API's own audiences
        only, ``WrapAudienceAgnosticToken``), then ServiceAccount tokens. None: no authenticator
        knows the token. ``system:authenticated`` is not added here (the group adder does that)."""
        issued = self.tokens.authenticate(token)
        if issued is not None:
            wanted = list(audiences) or list(API_AUDIENCES)
            granted = tuple(audience for audience in API_AUDIENCES if audience in wanted)
            if not granted:
                return None
            return TokenUser(issued.name, issued.uid, issued.groups, issued.extra, granted)
        account = authenticate_service_account_token(self.store, token, audiences, self.store.clock.now())
        if account is not None or self.token_auth:
            return account
        # Without token checks every other token names a user in system:masters, as a request with
        # it is authenticated (authenticate below): TokenReview must say who the request says.
        return _named_by(token, audiences)

    def token_for(self, name: str, identity: Identity | None = None) -> str:
        """The bearer token that authenticates as ``name`` (the journal's actor), as ``identity`` if
        given. Without token checks and identity, the name itself: such a token names a user in
        ``system:masters``."""
        if identity is not None:
            return self.tokens.issue(identity.as_user(name))
        if not self.token_auth:
            return name
        if name == ADMIN:
            return self.tokens.issue(_admin())
        return self.tokens.issue(User(name, (AUTHENTICATED,), actor=name))

    def authenticate(
        self,
        headers: Mapping[str, str],
        info: RequestInfo,
        path: str,
        method: str,
        query: Mapping[str, str],
        certificate: bytes | None = None,
    ) -> User:
        """The user, or the APIError the apiserver answers (401 for a token it does not know, 403 for
        an anonymous request to anything but the public paths). ``certificate`` is the DER of a
        verified client certificate, which comes first, as the x509 authenticator does."""
        if certificate is not None:
            found = certificate_user(certificate)
            if found is not None:
                name, groups, extra = found
                return User(name, with_authenticated(groups), extra=extra, actor=name)
        token = _bearer_token(headers.get("Authorization", ""))
        issued = self.tokens.authenticate(token) if token is not None else None
        if issued is not None:
            return issued
        if token is not None and token.count(".") == 2:
            account = authenticate_service_account_token(self.store, token, (), self.store.clock.now())
            if account is not None:
                if not account.authenticated:
                    raise APIError("Unauthorized", reason="Unauthorized", code=401)
                groups = with_authenticated(account.groups)
                return User(account.name, groups, account.uid, account.extra, actor=account.name)
        if not self.token_auth:
            return ANONYMOUS if token is None else User(token, (MASTERS, AUTHENTICATED))
        if token is None:
            if self.authorizing or (path in _PUBLIC_PATHS and method == "GET"):
                return ANONYMOUS
            raise forbidden(ANONYMOUS, info, path, method, query)
        raise APIError("Unauthorized", reason="Unauthorized", code=401)


def _named_by(token: str, audiences: Sequence[str]) -> TokenUser | None:
    """The user a token names without token checks, good for the API's audiences as a static token is."""
    wanted = list(audiences) or list(API_AUDIENCES)
    granted = tuple(audience for audience in API_AUDIENCES if audience in wanted)
    return TokenUser(token, groups=(MASTERS,), audiences=granted) if granted else None


def _admin() -> User:
    return User(ADMIN, (MASTERS, AUTHENTICATED), actor=ADMIN)


def _bearer_token(authorization: str) -> str | None:
    """``bearertoken.AuthenticateRequest``: the token of a ``Bearer`` header, None for no usable one."""
    parts = authorization.strip().split(" ", 2)
    if len(parts) < 2 or parts[0].lower() != "bearer":
        return None
    return parts[1] or None


def request_attributes(user: User, info: RequestInfo, method: str, path: str, query: Mapping[str, str]) -> Attributes:
    """``GetAuthorizerAttributes`` of one request."""
    if not info.is_resource_request:
        return Attributes.for_path(user.info(), method.lower(), path)
    name = info.name
    if info.verb in ("list", "watch") and not name and query.get("fieldSelector"):
        try:
            name = parse_field_selector(query["fieldSelector"]).required_value("metadata.name") or ""
        except SelectorError:
            name = ""
    return Attributes.for_resource(
        user.info(),
        info.verb,
        info.resource,
        api_group=info.group,
        api_version=info.version,
        namespace=info.namespace,
        name=name,
        subresource=info.subresource,
    )


def forbidden(user: User, info: RequestInfo, path: str, method: str, query: Mapping[str, str]) -> APIError:
    """``responsewriters.Forbidden`` for a request RBAC gave no reason to refuse (docs/rbac.md)."""
    return forbidden_error(request_attributes(user, info, method, path, query))
