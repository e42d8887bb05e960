"""A custom resource checked against its schema's ``x-kubernetes-validations`` rules.

apiextensions-apiserver ``pkg/apiserver/schema/cel/validation.go`` (``Validator.validate``,
``validateExpressions``, ``validateMap``, ``validateArray``), as 1.32 runs it:

- rules run on every non-null value whose schema has them, the present properties of an object, every
  item of a list and every value of a map, depth first;
- a rule naming ``oldSelf`` runs only where an old value is correlated with the new one (same property
  of an object or map, same keys of a ``x-kubernetes-list-type: map`` item), unless ``optionalOldSelf``;
- a false rule gives ``<path>: Invalid value: "<type>": <message>`` (the message, the messageExpression's
  result, or ``failed rule: <rule>``), ``reason`` choosing Forbidden, Required or Duplicate instead, and
  ``fieldPath`` extending the path; an evaluation error gives ``<error> evaluating rule: <rule>``;
- the rules of a node's ``allOf`` schemas run on the node, with its type;
- validation ratcheting (``CRDValidationRatcheting``, on by default): on an update through the main
  resource, the error of a rule without ``oldSelf`` on a value equal to its correlated old value (or, where
  nothing is correlated, under an ancestor equal to its old value) becomes a warning.

One rule's evaluation, its texts and its cost: :mod:`.rule_evaluation`; the runtime cost limits (a budget per
object, a limit per evaluation) are kept by :mod:`.rule_budget`, in the order the rules run here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi._cel.compiling import Compiled, RuleCompiler, old_self_variables
from fakeapi._cel.declarations import Declared, declare
from fakeapi._cel.escaping import escape
from fakeapi._cel.field_paths import valid_field_path
from fakeapi._cel.rule_budget import OUT_OF_BUDGET, RUNTIME_BUDGET, Budget, Exhausted
from fakeapi._cel.rule_evaluation import LimitReached, activation_of, evaluation_error, message_of, run_rule
from fakeapi._cel.values import to_cel

__all__ = ["Outcome", "RuleError", "SchemaRules", "error_text", "rules_of"]

_MISSING: Any = object()


@dataclass(frozen=True)
class RuleError:
    """One field error: ``kind`` names the ``field`` constructor (Invalid, Forbidden, Required, Duplicate)."""

    kind: str
    path: str
    value: str
    detail: str


@dataclass
class Outcome:
    errors: list[RuleError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # the budget the rules used up, when their actual costs were counted
    cost: int | None = None
    # the sum of the bounds of the evaluations' actual costs (the first pass)
    bound: int = 0


class _NodeRules:
    """The compiled rules at one schema node and the nodes below that have some."""

    def __init__(
        self,
        schema: Mapping[str, Any],
        declared: Declared | None,
        pool: Any,
        source: Mapping[str, Any] | None = None,
    ) -> None:
        # ``schema`` is the node's (its type); ``source`` where its rules are written, the node itself or one of
        # its ``allOf`` schemas (``validator(validationSchema, nodeSchema, ...)``).
        source = schema if source is None else source
        self.schema = schema
        self.declared = declared
        rules = source.get("x-kubernetes-validations")
        self.rules: list[Mapping[str, Any]] = (
            [r for r in rules if isinstance(r, Mapping)] if isinstance(rules, list) else []
        )
        self.compiled: list[Compiled] = []
        if self.rules and declared is not None:
            compiler = RuleCompiler(declared, pool)
            self.compiled = [compiler.compile(rule) for rule in self.rules]
        kind = schema.get("type")
        self.type_name: str = kind if isinstance(kind, str) else ""
        self.properties: dict[str, _NodeRules] = {}
        self.items: _NodeRules | None = None
        self.extra: _NodeRules | None = None
        self.map_keys: list[str] | None = None
        if schema.get("x-kubernetes-list-type") == "map" and isinstance(schema.get("x-kubernetes-list-map-keys"), list):
            self.map_keys = [key for key in schema["x-kubernetes-list-map-keys"] if isinstance(key, str)]
        self.correlatable_map = schema.get("x-kubernetes-map-type") in (None, "granular", "atomic")
        self._children(schema, declared, pool, source)
        all_of = source.get("allOf")
        self.all_of: list[_NodeRules] = []
        for entry in all_of if isinstance(all_of, list) else []:
            if isinstance(entry, Mapping):
                sub = _NodeRules(schema, declared, pool, entry)
                if sub.active:
                    self.all_of.append(sub)
        self.active: bool = bool(self.rules) or bool(self.properties) or self.items is not None
        self.active = self.active or self.extra is not None or bool(self.all_of)

    def _children(
        self, schema: Mapping[str, Any], declared: Declared | None, pool: Any, source: Mapping[str, Any]
    ) -> None:
        properties = source.get("properties")
        node_properties = schema.get("properties")
        for name, rule_prop in properties.items() if isinstance(properties, Mapping) else ():
            prop = node_properties.get(name) if isinstance(node_properties, Mapping) else None
            if not isinstance(prop, Mapping) or not isinstance(rule_prop, Mapping):
                continue
            escaped = escape(name)
            child: Declared | None
            child_pool = pool
            if escaped is not None:
                found = declared.fields.get(escaped) if declared is not None and declared.kind == "object" else None
                if found is None:
                    continue
                child = found[1]
            else:
                child, child_pool = declare(prop, prop.get("x-kubernetes-embedded-resource") is True)
                if child is None:
                    continue
            node = _NodeRules(prop, child, child_pool, rule_prop)
            if node.active:
                self.properties[name] = node
        element = declared.element if declared is not None else None
        items, rule_items = schema.get("items"), source.get("items")
        if isinstance(items, Mapping) and isinstance(rule_items, Mapping):
            node = _NodeRules(items, element, pool, rule_items)
            self.items = node if node.active else None
        extra, rule_extra = schema.get("additionalProperties"), source.get("additionalProperties")
        if isinstance(extra, Mapping) and isinstance(rule_extra, Mapping):
            node = _NodeRules(extra, element, pool, rule_extra)
            self.extra = node if node.active else None


class SchemaRules:
    """Every rule of one CRD version's schema, compiled once."""

    def __init__(self, schema: Mapping[str, Any], *, resource_root: bool = True) -> None:
        declared, pool = declare(schema, resource_root)
        self.root = _NodeRules(schema, declared, pool)

    def validate(
        self, obj: Any, old: Any = _MISSING, *, ratcheting: bool = False, path: str = "", count_cost: bool = False
    ) -> Outcome:
        """The rule errors of ``obj`` (and the ratcheted ones, as warnings), ``old`` its stored version.

        ``path`` names the root (the apiserver validates a resource from the nil path, printed ``<nil>``);
        ``count_cost`` counts the actual costs even where the estimates show no limit can be reached.
        """
        if not self.root.active:
            return Outcome()
        ratchet = _Ratchet(old, ratcheting and old is not _MISSING, False)
        outcome, budget = Outcome(), Budget(exact=False)
        _validate(self.root, path, obj, old, ratchet, outcome, True, budget)
        outcome.bound = budget.bound
        if not budget.may_exceed() and not count_cost:
            return outcome
        # The bounds of the evaluations could pass a limit: validate again, counting each actual cost.
        bound = budget.bound
        outcome, budget = Outcome(), Budget(exact=True)
        with contextlib.suppress(Exhausted):
            _validate(self.root, path, obj, old, ratchet, outcome, True, budget)
        outcome.cost, outcome.bound = RUNTIME_BUDGET - budget.remaining, bound
        return outcome


@dataclass(frozen=True)
class _Ratchet:
    """``ratchetingOptions``: the correlated old value, or the equality of the nearest correlated ancestor."""

    old: Any
    enabled: bool
    parent_equal: bool

    def should_ratchet(self, value: Any) -> bool:
        if not self.enabled:
            return False
        return _deep_equal(value, self.old) if self.old is not _MISSING else self.parent_equal

    def child(self, value: Any, old: Any) -> _Ratchet:
        if not self.enabled:
            return self
        if self.old is _MISSING:
            return self
        return _Ratchet(old, True, _deep_equal(value, self.old))


def _deep_equal(left: Any, right: Any) -> bool:
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_deep_equal(v, right[k]) for k, v in left.items())
    if isinstance(left, list):
        return len(left) == len(right) and all(_deep_equal(a, b) for a, b in zip(left, right, strict=True))
    return bool(left == right)


def _child_path(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _validate(
    node: _NodeRules, path: str, value: Any, old: Any, ratchet: _Ratchet, out: Outcome, root: bool, budget: Budget
) -> None:
    if value is None:
        return
    if node.compiled:
        _run_rules(node, path, value, old, ratchet, out, budget)
    for sub in node.all_of:
        # allOf errors ratchet only with the nearest correlated parent (``ratchetingOptions`` without a current).
        sub_ratchet = _Ratchet(_MISSING, ratchet.enabled, ratchet.parent_equal)
        _validate(sub, path, value, old, sub_ratchet, out, root, budget)
    if isinstance(value, dict):
        old_map = old if isinstance(old, dict) and node.correlatable_map else {}
        if node.extra is not None:
            for key, item in value.items():
                old_item = old_map.get(key, _MISSING)
                child_ratchet = ratchet.child(value, old_item)
                _validate(node.extra, f"{path}[{key}]", item, old_item, child_ratchet, out, False, budget)
        for key, item in value.items():
            prop = node.properties.get(key)
            if prop is None:
                continue
            old_item = old_map.get(key, _MISSING)
            child_ratchet = ratchet.child(value, old_item)
            if root and key in ("apiVersion", "kind"):
                child_ratchet = _Ratchet(_MISSING, False, False)
            _validate(prop, _child_path(path, key), item, old_item, child_ratchet, out, False, budget)
    elif isinstance(value, list) and node.items is not None:
        old_items = old if isinstance(old, list) else []
        for index, item in enumerate(value):
            old_item = _correlated_item(node.map_keys, item, old_items)
            item_ratchet = ratchet.child(value, old_item) if node.map_keys else _uncorrelated(ratchet, value)
            _validate(node.items, f"{path}[{index}]", item, old_item, item_ratchet, out, False, budget)


def _uncorrelated(ratchet: _Ratchet, value: Any) -> _Ratchet:
    if not ratchet.enabled or ratchet.old is _MISSING:
        return ratchet
    return _Ratchet(_MISSING, True, _deep_equal(value, ratchet.old))


def _correlated_item(keys: list[str] | None, item: Any, old_items: list[Any]) -> Any:
    """``makeMapList``: the old item with the same keys, in a list of type map only."""
    if not keys or not isinstance(item, dict):
        return _MISSING
    wanted = tuple(item.get(key, _MISSING) for key in keys)
    for old_item in old_items:
        if isinstance(old_item, dict) and tuple(old_item.get(key, _MISSING) for key in keys) == wanted:
            return old_item
    return _MISSING


def _run_rules(
    node: _NodeRules, path: str, value: Any, old: Any, ratchet: _Ratchet, out: Outcome, budget: Budget
) -> None:
    declared = node.declared
    assert declared is not None
    type_name = node.type_name
    if budget.exact and budget.remaining <= 0:
        out.errors.append(RuleError("Invalid", path, type_name, OUT_OF_BUDGET))
        raise Exhausted
    has_old = old is not _MISSING and old is not None
    data: dict[str, Any] = {"self": to_cel(value, declared)}
    old_value = to_cel(old, declared) if has_old else None
    if has_old:
        data["oldSelf"] = old_value
    if any(compiled.optional_old_self for compiled in node.compiled):
        data.update(old_self_variables(old_value, has_old))
    activation, binding_error = activation_of(data)
    for rule, compiled in zip(node.rules, node.compiled, strict=True):
        field_path = path
        if compiled.error:
            out.errors.append(RuleError("Invalid", path, type_name, f"rule compile error: {compiled.error}"))
            continue
        if compiled.program is None:
            continue
        if compiled.uses_old_self and not has_old and not compiled.optional_old_self:
            continue
        if binding_error is not None:
            out.errors.append(RuleError("Invalid", path, type_name, evaluation_error(binding_error, rule)))
            continue
        try:
            result, error = run_rule(rule, compiled, activation, data, budget)
        except LimitReached as reached:
            out.errors.append(RuleError("Invalid", path, type_name, reached.detail))
            raise Exhausted from None
        if error is not None:
            out.errors.append(RuleError("Invalid", path, type_name, evaluation_error(error, rule)))
            continue
        if result is True:
            continue
        normalized = _normalized_field_path(rule, node.schema)
        if normalized:
            field_path = _child_path(path, normalized)
        detail, stop = message_of(rule, compiled, activation, data, budget)
        error_record = _reason_error(rule.get("reason"), field_path, type_name, detail)
        if stop:
            error_record = RuleError("Invalid", field_path, type_name, detail)
        if not compiled.uses_old_self and ratchet.should_ratchet(value):
            out.warnings.append(error_text(error_record))
        else:
            out.errors.append(error_record)
        if stop:
            raise Exhausted


def _reason_error(reason: Any, path: str, type_name: str, detail: str) -> RuleError:
    """``fieldErrorForReason``."""
    if reason == "FieldValueForbidden":
        return RuleError("Forbidden", path, type_name, detail)
    if reason == "FieldValueRequired":
        return RuleError("Required", path, type_name, detail)
    if reason == "FieldValueDuplicate":
        return RuleError("Duplicate", path, type_name, detail)
    return RuleError("Invalid", path, type_name, detail)


def error_text(error: RuleError) -> str:
    """``field.Error.Error()`` of a rule error, for the warning a ratcheted error becomes (the nil path of a
    resource's root printed ``<nil>``)."""
    words = {"Invalid": "Invalid value", "Forbidden": "Forbidden", "Required": "Required value"}
    path = error.path or "<nil>"
    if error.kind == "Duplicate":
        return f'{path}: Duplicate value: "{error.value}"'
    body = words[error.kind]
    if error.kind == "Invalid":
        body += f': "{error.value}"'
    return f"{path}: {body}: {error.detail}"


def _normalized_field_path(rule: Mapping[str, Any], schema: Mapping[str, Any]) -> str:
    """The rule's ``fieldPath`` as a field path (``.x.y`` -> ``x.y``, ``.m['a.b']`` -> ``m[a.b]``)."""
    text = rule.get("fieldPath")
    if not isinstance(text, str) or not text:
        return ""
    return valid_field_path(text, schema) or ""


_cache: dict[int, tuple[Mapping[str, Any], SchemaRules]] = {}


def rules_of(schema: Mapping[str, Any]) -> SchemaRules:
    """The compiled rules of ``schema``, compiled the first time it is seen."""
    hit = _cache.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    compiled = SchemaRules(schema)
    if len(_cache) > 256:
        _cache.clear()
    _cache[id(schema)] = (schema, compiled)
    return compiled
