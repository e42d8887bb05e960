"""One evaluation of a rule or of its messageExpression, with the texts and the cost limits around it.

apiextensions-apiserver ``pkg/apiserver/schema/cel/validation.go`` (``validateExpressions``,
``evalMessageExpression``, ``ruleErrorString``), v0.32: an evaluation error reads ``<error> evaluating rule:
<rule>`` (``no such overload`` errors their own sentence), the rule being its message when it has one; a
messageExpression whose result is an error, empty, multi-line or longer than 5 KiB falls back to the rule's
message. Each evaluation's cost goes to the object's budget (:mod:`.rule_budget`), which may stop the
validation (:class:`LimitReached`). Where cel-expr-python stops a comprehension at its own limit of 10,000
iterations, which cel-go does not have, the result is the one the cost walk computes
(:mod:`.runtime_costs`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._cel.compiling import Compiled, runtime_env
from fakeapi._cel.rule_budget import CANCELLED, MESSAGE_OUT_OF_BUDGET, OUT_OF_BUDGET, PER_CALL_LIMIT, Budget
from fakeapi._cel.runtime_costs import CelError, UnknownCost, walked_value
from fakeapi._cel.runtime_values import NONE, CelOptional
from fakeapi._cel.syntax_tree import Checked
from fakeapi._cel.texts import runtime_text
from fakeapi._patching.gostrconv import quote

__all__ = ["LimitReached", "activation_of", "evaluation_error", "message_of", "run_rule"]

_MAX_MESSAGE_BYTES = 5 * 1024


class LimitReached(Exception):
    """A cost limit stopped the validation; ``detail`` is the rule's error."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def run_rule(
    rule: Mapping[str, Any], compiled: Compiled, activation: Any, data: Mapping[str, Any], budget: Budget
) -> tuple[Any, str | None]:
    """The rule's result, or its evaluation error; its cost taken from the budget."""
    result, error = _evaluate(compiled.program, activation)
    if error is not None and _ITERATIONS in error:
        result, error = _walked(compiled.tree, _cost_variables(data, compiled), budget, (result, error))
    if not budget.exact:
        budget.estimate(compiled.runtime_bound)
    else:
        verdict = budget.spend(compiled.tree, _cost_variables(data, compiled), compiled.runtime_bound)
        if verdict is not None:
            raise LimitReached(_cost_error(verdict, rule))
    return result, error


def message_of(
    rule: Mapping[str, Any], compiled: Compiled, activation: Any, data: Mapping[str, Any], budget: Budget
) -> tuple[str, bool]:
    """The message of a failed rule, and whether no further rule may run (its messageExpression ran out of
    budget: the message then says so)."""
    if compiled.message_program is None:
        return _default_message(rule), False
    result, error = _evaluate(compiled.message_program, activation)
    if error is not None and _ITERATIONS in error:
        variables = _cost_variables(data, compiled)
        result, error = _walked(compiled.message_tree, variables, budget, (result, error))
    if not budget.exact:
        budget.estimate(compiled.message_runtime_bound)
    else:
        variables = _cost_variables(data, compiled)
        verdict = budget.spend(compiled.message_tree, variables, compiled.message_runtime_bound)
        if verdict == "budget":
            return MESSAGE_OUT_OF_BUDGET, True
        if verdict == "cancelled":
            expression = quote(str(rule.get("messageExpression")))
            detail = f"no further validation rules will be run due to call cost exceeds limit for messageExpression: {expression}"
            return detail, True
    if error is not None or not isinstance(result, str):
        return _default_message(rule), False
    text = result.strip()
    if not text or "\n" in text or len(text.encode()) > _MAX_MESSAGE_BYTES:
        return _default_message(rule), False
    return text, False


def activation_of(data: dict[str, Any]) -> tuple[Any, str | None]:
    """One activation for every rule of a node (binding the values once is half the cost of a rule)."""
    try:
        return runtime_env().Activation(data), None
    except Exception as error:  # a value the runtime cannot take (an integer past int64) is the rule's error
        return None, str(error)


def _evaluate(program: Any, activation: Any) -> tuple[Any, str | None]:
    try:
        result = program.eval(activation)
    except Exception as error:  # a value the runtime cannot take must not become a 500
        return None, str(error)
    value = result.value()
    if value is True or value is False:
        return value, None
    if result.type().name() == "ERROR":
        return None, runtime_text(str(value))
    return value, None


def _rule_text(rule: Mapping[str, Any]) -> str:
    """``ruleErrorString``: the message when there is one, else the rule, trimmed."""
    message = rule.get("message")
    if isinstance(message, str) and message:
        return message.strip()
    source = rule.get("rule")
    return source.strip() if isinstance(source, str) else ""


def evaluation_error(error: str, rule: Mapping[str, Any]) -> str:
    if error.startswith("no such overload"):
        return (
            f"'{error}': call arguments did not match a supported operator, function or macro signature for rule: "
            + _rule_text(rule)
        )
    return f"{error} evaluating rule: {_rule_text(rule)}"


def _default_message(rule: Mapping[str, Any]) -> str:
    message = rule.get("message")
    if isinstance(message, str) and message:
        return message.strip()
    return f"failed rule: {_rule_text(rule)}"


_ITERATIONS = "Iteration budget exceeded"


def _walked(
    tree: Checked | None, variables: Mapping[str, Any], budget: Budget, original: tuple[Any, str | None]
) -> tuple[Any, str | None]:
    """A result where cel-expr-python stopped at its limit of comprehension iterations, which cel-go does not
    have: the value the cost walk computes. Stopped at the per-call limit, the result cannot matter: the
    counting pass reports the limit instead."""
    if tree is None:
        return original
    try:
        value, cancelled = walked_value(tree, variables, PER_CALL_LIMIT)
    except UnknownCost:
        return original
    if cancelled:
        budget.over = True
        return True, None
    if isinstance(value, CelError):
        return None, runtime_text(value.text)
    return value, None


def _cost_variables(data: Mapping[str, Any], compiled: Compiled) -> Mapping[str, Any]:
    """The variables of the rule's own tree: with ``optionalOldSelf``, ``oldSelf`` is an optional."""
    if not compiled.optional_old_self:
        return data
    has_old = "oldSelf" in data
    return {"self": data["self"], "oldSelf": CelOptional(True, data["oldSelf"]) if has_old else NONE}


def _cost_error(verdict: str, rule: Mapping[str, Any]) -> str:
    if verdict == "budget":
        return OUT_OF_BUDGET
    return f"'{CANCELLED}': no further validation rules will be run due to call cost exceeds limit for rule: " + (
        _rule_text(rule)
    )
