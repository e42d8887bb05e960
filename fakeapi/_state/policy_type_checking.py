"""The ValidatingAdmissionPolicy status controller: ``status.typeChecking`` and ``status.observedGeneration``.

kube-controller-manager 1.32 runs ``pkg/controller/validatingadmissionpolicystatus`` (``reconcile``): for a
policy whose ``metadata.generation`` is above its ``status.observedGeneration``, it type-checks the policy
(k8s.io/apiserver ``pkg/admission/plugin/policy/validating/typechecking.go``, ``TypeChecker.Check``) and
server-side applies, to the status subresource with force, as the field manager
``validatingadmissionpolicy-status``, ``status: {observedGeneration: <generation>, typeChecking:
{expressionWarnings: [...]}}`` (``typeChecking: {}`` when there is no warning).

``Check``: the kinds to check are those of ``matchConstraints.resourceRules`` (``typesToCheck``): a rule with
a wildcard group or version is skipped, wildcard and subresource resources are left out, each
group/version/resource (sorted) is resolved to its kind by the REST mapper, at most 10 per rule; the kinds are
sorted by group, version and kind, and those whose schema is not found (:mod:`.policy_schemas`) are dropped.
Each validation's ``expression``, then its ``messageExpression`` if any, is compiled against each kind, with
``object``/``oldObject`` of the kind's type and ``params`` of the param kind's (undeclared when its schema is
not found), after the policy's variables (:func:`fakeapi._cel.policy_expressions.type_check`). An expression
with issues gets the warning ``spec.validations[<i>].expression`` (or ``.messageExpression``): for each kind
with issues ``<group>/<version>, Kind=<kind>: <cel-go issues>`` and a line break, joined by line breaks.

Upstream the controller works from an informer, after the write that changed the generation has returned;
here it runs inside that write, as the other emulated controllers do (:mod:`.controllers`), so the status
write is the next event a watcher sees. docs/admission-policies.md.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from fakeapi._state import field_ownership
from fakeapi._state.admission.policies import parse_group_version
from fakeapi._state.objects import metadata_of
from fakeapi._state.policy_schemas import resolve_schema
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._cel.policy_expressions import SchemaType
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.storeview import StoreView

__all__ = ["FIELD_MANAGER", "reconcile_policy_status", "type_check_policy"]

FIELD_MANAGER = "validatingadmissionpolicy-status"
_MAX_TYPES_TO_CHECK = 10

GVK = tuple[str, str, str]


def _texts(values: Any) -> list[str]:
    return [value for value in values if isinstance(value, str)] if isinstance(values, list) else []


def _kinds_for(store: StoreView, group: str, version: str, resource: str) -> list[GVK]:
    """``RESTMapper.KindsFor`` of a fully given resource: the kind served under that plural (or singular)."""
    wanted = resource.lower()
    return [
        (rtype.group, rtype.version, rtype.kind)
        for rtype in store.registry.types_in(group, version)
        if wanted in (rtype.plural, rtype.singular)
    ]


def types_to_check(store: StoreView, spec: dict[str, Any]) -> list[GVK]:
    """``typesToCheck``: the kinds the rules name without wildcards, sorted by group, version and kind."""
    constraints = spec.get("matchConstraints")
    rules = constraints.get("resourceRules") if isinstance(constraints, dict) else None
    found: set[GVK] = set()
    for rule in rules if isinstance(rules, list) else ():
        if not isinstance(rule, dict):
            continue
        groups, versions = _texts(rule.get("apiGroups")), _texts(rule.get("apiVersions"))
        if any("*" in group for group in groups) or any("*" in version for version in versions):
            continue
        resources = [resource for resource in _texts(rule.get("resources")) if not set(resource) & {"*", "/"}]
        count = 0
        for group in sorted(groups):
            for version in sorted(versions):
                for resource in sorted(resources):
                    for gvk in _kinds_for(store, group, version, resource):
                        found.add(gvk)
                        count += 1
                        if count == _MAX_TYPES_TO_CHECK:
                            return sorted(found)
    return sorted(found)


@functools.lru_cache(maxsize=64)
def _builtin_type(kube_version: str, gvk: GVK) -> SchemaType | None:
    return _schema_type(resolve_schema((), kube_version, gvk))


def _schema_type(schema: dict[str, Any] | None) -> SchemaType | None:
    if schema is None:
        return None
    from fakeapi._cel.policy_expressions import schema_type

    return schema_type(schema)


def _declared_type(store: StoreView, gvk: GVK) -> SchemaType | None:
    """``TypeChecker.declType``: the kind's type, None when its schema is not found."""
    kube_version = store.registry.kube_version
    builtin = _builtin_type(kube_version, gvk)
    if builtin is not None:
        return builtin
    return _schema_type(resolve_schema(store.registry.all_types(), kube_version, gvk))


def _param_type(store: StoreView, spec: dict[str, Any]) -> SchemaType | None:
    param_kind = spec.get("paramKind")
    if not isinstance(param_kind, dict):
        return None
    api_version, kind = param_kind.get("apiVersion"), param_kind.get("kind")
    group_version = parse_group_version(api_version if isinstance(api_version, str) else "")
    if group_version is None:
        return None
    return _declared_type(store, (*group_version, kind if isinstance(kind, str) else ""))


def _items(spec: dict[str, Any], key: str) -> list[dict[str, Any]]:
    found = spec.get(key)
    return [item if isinstance(item, dict) else {} for item in found] if isinstance(found, list) else []


def _text(item: dict[str, Any], key: str) -> str:
    value = item.get(key)
    return value if isinstance(value, str) else ""


def type_check_policy(store: StoreView, policy: dict[str, Any]) -> list[dict[str, str]]:
    """``TypeChecker.Check``: the policy's expression warnings, as ``status.typeChecking.expressionWarnings``."""
    spec = policy.get("spec")
    if not isinstance(spec, dict):
        return []
    kinds = [(gvk, typed) for gvk in types_to_check(store, spec) if (typed := _declared_type(store, gvk)) is not None]
    if not kinds:
        return []
    from fakeapi._cel.policy_expressions import type_check

    params = _param_type(store, spec)
    variables = [(_text(item, "name"), _text(item, "expression")) for item in _items(spec, "variables")]
    checked: list[tuple[str, str]] = []
    for index, validation in enumerate(_items(spec, "validations")):
        checked.append((f"spec.validations[{index}].expression", _text(validation, "expression")))
        if _text(validation, "messageExpression"):
            checked.append((f"spec.validations[{index}].messageExpression", _text(validation, "messageExpression")))
    expressions = [expression for _, expression in checked]
    per_kind = [(gvk, type_check(expressions, variables, typed, params)) for gvk, typed in kinds]
    warnings: list[dict[str, str]] = []
    for position, (field_ref, _) in enumerate(checked):
        results = [
            f"{group}/{version}, Kind={kind}: {issues[position]}\n"
            for (group, version, kind), issues in per_kind
            if issues[position]
        ]
        if results:
            warnings.append({"fieldRef": field_ref, "warning": "\n".join(results)})
    return warnings


def reconcile_policy_status(store: StoreView, rtype: ResourceType, policy: dict[str, Any]) -> None:
    """``Controller.reconcile``: when the generation is above the observed one, apply the type-checking status."""
    meta = metadata_of(policy)
    generation = meta.get("generation") or 0
    status = policy.get("status") if isinstance(policy.get("status"), dict) else {}
    observed = status.get("observedGeneration") if isinstance(status, dict) else None
    if not isinstance(generation, int) or generation <= (observed if isinstance(observed, int) else 0):
        return
    warnings = type_check_policy(store, policy)
    applied = {
        "kind": rtype.kind,
        "apiVersion": rtype.api_version,
        "metadata": {"name": meta.get("name", "")},
        "status": {
            "observedGeneration": generation,
            "typeChecking": {"expressionWarnings": warnings} if warnings else {},
        },
    }

    def apply(current: dict[str, Any]) -> dict[str, Any]:
        return field_ownership.merge_applied(
            current,
            applied,
            atom=field_ownership.kind_atom(rtype),
            manager=FIELD_MANAGER,
            api_version=rtype.api_version,
            force=True,
            now=store.clock.timestamp(),
            status_is_subresource=True,
            subresource="status",
        )

    try:
        store.update(
            rtype,
            "",
            str(meta.get("name", "")),
            apply,
            subresource="status",
            manager=FIELD_MANAGER,
            unconditional=True,
            track_fields=False,
        )
    except APIError:
        # The controller's failed apply is retried later upstream and never fails the policy's own write.
        return
