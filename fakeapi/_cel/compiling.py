"""A CRD's ``x-kubernetes-validations`` rule compiled as apiextensions-apiserver 1.32 compiles it.

``pkg/apiserver/schema/cel/compilation.go`` (``compileRule``): the rule is compiled against the type the
structural schema gives ``self`` and ``oldSelf`` (``optional(self's type)`` with ``optionalOldSelf``);
compile issues give ``compilation failed: <issues>``, a result other than bool ``cel expression must evaluate
to a bool``; ``UsesOldSelf`` says whether the rule names ``oldSelf``. A ``messageExpression`` is compiled the
same way and must give a string.

Each rule is compiled twice with cel-expr-python: once against the schema's declared types
(:mod:`.declarations`), for the errors, the result type and the cost, and once unchecked, for the program
that runs on plain values (:mod:`.values`). There an optional ``oldSelf`` is bound with ``cel.bind`` around
the rule, from two hidden variables, since a Python value cannot be a CEL optional.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_optional, ext_strings

from fakeapi._cel import library
from fakeapi._cel.costs import estimate_cost
from fakeapi._cel.declarations import Declared
from fakeapi._cel.estimates import AstNode, Estimate
from fakeapi._cel.format_library import runtime_source
from fakeapi._cel.literals import literal_issues, program_error
from fakeapi._cel.opaque import runtime_pool
from fakeapi._cel.rule_budget import runtime_bound
from fakeapi._cel.syntax_tree import Checked, read_checked
from fakeapi._cel.texts import Issue, issues_text, parse_issues, runtime_text

__all__ = ["Compiled", "RuleCompiler", "runtime_env", "runtime_extensions"]

T = cel.Type
_OLD_VALUE = "__fakeapi_old_self"
_HAS_OLD = "__fakeapi_has_old_self"
# An optional ``oldSelf`` around a rule: a one-element list mapped by the rule, whose iteration variable is
# ``oldSelf``, typed as the element, ``optional(self's type)``. ``map`` keeps the rule's own result type, and
# needs no library the rules may not use. The rule starts on the second line.
_WRAP = f"[{_HAS_OLD} ? optional.of({_OLD_VALUE}) : optional.none()].map(oldSelf,\n"
_UNWRAP = "\n)[0]"


@dataclass
class Compiled:
    """``CompilationResult``: the program, or the error detail, of a rule and of its messageExpression."""

    program: Any = None
    error: str = ""
    error_required: bool = False
    uses_old_self: bool = False
    optional_old_self: bool = False
    message_program: Any = None
    message_error: str = ""
    # cel-go's estimated cost (its maximum) of the rule and of its messageExpression
    max_cost: int = 0
    message_max_cost: int = 0
    # the checked trees (the rule's own, inside the optionalOldSelf wrapper) and bounds of one evaluation's
    # actual cost, for the runtime cost limits (:mod:`.rule_budget`)
    tree: Checked | None = None
    message_tree: Checked | None = None
    runtime_bound: int = 0
    message_runtime_bound: int = 0


def _extensions(checked: bool) -> list[Any]:
    """The libraries of a CRD rule: the strings extension at version 2 (``ext.StringsVersion(2)``, so no
    ``reverse``), optionals, the Kubernetes library; no bindings (Kubernetes 1.32 gives rules no ``cel.bind``)."""
    if checked:
        return [ext_strings.ExtStrings(2), ext_optional.ExtOptional(), library.checker_extension()]
    return [
        ext_strings.ExtStrings(2),
        ext_optional.ExtOptional(),
        library.runtime_extension(),
    ]


def runtime_extensions() -> list[Any]:
    """The libraries the programs run with."""
    return _extensions(checked=False)


@lru_cache(maxsize=1)
def runtime_env() -> Any:
    """The environment the programs run in: ``self`` and ``oldSelf`` are dyn, values are plain."""
    return cel.NewEnv(
        runtime_pool(),
        variables={"self": T.DYN, "oldSelf": T.DYN, _OLD_VALUE: T.DYN, _HAS_OLD: T.BOOL},
        extensions=_extensions(checked=False),
    )


@lru_cache(maxsize=1)
def _env_without_old_self() -> Any:
    return cel.NewEnv(runtime_pool(), variables={"self": T.DYN}, extensions=_extensions(checked=False))


class RuleCompiler:
    """Compiles the rules of one schema node against the type of ``self`` there."""

    def __init__(self, declared: Declared, pool: Any) -> None:
        self._declared = declared
        variables = {"self": declared.cel_type, "oldSelf": declared.cel_type, _OLD_VALUE: declared.cel_type}
        variables[_HAS_OLD] = T.BOOL
        self._checked = cel.NewEnv(pool, variables=variables, extensions=_extensions(checked=True))

    def compile(self, rule: Mapping[str, Any]) -> Compiled:
        source = rule.get("rule")
        result = Compiled(optional_old_self=rule.get("optionalOldSelf") is True)
        if not isinstance(source, str) or not source.strip():
            return result
        checked, issues = self._check(source, result.optional_old_self)
        if not issues:
            issues = literal_issues(source, _evaluate_literal)
        if issues:
            result.error = "compilation failed: " + issues_text(source, issues)
            return result
        if checked is None or checked.return_type() != T.BOOL:
            result.error = "cel expression must evaluate to a bool"
            return result
        instantiation = program_error(source, _evaluate_literal)
        if instantiation:
            result.error = f"program instantiation failed: {instantiation}"
            return result
        result.uses_old_self = _uses_old_self(source)
        tree = read_checked(checked.serialize())
        result.program = _runtime_program(source, result.optional_old_self, _uses_formats(tree))
        result.tree = _unwrapped(tree, result.optional_old_self)
        result.max_cost = estimate_cost(result.tree, self._declared).max
        bound = estimate_cost(result.tree, self._declared, runtime_sizes=True).max
        result.runtime_bound = runtime_bound(result.tree, bound)
        expression = rule.get("messageExpression")
        if isinstance(expression, str) and expression:
            message, issues = self._check(expression, result.optional_old_self)
            if issues:
                result.message_error = "messageExpression compilation failed: " + issues_text(expression, issues)
            elif message is None or message.return_type() != T.STRING:
                result.message_error = "messageExpression must evaluate to a string"
            else:
                tree = read_checked(message.serialize())
                result.message_program = _runtime_program(expression, result.optional_old_self, _uses_formats(tree))
                result.message_tree = _unwrapped(tree, result.optional_old_self)
                result.message_max_cost = estimate_cost(result.message_tree, self._declared).max
                bound = estimate_cost(result.message_tree, self._declared, runtime_sizes=True).max
                result.message_runtime_bound = runtime_bound(result.message_tree, bound)
        return result

    def estimated_cost(self, source: str, size_of: Callable[[AstNode], Estimate | None] | None = None) -> Estimate:
        """The estimated cost of any expression (not only a bool one); ValueError when it does not compile."""
        checked, issues = self._check(source, False)
        if issues or checked is None:
            raise ValueError(issues_text(source, issues))
        return estimate_cost(read_checked(checked.serialize()), self._declared, size_of=size_of)

    def checked_tree(self, source: str) -> Checked:
        """The checked tree of any expression; ValueError when it does not compile."""
        checked, issues = self._check(source, False)
        if issues or checked is None:
            raise ValueError(issues_text(source, issues))
        return read_checked(checked.serialize())

    def _check(self, source: str, optional_old_self: bool) -> tuple[Any, list[Issue]]:
        if not optional_old_self:
            return _compiled_or_issues(self._checked, source, 0)
        # Syntax errors are the rule's own: the wrapper must not turn a missing ')' into another one.
        _, issues = _compiled_or_issues(self._checked, source, 0)
        syntax = [issue for issue in issues if issue.message.startswith("Syntax error")]
        if syntax:
            return None, syntax
        return _compiled_or_issues(self._checked, _WRAP + source + _UNWRAP, 1)


def _compiled_or_issues(env: Any, source: str, shift: int) -> tuple[Any, list[Issue]]:
    try:
        return env.compile(source), []
    except RuntimeError as error:
        original = source.split("\n", shift)[-1] if shift else source
        issues = parse_issues(str(error), original, shift)
        return None, issues or [Issue(1, 1, str(error))]


def _evaluate_literal(expression: str) -> None:
    """Raises ValueError when ``expression`` (a call on a literal) fails to evaluate."""
    try:
        result = runtime_env().compile(expression, disable_check=True).eval()
    except RuntimeError as error:
        raise ValueError(str(error)) from None
    if result.type().name() == "ERROR":
        raise ValueError(runtime_text(str(result.value())))


def _uses_old_self(source: str) -> bool:
    """``UsesOldSelf``: the rule does not compile where ``oldSelf`` is not declared."""
    try:
        _env_without_old_self().compile(source)
    except RuntimeError as error:
        return re.search(r"undeclared reference to 'oldSelf[.']", str(error)) is not None
    return False


def _unwrapped(tree: Checked, optional_old_self: bool) -> Checked:
    """The rule's own tree inside the ``map`` that makes ``oldSelf`` optional (its loop step adds ``[rule]``)."""
    if not optional_old_self:
        return tree
    node = tree.root
    if node.kind == "call" and node.children and node.children[0].kind == "comprehension":
        step = node.children[0].parts["loop_step"]
        if step.kind == "call" and len(step.children) == 2 and step.children[1].kind == "list":
            return Checked(step.children[1].children[0], tree.types, tree.overloads)
    return tree


def _uses_formats(tree: Checked) -> bool:
    """Whether the checked rule calls ``format.named`` or ``validate``, whose results the runtime reads
    differently (:func:`format_library.runtime_source`)."""
    return any(
        overload in ("format-named", "format-validate")
        for overloads in tree.overloads.values()
        for overload in overloads
    )


def _runtime_program(source: str, optional_old_self: bool, formats: bool = False) -> Any:
    # Unchecked: the runtime dispatches on kinds, and the checked program already vouched for the types.
    if formats:
        source = runtime_source(source)
    return runtime_env().compile(_WRAP + source + _UNWRAP if optional_old_self else source, disable_check=True)


def old_self_variables(old: Any, has_old: bool) -> dict[str, Any]:
    """The hidden variables an ``optionalOldSelf`` rule's ``oldSelf`` is bound from."""
    return {_OLD_VALUE: old, _HAS_OLD: has_old}
