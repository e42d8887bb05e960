"""ServiceAccount tokens checked as the apiserver checks them, for requests and TokenReview (docs/authentication.md).

kubernetes ``pkg/serviceaccount/jwt.go`` (``jwtTokenAuthenticator.AuthenticateToken``) and
``claims.go`` (``validator.Validate``), in their order: a token whose unverified ``iss`` is not the
server's is another authenticator's business; then the signature under the key its ``kid`` names
(``invalid signature, no keys found`` for another key; go-jose's ``error in cryptographic
primitive`` for a bad signature); the audiences (the token's, intersected with those asked for,
the API's own by default); the times (``service account token has expired``, ``... is not valid
yet``); the ServiceAccount still there with the uid the token names, and the Secret, Pod or Node
it is bound to (a pod-bound token's node is only read, never looked up). The user is
``system:serviceaccount:NS:NAME`` with the account's uid, the groups ``system:serviceaccounts`` and
``system:serviceaccounts:NS``, and as extra the credential id (``JTI=<jti>``), for a token bound to
a Pod the pod's name and uid, and the node's name (and uid, when known) for a token that names one
(``k8s.io/apiserver/pkg/authentication/serviceaccount/util.go``, ``ServiceAccountInfo.UserInfo``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fakeapi._state.authorization import service_account_groups, service_account_username
from fakeapi._state.objects import metadata_of
from fakeapi._state.tokens import ISSUER, signature_verifies, token_claims, token_header

if TYPE_CHECKING:
    from fakeapi._state.storeview import StoreView

__all__ = ["API_AUDIENCES", "TokenUser", "authenticate_service_account_token"]

API_AUDIENCES = (ISSUER,)
"""``--api-audiences``: by default the issuer, as kube-apiserver defaults it."""

_EXTRA = "authentication.kubernetes.io/"
_CRYPTO_FAILURE = "go-jose/go-jose: error in cryptographic primitive"
_INVALIDATED = "service account token has been invalidated"


@dataclass(frozen=True)
class TokenUser:
    """What a token authenticator answers: a user with the audiences it is good for, or the error
    that refused it (a user with no name and no error: the token is not this authenticator's)."""

    name: str = ""
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    audiences: tuple[str, ...] = ()
    error: str = ""

    @property
    def authenticated(self) -> bool:
        return bool(self.name)


def authenticate_service_account_token(
    store: StoreView, token: str, audiences: Sequence[str], now: float
) -> TokenUser | None:
    """The user a ServiceAccount token of this server authenticates as, a refusal with its reason, or
    None for a token that is not one of this issuer's."""
    claims = token_claims(token)
    if claims is None or claims.get("iss") != ISSUER:
        return None
    if token_header(token).get("kid", store.signing_key.key_id) != store.signing_key.key_id:
        return TokenUser(error="invalid signature, no keys found")
    if not signature_verifies(store.signing_key, token):
        return TokenUser(error=_CRYPTO_FAILURE)
    given = claims.get("aud")
    token_audiences = [given] if isinstance(given, str) else [a for a in given or [] if isinstance(a, str)]
    token_audiences = token_audiences or list(API_AUDIENCES)
    wanted = list(audiences) or list(API_AUDIENCES)
    granted = tuple(audience for audience in token_audiences if audience in wanted)
    if not granted:
        return TokenUser(
            error=f"token audiences {_go_quoted(token_audiences)} is invalid for the target audiences "
            f"{_go_quoted(wanted)}"
        )
    expired = _time_error(claims, now)
    if expired:
        return TokenUser(error=expired)
    return _account_user(store, claims, granted)


def _time_error(claims: Mapping[str, Any], now: float) -> str:
    """``jwt.Claims.Validate`` with go-jose's default leeway of one minute."""
    leeway = 60
    expiry, not_before = claims.get("exp"), claims.get("nbf")
    if isinstance(not_before, (int, float)) and now + leeway < not_before:
        return "service account token is not valid yet"
    if isinstance(expiry, (int, float)) and now - leeway > expiry:
        return "service account token has expired"
    return ""


def _account_user(store: StoreView, claims: Mapping[str, Any], audiences: tuple[str, ...]) -> TokenUser:
    private = claims.get("kubernetes.io") if isinstance(claims.get("kubernetes.io"), dict) else {}
    assert isinstance(private, dict)
    namespace = str(private.get("namespace", ""))
    account_ref = private.get("serviceaccount") if isinstance(private.get("serviceaccount"), dict) else {}
    assert isinstance(account_ref, dict)
    name, uid = str(account_ref.get("name", "")), str(account_ref.get("uid", ""))
    account = _find(store, "serviceaccounts", namespace, name)
    if account is None:
        return TokenUser(error=f'serviceaccounts "{name}" not found')
    if metadata_of(account).get("uid", "") != uid:
        return TokenUser(
            error=f"service account UID ({metadata_of(account).get('uid', '')}) does not match claim ({uid})"
        )
    extra: dict[str, tuple[str, ...]] = {}
    for kind, plural in (("secret", "secrets"), ("pod", "pods")):
        reference = private.get(kind)
        if not isinstance(reference, dict):
            continue
        bound = _find(store, plural, namespace, str(reference.get("name", "")))
        if bound is None:
            return TokenUser(error=_INVALIDATED)
        bound_uid = metadata_of(bound).get("uid", "")
        if bound_uid != reference.get("uid"):
            label = "secret UID" if kind == "secret" else "pod UID"
            claim = "service account secret ref claim" if kind == "secret" else "service account pod ref claim"
            return TokenUser(error=f"{label} ({bound_uid}) does not match {claim} ({reference.get('uid')})")
        if kind == "pod":
            extra[_EXTRA + "pod-name"] = (str(reference.get("name", "")),)
            extra[_EXTRA + "pod-uid"] = (str(bound_uid),)
    node_ref = private.get("node")
    if isinstance(node_ref, dict):
        node_name, node_uid = str(node_ref.get("name", "")), str(node_ref.get("uid", ""))
        if not isinstance(private.get("pod"), dict):
            node = _find(store, "nodes", "", node_name)
            if node is None:
                return TokenUser(error=_INVALIDATED)
            if metadata_of(node).get("uid", "") != node_uid:
                return TokenUser(
                    error=f"node UID ({metadata_of(node).get('uid', '')}) does not match service account node ref "
                    f"claim ({node_uid})"
                )
        if node_name:
            extra[_EXTRA + "node-name"] = (node_name,)
            if node_uid:
                extra[_EXTRA + "node-uid"] = (node_uid,)
    if isinstance(claims.get("jti"), str) and claims["jti"]:
        extra[_EXTRA + "credential-id"] = ("JTI=" + claims["jti"],)
    return TokenUser(
        name=service_account_username(namespace, name),
        uid=uid,
        groups=service_account_groups(namespace),
        extra=dict(sorted(extra.items())),
        audiences=audiences,
    )


def _find(store: StoreView, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
    rtype = store.registry.resolve("", "v1", plural)
    return None if rtype is None or not name else store.find(rtype, namespace, name)


def _go_quoted(values: Sequence[str]) -> str:
    """``%q`` of a string slice: ``["a" "b"]``."""
    return "[" + " ".join('"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' for value in values) + "]"
