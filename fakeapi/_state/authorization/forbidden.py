"""The 403 a request the authorizer did not allow gets, as the apiserver writes it (docs/rbac.md).

Reproduces k8s.io/apiserver ``pkg/endpoints/handlers/responsewriters/errors.go``
(``ForbiddenStatusError``, ``forbiddenMessage``), called from ``pkg/endpoints/filters/authorization.go``
with the union authorizer's reason:

- ``User "<user>" cannot <verb> resource "<resource>[/<subresource>]" in API group "<group>" in the
  namespace "<ns>"`` for a request in a namespace, ``... at the cluster scope`` for one without,
  and ``User "<user>" cannot <verb> path "<path>"`` for a non-resource request; quoted as Go's
  ``%q`` quotes, then ``&``, ``<`` and ``>`` written as HTML entities;
- followed by ``: <reason>`` when the authorizer gave one (RBAC gives one only when it could not
  find a bound role);
- wrapped by apimachinery's ``NewForbidden`` with the request's group and resource: ``<resource>.<group>
  "<name>" is forbidden: ...``, or ``<resource> is forbidden: ...`` without a name, or
  ``forbidden: ...`` for a non-resource request; reason ``Forbidden``, code 403, ``details`` with
  the name, the group and, under ``kind``, the resource (the plural, not the Kind); a non-resource
  request's details are ``{}``.
"""

from __future__ import annotations

from fakeapi._state.authorization.attributes import Attributes
from fakeapi._state.authorization.goformat import quote
from fakeapi.errors import APIError, GroupResource

__all__ = ["forbidden_error", "forbidden_message"]


def _sanitize(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def forbidden_message(attributes: Attributes) -> str:
    """``forbiddenMessage``, sanitized as ``ForbiddenStatusError`` sanitizes it."""
    user = quote(attributes.user.name)
    if not attributes.resource_request:
        return _sanitize(f"User {user} cannot {attributes.verb} path {quote(attributes.path)}")
    head = f"User {user} cannot {attributes.verb} resource {quote(attributes.combined_resource)}"
    head += f" in API group {quote(attributes.api_group)}"
    if attributes.namespace:
        return _sanitize(f"{head} in the namespace {quote(attributes.namespace)}")
    return _sanitize(f"{head} at the cluster scope")


def forbidden_error(attributes: Attributes, reason: str = "") -> APIError:
    """``ForbiddenStatusError``: the 403 for a request that was not allowed, with the authorizer's reason."""
    message = forbidden_message(attributes)
    problem = f"{message}: {reason}" if reason else message
    group_resource = GroupResource(attributes.api_group, attributes.resource)
    return APIError.forbidden(group_resource, attributes.name, problem)
