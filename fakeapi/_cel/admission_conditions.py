"""Admission webhooks' ``matchConditions`` compiled and evaluated as k8s.io/apiserver 1.32 does it.

The composition environment (``pkg/admission/plugin/cel/compile.go``, ``createEnvForOpts``): the base
environment of CRD rules (:mod:`.compiling`: strings v2, optionals, the Kubernetes library) with the variables
``object`` and ``oldObject`` (dyn: webhooks give them no schema), ``request`` (the AdmissionRequest without
uid, object and oldObject) and ``namespaceObject`` (a webhook's matcher never binds it, so it is null), their
types in :mod:`.admission_types`, and ``authorizer`` and ``authorizer.requestResource`` with the authorizer
library (:mod:`.authorizer_library`), whose values an evaluation is given with the others. ``params`` is not
declared for webhooks.

``CompileCELExpression``: issues give ``compilation failed: <issues>``; a result that is not exactly bool gives
``must evaluate to bool but got <type>``. ``condition.go`` (``ForInput``) and ``activation.Evaluate``: a
condition that did not compile is the error ``compilation error: <that>``, one that fails at run time
``expression '<expression>' resulted in error: <error>``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from fakeapi._cel.admission_types import NAMESPACE, REQUEST, admission_pool
from fakeapi._cel.authorizer_library import add_declarations
from fakeapi._cel.compiling import _evaluate_literal, _extensions, _uses_formats
from fakeapi._cel.format_library import runtime_source
from fakeapi._cel.literals import literal_issues, program_error
from fakeapi._cel.opaque import runtime_pool
from fakeapi._cel.syntax_tree import read_checked
from fakeapi._cel.texts import Issue, issues_text, parse_issues, runtime_text

__all__ = ["CompiledCondition", "compile_condition", "evaluate_condition"]

T = cel.Type
_VARIABLES = ("object", "oldObject", "request", "namespaceObject")
_CPP_SELECT_ON_NON_MESSAGE = "Applying SELECT to non-message type"
_ROOT_SELECT = re.compile(r"(?<![\w.'\"])(object|oldObject|namespaceObject)\s*\.\s*([A-Za-z_]\w*)")


@dataclass(frozen=True)
class CompiledCondition:
    """One condition: its program, or the compile error ``CompileCELExpression`` gives it."""

    expression: str
    program: Any = None
    error: str = ""


@lru_cache(maxsize=1)
def _checking_env() -> Any:
    variables = {"object": T.DYN, "oldObject": T.DYN, "request": T(REQUEST), "namespaceObject": T(NAMESPACE)}
    extensions = _extensions(checked=True)
    add_declarations(admission_pool(), variables, extensions, checked=True)
    return cel.NewEnv(admission_pool(), variables=variables, extensions=extensions)


@lru_cache(maxsize=1)
def _runtime_env() -> Any:
    variables = dict.fromkeys(_VARIABLES, T.DYN)
    extensions = _extensions(checked=False)
    add_declarations(runtime_pool(), variables, extensions, checked=False)
    return cel.NewEnv(runtime_pool(), variables=variables, extensions=extensions)


def _go_type_name(checked_type: Any) -> str:
    """cel-go's ``Type.String()`` for a result type: ``string``, ``list(string)``, ``map(string, dyn)``."""
    spelled = []
    for part in re.split(r"([<>,]\s*)", str(checked_type.name())):
        if part.startswith(","):
            part = ", "
        spelled.append(part.lower() if part.isupper() else part)
    return "".join(spelled).replace("<", "(").replace(">", ")")


@lru_cache(maxsize=256)
def compile_condition(expression: str) -> CompiledCondition:
    try:
        checked = _checking_env().compile(expression)
        issues: list[Issue] = []
    except RuntimeError as error:
        checked = None
        issues = parse_issues(str(error), expression) or [Issue(1, 1, str(error))]
    if not issues:
        issues = literal_issues(expression, _evaluate_literal)
    if issues or checked is None:
        return CompiledCondition(expression, error="compilation failed: " + issues_text(expression, issues))
    if checked.return_type() != T.BOOL:
        return CompiledCondition(
            expression, error=f"must evaluate to bool but got {_go_type_name(checked.return_type())}"
        )
    instantiation = program_error(expression, _evaluate_literal)
    if instantiation:
        return CompiledCondition(expression, error=f"program instantiation failed: {instantiation}")
    source = runtime_source(expression) if _uses_formats(read_checked(checked.serialize())) else expression
    return CompiledCondition(expression, program=_runtime_env().compile(source, disable_check=True))


def _null_select_text(expression: str, variables: Mapping[str, Any], text: str) -> str:
    """cel-go's ``no such key: <field>`` for a field read on a null variable (``oldObject`` of a create).

    cel-cpp's error does not name the field; it is taken from the first ``<variable>.<field>`` in the source
    whose variable is null, the read that fails when the expression reads only one such field."""
    if text != _CPP_SELECT_ON_NON_MESSAGE:
        return text
    for match in _ROOT_SELECT.finditer(expression):
        if match.group(1) in variables and variables[match.group(1)] is None:
            return f"no such key: {match.group(2)}"
    return text


def evaluate_condition(
    condition: CompiledCondition, variables: Mapping[str, Any], functions: Sequence[Any] = ()
) -> bool | str:
    """Whether the condition holds, or its error as ``ForInput`` words it; ``functions`` are the ones bound
    per evaluation (the authorizer's ``check``)."""
    if condition.program is None:
        return f"compilation error: {condition.error}"
    try:
        result = condition.program.eval(_runtime_env().Activation(dict(variables), functions=list(functions)))
    except Exception as error:  # a value the runtime cannot take is the condition's error, never a 500
        return f"expression '{condition.expression}' resulted in error: {error}"
    value = result.value()
    if result.type().name() == "ERROR":
        text = _null_select_text(condition.expression, variables, runtime_text(str(value)))
        return f"expression '{condition.expression}' resulted in error: {text}"
    # ``Match`` skips a webhook only on ``celtypes.False``: any other value (a dyn result) counts as true.
    return value is not False
