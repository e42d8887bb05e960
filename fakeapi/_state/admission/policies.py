"""The ValidatingAdmissionPolicies in force, compiled: ``policy/generic/policy_source.go`` and ``validating/plugin.go``.

``calculatePolicyData``: the bindings are grouped by ``spec.policyName``; a binding whose policy does not exist
is skipped; a policy whose ``paramKind.apiVersion`` does not parse is left out; a ``paramKind`` the server does
not serve is the policy's configuration error ``failed to find resource referenced by paramKind:
'<group>/<version>, Kind=<kind>'``. Upstream walks the policies and bindings in Go map order (no fixed order);
here they are taken in name order, one of the orders upstream may take.

``compilePolicy``: variables first, each compiled with those before it (``CompileAndStoreVariables``), then the
matchConditions (bool), the validations (bool), the auditAnnotations (string or null) and the messageExpressions
(string, without ``authorizer``) (docs/admission-policies.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType
from fakeapi._state.storeview import StoreView

if TYPE_CHECKING:
    from fakeapi._cel.policy_expressions import CompiledExpression

__all__ = ["BINDINGS", "POLICIES", "CompiledPolicy", "PolicyHook", "compile_policy", "param_type", "policy_hooks"]

POLICIES = "validatingadmissionpolicies"
BINDINGS = "validatingadmissionpolicybindings"
_GROUP = "admissionregistration.k8s.io"


@dataclass(frozen=True)
class Validation:
    spec: dict[str, Any]
    expression: CompiledExpression
    message: CompiledExpression | None


@dataclass(frozen=True)
class CompiledPolicy:
    """A policy and its compiled expressions (``Validator``)."""

    name: str
    spec: dict[str, Any]
    variables: tuple[tuple[str, CompiledExpression], ...]
    match_conditions: tuple[CompiledExpression, ...]
    validations: tuple[Validation, ...]
    audit_annotations: tuple[CompiledExpression, ...]

    @property
    def failure_policy(self) -> str:
        return str(self.spec.get("failurePolicy") or "Fail")

    @property
    def param_kind(self) -> dict[str, Any] | None:
        kind = self.spec.get("paramKind")
        return kind if isinstance(kind, dict) else None


@dataclass(frozen=True)
class PolicyHook:
    """``PolicyHook``: a policy, its bindings, its param type and its configuration error."""

    policy: CompiledPolicy
    bindings: tuple[dict[str, Any], ...]
    param_type: ResourceType | None
    configuration_error: str


def _items(spec: dict[str, Any], key: str) -> list[dict[str, Any]]:
    items = spec.get(key)
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _text(item: dict[str, Any], key: str) -> str:
    value = item.get(key)
    return value if isinstance(value, str) else ""


def compile_policy(policy: dict[str, Any]) -> CompiledPolicy:
    """``compilePolicy``: every expression of the policy, against the composition environment."""
    # Imported here: a server without policies never loads the CEL runtime.
    from fakeapi._cel.policy_expressions import BOOL, STRING, STRING_OR_NULL, compile_expression

    spec = policy.get("spec") if isinstance(policy.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    has_params = isinstance(spec.get("paramKind"), dict)
    declared: list[tuple[str, str]] = []
    variables: list[tuple[str, CompiledExpression]] = []
    for variable in _items(spec, "variables"):
        name = _text(variable, "name")
        compiled = compile_expression(_text(variable, "expression"), has_params, tuple(declared), None)
        variables.append((name, compiled))
        declared.append((name, compiled.output if compiled.program is not None else "DYN"))
    known = tuple(declared)

    def compiled_as(expression: str, returns: tuple[str, ...]) -> CompiledExpression:
        return compile_expression(expression, has_params, known, returns)

    validations = tuple(
        Validation(
            item,
            compiled_as(_text(item, "expression"), BOOL),
            compiled_as(_text(item, "messageExpression"), STRING) if _text(item, "messageExpression") else None,
        )
        for item in _items(spec, "validations")
    )
    return CompiledPolicy(
        str(metadata_of(policy).get("name") or ""),
        spec,
        tuple(variables),
        tuple(compiled_as(_text(item, "expression"), BOOL) for item in _items(spec, "matchConditions")),
        validations,
        tuple(compiled_as(_text(item, "valueExpression"), STRING_OR_NULL) for item in _items(spec, "auditAnnotations")),
    )


def parse_group_version(api_version: str) -> tuple[str, str] | None:
    """``schema.ParseGroupVersion``: None when it does not parse."""
    if not api_version or api_version == "/":
        return ("", "")
    parts = api_version.split("/")
    if len(parts) == 1:
        return ("", parts[0])
    if len(parts) == 2:
        return (parts[0], parts[1])
    return None


def param_type(store: StoreView, param_kind: dict[str, Any]) -> ResourceType | str | None:
    """The served resource of a ``paramKind``, its configuration error, or None when the apiVersion does not parse."""
    group_version = parse_group_version(_text(param_kind, "apiVersion"))
    if group_version is None:
        return None
    group, version = group_version
    kind = _text(param_kind, "kind")
    for rtype in store.registry.types_in(group, version):
        if rtype.kind == kind:
            return rtype
    return f"failed to find resource referenced by paramKind: '{group}/{version}, Kind={kind}'"


def policy_hooks(store: StoreView, compiled: dict[tuple[str, str], CompiledPolicy]) -> list[PolicyHook]:
    """The policies that have bindings, with them; ``compiled`` keeps each policy compiled by resourceVersion."""
    policy_type = store.registry.resolve(_GROUP, "v1", POLICIES)
    binding_type = store.registry.resolve(_GROUP, "v1", BINDINGS)
    if policy_type is None or binding_type is None:
        return []
    bindings: dict[str, list[dict[str, Any]]] = {}
    for binding in sorted(store.bucket(binding_type).values(), key=lambda obj: str(metadata_of(obj).get("name"))):
        spec = binding.get("spec") if isinstance(binding.get("spec"), dict) else {}
        assert isinstance(spec, dict)
        bindings.setdefault(_text(spec, "policyName"), []).append(binding)
    hooks: list[PolicyHook] = []
    used: set[tuple[str, str]] = set()
    for policy_name in sorted(bindings):
        policy = store.find(policy_type, "", policy_name)
        if policy is None:
            continue
        key = (policy_name, str(metadata_of(policy).get("resourceVersion") or ""))
        if key not in compiled:
            compiled[key] = compile_policy(policy)
        used.add(key)
        current = compiled[key]
        resolved: ResourceType | str | None = None
        if current.param_kind is not None:
            resolved = param_type(store, current.param_kind)
            if resolved is None:
                continue
        hooks.append(
            PolicyHook(
                current,
                tuple(bindings[policy_name]),
                resolved if isinstance(resolved, ResourceType) else None,
                resolved if isinstance(resolved, str) else "",
            )
        )
    for stale in set(compiled) - used:
        del compiled[stale]
    return hooks
