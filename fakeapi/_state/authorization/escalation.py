"""Escalation prevention: nobody grants through RBAC what they do not hold (docs/rbac.md).

Reproduces kubernetes ``pkg/registry/rbac/escalation_check.go`` and the policy-based storage of
each RBAC kind (``pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased/storage.go``),
which run before the object is validated or stored:

- a member of ``system:masters`` may write anything;
- a Role or ClusterRole may be written by whoever may ``escalate`` it (the request's group,
  resource, namespace and name; a create has no name yet), or else whoever already holds every
  rule it contains, in the request's namespace (cluster-wide only, for a ClusterRole). A ClusterRole
  with an ``aggregationRule`` (or losing one) also needs ``*`` on everything, since it can gather
  anything; its refusal reads ``must have cluster-admin privileges to use the aggregationRule``;
- a RoleBinding or ClusterRoleBinding may be written by whoever may ``bind`` the role it refers to
  (``roles`` or ``clusterroles`` in the roleRef's group, named by it, in the binding's namespace),
  or else whoever holds every rule of that role. A role that cannot be found is the storage's
  404 (or 400 for a name it cannot look up); a roleRef kind other than Role or ClusterRole is a
  500 ``unsupported role reference kind``;
- an update that changes nothing but ``ownerReferences`` and ``finalizers`` (what the garbage
  collector does) is not checked.

The refusal is a 403 on the object: ``<resource>.rbac.authorization.k8s.io "<name>" is forbidden:
user "<user>" (groups=["g1" "g2"]) is attempting to grant RBAC permissions not currently
held:`` and then each missing rule as ``CompactString`` writes it, one per line, sorted, followed by
``; resolution errors: [...]`` when some role bound to the user could not be read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fakeapi._state.authorization.aggregation import has_aggregation_rule
from fakeapi._state.authorization.attributes import PRIVILEGED_GROUP, Attributes, UserInfo
from fakeapi._state.authorization.authorizer import authorize
from fakeapi._state.authorization.covering import compact_rules, uncovered_rules
from fakeapi._state.authorization.goformat import aggregate_text, error_slice_text, quote, quote_list
from fakeapi._state.authorization.resolving import RBAC_GROUP, RoleLookup, role_reference_rules, rules_for
from fakeapi._state.authorization.rules import ALL, PolicyRule
from fakeapi._state.authorization.sources import RBACSource
from fakeapi.errors import APIError, GroupResource

__all__ = ["confirm_binding_write", "confirm_no_escalation", "confirm_role_write"]

_FULL_AUTHORITY = (PolicyRule((ALL,), (ALL,), (ALL,)), PolicyRule((ALL,), non_resource_urls=(ALL,)))
_ROLE_RESOURCES = ("roles", "clusterroles")
_AGGREGATION_REFUSAL = "must have cluster-admin privileges to use the aggregationRule"


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _name(obj: Mapping[str, Any]) -> str:
    name = _metadata(obj).get("name", "")
    return name if isinstance(name, str) else ""


def confirm_no_escalation(source: RBACSource, user: UserInfo, namespace: str, rules: Sequence[PolicyRule]) -> str:
    """``ConfirmNoEscalation``: "" when ``user`` holds every rule in ``namespace``, else why not."""
    owner_rules, errors = rules_for(source, user, namespace, RoleLookup.STORAGE)
    missing = uncovered_rules(owner_rules, rules)
    if not missing:
        return ""
    descriptions = sorted({rule.compact_string() for rule in compact_rules(missing)})
    message = (
        f"user {quote(user.name)} (groups={quote_list(user.groups)}) is attempting to grant RBAC permissions"
        " not currently held:\n" + "\n".join(descriptions)
    )
    if errors:
        message += f"; resolution errors: {error_slice_text([aggregate_text(errors)])}"
    return message


def _semantic(value: Any) -> Any:
    """A typed object as Go's semantic equality sees it: a nil and an empty list or map are alike.

    Both sides come from the same typed encoding, so a zero scalar is present on both or on neither.
    """
    if isinstance(value, dict):
        return {key: _semantic(item) for key, item in value.items() if item is not None and item != [] and item != {}}
    if isinstance(value, list):
        return [_semantic(item) for item in value]
    return value


def _only_gc_fields_change(new: Mapping[str, Any], old: Mapping[str, Any] | None) -> bool:
    """``IsOnlyMutatingGCFields``: the update leaves all but ownerReferences and finalizers alone."""
    if old is None:
        return False
    old_meta = _metadata(old)
    meta = {
        key: value for key, value in _metadata(new).items() if key not in ("ownerReferences", "finalizers", "selfLink")
    }
    meta.update({key: old_meta[key] for key in ("ownerReferences", "finalizers", "selfLink") if key in old_meta})
    return bool(_semantic({**new, "metadata": meta}) == _semantic(dict(old)))


def _escalate_authorized(source: RBACSource, request: Attributes) -> bool:
    """``RoleEscalationAuthorized``: may the requester ``escalate`` the role the request writes?"""
    if not request.resource_request or request.api_group != RBAC_GROUP or request.resource not in _ROLE_RESOURCES:
        return False
    escalate = Attributes.for_resource(
        request.user,
        "escalate",
        request.resource,
        api_group=request.api_group,
        api_version="*",
        namespace=request.namespace,
        name=request.name,
    )
    return authorize(source, escalate).allowed


def confirm_role_write(
    source: RBACSource, request: Attributes, role: Mapping[str, Any], old_role: Mapping[str, Any] | None = None
) -> None:
    """Raise the apiserver's 403 if ``request`` (a create, or an update from ``old_role``) escalates.

    ``request`` is the write's own attributes: its user, and ``roles`` or ``clusterroles`` with the
    request's namespace and name. ``role`` is the object as it is about to be stored.
    """
    user = request.user
    if user.in_group(PRIVILEGED_GROUP) or _escalate_authorized(source, request):
        return
    if _only_gc_fields_change(role, old_role):
        return
    group_resource = GroupResource(RBAC_GROUP, request.resource)
    refusal = confirm_no_escalation(source, user, request.namespace, PolicyRule.list_from(role.get("rules")))
    if refusal:
        raise APIError.forbidden(group_resource, _name(role), refusal)
    aggregating = has_aggregation_rule(role) or (old_role is not None and has_aggregation_rule(old_role))
    # An aggregationRule can gather anything, so setting or dropping one takes full authority.
    if request.resource == "clusterroles" and aggregating and confirm_no_escalation(source, user, "", _FULL_AUTHORITY):
        raise APIError.forbidden(group_resource, _name(role), _AGGREGATION_REFUSAL)


def _bind_authorized(source: RBACSource, user: UserInfo, role_ref: Mapping[str, Any], namespace: str) -> bool:
    """``BindingAuthorized``: may ``user`` ``bind`` the role ``role_ref`` names, in ``namespace``?"""
    resource = {"ClusterRole": "clusterroles", "Role": "roles"}.get(str(role_ref.get("kind")))
    if resource is None:
        return False
    group, name = role_ref.get("apiGroup"), role_ref.get("name")
    bind = Attributes.for_resource(
        user,
        "bind",
        resource,
        api_group=group if isinstance(group, str) else "",
        api_version="*",
        namespace=namespace,
        name=name if isinstance(name, str) else "",
    )
    return authorize(source, bind).allowed


def confirm_binding_write(
    source: RBACSource,
    request: Attributes,
    binding: Mapping[str, Any],
    old_binding: Mapping[str, Any] | None = None,
) -> None:
    """Raise what the apiserver answers if ``request`` writes a binding its user may not grant.

    ``request`` is the write's attributes (``rolebindings`` with its namespace, or
    ``clusterrolebindings``); ``binding`` the object about to be stored. Raises the 403 for an
    escalation, or the storage's error when the referenced role cannot be read.
    """
    user = request.user
    if user.in_group(PRIVILEGED_GROUP) or _only_gc_fields_change(binding, old_binding):
        return
    namespace = request.namespace if request.resource == "rolebindings" else ""
    ref = binding.get("roleRef")
    role_ref: Mapping[str, Any] = ref if isinstance(ref, dict) else {}
    if _bind_authorized(source, user, role_ref, namespace):
        return
    rules = role_reference_rules(source, role_ref, namespace, RoleLookup.STORAGE)
    refusal = confirm_no_escalation(source, user, namespace, rules)
    if refusal:
        raise APIError.forbidden(GroupResource(RBAC_GROUP, request.resource), _name(binding), refusal)
