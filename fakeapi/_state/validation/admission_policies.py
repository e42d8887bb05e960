"""ValidatingAdmissionPolicy and its binding as ``pkg/apis/admissionregistration/validation`` checks them.

``validateValidatingAdmissionPolicySpec``: ``failurePolicy`` (Fail, Ignore), ``paramKind`` (``validateParamKind``),
``matchConstraints`` (required, with at least one resourceRule: ``validateMatchResources``), ``matchConditions``
(compiled with ``params`` when there is a paramKind; not checked again on an update that keeps them and the
paramKind), ``variables`` (a CEL identifier, a compiling expression), at least one validation or auditAnnotation,
each validation (expression, messageExpression, message, reason) and each auditAnnotation (key, valueExpression,
at most 20, keys unique). The expressions compile in the composition environment, with ``variables`` only when the
policy has some (``createCompiler``); a compile error is ``Invalid value: "<expression>": <detail>``.

``validateValidatingAdmissionPolicyBindingSpec``: ``policyName``, ``paramRef``, ``matchResources`` (at the path
``spec.matchResouces``, upstream's spelling) and ``validationActions`` (docs/admission-policies.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fakeapi._cel.escaping import RESERVED
from fakeapi._state.validation import field
from fakeapi._state.validation.admission_match_resources import validate_match_resources
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import (
    is_dns1035_label,
    is_dns1123_subdomain,
    is_qualified_name,
    name_is_dns_subdomain,
    name_is_path_segment,
)
from fakeapi._state.validation.objectmeta import validate_label_selector

__all__ = ["validate_policy", "validate_policy_binding"]

Obj = Mapping[str, Any]
_MAX_AUDIT_ANNOTATIONS = 20
_MAX_VALUE_EXPRESSION = 5 * 1024
_FAILURE_POLICIES = ("Fail", "Ignore")
_REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge")
_ACTIONS = ("Audit", "Deny", "Warn")
_CEL_IDENTIFIER = re.compile(r"^[_a-zA-Z][_a-zA-Z0-9]*$")
_NEWLINES = re.compile(r"[\n\r]+")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _param_kind(kind: Obj, path: str) -> list[FieldError]:
    """``validateParamKind``."""
    errors: list[FieldError] = []
    api_version = _text(kind.get("apiVersion"))
    version_path = field.child(path, "apiVersion")
    if not api_version:
        errors.append(field.required(version_path))
    elif api_version.count("/") > 1:
        errors.append(field.invalid(version_path, api_version, f"unexpected GroupVersion string: {api_version}"))
    else:
        group, _, version = api_version.rpartition("/") if api_version != "/" else ("", "", "")
        if group and (problems := is_dns1123_subdomain(group)):
            errors.append(field.invalid(version_path, group, ",".join(problems)))
        if not version:
            errors.append(field.invalid(version_path, api_version, "version must be specified"))
        elif problems := is_dns1035_label(version):
            errors.append(field.invalid(version_path, version, ",".join(problems)))
    name = _text(kind.get("kind"))
    if not name:
        errors.append(field.required(field.child(path, "kind")))
    elif problems := is_dns1035_label(name.lower()):
        detail = "may have mixed case, but should otherwise match: " + ",".join(problems)
        errors.append(field.invalid(field.child(path, "kind"), name, detail))
    return errors


class _Compiler:
    """The policy's compiler: with composition when it has variables, the variables added as they compile."""

    def __init__(self, spec: Obj) -> None:
        self.has_params = isinstance(spec.get("paramKind"), dict)
        self.declared: list[tuple[str, str]] | None = [] if _list(spec.get("variables")) else None

    def error(self, expression: str, returns: tuple[str, ...] | None, params: bool | None = None) -> str:
        from fakeapi._cel.policy_expressions import compile_expression

        variables = tuple(self.declared) if self.declared is not None else None
        has_params = self.has_params if params is None else params
        return compile_expression(expression, has_params, variables, returns).error

    def variable(self, name: str, expression: str) -> str:
        from fakeapi._cel.policy_expressions import compile_expression

        compiled = compile_expression(expression, self.has_params, tuple(self.declared or ()), None)
        if self.declared is not None:
            self.declared.append((name, compiled.output if compiled.program is not None else "DYN"))
        return compiled.error


def _match_conditions(conditions: list[Any], compiler: _Compiler, path: str) -> list[FieldError]:
    """``validateMatchConditions``: the conditions compile without composition, with params with a paramKind."""
    from fakeapi._cel.policy_expressions import BOOL, compile_expression

    errors: list[FieldError] = []
    if len(conditions) > 64:
        errors.append(field.too_many(path, len(conditions), 64))
    names: set[str] = set()
    for position, condition in enumerate(conditions):
        condition = _dict(condition)
        at = field.index(path, position)
        trimmed = _text(condition.get("expression")).strip()
        if not trimmed:
            errors.append(field.required(field.child(at, "expression")))
        elif detail := compile_expression(trimmed, compiler.has_params, None, BOOL).error:
            errors.append(field.invalid(field.child(at, "expression"), trimmed, detail))
        name = _text(condition.get("name"))
        if not name:
            errors.append(field.required(field.child(at, "name")))
        else:
            errors.extend(field.invalid(field.child(at, "name"), name, problem) for problem in is_qualified_name(name))
            if name in names:
                errors.append(field.duplicate(field.child(at, "name"), name))
            names.add(name)
    return errors


def _variable(variable: Obj, compiler: _Compiler, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    name, expression = _text(variable.get("name")), _text(variable.get("expression"))
    if not name.strip():
        errors.append(field.required(field.child(path, "name"), "name is not specified"))
    elif not _CEL_IDENTIFIER.match(name) or name in RESERVED:
        errors.append(field.invalid(field.child(path, "name"), name, "name is not a valid CEL identifier"))
    if not expression.strip():
        errors.append(field.required(field.child(path, "expression"), "expression is not specified"))
    elif detail := compiler.variable(name, expression):
        errors.append(field.invalid(field.child(path, "expression"), expression, detail))
    return errors


def _validation(validation: Obj, compiler: _Compiler, path: str) -> list[FieldError]:
    from fakeapi._cel.policy_expressions import BOOL, STRING

    errors: list[FieldError] = []
    expression = _text(validation.get("expression"))
    message = _text(validation.get("message"))
    message_expression = _text(validation.get("messageExpression"))
    if not expression.strip():
        errors.append(field.required(field.child(path, "expression"), "expression is not specified"))
    elif detail := compiler.error(expression, BOOL):
        errors.append(field.invalid(field.child(path, "expression"), expression, detail))
    if message_expression and not message_expression.strip():
        errors.append(
            field.invalid(field.child(path, "messageExpression"), message_expression, "must be non-empty if specified")
        )
    elif message_expression.strip() and (detail := compiler.error(message_expression, STRING)):
        errors.append(field.invalid(field.child(path, "messageExpression"), message_expression, detail))
    if message and not message.strip():
        errors.append(field.invalid(field.child(path, "message"), message, "message must be non-empty if specified"))
    elif _NEWLINES.search(message.strip()):
        errors.append(field.invalid(field.child(path, "message"), message, "message must not contain line breaks"))
    reason = validation.get("reason")
    if reason is not None and reason not in _REASONS:
        errors.append(field.not_supported(field.child(path, "reason"), reason, _REASONS))
    return errors


def _audit_annotation(annotation: Obj, policy_name: str, compiler: _Compiler, path: str) -> list[FieldError]:
    from fakeapi._cel.policy_expressions import STRING_OR_NULL

    errors: list[FieldError] = []
    key = _text(annotation.get("key"))
    if policy_name:
        qualified = f"{policy_name}/{key}"
        errors.extend(
            field.invalid(field.child(path, "key"), qualified, problem) for problem in is_qualified_name(qualified)
        )
    else:
        errors.append(field.invalid(field.child(path, "key"), key, "requires metadata.name be non-empty"))
    value = _text(annotation.get("valueExpression"))
    trimmed = value.strip()
    at = field.child(path, "valueExpression")
    if not trimmed:
        errors.append(field.required(at, "valueExpression is not specified"))
    elif len(trimmed.encode()) > _MAX_VALUE_EXPRESSION:
        errors.append(field.required(at, f"must not exceed {_MAX_VALUE_EXPRESSION} bytes in length"))
    elif detail := compiler.error(trimmed, STRING_OR_NULL):
        errors.append(field.invalid(at, value, detail))
    return errors


def _spec_unchanged_for_conditions(new: Obj, old: Obj) -> bool:
    """``ignoreValidatingAdmissionPolicyMatchConditions``."""
    return new.get("paramKind") == old.get("paramKind") and new.get("matchConditions") == old.get("matchConditions")


def validate_policy(new: Obj, old: Obj | None) -> list[FieldError]:
    """``validateValidatingAdmissionPolicySpec`` at ``spec``."""
    spec = _dict(new.get("spec"))
    errors: list[FieldError] = []
    compiler = _Compiler(spec)
    failure = spec.get("failurePolicy")
    if failure is None:
        errors.append(field.required("spec.failurePolicy"))
    elif failure not in _FAILURE_POLICIES:
        errors.append(field.not_supported("spec.failurePolicy", failure, _FAILURE_POLICIES))
    if isinstance(spec.get("paramKind"), dict):
        errors.extend(_param_kind(spec["paramKind"], "spec.paramKind"))
    constraints = spec.get("matchConstraints")
    if not isinstance(constraints, dict):
        errors.append(field.required("spec.matchConstraints"))
    else:
        errors.extend(validate_match_resources(constraints, "spec.matchConstraints"))
        if not _list(constraints.get("resourceRules")):
            errors.append(field.required("spec.matchConstraints.resourceRules"))
    if old is None or not _spec_unchanged_for_conditions(spec, _dict(old.get("spec"))):
        errors.extend(_match_conditions(_list(spec.get("matchConditions")), compiler, "spec.matchConditions"))
    for position, variable in enumerate(_list(spec.get("variables"))):
        errors.extend(_variable(_dict(variable), compiler, field.index("spec.variables", position)))
    validations, annotations = _list(spec.get("validations")), _list(spec.get("auditAnnotations"))
    if not validations and not annotations:
        detail = "validations or auditAnnotations must contain at least one item"
        return [*errors, field.required("spec.validations", detail), field.required("spec.auditAnnotations", detail)]
    for position, validation in enumerate(validations):
        errors.extend(_validation(_dict(validation), compiler, field.index("spec.validations", position)))
    if len(annotations) > _MAX_AUDIT_ANNOTATIONS:
        detail = f"must not have more than {_MAX_AUDIT_ANNOTATIONS} auditAnnotations"
        errors.append(field.invalid("spec.auditAnnotations", annotations, detail))
    keys: set[str] = set()
    policy_name = _text(_dict(new.get("metadata")).get("name"))
    for position, annotation in enumerate(annotations):
        at = field.index("spec.auditAnnotations", position)
        errors.extend(_audit_annotation(_dict(annotation), policy_name, compiler, at))
        key = _text(_dict(annotation).get("key"))
        if key in keys:
            errors.append(field.duplicate(field.child(at, "key"), key))
        keys.add(key)
    return errors


def _param_ref(ref: Any, path: str) -> list[FieldError]:
    """``validateParamRef``."""
    if not isinstance(ref, dict):
        return []
    errors: list[FieldError] = []
    name, selector = _text(ref.get("name")), ref.get("selector")
    if name:
        errors.extend(
            field.invalid(field.child(path, "name"), name, problem) for problem in name_is_path_segment(name, False)
        )
        if selector is not None:
            errors.append(field.forbidden(field.child(path, "name"), "name and selector are mutually exclusive"))
    if selector is not None:
        errors.extend(validate_label_selector(selector, field.child(path, "selector")))
        if name:
            errors.append(field.forbidden(field.child(path, "selector"), "name and selector are mutually exclusive"))
    if not name and selector is None:
        errors.append(field.required(path, "one of name or selector must be specified"))
    action = ref.get("parameterNotFoundAction")
    if not action:
        errors.append(field.required(field.child(path, "parameterNotFoundAction")))
    elif action not in ("Deny", "Allow"):
        errors.append(field.not_supported(field.child(path, "parameterNotFoundAction"), action, ("Deny", "Allow")))
    return errors


def _validation_actions(actions: list[Any], path: str) -> list[FieldError]:
    """``validateValidationActions``."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for position, action in enumerate(actions):
        if action not in _ACTIONS:
            errors.append(field.not_supported(field.index(path, position), action, _ACTIONS))
        if action in seen:
            errors.append(field.duplicate(field.index(path, position), action))
        seen.add(_text(action))
    if "Deny" in seen and "Warn" in seen:
        detail = (
            "must not contain both Deny and Warn (repeating the same validation failure information in the API "
            "response and headers serves no purpose)"
        )
        errors.append(field.invalid(path, actions, detail, "[]admissionregistration.ValidationAction"))
    if not seen:
        errors.append(field.required(path, "at least one validation action is required"))
    return errors


def validate_policy_binding(new: Obj) -> list[FieldError]:
    """``validateValidatingAdmissionPolicyBindingSpec`` at ``spec``."""
    spec = _dict(new.get("spec"))
    errors: list[FieldError] = []
    policy_name = _text(spec.get("policyName"))
    if not policy_name:
        errors.append(field.required("spec.policyName"))
    else:
        errors.extend(
            field.invalid("spec.policyName", policy_name, problem)
            for problem in name_is_dns_subdomain(policy_name, False)
        )
    errors.extend(_param_ref(spec.get("paramRef"), "spec.paramRef"))
    errors.extend(validate_match_resources(spec.get("matchResources"), "spec.matchResouces"))
    errors.extend(_validation_actions(_list(spec.get("validationActions")), "spec.validationActions"))
    return errors
