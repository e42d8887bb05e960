"""What the access and rules reviews answer, from the same rules requests are held to (docs/rbac.md).

Reproduces kubernetes ``pkg/registry/authorization/{subjectaccessreview,selfsubjectaccessreview,
selfsubjectrulesreview}/rest.go`` and ``pkg/registry/authorization/util/helpers.go``; each function
returns the review's ``status``, with keys in the Go type's order, for a spec that has passed
validation (a LocalSubjectAccessReview's status is a SubjectAccessReview's):

- an access review asks the whole authorizer chain about the attributes its spec names, a version
  left empty asking about ``*``: ``allowed``, then ``reason`` when there is one. ``denied`` and an
  authorizer error never occur with RBAC, so ``evaluationError`` only ever says that a field or label
  selector was ignored (in full or in part) because it could not be read, as ``BuildEvaluationError``
  writes it; RBAC itself never reads selectors;
- a SubjectAccessReview asks about ``spec.user`` and ``spec.groups`` exactly as given (nothing adds
  ``system:authenticated``); a SelfSubjectAccessReview about the requester;
- a rules review lists what RBAC grants the requester in ``spec.namespace`` (the RBAC authorizer's
  ``RulesFor``): each rule naming resources as a resource rule, each naming URLs as a non-resource
  rule, ``incomplete`` false, and the roles it could not find as ``evaluationError``. Only RBAC
  resolves rules, not the ``system:masters`` authorizer, so a master without a binding sees none.
  Without a namespace the review is a 400 ``no namespace on request``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._state.authorization.attributes import Attributes, UserInfo
from fakeapi._state.authorization.authorizer import authorize
from fakeapi._state.authorization.goformat import aggregate_text
from fakeapi._state.authorization.resolving import rules_for
from fakeapi._state.authorization.sources import RBACSource
from fakeapi._state.selectors import SelectorError, parse_field_selector, parse_label_selector
from fakeapi.errors import APIError

__all__ = [
    "access_review_attributes",
    "self_subject_access_review_status",
    "self_subject_rules_review_status",
    "subject_access_review_status",
]

_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def access_review_attributes(user: UserInfo, spec: Mapping[str, Any]) -> Attributes:
    """``ResourceAttributesFrom`` or ``NonResourceAttributesFrom``, whichever the spec carries."""
    resource = spec.get("resourceAttributes")
    if isinstance(resource, dict):
        return Attributes.for_resource(
            user,
            _text(resource.get("verb")),
            _text(resource.get("resource")),
            api_group=_text(resource.get("group")),
            api_version=_text(resource.get("version")) or "*",
            namespace=_text(resource.get("namespace")),
            name=_text(resource.get("name")),
            subresource=_text(resource.get("subresource")),
        )
    path = _mapping(spec.get("nonResourceAttributes"))
    return Attributes.for_path(user, _text(path.get("verb")), _text(path.get("path")))


def _raw_selector_unreadable(raw: str, *, label: bool) -> bool:
    try:
        if label:
            parse_label_selector(raw)
        else:
            parse_field_selector(raw)
    except SelectorError:
        return True
    return False


def _field_requirement_readable(requirement: Any) -> bool:
    """``fieldSelectorAsSelector`` keeps only In and NotIn with one value."""
    requirement = _mapping(requirement)
    values = requirement.get("values")
    return requirement.get("operator") in ("In", "NotIn") and isinstance(values, list) and len(values) == 1


def _selector_note(selector: Any, field: str) -> str:
    """The note for one selector: "" when it was read whole."""
    selector = _mapping(selector)
    requirements = selector.get("requirements")
    raw = _text(selector.get("rawSelector"))
    if isinstance(requirements, list) and requirements:
        if field == "labelSelector":
            kept = [r for r in requirements if _mapping(r).get("operator") in _LABEL_OPERATORS]
        else:
            kept = [r for r in requirements if _field_requirement_readable(r)]
        if len(kept) == len(requirements):
            return ""
        extent = "partially ignored" if kept else "ignored"
    elif raw and _raw_selector_unreadable(raw, label=field == "labelSelector"):
        extent = "ignored"
    else:
        return ""
    return f"spec.resourceAttributes.{field} {extent} due to parse error"


def _evaluation_error(spec: Mapping[str, Any]) -> str:
    """``BuildEvaluationError`` without an authorizer error: what became of the selectors."""
    resource = spec.get("resourceAttributes")
    if not isinstance(resource, dict):
        return ""
    notes = [_selector_note(resource.get(field), field) for field in ("fieldSelector", "labelSelector")]
    return "; ".join(note for note in notes if note)


def _access_status(source: RBACSource, user: UserInfo, spec: Mapping[str, Any]) -> dict[str, Any]:
    decision = authorize(source, access_review_attributes(user, spec))
    status: dict[str, Any] = {"allowed": decision.allowed}
    if decision.reason:
        status["reason"] = decision.reason
    if evaluation_error := _evaluation_error(spec):
        status["evaluationError"] = evaluation_error
    return status


def subject_access_review_status(source: RBACSource, spec: Mapping[str, Any]) -> dict[str, Any]:
    """A SubjectAccessReview's (or LocalSubjectAccessReview's) status for its validated ``spec``."""
    groups = spec.get("groups")
    user = UserInfo(
        _text(spec.get("user")), tuple(g for g in groups if isinstance(g, str)) if isinstance(groups, list) else ()
    )
    return _access_status(source, user, spec)


def self_subject_access_review_status(source: RBACSource, user: UserInfo, spec: Mapping[str, Any]) -> dict[str, Any]:
    """A SelfSubjectAccessReview's status: the requester ``user`` asks about ``spec``."""
    return _access_status(source, user, spec)


def self_subject_rules_review_status(source: RBACSource, user: UserInfo, spec: Mapping[str, Any]) -> dict[str, Any]:
    """A SelfSubjectRulesReview's status; raises the 400 for a spec without a namespace."""
    namespace = _text(spec.get("namespace"))
    if not namespace:
        raise APIError.bad_request("no namespace on request")
    rules, errors = rules_for(source, user, namespace)
    resource_rules = []
    non_resource_rules = []
    for rule in rules:
        if rule.resources:
            resource_rule: dict[str, Any] = {"verbs": list(rule.verbs)}
            for key, values in (
                ("apiGroups", rule.api_groups),
                ("resources", rule.resources),
                ("resourceNames", rule.resource_names),
            ):
                if values:
                    resource_rule[key] = list(values)
            resource_rules.append(resource_rule)
        if rule.non_resource_urls:
            non_resource_rules.append({"verbs": list(rule.verbs), "nonResourceURLs": list(rule.non_resource_urls)})
    status: dict[str, Any] = {
        "resourceRules": resource_rules,
        "nonResourceRules": non_resource_rules,
        "incomplete": False,
    }
    if errors:
        status["evaluationError"] = aggregate_text(errors)
    return status
