"""``serviceaccounts/token``: a TokenRequest answered with a token for the service account (docs/subresources.md).

Reproduces ``pkg/registry/core/serviceaccount/storage/token.go`` (``TokenREST.Create``) at 1.32, in its
order (docs/authentication.md):

* a ``metadata.name`` or ``metadata.namespace`` in the body must match the URL (422, named after
  the URL's service account);
* the service account must exist (its 404);
* ``SetDefaults_TokenRequestSpec`` and ``ValidateTokenRequest``: no expiration means 3600 seconds,
  less than 600 or more than 2^32 is invalid, reported with an empty name as ``TokenREST`` does
  (``TokenRequest.authentication.k8s.io "" is invalid``); no audiences means the server's own;
* a token may be bound to a Pod (of that service account), a Secret or, with
  ``ServiceAccountTokenNodeBinding`` (beta, on, since 1.31), a Node; the object must exist and match
  the uid given. A token bound to a Pod that is scheduled also names the Pod's node
  (``ServiceAccountTokenPodNodeInfo``, beta since 1.30), without a uid when no such Node exists;
* with ``--service-account-extend-token-expiration`` (on by default), a pod-bound token for the
  server's own audiences asked for exactly 3607 seconds (the kubelet's projected-token request) is
  valid for a year and carries a ``warnafter`` claim at the requested expiry.

The answer carries the request's metadata with the service account's name and namespace and a
``creationTimestamp`` of now; the token itself comes from :func:`fakeapi._state.tokens.issue_token`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.clock import format_timestamp
from fakeapi._state.objects import metadata_of
from fakeapi._state.token_authentication import API_AUDIENCES
from fakeapi._state.tokens import ISSUER, issue_token
from fakeapi._state.validation import field
from fakeapi.errors import APIError, GroupResource

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = ["request_token"]

DEFAULT_EXPIRATION_SECONDS = 3600
# ``token.WarnOnlyBoundTokenExpirationSeconds`` and ``token.ExpirationExtensionSeconds``.
_WARN_ONLY_EXPIRATION_SECONDS = 60 * 60 + 7
_EXTENDED_EXPIRATION_SECONDS = 24 * 365 * 60 * 60
_TOKEN_REQUEST = GroupResource("authentication.k8s.io", "TokenRequest")
_BOUND_PLURALS = {"Pod": "pods", "Secret": "secrets", "Node": "nodes"}


def request_token(store: Store, namespace: str, name: str, request: dict[str, Any]) -> dict[str, Any]:
    """The TokenRequest as the apiserver answers it, keys in Go struct order."""
    metadata = metadata_of(request)
    if metadata.get("name") and metadata["name"] != name:
        error = field.invalid("metadata.name", metadata["name"], "must match the service account name if specified")
        raise APIError.invalid(_TOKEN_REQUEST, name, field.causes([error]))
    if metadata.get("namespace") and metadata["namespace"] != namespace:
        error = field.invalid(
            "metadata.namespace", metadata["namespace"], "must match the service account namespace if specified"
        )
        raise APIError.invalid(_TOKEN_REQUEST, name, field.causes([error]))
    accounts = store.registry.resolve("", "v1", "serviceaccounts")
    assert accounts is not None
    account = store.get(accounts, namespace, name)
    spec: dict[str, Any] = request["spec"] if isinstance(request.get("spec"), dict) else {}
    expiration = spec.get("expirationSeconds")
    expiration = DEFAULT_EXPIRATION_SECONDS if expiration is None else expiration
    audiences = list(spec.get("audiences") or []) or [ISSUER]
    now = int(store.clock.now())
    errors = []
    if expiration < 600:
        errors.append(
            field.invalid("spec.expirationSeconds", expiration, "may not specify a duration less than 10 minutes")
        )
    if expiration > 1 << 32:
        errors.append(
            field.invalid("spec.expirationSeconds", expiration, "may not specify a duration larger than 2^32 seconds")
        )
    if errors:
        raise APIError.invalid(_TOKEN_REQUEST, "", field.causes(errors))
    bound_ref = spec.get("boundObjectRef") if isinstance(spec.get("boundObjectRef"), dict) else None
    bound = _bound_objects(store, namespace, name, bound_ref) if bound_ref is not None else {}
    lifetime, warn_after = expiration, None
    if "pod" in bound and expiration == _WARN_ONLY_EXPIRATION_SECONDS and set(audiences) <= set(API_AUDIENCES):
        lifetime, warn_after = _EXTENDED_EXPIRATION_SECONDS, now + expiration
    issued = issue_token(
        store.signing_key,
        namespace=namespace,
        name=name,
        uid=metadata_of(account).get("uid", ""),
        audiences=audiences,
        issued_at=now,
        expiration_seconds=lifetime,
        token_id=store.new_uid(),
        bound=bound,
        warn_after=warn_after,
    )
    answered_metadata = {**metadata, "name": name, "namespace": namespace, "creationTimestamp": format_timestamp(now)}
    return {
        "kind": "TokenRequest",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": answered_metadata,
        "spec": {"audiences": audiences, "expirationSeconds": expiration, "boundObjectRef": bound_ref},
        "status": {"token": issued.token, "expirationTimestamp": format_timestamp(now + expiration)},
    }


def _bound_objects(store: Store, namespace: str, name: str, ref: dict[str, Any]) -> dict[str, dict[str, str]]:
    """The objects the token names in its ``kubernetes.io`` claim, by claim name."""
    kind = ref.get("kind", "")
    group, _, version = str(ref.get("apiVersion", "")).rpartition("/")
    plural = _BOUND_PLURALS.get(kind) if group == "" else None
    if plural is None:
        raise APIError.bad_request(f"cannot bind token to object of type {group}/{version}, Kind={kind}")
    rtype = store.registry.resolve("", "v1", plural)
    assert rtype is not None
    target = store.get(rtype, namespace if rtype.namespaced else "", ref.get("name", ""))
    uid = metadata_of(target).get("uid", "")
    bound = {kind.lower(): {"name": str(ref.get("name", "")), "uid": uid}}
    if kind == "Pod":
        if (target.get("spec") or {}).get("serviceAccountName") != name:
            raise APIError.bad_request(
                f'cannot bind token for serviceaccount "{name}" to pod running with different serviceaccount name.'
            )
        node_name = (target.get("spec") or {}).get("nodeName")
        if node_name:
            nodes = store.registry.resolve("", "v1", "nodes")
            assert nodes is not None
            node = store.find(nodes, "", node_name)
            node_uid = metadata_of(node).get("uid", "") if node is not None else ""
            bound["node"] = {"name": node_name, "uid": node_uid}
    if ref.get("uid") and ref["uid"] != uid:
        raise APIError.conflict(
            GroupResource("", kind),
            ref.get("name", ""),
            f"the UID in the bound object reference ({ref['uid']}) does not match the UID in record. "
            "The object might have been deleted and then recreated",
        )
    return bound
