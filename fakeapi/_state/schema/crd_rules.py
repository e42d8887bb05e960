"""A CRD's ``x-kubernetes-validations`` rules checked when the CRD is written.

apiextensions-apiserver ``pkg/apis/apiextensions/validation/validation.go``
(``ValidateCustomResourceDefinitionOpenAPISchema``): per rule, ``rule is not specified``, the ``message``
checks (non-empty if given, no line breaks, required when the rule has line breaks), ``messageExpression``
non-empty if given, ``reason`` one of the four field error reasons, ``fieldPath`` non-empty, without line
breaks and naming a field of the schema; then, if the node and those below it had none of these errors, the
rules are compiled against the type of ``self`` there (:mod:`fakeapi._cel`): ``compilation failed: ...``,
``cel expression must evaluate to a bool``, the messageExpression's own errors, ``oldSelf`` under a list that
is not ``x-kubernetes-list-type: map`` (or a map that is not correlatable), and ``optionalOldSelf`` on a rule
without ``oldSelf``; the cost limits (:mod:`.rule_costs`). Children are checked before the node's rules, schema
errors before CEL errors, the schema's total cost last.

The schema is named as the internal version names it: ``spec.validation.openAPIV3Schema`` when every version
has the same schema (the v1 -> internal conversion lifts it), else ``spec.versions[i].schema.openAPIV3Schema``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fakeapi import _cel
from fakeapi._cel.sizes import min_size
from fakeapi._patching.gostrconv import quote
from fakeapi._state.schema.rule_costs import (
    EXPRESSION_LIMIT,
    TotalCost,
    child_cardinality,
    cost_message,
    expression_cost,
)
from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError, Printed

if TYPE_CHECKING:
    from fakeapi._cel import Declared

__all__ = ["crd_rule_errors"]

_REASONS = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")


def crd_rule_errors(spec: Mapping[str, Any], old_spec: Mapping[str, Any] | None = None) -> list[FieldError]:
    """The rule errors of every version's schema of a CRD spec (``old_spec`` on an update)."""
    versions = [v for v in spec.get("versions") or [] if isinstance(v, Mapping)]
    schemas = [_schema_of(version) for version in versions]
    unchanged = _unchanged_versions(versions, old_spec)
    if schemas and all(schema == schemas[0] for schema in schemas):
        first = versions[0].get("name")
        if schemas[0] is None:
            return []
        return _schema_errors(schemas[0], "spec.validation.openAPIV3Schema", suppress_cost=first in unchanged)
    errors: list[FieldError] = []
    for index, schema in enumerate(schemas):
        if schema is not None:
            path = f"spec.versions[{index}].schema.openAPIV3Schema"
            errors += _schema_errors(schema, path, suppress_cost=versions[index].get("name") in unchanged)
    return errors


def _unchanged_versions(versions: list[Mapping[str, Any]], old_spec: Mapping[str, Any] | None) -> set[str]:
    """``findVersionsWithUnchangedSchemas``: the versions whose schema an update leaves as it was."""
    if old_spec is None:
        return set()
    old = {v.get("name"): _schema_of(v) for v in old_spec.get("versions") or [] if isinstance(v, Mapping)}
    return {
        version.get("name", "")
        for version in versions
        if version.get("name") in old and old[version.get("name")] == _schema_of(version)
    }


def _schema_of(version: Mapping[str, Any]) -> Mapping[str, Any] | None:
    holder = version.get("schema")
    schema = holder.get("openAPIV3Schema") if isinstance(holder, Mapping) else None
    return schema if isinstance(schema, Mapping) else None


def _schema_errors(schema: Mapping[str, Any], path: str, *, suppress_cost: bool) -> list[FieldError]:
    if not _has_rules(schema):
        return []
    from fakeapi._cel import declare

    declared, pool = declare(schema, True)
    walk = _Walk(pool, suppress_cost)
    walk.node(schema, declared, path, None, 1)
    return walk.schema_errors + walk.cel_errors + walk.total.errors(path)


def _has_rules(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    properties = schema.get("properties")
    children = list(properties.values()) if isinstance(properties, Mapping) else []
    children += list(schema.get("allOf") or []) if isinstance(schema.get("allOf"), list) else []
    return any(_has_rules(child) for child in [*children, schema.get("items"), schema.get("additionalProperties")])


class _Walk:
    """One schema's walk: its errors so far and its total cost."""

    def __init__(self, pool: Any, suppress_cost: bool) -> None:
        self.pool = pool
        self.suppress_cost = suppress_cost
        self.schema_errors: list[FieldError] = []
        self.cel_errors: list[FieldError] = []
        self.total = TotalCost()

    def node(
        self,
        schema: Mapping[str, Any],
        declared: Declared | None,
        path: str,
        uncorrelatable: str | None,
        cardinality: int | None,
    ) -> bool:
        """Check a node and its children; True when a schema error was found at or below it."""
        found = False
        below = child_cardinality(schema, cardinality)
        extra = schema.get("additionalProperties")
        element = declared.element if declared is not None else None
        if isinstance(extra, Mapping):
            inner = uncorrelatable
            if inner is None and schema.get("x-kubernetes-map-type") not in (None, "granular", "atomic"):
                inner = path
            found |= self.node(extra, element, f"{path}.additionalProperties", inner, below)
        properties = schema.get("properties")
        for name, prop in properties.items() if isinstance(properties, Mapping) else ():
            if not isinstance(prop, Mapping):
                continue
            escaped = _cel.escape(name)
            child: Declared | None = None
            if escaped is not None and declared is not None and declared.kind == "object":
                hit = declared.fields.get(escaped)
                child = hit[1] if hit else None
            found |= self.node(prop, child, f"{path}.properties[{name}]", uncorrelatable, below)
        all_of = schema.get("allOf")
        for index, entry in enumerate(all_of if isinstance(all_of, list) else []):
            if isinstance(entry, Mapping):
                # Upstream walks allOf without a CEL context: their rules' fields are checked, not compiled.
                found |= self.node(entry, None, f"{path}.allOf[{index}]", uncorrelatable, None)
        items = schema.get("items")
        if isinstance(items, Mapping):
            inner = uncorrelatable
            if inner is None and schema.get("x-kubernetes-list-type") != "map":
                inner = path
            found |= self.node(items, element, f"{path}.items", inner, below)
        rules = schema.get("x-kubernetes-validations")
        if not isinstance(rules, list) or not rules:
            return found
        own = _rule_field_errors(rules, schema, path)
        self.schema_errors += own
        found |= bool(own)
        if not found and declared is not None:
            self.cel_errors += self.compile_errors(rules, declared, path, uncorrelatable, cardinality)
        return found

    def compile_errors(
        self, rules: list[Any], declared: Declared, path: str, uncorrelatable: str | None, cardinality: int | None
    ) -> list[FieldError]:
        compiler = _cel.RuleCompiler(declared, self.pool)
        errors: list[FieldError] = []
        for index, rule in enumerate(rules):
            if not isinstance(rule, Mapping):
                continue
            at = f"{path}.x-kubernetes-validations[{index}]"
            compiled = compiler.compile(rule)
            cost = expression_cost(compiled.max_cost, cardinality, min_size(declared))
            if not self.suppress_cost and cost > EXPRESSION_LIMIT:
                errors.append(
                    field.forbidden(f"{at}.rule", cost_message("estimated rule cost", cost, EXPRESSION_LIMIT))
                )
            self.total.observe(f"{at}.rule", cost)
            if compiled.error:
                errors.append(field.invalid(f"{at}.rule", _printed_rule(rule), compiled.error))
            if compiled.message_error:
                errors.append(field.invalid(f"{at}.messageExpression", _printed_rule(rule), compiled.message_error))
            elif compiled.message_program is not None:
                message_cost = compiled.message_max_cost
                if not self.suppress_cost and message_cost > EXPRESSION_LIMIT:
                    detail = cost_message("estimated messageExpression cost", message_cost, EXPRESSION_LIMIT)
                    errors.append(field.forbidden(f"{at}.messageExpression", detail))
                self.total.observe(f"{at}.messageExpression", message_cost)
            if compiled.uses_old_self:
                if uncorrelatable is not None:
                    detail = (
                        f"oldSelf cannot be used on the uncorrelatable portion of the schema within {uncorrelatable}"
                    )
                    errors.append(field.invalid(f"{at}.rule", rule.get("rule"), detail))
            elif isinstance(rule.get("optionalOldSelf"), bool):
                detail = "may not be set if oldSelf is not used in rule"
                errors.append(field.invalid(f"{at}.optionalOldSelf", rule["optionalOldSelf"], detail))
        return errors


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
        if field_path and _cel.valid_field_path(field_path, schema) is None:
            errors.append(field.invalid(f"{at}.fieldPath", field_path, "fieldPath must be a valid path"))
    return errors


def _text(rule: Mapping[str, Any], key: str) -> str:
    value = rule.get(key)
    return value if isinstance(value, str) else ""


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
