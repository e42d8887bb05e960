"""Service account tokens: what ``serviceaccounts/token`` (TokenRequest) issues, in one place.

The apiserver issues a JWT signed with its service-account key (``pkg/serviceaccount/jwt.go``,
``claims.go``): the claims ``aud``, ``exp``, ``iat``, ``iss``, ``jti``, ``kubernetes.io`` (the
namespace, the service account's name and uid, and the pod or secret it is bound to) and ``nbf``,
``sub`` ``system:serviceaccount:<namespace>:<name>``. fakeapi issues the same claims, signed with
HMAC-SHA256 under a key the server holds (``HS256``; the apiserver's own key is RSA), so that the
server can tell its own tokens from any other string: :func:`verify_token` is the other half, for
whatever authenticates requests. Clients read tokens without verifying them, so they see the
apiserver's shape.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

__all__ = ["ISSUER", "IssuedToken", "issue_token", "verify_token"]

ISSUER = "https://kubernetes.default.svc.cluster.local"


@dataclass(frozen=True)
class IssuedToken:
    token: str
    expires_at: int


def _segment(value: dict[str, Any]) -> str:
    raw = json.dumps(value, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def issue_token(
    key: bytes,
    *,
    namespace: str,
    name: str,
    uid: str,
    audiences: list[str],
    issued_at: int,
    expiration_seconds: int,
    token_id: str,
    bound: dict[str, str] | None = None,
) -> IssuedToken:
    """A token for the service account ``namespace/name``, valid from ``issued_at`` (Unix seconds)."""
    private: dict[str, Any] = {"namespace": namespace}
    if bound is not None:
        private[bound["kind"].lower()] = {"name": bound["name"], "uid": bound["uid"]}
    private["serviceaccount"] = {"name": name, "uid": uid}
    expires_at = issued_at + expiration_seconds
    claims = {
        "aud": audiences,
        "exp": expires_at,
        "iat": issued_at,
        "iss": ISSUER,
        "jti": token_id,
        "kubernetes.io": private,
        "nbf": issued_at,
        "sub": f"system:serviceaccount:{namespace}:{name}",
    }
    signing_input = _segment({"alg": "HS256", "typ": "JWT"}) + "." + _segment(claims)
    signature = hmac.new(key, signing_input.encode("ascii"), hashlib.sha256).digest()
    token = signing_input + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode("ascii")
    return IssuedToken(token, expires_at)


def verify_token(key: bytes, token: str, *, now: int) -> dict[str, Any] | None:
    """The claims of a token this server issued and that has not expired; None for anything else."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    expected = hmac.new(key, f"{parts[0]}.{parts[1]}".encode("ascii", "replace"), hashlib.sha256).digest()
    try:
        signature = base64.urlsafe_b64decode(parts[2] + "=" * (-len(parts[2]) % 4))
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except ValueError:
        return None
    if not hmac.compare_digest(signature, expected) or not isinstance(claims, dict):
        return None
    if not isinstance(claims.get("exp"), int) or claims["exp"] <= now or claims.get("nbf", 0) > now:
        return None
    return claims
