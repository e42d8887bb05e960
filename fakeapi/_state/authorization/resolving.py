"""Which rules apply to a user in a namespace, and where each comes from (docs/rbac.md).

Reproduces kubernetes ``pkg/registry/rbac/validation/rule.go``: ``DefaultRuleResolver``'s
``VisitRulesFor`` and ``RulesFor``, ``GetRoleReferenceRules``, ``appliesTo`` and the describers
that name an allowing binding. Every ClusterRoleBinding is visited first, then, for a request in
a namespace, that namespace's RoleBindings. A binding applies when one of its subjects is:

- ``User`` with the user's name, ``Group`` with one of the user's groups (``system:authenticated``,
  ``system:serviceaccounts:<ns>`` and the rest are plain groups here);
- ``ServiceAccount`` with the user ``system:serviceaccount:<ns>:<name>``, where a subject without a
  namespace takes the RoleBinding's (and, in a ClusterRoleBinding, never applies).

Its ``roleRef`` is then read: a ``Role`` in the binding's namespace (so a RoleBinding to a
ClusterRole grants the ClusterRole's rules in that namespace only) or a ``ClusterRole``. A missing
role is an error beside the rules, never a failure: rules only add, so what was found still counts.
The authorizer looks roles up in its informer caches, whose not-found reads
``role.rbac.authorization.k8s.io "x" not found``; the escalation checks look them up in storage,
which answers ``roles.rbac.authorization.k8s.io "x" not found`` (404) and refuses a key it cannot
build (400); :class:`RoleLookup` says which.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from fakeapi._state.authorization.attributes import UserInfo, matches_service_account
from fakeapi._state.authorization.goformat import quote
from fakeapi._state.authorization.rules import PolicyRule
from fakeapi._state.authorization.sources import RBACSource
from fakeapi._state.authorization.subject_index import candidate_bindings
from fakeapi.errors import APIError, GroupResource

__all__ = ["Grant", "ResolutionError", "RoleLookup", "applies_to", "role_reference_rules", "rules_for", "visit_rules"]

RBAC_GROUP = "rbac.authorization.k8s.io"


class RoleLookup(enum.Enum):
    """Where a ``roleRef`` is looked up, which decides what a failed lookup says."""

    CACHE = "cache"
    STORAGE = "storage"


@dataclass(frozen=True)
class Grant:
    """One rule that applies, and the binding (and the subject of it) that grants it."""

    rule: PolicyRule
    binding: Mapping[str, Any]
    subject: Mapping[str, Any]
    cluster_wide: bool

    @property
    def source(self) -> str:
        """The describer's text: ``ClusterRoleBinding "b" of ClusterRole "r" to User "u"``."""
        meta = _metadata(self.binding)
        ref = _role_ref(self.binding)
        namespace = _text(meta.get("namespace"))
        name = _text(meta.get("name"))
        binding = (
            f"ClusterRoleBinding {quote(name)}" if self.cluster_wide else f"RoleBinding {quote(name + '/' + namespace)}"
        )
        role = f"{_text(ref.get('kind'))} {quote(_text(ref.get('name')))}"
        return f"{binding} of {role} to {_describe_subject(self.subject, '' if self.cluster_wide else namespace)}"


@dataclass(frozen=True)
class ResolutionError:
    """A binding whose role could not be read: its text joins the authorizer's reason."""

    message: str


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _role_ref(binding: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = binding.get("roleRef")
    return ref if isinstance(ref, dict) else {}


def _describe_subject(subject: Mapping[str, Any], binding_namespace: str) -> str:
    kind, name = _text(subject.get("kind")), _text(subject.get("name"))
    if kind == "ServiceAccount":
        return f"{kind} {quote(name + '/' + (_text(subject.get('namespace')) or binding_namespace))}"
    return f"{kind} {quote(name)}"


def _applies_to_user(user: UserInfo, subject: Mapping[str, Any], namespace: str) -> bool:
    kind, name = subject.get("kind"), _text(subject.get("name"))
    if kind == "User":
        return user.name == name
    if kind == "Group":
        return user.in_group(name)
    if kind == "ServiceAccount":
        service_account_namespace = _text(subject.get("namespace")) or namespace
        return bool(service_account_namespace) and matches_service_account(service_account_namespace, name, user.name)
    return False


def applies_to(user: UserInfo, subjects: Any, namespace: str) -> Mapping[str, Any] | None:
    """``appliesTo``: the first of a binding's subjects that is this user, or None."""
    for subject in subjects if isinstance(subjects, list) else []:
        if isinstance(subject, dict) and _applies_to_user(user, subject, namespace):
            return subject
    return None


def _storage_key_error(name: str, namespace: str | None) -> APIError | None:
    """What the generic store's key functions refuse before looking anything up."""
    if namespace is not None and not namespace:
        return APIError.bad_request("Namespace parameter required.")
    if not name:
        return APIError.bad_request("Name parameter required.")
    if name in (".", ".."):
        problems = [f"may not be '{name}'"]
    else:
        problems = [f"may not contain '{part}'" for part in ("/", "%") if part in name]
    return APIError.bad_request(f"Name parameter invalid: {quote(name)}: {';'.join(problems)}") if problems else None


def _not_found(kind: str, name: str, lookup: RoleLookup) -> APIError:
    # Listers name the resource by its singular, storage by its plural.
    resource = kind.lower() if lookup is RoleLookup.CACHE else kind.lower() + "s"
    return APIError.not_found(GroupResource(RBAC_GROUP, resource), name)


def role_reference_rules(
    source: RBACSource, role_ref: Mapping[str, Any], namespace: str, lookup: RoleLookup
) -> tuple[PolicyRule, ...]:
    """``GetRoleReferenceRules``: the rules a ``roleRef`` grants; raises the lookup's :class:`APIError`.

    ``namespace`` is the binding's, empty for a ClusterRoleBinding.
    """
    kind, name = _text(role_ref.get("kind")), _text(role_ref.get("name"))
    role: Mapping[str, Any] | None
    if kind == "Role":
        if lookup is RoleLookup.STORAGE and (error := _storage_key_error(name, namespace)):
            raise error
        role = source.role(namespace, name)
    elif kind == "ClusterRole":
        if lookup is RoleLookup.STORAGE and (error := _storage_key_error(name, None)):
            raise error
        role = source.cluster_role(name)
    else:
        raise APIError.internal(f"unsupported role reference kind: {quote(kind)}")
    if role is None:
        raise _not_found(kind, name, lookup)
    return PolicyRule.list_from(role.get("rules"))


def _visit_bindings(
    source: RBACSource, user: UserInfo, bindings: Any, namespace: str, lookup: RoleLookup
) -> Iterator[Grant | ResolutionError]:
    cluster_wide = not namespace
    for binding in candidate_bindings(list(bindings), namespace, user):
        subject = applies_to(user, binding.get("subjects"), namespace)
        if subject is None:
            continue
        try:
            rules = role_reference_rules(source, _role_ref(binding), namespace, lookup)
        except APIError as error:
            yield ResolutionError(error.message)
            continue
        for rule in rules:
            yield Grant(rule, binding, subject, cluster_wide)


def visit_rules(
    source: RBACSource, user: UserInfo, namespace: str, lookup: RoleLookup = RoleLookup.CACHE
) -> Iterator[Grant | ResolutionError]:
    """``VisitRulesFor``: every rule that applies, lazily, with the errors met on the way."""
    yield from _visit_bindings(source, user, source.cluster_role_bindings(), "", lookup)
    if namespace:
        yield from _visit_bindings(source, user, source.role_bindings(namespace), namespace, lookup)


def rules_for(
    source: RBACSource, user: UserInfo, namespace: str, lookup: RoleLookup = RoleLookup.CACHE
) -> tuple[list[PolicyRule], list[str]]:
    """``RulesFor``: all the rules that apply, and the text of each error met resolving them."""
    rules: list[PolicyRule] = []
    errors: list[str] = []
    for item in visit_rules(source, user, namespace, lookup):
        if isinstance(item, Grant):
            rules.append(item.rule)
        else:
            errors.append(item.message)
    return rules, errors
