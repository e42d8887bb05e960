"""The server's authorizer as admission's CEL expressions see it (docs/cel-authorizer.md).

k8s.io/apiserver gives an admission plugin the apiserver's own authorizer (``SetAuthorizer``, the same chain
requests are authorized by), and ``cel/condition.go`` (``ForInput``) binds ``authorizer`` to it for the
request's user (``NewAuthorizerVal``) and ``authorizer.requestResource`` to the request's resource,
subresource, namespace and name (``NewResourceAuthorizerVal``). A ``check`` is then exactly the question a
SubjectAccessReview asks for that user: here :class:`Decide`, the server's mode (``AlwaysAllow``, or
``system:masters`` then RBAC), answers it. Those authorizers read only the user's name and groups, and never
read selectors, so ``fieldSelector`` and ``labelSelector`` change no decision, and never fail, so a decision
never has an error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from fakeapi._state.admission.attributes import Attributes
from fakeapi._state.authorization import Attributes as AuthorizerAttributes
from fakeapi._state.authorization import Decision, UserInfo

if TYPE_CHECKING:
    from fakeapi._cel.authorizer_library import AuthorizationCheck, AuthorizationDecision, AuthorizerBinding

__all__ = ["Decide", "always_allow", "authorizer_binding"]

Decide = Callable[[AuthorizerAttributes], Decision]
_ALLOWED = Decision(True)


def always_allow(attributes: AuthorizerAttributes) -> Decision:
    """``--authorization-mode=AlwaysAllow``: every check allowed, with no reason."""
    return _ALLOWED


def _attributes(check: AuthorizationCheck) -> AuthorizerAttributes:
    """The ``AttributesRecord`` a check fills: a resource check at API version ``*``."""
    user = UserInfo(check.username, check.groups)
    if not check.resource_request:
        return AuthorizerAttributes.for_path(user, check.verb, check.path)
    return AuthorizerAttributes.for_resource(
        user,
        check.verb,
        check.resource,
        api_group=check.group,
        api_version="*",
        namespace=check.namespace,
        name=check.name,
        subresource=check.subresource,
    )


def authorizer_binding(decide: Decide, attributes: Attributes) -> AuthorizerBinding:
    """``authorizer`` and ``authorizer.requestResource`` for one write, checks answered by ``decide``."""
    # Imported here: a server whose admission uses no CEL never loads the CEL runtime.
    from fakeapi._cel.authorizer_library import AuthorizationDecision, RequestResource, bind_authorizer

    def authorize(check: AuthorizationCheck) -> AuthorizationDecision:
        decision = decide(_attributes(check))
        return AuthorizationDecision(decision.allowed, decision.reason)

    request_resource = RequestResource(
        attributes.rtype.group, attributes.rtype.plural, attributes.subresource, attributes.namespace, attributes.name
    )
    return bind_authorizer(attributes.user.username, attributes.user.groups, authorize, request_resource)
