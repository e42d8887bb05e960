"""Service account tokens: what ``serviceaccounts/token`` (TokenRequest) issues, in one place.

The apiserver issues a JWT signed with its service-account key (``pkg/serviceaccount/jwt.go``,
``claims.go``): the claims ``aud``, ``exp``, ``iat``, ``iss``, ``jti``, ``kubernetes.io`` (the
namespace, the service account's name and uid, the pod, secret or node it is bound to, and
``warnafter`` for an extended token) and ``nbf``,
``sub`` ``system:serviceaccount:<namespace>:<name>``, serialized as go-jose merges them (keys
sorted), under the header ``{"alg":"RS256","kid":...}``. fakeapi issues the same, signed with its
own key (:mod:`.signing_keys`), which it publishes as the apiserver does, so that a token can be
verified by anyone; :mod:`.token_authentication` is the server's own check, for authentication
and TokenReview (docs/authentication.md).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from fakeapi._state.signing_keys import SigningKey

__all__ = ["ISSUER", "IssuedToken", "issue_token", "signature_verifies", "token_claims", "token_header"]

ISSUER = "https://kubernetes.default.svc.cluster.local"


@dataclass(frozen=True)
class IssuedToken:
    token: str
    expires_at: int


def _segment(value: dict[str, Any]) -> str:
    raw = json.dumps(value, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def issue_token(
    key: SigningKey,
    *,
    namespace: str,
    name: str,
    uid: str,
    audiences: list[str],
    issued_at: int,
    expiration_seconds: int,
    token_id: str,
    bound: dict[str, dict[str, str]] | None = None,
    warn_after: int | None = None,
) -> IssuedToken:
    """A token for the service account ``namespace/name``, valid from ``issued_at`` (Unix seconds).

    ``bound`` names the objects the token is bound to by claim (``pod``, ``secret``, ``node``);
    ``ref``'s ``omitempty`` drops an empty uid (a pod's node that does not exist)."""
    private: dict[str, Any] = {"namespace": namespace, "serviceaccount": {"name": name, "uid": uid}}
    for claim, reference in (bound or {}).items():
        private[claim] = {key: value for key, value in reference.items() if value}
    if warn_after is not None:
        private["warnafter"] = warn_after
    expires_at = issued_at + expiration_seconds
    claims = {
        "aud": audiences,
        "exp": expires_at,
        "iat": issued_at,
        "iss": ISSUER,
        "jti": token_id,
        "kubernetes.io": dict(sorted(private.items())),
        "nbf": issued_at,
        "sub": f"system:serviceaccount:{namespace}:{name}",
    }
    signing_input = _segment({"alg": "RS256", "kid": key.key_id}) + "." + _segment(claims)
    signature = key.sign(signing_input.encode("ascii"))
    token = signing_input + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode("ascii")
    return IssuedToken(token, expires_at)


def token_claims(token: str) -> dict[str, Any] | None:
    """The claims of a compact JWS, unverified: what ``hasCorrectIssuer`` looks at before anything
    else (None for anything that is not three base64url parts around a JSON object)."""
    parts = token.split(".")
    if len(parts) != 3 or token.lstrip().startswith("{"):
        return None
    try:
        claims = json.loads(_decode(parts[1]))
    except ValueError:
        return None
    return claims if isinstance(claims, dict) else None


def token_header(token: str) -> dict[str, Any]:
    """The JOSE header of a compact JWS (empty when unreadable)."""
    try:
        header = json.loads(_decode(token.split(".", 1)[0]))
    except ValueError:
        return {}
    return header if isinstance(header, dict) else {}


def signature_verifies(key: SigningKey, token: str) -> bool:
    """Whether the token's header names this key and its signature is the key's."""
    head, payload, signature = token.split(".")
    try:
        header = json.loads(_decode(head))
        raw = _decode(signature)
    except ValueError:
        return False
    if not isinstance(header, dict) or header.get("alg") != "RS256" or header.get("kid", key.key_id) != key.key_id:
        return False
    return key.verifies(f"{head}.{payload}".encode("ascii", "replace"), raw)


def _decode(segment: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except (binascii.Error, ValueError) as error:
        raise ValueError(str(error)) from None
