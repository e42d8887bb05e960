"""Which policies and bindings a write is for, and their params (docs/admission-policies.md).

``policy/matching/matching.go`` (``Matches``), with the webhooks' predicates of :mod:`.matching`: the namespace
selector and the object selector first (their errors kept until the rules match), then ``excludeResourceRules``
(a match excludes), then ``resourceRules`` (none: everything matches), each rule as a webhook's rule plus its
``resourceNames``; under ``matchPolicy: Equivalent`` the rules are tried again on the resource's other served
versions, and the policy then sees the object at that version. A policy without ``matchConstraints`` is the
error ``policy contained no match constraints, a required field``; a binding without ``matchResources`` matches
(``generic/policy_matcher.go``).

``generic/policy_dispatcher.go`` (``CollectParams``): the params of a binding, read from the store, with its
errors word for word.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._state.admission.attributes import Attributes
from fakeapi._state.admission.matching import (
    _equivalents,
    _namespace_matches,
    _object_matches,
    _rule_matches,
)
from fakeapi._state.label_selectors import requirements_match
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType
from fakeapi._state.storeview import StoreView
from fakeapi.errors import APIError

__all__ = ["ConfigurationError", "Match", "collect_params", "matches"]

Match = tuple[ResourceType, tuple[str, str, str]]


class ConfigurationError(Exception):
    """A policy or binding that cannot be applied; ``str()`` is upstream's error text."""


def _named_rule_matches(rule: Mapping[str, Any], attributes: Attributes, rtype: ResourceType) -> bool:
    if not _rule_matches(rule, attributes, rtype):
        return False
    names = rule.get("resourceNames")
    return not names or attributes.name in names


def _rules_match(store: StoreView, rules: Any, policy: str, attributes: Attributes) -> Match | None:
    """``matchesResourceRules``: the resource and kind matched, or None."""
    named = [rule for rule in rules or [] if isinstance(rule, dict)]
    if any(_named_rule_matches(rule, attributes, attributes.rtype) for rule in named):
        return attributes.rtype, attributes.group_version_kind
    if policy != "Equivalent":
        return None
    for rule in named:
        for equivalent in _equivalents(store, attributes.rtype):
            if _named_rule_matches(rule, attributes, equivalent):
                return equivalent, (equivalent.group, equivalent.version, equivalent.kind)
    return None


def matches(store: StoreView, constraints: Mapping[str, Any], attributes: Attributes) -> Match | None:
    """``Matcher.Matches``: the matched resource and kind, None, or the error (:class:`ConfigurationError`)."""
    namespace_error: APIError | None = None
    try:
        if not _namespace_matches(store, constraints, attributes):
            return None
    except APIError as error:
        namespace_error = error
    if not _object_matches(constraints, attributes):
        return None
    policy = str(constraints.get("matchPolicy") or "Exact")
    if _rules_match(store, constraints.get("excludeResourceRules"), policy, attributes) is not None:
        return None
    if not constraints.get("resourceRules"):
        found: Match | None = (attributes.rtype, attributes.group_version_kind)
    else:
        found = _rules_match(store, constraints.get("resourceRules"), policy, attributes)
    if found is None:
        return None
    if namespace_error is not None:
        raise ConfigurationError(namespace_error.message)
    return found


def _selected(selector: Mapping[str, Any], obj: dict[str, Any]) -> bool:
    labels = metadata_of(obj).get("labels")
    return requirements_match(
        selector.get("matchLabels") or {},
        selector.get("matchExpressions") or [],
        labels if isinstance(labels, dict) else {},
    )


def _as_param(rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """The param as its informer lists it: at the paramKind's version, with apiVersion and kind."""
    return {**obj, "apiVersion": rtype.api_version, "kind": rtype.kind}


def collect_params(
    store: StoreView, param_kind: Any, rtype: ResourceType | None, param_ref: Any, namespace: str
) -> list[dict[str, Any] | None]:
    """``CollectParams``: the params to evaluate the policy with (None: no param), or its error."""
    if not isinstance(param_kind, dict) or not isinstance(param_ref, dict):
        return [None]
    if rtype is None:
        spelled = f"&ParamKind{{APIVersion:{param_kind.get('apiVersion') or ''},Kind:{param_kind.get('kind') or ''},}}"
        raise ConfigurationError(f"paramKind kind `{spelled}` not known")
    ref_namespace = str(param_ref.get("namespace") or "")
    lookup_namespace = ""
    if rtype.namespaced:
        lookup_namespace = ref_namespace or namespace
        if not lookup_namespace:
            raise ConfigurationError(
                "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
            )
    elif ref_namespace:
        raise ConfigurationError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
    name = str(param_ref.get("name") or "")
    selector = param_ref.get("selector")
    params: list[dict[str, Any] | None]
    if name:
        if selector is not None:
            raise ConfigurationError("paramRef.name and paramRef.selector are mutually exclusive")
        found = store.find(rtype, lookup_namespace, name)
        params = [_as_param(rtype, found)] if found is not None else []
    elif isinstance(selector, dict):
        params = [
            _as_param(rtype, obj)
            for obj in store.items(rtype, lookup_namespace if rtype.namespaced else None)
            if _selected(selector, obj)
        ]
    else:
        raise ConfigurationError("one of name or selector must be provided")
    if not params and param_ref.get("parameterNotFoundAction") == "Deny":
        raise ConfigurationError("no params found for policy binding with `Deny` parameterNotFoundAction")
    return params
