"""The decision kube-apiserver reaches with ``--authorization-mode=RBAC`` (docs/rbac.md).

kube-apiserver puts a privileged-group authorizer ahead of the configured modes (kubernetes
``pkg/kubeapiserver/authorizer/reload.go``, ``newForConfig``): a member of ``system:masters`` is
allowed everything, with no reason and without RBAC being asked (k8s.io/apiserver
``pkg/authorization/authorizerfactory/builtin.go``). Then the RBAC authorizer (kubernetes
``plugin/pkg/auth/authorizer/rbac/rbac.go``, ``Authorize``) visits the rules that apply and stops at
the first one that allows: the reason is ``RBAC: allowed by <binding>``. When none does, it has no
opinion, and its reason is empty, or ``RBAC: <the resolution errors>`` when some binding's role
could not be found. The union of the two (``pkg/authorization/union/union.go``, release-1.34)
returns the first Allow, else no opinion with the non-empty reasons joined by newlines; neither
ever denies outright nor returns an error, so a review's ``denied`` and ``evaluationError`` stay
empty.
"""

from __future__ import annotations

from dataclasses import dataclass

from fakeapi._state.authorization.attributes import PRIVILEGED_GROUP, Attributes
from fakeapi._state.authorization.goformat import aggregate_text
from fakeapi._state.authorization.resolving import Grant, visit_rules
from fakeapi._state.authorization.rules import rule_allows
from fakeapi._state.authorization.sources import RBACSource

__all__ = ["Decision", "authorize", "authorize_rbac"]


@dataclass(frozen=True)
class Decision:
    """An authorizer's answer: allowed or not (no opinion), and its reason."""

    allowed: bool
    reason: str = ""


def authorize_rbac(source: RBACSource, attributes: Attributes) -> Decision:
    """The RBAC authorizer alone."""
    errors: list[str] = []
    for item in visit_rules(source, attributes.user, attributes.namespace):
        if isinstance(item, Grant):
            if rule_allows(attributes, item.rule):
                return Decision(True, f"RBAC: allowed by {item.source}")
        else:
            errors.append(item.message)
    return Decision(False, f"RBAC: {aggregate_text(errors)}" if errors else "")


def authorize(source: RBACSource, attributes: Attributes) -> Decision:
    """The whole chain: ``system:masters`` first, then RBAC."""
    if attributes.user.in_group(PRIVILEGED_GROUP):
        return Decision(True)
    return authorize_rbac(source, attributes)
