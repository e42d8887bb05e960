"""Authorization of every request, as kube-apiserver's ``WithAuthorization`` filter does it (docs/rbac.md).

k8s.io/apiserver ``pkg/endpoints/filters/authorization.go``: after authentication and
impersonation the request's attributes (``GetAuthorizerAttributes``, from the RequestInfo) go to
the authorizer chain; anything but Allow is the 403 ``responsewriters.Forbidden`` writes, with the
authorizer's reason. The attributes follow ``pkg/endpoints/request/requestinfo.go``: a
non-resource request's verb is the lower-cased method; a list or watch whose ``fieldSelector``
requires ``metadata.name`` is authorized for that name.

Two modes, as ``--authorization-mode`` names them: ``AlwaysAllow`` (the default: nothing is
checked) and ``RBAC`` (``system:masters`` first, then the RBAC objects in the store).
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl

from multidict import MultiDict

from fakeapi._http.authentication import User, request_attributes
from fakeapi._http.requestinfo import parse_request_info
from fakeapi._state.authorization import Attributes, Decision, Observation, authorize
from fakeapi._state.journal import JournalEntry
from fakeapi._state.rbac_objects import StoredRBAC
from fakeapi._state.store import Store

__all__ = ["ALWAYS_ALLOW", "MODES", "RBAC", "Authorization", "journal_observations"]

ALWAYS_ALLOW = "AlwaysAllow"
RBAC = "RBAC"
MODES = (ALWAYS_ALLOW, RBAC)
_ALLOWED = Decision(True)


class Authorization:
    """The server's authorizer: ``AlwaysAllow`` or ``RBAC`` over the store."""

    def __init__(self, mode: str, store: Store) -> None:
        if mode not in MODES:
            raise ValueError(f"authorization mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self.source = StoredRBAC(store)

    @property
    def enforcing(self) -> bool:
        return self.mode == RBAC

    def decide(self, attributes: Attributes) -> Decision:
        return authorize(self.source, attributes) if self.enforcing else _ALLOWED


def journal_observations(entries: Iterable[JournalEntry], user: str) -> list[Observation]:
    """The requests the journal holds from ``user`` (the name they acted as), each with whether it was
    allowed: by the authorizer under RBAC, by the answer not being a 403 otherwise."""
    observations = []
    for entry in entries:
        if entry.user != user:
            continue
        query = MultiDict(parse_qsl(entry.query, keep_blank_values=True))
        info = parse_request_info(entry.method, entry.path, query)
        acting = User(entry.user, entry.groups)
        attributes = request_attributes(acting, info, entry.method, entry.path, query)
        allowed = entry.authorized if entry.authorized is not None else entry.status != 403
        observations.append(Observation(attributes, allowed))
    return observations
