"""One write through the ValidatingAdmissionPolicies: ``policy/validating/dispatcher.go`` and ``validator.go``.

For each policy that matches, each binding that matches, each param (docs/admission-policies.md):

* ``Validate``: the policy's matchConditions (``namespaceObject`` null, ``request.resource`` the request's own);
  a false one skips the validations, errors under ``Fail`` are one deny decision (``[e1, e2]`` for several);
  then each validation: its error is a deny decision under ``Fail`` (ignored under ``Ignore``), a false result
  a deny with the validation's reason (``Invalid`` by default) and message: the messageExpression's string
  (trimmed; empty, over 5120 bytes or with a newline falls back), else ``message``, else ``failed expression:
  <expression>``; then the auditAnnotations, whose errors under ``Fail`` refuse whatever the actions are;
* ``Dispatch``: a deny decision counts per the binding's validationActions: ``Deny`` refuses, ``Warn`` adds the
  warning ``Validation failed for ValidatingAdmissionPolicy '<p>' with binding '<b>': <message>``, ``Audit``
  only annotates the audit event (there is no audit log here). A configuration error (matching, the paramKind,
  the params) is ``failed to configure policy|binding: <error>`` and is ignored under ``failurePolicy: Ignore``.
  The first refusal is the answer: ``admission.NewForbidden`` with the message ``ValidatingAdmissionPolicy '<p>'
  with binding '<b>' denied request: <message>``, the decision's reason and its code (Forbidden 403,
  Unauthorized 401, RequestEntityTooLarge 413, anything else 422), and that message as the one cause.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fakeapi._state.admission.attributes import Attributes
from fakeapi._state.admission.authorizer_binding import Decide, authorizer_binding
from fakeapi._state.admission.match_conditions import _aggregate, _request
from fakeapi._state.admission.matching import Invocation
from fakeapi._state.admission.policies import CompiledPolicy, PolicyHook
from fakeapi._state.admission.policy_matching import ConfigurationError, Match, collect_params, matches
from fakeapi._state.objects import metadata_of
from fakeapi._state.storeview import StoreView
from fakeapi.errors import APIError, GroupResource

if TYPE_CHECKING:
    from fakeapi._cel.authorizer_library import AuthorizerBinding

__all__ = ["dispatch"]

_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, "Invalid": 422}
_MAX_MESSAGE_BYTES = 5 * 1024
_NAMESPACES = GroupResource("", "namespaces")
_NAMESPACE_METADATA = (
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "finalizers",
)


@dataclass(frozen=True)
class Decision:
    """``PolicyDecision`` of a deny: the message and the reason (empty: Invalid)."""

    message: str
    reason: str = ""
    # An auditAnnotation's error refuses whatever the binding's actions are (``AuditAnnotationActionError``).
    annotation: bool = False


@dataclass(frozen=True)
class Denial:
    policy: str
    binding: str | None
    decision: Decision


def _namespace_object(namespace: dict[str, Any]) -> dict[str, Any]:
    """``CreateNamespaceObject`` through the unstructured converter: metadata cut down, spec and status."""
    metadata = metadata_of(namespace)
    shown: dict[str, Any] = {"metadata": {key: metadata[key] for key in _NAMESPACE_METADATA if key in metadata}}
    if "creationTimestamp" not in shown["metadata"]:
        shown["metadata"]["creationTimestamp"] = None
    shown["spec"] = namespace.get("spec") or {}
    shown["status"] = namespace.get("status") or {}
    return shown


def _activation(policy: CompiledPolicy, values: dict[str, Any], authorizer: AuthorizerBinding) -> Any:
    from fakeapi._cel.policy_expressions import Activation, bind_variable

    activation = Activation({**values, **authorizer.variables, "variables": {}}, functions=authorizer.functions)
    for name, compiled in policy.variables:
        bind_variable(name, compiled, activation)
    return activation


def _message(validation: Any, activation: Any) -> str:
    from fakeapi._cel.policy_expressions import evaluate

    message = ""
    if validation.message is not None:
        result = evaluate(validation.message, activation)
        if not result.error and result.is_string and isinstance(result.value, str):
            message = result.value.strip()
            if len(message.encode()) > _MAX_MESSAGE_BYTES or "\n" in message:
                message = ""
    if not message:
        message = str(validation.spec.get("message") or "").strip()
    if not message:
        message = f"failed expression: {str(validation.spec.get('expression') or '').strip()}"
    return message


def validate(
    policy: CompiledPolicy, values: dict[str, Any], condition_values: dict[str, Any], authorizer: AuthorizerBinding
) -> list[Decision]:
    """``validator.Validate``: the deny decisions of one evaluation; ``authorizer`` answers its checks."""
    from fakeapi._cel.policy_expressions import evaluate

    fail = policy.failure_policy != "Ignore"
    if policy.match_conditions:
        activation = _activation(policy, condition_values, authorizer)
        errors: list[str] = []
        for condition in policy.match_conditions:
            result = evaluate(condition, activation)
            if result.error:
                errors.append(result.error)
            elif result.value is False:
                return []
        if errors:
            return [Decision(_aggregate(errors))] if fail else []
    activation = _activation(policy, values, authorizer)
    decisions: list[Decision] = []
    for validation in policy.validations:
        result = evaluate(validation.expression, activation)
        if result.error:
            if fail:
                decisions.append(Decision(result.error))
        elif result.value is not True:
            reason = str(validation.spec.get("reason") or "Invalid")
            decisions.append(Decision(_message(validation, activation), reason))
    for annotation in policy.audit_annotations:
        result = evaluate(annotation, activation)
        if result.error and fail:
            decisions.append(Decision(result.error, annotation=True))
    return decisions


def _values(
    attributes: Attributes, match: Match, param: dict[str, Any] | None, namespace: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The variables of the validations and those of the matchConditions (``request.resource``: the request's)."""
    rtype, kind = match
    invocation = Invocation({}, rtype, kind)
    request = _request(invocation, attributes)
    values = {
        "object": invocation.versioned(attributes.object, attributes),
        "oldObject": invocation.versioned(attributes.old_object, attributes),
        "params": param,
    }
    matched = {**request, "resource": {"group": rtype.group, "version": rtype.version, "resource": rtype.plural}}
    return (
        {**values, "request": matched, "namespaceObject": namespace},
        {**values, "request": request, "namespaceObject": None},
    )


def _namespace(store: StoreView, attributes: Attributes) -> dict[str, Any] | None:
    """The request's namespace as ``namespaceObject`` (none for a Namespace itself); NotFound when it is gone."""
    if not attributes.namespace or attributes.group_version_kind == ("", "v1", "Namespace"):
        return None
    namespace = store.find(store.registry.namespaces, "", attributes.namespace)
    if namespace is None:
        raise APIError.not_found(_NAMESPACES, attributes.namespace)
    return _namespace_object(namespace)


def _binding_spec(binding: dict[str, Any]) -> dict[str, Any]:
    spec = binding.get("spec")
    return spec if isinstance(spec, dict) else {}


def _bindings_of(
    store: StoreView,
    hook: PolicyHook,
    attributes: Attributes,
    match: Match,
    warnings: list[str],
    authorizer: AuthorizerBinding,
) -> list[Denial]:
    policy = hook.policy
    denials: list[Denial] = []
    for binding in hook.bindings:
        binding_name = str(metadata_of(binding).get("name") or "")
        spec = _binding_spec(binding)
        try:
            resources = spec.get("matchResources")
            if isinstance(resources, dict) and matches(store, resources, attributes) is None:
                continue
            params = collect_params(
                store, policy.param_kind, hook.param_type, spec.get("paramRef"), attributes.namespace
            )
        except ConfigurationError as error:
            if policy.failure_policy != "Ignore":
                denials.append(Denial(policy.name, binding_name, Decision(f"failed to configure binding: {error}")))
            continue
        namespace = _namespace(store, attributes)
        actions = [action for action in spec.get("validationActions") or [] if isinstance(action, str)]
        for param in params:
            values, condition_values = _values(attributes, match, param, namespace)
            for decision in validate(policy, values, condition_values, authorizer):
                if decision.annotation:
                    denials.append(Denial(policy.name, binding_name, decision))
                    continue
                for action in actions:
                    if action == "Deny":
                        denials.append(Denial(policy.name, binding_name, decision))
                    elif action == "Warn":
                        warnings.append(
                            f"Validation failed for ValidatingAdmissionPolicy '{policy.name}' "
                            f"with binding '{binding_name}': {decision.message}"
                        )
    return denials


def _refusal(attributes: Attributes, denial: Denial) -> APIError:
    """``admission.NewForbidden`` with the decision's reason and code, and the message as its cause."""
    if denial.binding is not None:
        message = (
            f"ValidatingAdmissionPolicy '{denial.policy}' with binding '{denial.binding}' "
            f"denied request: {denial.decision.message}"
        )
    else:
        message = f"ValidatingAdmissionPolicy '{denial.policy}' denied request: {denial.decision.message}"
    name = attributes.name
    if not name and attributes.object is not None:
        metadata = metadata_of(attributes.object)
        name = str(metadata.get("name") or metadata.get("generateName") or "")
    forbidden = APIError.forbidden(attributes.rtype.group_resource, name or "Unknown", message)
    reason = denial.decision.reason or "Invalid"
    details = dict(forbidden.details or {})
    details["causes"] = [{"message": message}]
    return APIError(forbidden.message, reason=reason, code=_CODES.get(reason, 422), details=details)


def dispatch(
    store: StoreView, hooks: list[PolicyHook], attributes: Attributes, warnings: list[str], decide: Decide
) -> None:
    """``dispatcher.Dispatch``: raises the first refusal; warnings are added to ``warnings``; ``decide``
    answers the expressions' authorization checks."""
    denials: list[Denial] = []
    authorizer: AuthorizerBinding | None = None
    for hook in hooks:
        policy = hook.policy
        fail = policy.failure_policy != "Ignore"
        constraints = policy.spec.get("matchConstraints")
        try:
            if not isinstance(constraints, dict):
                raise ConfigurationError("policy contained no match constraints, a required field")
            match = matches(store, constraints, attributes)
        except ConfigurationError as error:
            if fail:
                denials.append(Denial(policy.name, None, Decision(f"failed to configure policy: {error}")))
            continue
        if match is None:
            continue
        if hook.configuration_error:
            if fail:
                denials.append(
                    Denial(policy.name, None, Decision(f"failed to configure policy: {hook.configuration_error}"))
                )
            continue
        authorizer = authorizer or authorizer_binding(decide, attributes)
        denials.extend(_bindings_of(store, hook, attributes, match, warnings, authorizer))
    if denials:
        raise _refusal(attributes, denials[0])
