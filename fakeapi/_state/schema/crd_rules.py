"""A CRD's ``x-kubernetes-validations`` rules checked when the CRD is written.

apiextensions-apiserver ``pkg/apis/apiextensions/validation/validation.go``
(``ValidateCustomResourceDefinitionOpenAPISchema``): per rule, ``rule is not specified``, the ``message``
checks (non-empty if given, no line breaks, required when the rule has line breaks), ``messageExpression``
non-empty if given, ``reason`` one of the four field error reasons, ``fieldPath`` non-empty, without line
breaks and naming a field of the schema; then, if the node and those below it had none of these errors, the
rules are compiled against the type of ``self`` there (:mod:`fakeapi._cel`): ``compilation failed: ...``,
``cel expression must evaluate to a bool``, the messageExpression's own errors, ``oldSelf`` under a list that
is not ``x-kubernetes-list-type: map`` (or a map that is not correlatable), and ``optionalOldSelf`` on a rule
without ``oldSelf``. Children are checked before the node's rules, schema errors before CEL errors.

The schema is named as the internal version names it: ``spec.validation.openAPIV3Schema`` when every version
has the same schema (the v1 -> internal conversion lifts it), else ``spec.versions[i].schema.openAPIV3Schema``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fakeapi._cel import Declared, RuleCompiler, declare, escape, valid_field_path
from fakeapi._patching.gostrconv import quote
from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError, Printed

__all__ = ["crd_rule_errors"]

_REASONS = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")


def crd_rule_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    """The rule errors of every version's schema of a CRD spec."""
    versions = [v for v in spec.get("versions") or [] if isinstance(v, Mapping)]
    schemas = [_schema_of(version) for version in versions]
    if schemas and all(schema == schemas[0] for schema in schemas):
        return _schema_errors(schemas[0], "spec.validation.openAPIV3Schema") if schemas[0] is not None else []
    errors: list[FieldError] = []
    for index, schema in enumerate(schemas):
        if schema is not None:
            errors += _schema_errors(schema, f"spec.versions[{index}].schema.openAPIV3Schema")
    return errors


def _schema_of(version: Mapping[str, Any]) -> Mapping[str, Any] | None:
    holder = version.get("schema")
    schema = holder.get("openAPIV3Schema") if isinstance(holder, Mapping) else None
    return schema if isinstance(schema, Mapping) else None


def _schema_errors(schema: Mapping[str, Any], path: str) -> list[FieldError]:
    if not _has_rules(schema):
        return []
    declared, pool = declare(schema, True)
    schema_errors: list[FieldError] = []
    cel_errors: list[FieldError] = []
    _walk(schema, declared, pool, path, None, schema_errors, cel_errors)
    return schema_errors + cel_errors


def _has_rules(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    properties = schema.get("properties")
    children = list(properties.values()) if isinstance(properties, Mapping) else []
    return any(_has_rules(child) for child in [*children, schema.get("items"), schema.get("additionalProperties")])


def _walk(
    schema: Mapping[str, Any],
    declared: Declared | None,
    pool: Any,
    path: str,
    uncorrelatable: str | None,
    schema_errors: list[FieldError],
    cel_errors: list[FieldError],
) -> bool:
    """Check a node and its children; True when a schema error was found at or below it."""
    found = False
    extra = schema.get("additionalProperties")
    element = declared.element if declared is not None else None
    if isinstance(extra, Mapping):
        below = uncorrelatable
        if below is None and schema.get("x-kubernetes-map-type") not in (None, "granular", "atomic"):
            below = path
        found |= _walk(extra, element, pool, f"{path}.additionalProperties", below, schema_errors, cel_errors)
    properties = schema.get("properties")
    for name, prop in properties.items() if isinstance(properties, Mapping) else ():
        if not isinstance(prop, Mapping):
            continue
        escaped = escape(name)
        child: Declared | None = None
        child_pool = pool
        if escaped is not None and declared is not None and declared.kind == "object":
            hit = declared.fields.get(escaped)
            child = hit[1] if hit else None
        elif escaped is None:
            child, child_pool = declare(prop, prop.get("x-kubernetes-embedded-resource") is True)
        found |= _walk(prop, child, child_pool, f"{path}.properties[{name}]", uncorrelatable, schema_errors, cel_errors)
    items = schema.get("items")
    if isinstance(items, Mapping):
        below = uncorrelatable
        if below is None and schema.get("x-kubernetes-list-type") != "map":
            below = path
        found |= _walk(items, element, pool, f"{path}.items", below, schema_errors, cel_errors)
    rules = schema.get("x-kubernetes-validations")
    if not isinstance(rules, list) or not rules:
        return found
    own = _rule_field_errors(rules, schema, path)
    schema_errors += own
    found |= bool(own)
    if not found and declared is not None:
        cel_errors += _compile_errors(rules, declared, pool, path, uncorrelatable)
    return found


def _rule_field_errors(rules: list[Any], schema: Mapping[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, rule in enumerate(rules):
        if not isinstance(rule, Mapping):
            continue
        at = f"{path}.x-kubernetes-validations[{index}]"
        source = _text(rule, "rule")
        message = _text(rule, "message")
        expression = _text(rule, "messageExpression")
        if not source.strip():
            errors.append(field.required(f"{at}.rule", "rule is not specified"))
        elif message and not message.strip():
            errors.append(field.invalid(f"{at}.message", message, "message must be non-empty if specified"))
        elif "\n" in message:
            errors.append(field.invalid(f"{at}.message", message, "message must not contain line breaks"))
        elif "\n" in source.strip() and not message.strip():
            errors.append(field.required(f"{at}.message", "message must be specified if rule contains line breaks"))
        if expression and not expression.strip():
            errors.append(field.required(f"{at}.messageExpression", "messageExpression must be non-empty if specified"))
        reason = rule.get("reason")
        if reason is not None and reason not in _REASONS:
            errors.append(field.not_supported(f"{at}.reason", reason, _REASONS))
        field_path = _text(rule, "fieldPath")
        if field_path and not field_path.strip():
            errors.append(field.invalid(f"{at}.fieldPath", field_path, "fieldPath must be non-empty if specified"))
        if "\n" in field_path:
            errors.append(field.invalid(f"{at}.fieldPath", field_path, "fieldPath must not contain line breaks"))
        if field_path and valid_field_path(field_path, schema) is None:
            errors.append(field.invalid(f"{at}.fieldPath", field_path, "fieldPath must be a valid path"))
    return errors


def _text(rule: Mapping[str, Any], key: str) -> str:
    value = rule.get(key)
    return value if isinstance(value, str) else ""


def _compile_errors(
    rules: list[Any], declared: Declared, pool: Any, path: str, uncorrelatable: str | None
) -> list[FieldError]:
    compiler = RuleCompiler(declared, pool)
    errors: list[FieldError] = []
    for index, rule in enumerate(rules):
        if not isinstance(rule, Mapping):
            continue
        at = f"{path}.x-kubernetes-validations[{index}]"
        compiled = compiler.compile(rule)
        if compiled.error:
            errors.append(field.invalid(f"{at}.rule", _printed_rule(rule), compiled.error))
            continue
        if compiled.program is None:
            continue
        if compiled.message_error:
            errors.append(field.invalid(f"{at}.messageExpression", _printed_rule(rule), compiled.message_error))
        if compiled.uses_old_self:
            if uncorrelatable is not None:
                detail = f"oldSelf cannot be used on the uncorrelatable portion of the schema within {uncorrelatable}"
                errors.append(field.invalid(f"{at}.rule", rule.get("rule"), detail))
        elif isinstance(rule.get("optionalOldSelf"), bool):
            detail = "may not be set if oldSelf is not used in rule"
            errors.append(field.invalid(f"{at}.optionalOldSelf", rule["optionalOldSelf"], detail))
    return errors


def _printed_rule(rule: Mapping[str, Any]) -> Printed:
    """The internal ``ValidationRule`` struct as ``%#v`` prints it (1.32) and as its JSON (1.34)."""

    reason = "(*apiextensions.FieldValueErrorReason)(nil)"
    if isinstance(rule.get("reason"), str):
        # A set pointer prints as its address, which no two processes share.
        reason = "(*apiextensions.FieldValueErrorReason)(0xc000000000)"
    optional = "(*bool)(nil)" if not isinstance(rule.get("optionalOldSelf"), bool) else "(*bool)(0xc000000008)"
    go_syntax = (
        f"apiextensions.ValidationRule{{Rule:{quote(_text(rule, 'rule'))}, Message:{quote(_text(rule, 'message'))}, "
        f"MessageExpression:{quote(_text(rule, 'messageExpression'))}, Reason:{reason}, "
        f"FieldPath:{quote(_text(rule, 'fieldPath'))}, OptionalOldSelf:{optional}}}"
    )
    keys = ("rule", "message", "messageExpression", "reason", "fieldPath", "optionalOldSelf")
    shown = {key: rule[key] for key in keys if key in rule and (rule[key] or key == "rule")}
    return Printed(go_syntax, json.dumps(shown, separators=(",", ":"), ensure_ascii=False))
