"""Which webhooks a write calls: rules, selectors, match policy (``pkg/admission/plugin/webhook/predicates``).

Reproduced from k8s.io/apiserver 1.32 (docs/admission.md):

* ``predicates/rules/rules.go`` ``Matcher.Matches``: scope, operations, apiGroups, apiVersions and
  resources (``*``, ``pods/*``, ``*/status``, a subresource only when named) must all match;
* ``predicates/namespace/matcher.go``: a cluster-scoped object other than a Namespace matches any
  namespace selector; a Namespace's create or update is matched on its own new labels, everything
  else on the labels of its namespace as stored;
* ``predicates/object/matcher.go``: an object selector matches the new or the old object's labels,
  and an empty one matches everything (a delete's mutating call has neither, so a non-empty object
  selector never matches it);
* ``generic/webhook.go`` ``ShouldCallHook``: under ``matchPolicy: Equivalent`` a rule that misses the
  request's resource is tried on the same resource at its other served versions, and the webhook is
  then called with that version's resource and kind; core/v1 and events.k8s.io/v1 Events, stored
  together, are equivalent too, and the object is converted for the version matched (docs/events.md);
* ``ShouldCallHook`` then evaluates the webhook's ``matchConditions`` (:mod:`.match_conditions`);
* ``rules.IsExemptAdmissionConfigurationResource``: writes of webhook configurations and admission
  policies never call webhooks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakeapi._state.admission.attributes import CREATE, UPDATE, Attributes
from fakeapi._state.admission.authorizer_binding import Decide, always_allow
from fakeapi._state.admission.match_conditions import match_conditions_hold
from fakeapi._state.conversion.events import EVENT_CONVERSION, EventConversion
from fakeapi._state.label_selectors import requirements_match
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType
from fakeapi._state.storeview import StoreView
from fakeapi._state.typed import go_structs
from fakeapi.errors import APIError, GroupResource

__all__ = ["Invocation", "at_version", "exempt", "should_call"]

_EXEMPT_KINDS = frozenset(
    {
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    }
)
_NAMESPACES = GroupResource("", "namespaces")


@dataclass(frozen=True)
class Invocation:
    """``WebhookInvocation``: the webhook, and the resource and kind it is called with."""

    webhook: dict[str, Any]
    rtype: ResourceType
    kind: tuple[str, str, str]

    def versioned(self, obj: dict[str, Any] | None, attributes: Attributes) -> dict[str, Any] | None:
        """The object at the version the webhook matched (custom resources convert by apiVersion only)."""
        if obj is None or attributes.kind is not None:
            return obj
        return at_version(self.rtype, attributes.rtype, obj)


def at_version(target: ResourceType, source: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """``obj``, an object of ``source``, at ``target``'s version: an Event converted between its two
    shapes, anything else given the target's apiVersion."""
    api_version = target.api_version
    if obj.get("apiVersion") == api_version:
        return obj
    if _event_shapes(target, source):
        return EVENT_CONVERSION.convert(go_structs(), obj, api_version)
    return {**obj, "apiVersion": api_version}


def _event_shapes(one: ResourceType, other: ResourceType) -> bool:
    return isinstance(one.conversion, EventConversion) or isinstance(other.conversion, EventConversion)


def exempt(attributes: Attributes) -> bool:
    group, _, kind = attributes.group_version_kind
    return group == "admissionregistration.k8s.io" and kind in _EXEMPT_KINDS


def _exact_or_wildcard(items: Any, requested: str) -> bool:
    return isinstance(items, list) and any(item == "*" or item == requested for item in items)


def _rule_matches(rule: Mapping[str, Any], attributes: Attributes, rtype: ResourceType) -> bool:
    scope = rule.get("scope") or "*"
    is_namespace = (rtype.group, rtype.version, rtype.plural) == ("", "v1", "namespaces")
    if scope == "Namespaced" and (is_namespace or not attributes.namespace):
        return False
    if scope == "Cluster" and not (is_namespace or not attributes.namespace):
        return False
    if scope not in ("*", "Namespaced", "Cluster"):
        return False
    operations = rule.get("operations")
    if not _exact_or_wildcard(operations, attributes.operation):
        return False
    if not _exact_or_wildcard(rule.get("apiGroups"), rtype.group):
        return False
    if not _exact_or_wildcard(rule.get("apiVersions"), rtype.version):
        return False
    for resource in rule.get("resources") or []:
        if not isinstance(resource, str):
            continue
        name, _, sub = resource.partition("/")
        if (name == "*" or name == rtype.plural) and (sub == "*" or sub == attributes.subresource):
            return True
    return False


def _selector_matches(selector: Any, labels: Mapping[str, Any]) -> bool:
    if not isinstance(selector, dict):
        return True
    return requirements_match(selector.get("matchLabels") or {}, selector.get("matchExpressions") or [], labels)


def _selector_empty(selector: Any) -> bool:
    return not isinstance(selector, dict) or (not selector.get("matchLabels") and not selector.get("matchExpressions"))


def _labels(obj: dict[str, Any] | None) -> dict[str, Any]:
    labels = metadata_of(obj).get("labels") if obj is not None else None
    return labels if isinstance(labels, dict) else {}


def _namespace_matches(store: StoreView, webhook: Mapping[str, Any], attributes: Attributes) -> bool:
    """``MatchNamespaceSelector``; a namespace that is not there is its NotFound, as upstream."""
    rtype = attributes.rtype
    if not attributes.namespace and rtype.plural != "namespaces":
        return True
    selector = webhook.get("namespaceSelector")
    if _selector_empty(selector):
        return True
    if rtype.plural == "namespaces" and not attributes.subresource and attributes.operation in (CREATE, UPDATE):
        return _selector_matches(selector, _labels(attributes.object))
    namespace = store.find(store.registry.namespaces, "", attributes.namespace)
    if namespace is None:
        raise APIError.not_found(_NAMESPACES, attributes.namespace)
    return _selector_matches(selector, _labels(namespace))


def _object_matches(webhook: Mapping[str, Any], attributes: Attributes) -> bool:
    selector = webhook.get("objectSelector")
    if _selector_empty(selector):
        return True
    return any(
        obj is not None and _selector_matches(selector, _labels(obj))
        for obj in (attributes.object, attributes.old_object)
    )


def _equivalents(store: StoreView, rtype: ResourceType) -> list[ResourceType]:
    """``EquivalentResourcesFor``: the same custom resource at its other served versions, and the
    resource an Event is stored with (the registry keys equivalence by storage prefix)."""
    if not rtype.custom:
        return [
            other
            for other in store.registry.all_types()
            if not other.custom
            and other.storage_key == rtype.storage_key
            and other is not rtype
            and _event_shapes(rtype, other)
        ]
    if not rtype.crd_name:
        return []
    return [other for other in store.registry.custom_types_of(rtype.crd_name) if other.version != rtype.version]


def should_call(
    store: StoreView, webhook: Mapping[str, Any], attributes: Attributes, decide: Decide = always_allow
) -> Invocation | None:
    """``ShouldCallHook``: the invocation, None when the webhook does not apply, or the selector's error;
    ``decide`` is the server's authorizer, which ``matchConditions`` may ask."""
    namespace_error: APIError | None = None
    try:
        if not _namespace_matches(store, webhook, attributes):
            return None
    except APIError as error:
        namespace_error = error
    if not _object_matches(webhook, attributes):
        return None
    rules = [rule for rule in webhook.get("rules") or [] if isinstance(rule, dict)]
    rtype = attributes.rtype
    invocation = None
    for rule in rules:
        if _rule_matches(rule, attributes, rtype):
            invocation = Invocation(dict(webhook), rtype, attributes.group_version_kind)
            break
    if invocation is None and (webhook.get("matchPolicy") or "Equivalent") == "Equivalent":
        for rule in rules:
            equivalent = next(
                (other for other in _equivalents(store, rtype) if _rule_matches(rule, attributes, other)), None
            )
            if equivalent is not None:
                kind = (equivalent.group, equivalent.version, equivalent.kind)
                invocation = Invocation(dict(webhook), equivalent, kind)
                break
    if invocation is None:
        return None
    if namespace_error is not None:
        raise namespace_error
    if webhook.get("matchConditions") and not match_conditions_hold(webhook, invocation, attributes, decide):
        return None
    return invocation
