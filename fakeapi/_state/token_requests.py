"""``serviceaccounts/token``: a TokenRequest answered with a token for the service account (docs/subresources.md).

Reproduces ``pkg/registry/core/serviceaccount/storage/token.go`` (``TokenREST.Create``) with the
defaulting of ``SetDefaults_TokenRequestSpec`` and ``ValidateTokenRequest``: no expiration means
3600 seconds, less than 600 or more than 2^32 is invalid, no audiences means the server's own
(its issuer), and a token bound to a Pod or a Secret needs that object to exist (and to match the
uid given). The token itself comes from :func:`fakeapi._state.tokens.issue_token`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.clock import format_timestamp
from fakeapi._state.objects import metadata_of
from fakeapi._state.tokens import ISSUER, issue_token
from fakeapi.errors import APIError, Cause, GroupResource

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = ["request_token"]

DEFAULT_EXPIRATION_SECONDS = 3600
_TOKEN_REQUEST = GroupResource("authentication.k8s.io", "TokenRequest")


def request_token(store: Store, namespace: str, name: str, request: dict[str, Any]) -> dict[str, Any]:
    """The TokenRequest as the apiserver answers it, keys in Go struct order."""
    accounts = store.registry.resolve("", "v1", "serviceaccounts")
    assert accounts is not None
    account = store.get(accounts, namespace, name)
    spec: dict[str, Any] = request["spec"] if isinstance(request.get("spec"), dict) else {}
    expiration = spec.get("expirationSeconds")
    expiration = DEFAULT_EXPIRATION_SECONDS if expiration is None else expiration
    causes = []
    if expiration < 600:
        causes.append(_invalid_expiration(expiration, "may not specify a duration less than 10 minutes"))
    if expiration > 1 << 32:
        causes.append(_invalid_expiration(expiration, "may not specify a duration larger than 2^32 seconds"))
    if causes:
        raise APIError.invalid(_TOKEN_REQUEST, name, causes)
    audiences = list(spec.get("audiences") or []) or [ISSUER]
    bound_ref = spec.get("boundObjectRef") if isinstance(spec.get("boundObjectRef"), dict) else None
    bound = _bound_object(store, namespace, name, bound_ref) if bound_ref is not None else None
    now = int(store.clock.now())
    issued = issue_token(
        store.signing_key,
        namespace=namespace,
        name=name,
        uid=metadata_of(account).get("uid", ""),
        audiences=audiences,
        issued_at=now,
        expiration_seconds=expiration,
        token_id=store.new_uid(),
        bound=bound,
    )
    metadata = {**metadata_of(request), "name": name, "namespace": namespace, "creationTimestamp": None}

    return {
        "kind": "TokenRequest",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": metadata,
        "spec": {"audiences": audiences, "expirationSeconds": expiration, "boundObjectRef": bound_ref},
        "status": {"token": issued.token, "expirationTimestamp": format_timestamp(issued.expires_at)},
    }


def _invalid_expiration(value: int, detail: str) -> Cause:
    return Cause("FieldValueInvalid", f"Invalid value: {value}: {detail}", "spec.expirationSeconds")


def _bound_object(store: Store, namespace: str, name: str, ref: dict[str, Any]) -> dict[str, str]:
    kind = ref.get("kind", "")
    api_version = ref.get("apiVersion", "")
    group, _, version = api_version.rpartition("/")
    plural = {"Pod": "pods", "Secret": "secrets"}.get(kind) if group == "" else None
    if plural is None:
        raise APIError.bad_request(f"cannot bind token to object of type {group}/{version}, Kind={kind}")
    rtype = store.registry.resolve("", "v1", plural)
    assert rtype is not None
    target = store.get(rtype, namespace, ref.get("name", ""))
    if kind == "Pod" and (target.get("spec") or {}).get("serviceAccountName") != name:
        raise APIError.bad_request(
            f'cannot bind token for serviceaccount "{name}" to pod running with different serviceaccount name.'
        )
    uid = metadata_of(target).get("uid", "")
    if ref.get("uid") and ref["uid"] != uid:
        raise APIError.conflict(
            GroupResource("", kind),
            ref.get("name", ""),
            f"the UID in the bound object reference ({ref['uid']}) does not match the UID in record. "
            "The object might have been deleted and then recreated",
        )
    return {"kind": kind, "name": ref.get("name", ""), "uid": uid}
