"""A ValidatingAdmissionPolicy's expressions compiled and evaluated as k8s.io/apiserver 1.32 does it.

The composition environment (``pkg/admission/plugin/cel/compile.go``, ``createEnvForOpts``, and
``composition.go``, ``NewCompositionEnv``) is the one place these environments are built: the base environment
of :mod:`.admission_conditions` (``object``, ``oldObject``, ``request``, ``namespaceObject``), ``params`` (dyn)
when the policy has a ``paramKind``, and ``variables``, an object type ``kubernetes.variables`` whose fields are
the variables compiled before, each typed as its expression's result (``CompileAndStoreVariable``; a variable
that did not compile is dyn). cel-expr-python knows struct types as protobuf messages, so ``variables`` is a
message of the ``kubernetes`` package built per set of variables; a result protobuf cannot hold (a list of
lists, a map with other than string keys) is declared dyn. ``authorizer`` and ``authorizer.requestResource`` are the authorizer library's (docs/cel-authorizer.md).

The type checker's variant (``validating/typechecking.go``, ``buildEnvSet`` and ``typeCheckingCompiler``) is the
same environment with ``object`` and ``oldObject`` typed by a kind's schema and ``params`` by the param kind's
(declared only when that schema is known), ``variables`` always declared, and no result type required:
:func:`type_check` gives each expression's issues (docs/admission-policies.md).

``CompileCELExpression``: issues give ``compilation failed: <issues>``; a result that is not one of the types
the expression must return gives ``must evaluate to <type> but got <type>`` (``must evaluate to one of [...]``
for several). ``activation.go`` (``Evaluate``): an expression that did not compile is the error ``compilation
error: <that>``, one that fails at run time ``expression '<expression>' resulted in error: <error>``.

Variables are lazy upstream (``lazy.MapValue``): one is evaluated when an expression first reads it, and its
error is the reader's. Here each is evaluated once, in order, before the expressions; one that failed is left out
of ``variables`` and its error (``composited variable "<name>" fails to evaluate: <error>``) replaces the ``no
such key`` of a read of it, so an expression that never reads it is not affected.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, descriptor_pool, duration_pb2, struct_pb2, timestamp_pb2

from fakeapi._cel import opaque
from fakeapi._cel.admission_conditions import _go_type_name
from fakeapi._cel.admission_types import NAMESPACE, REQUEST
from fakeapi._cel.admission_types import _file as admission_file
from fakeapi._cel.authorizer_library import add_declarations
from fakeapi._cel.compiling import _evaluate_literal, _extensions, _uses_formats
from fakeapi._cel.declarations import declare_in_file
from fakeapi._cel.format_library import runtime_source
from fakeapi._cel.literals import literal_issues, program_error
from fakeapi._cel.opaque import runtime_pool
from fakeapi._cel.syntax_tree import read_checked
from fakeapi._cel.texts import Issue, issues_text, parse_issues, runtime_text

__all__ = [
    "BOOL",
    "STRING",
    "STRING_OR_NULL",
    "CompiledExpression",
    "SchemaType",
    "Variables",
    "compile_expression",
    "evaluate",
    "schema_type",
    "type_check",
]

T = cel.Type
BOOL = ("bool",)
STRING = ("string",)
STRING_OR_NULL = ("string", "null_type")
VARIABLES = "kubernetes.variables"
_NAMES = ("object", "oldObject", "request", "namespaceObject", "params", "variables")
_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "BOOL": _F.TYPE_BOOL,
    "INT": _F.TYPE_INT64,
    "UINT": _F.TYPE_UINT64,
    "DOUBLE": _F.TYPE_DOUBLE,
    "STRING": _F.TYPE_STRING,
    "BYTES": _F.TYPE_BYTES,
}
_WELL_KNOWN = {"TIMESTAMP": ".google.protobuf.Timestamp", "DURATION": ".google.protobuf.Duration"}
_CPP_SELECT_ON_NON_MESSAGE = "Applying SELECT to non-message type"
_ROOT_SELECT = re.compile(r"(?<![\w.'\"])(object|oldObject|namespaceObject|params)\s*\.\s*([A-Za-z_]\w*)")
_NO_SUCH_KEY = re.compile(r"^no such key: (\w+)$")
_IDENTIFIER = re.compile(r"^[_a-zA-Z][_a-zA-Z0-9]*$")
# The package prefix of the message types :mod:`.declarations` builds from schemas.
_SCHEMA_PACKAGE = "fakeapi_cel_"

# A variable's declared type: its name and the checker's spelling of its result type.
Variables = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class CompiledExpression:
    """``CompilationResult``: the program, the error detail, and the result type (the checker's name)."""

    expression: str
    program: Any = None
    error: str = ""
    output: str = "DYN"


@dataclass(frozen=True, eq=False)
class SchemaType:
    """A kind's schema as the checker declares it (``SchemaDeclType``): its proto file and the root's type."""

    file: Any
    cel_type: Any


def schema_type(schema: Mapping[str, Any]) -> SchemaType:
    """``common.SchemaDeclType(schema, true)``: the type of a resource's root (:mod:`.declarations`)."""
    declared, file = declare_in_file(schema, True)
    return SchemaType(file, declared.cel_type if declared is not None else T.DYN)


def _set_field_type(target: Any, spelled: str) -> bool:
    """Give a proto field the type the checker names ``spelled``; False when protobuf cannot hold it."""
    if spelled in _SCALARS:
        target.type = _SCALARS[spelled]
    elif spelled in _WELL_KNOWN:
        target.type, target.type_name = _F.TYPE_MESSAGE, _WELL_KNOWN[spelled]
    elif spelled.startswith(("kubernetes.", _SCHEMA_PACKAGE)):
        target.type, target.type_name = _F.TYPE_MESSAGE, "." + spelled
    else:
        return False
    return True


def _entry_name(field_name: str) -> str:
    """protobuf's ``MapEntryName``: the field's name in camel case, then ``Entry``."""
    parts = field_name.split("_")
    return "".join(part[:1].upper() + part[1:] for part in parts) + "Entry"


def _add_field(message: Any, number: int, name: str, spelled: str) -> None:
    added = message.field.add(name=name, number=number, json_name=name, label=_F.LABEL_OPTIONAL)
    inner = spelled[5:-1] if spelled.startswith("LIST<") else ""
    key, _, value = spelled[4:-1].partition(", ") if spelled.startswith("MAP<") else ("", "", "")
    if inner and _set_field_type(added, inner):
        added.label = _F.LABEL_REPEATED
    elif key == "STRING" and value and _entry_name(name) not in {nested.name for nested in message.nested_type}:
        entry = message.nested_type.add(name=_entry_name(name))
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
        if not _set_field_type(entry.field.add(name="value", number=2, label=_F.LABEL_OPTIONAL), value):
            del message.nested_type[-1]
            added.type, added.type_name = _F.TYPE_MESSAGE, ".google.protobuf.Value"
            return
        added.label = _F.LABEL_REPEATED
        added.type, added.type_name = _F.TYPE_MESSAGE, f".{VARIABLES}.{entry.name}"
    elif not _set_field_type(added, spelled):
        added.type, added.type_name = _F.TYPE_MESSAGE, ".google.protobuf.Value"


@lru_cache(maxsize=128)
def _checking_env(has_params: bool, variables: Variables | None) -> Any:
    """The environment of ``createEnvForOpts``; ``variables`` None: without composition (no ``variables``)."""
    return _build_env(has_params, variables, None, None)


@lru_cache(maxsize=32)
def _typed_env(has_params: bool, variables: Variables, object_type: SchemaType, params_type: SchemaType | None) -> Any:
    """The type checker's environment; a built-in kind's :class:`SchemaType` is kept, so its environment is too."""
    return _build_env(has_params, variables, object_type, params_type)


def _build_env(
    has_params: bool, variables: Variables | None, object_type: SchemaType | None, params_type: SchemaType | None
) -> Any:
    """``createEnvForOpts``, or with typed ``object``/``oldObject``/``params``, ``buildEnvSet``."""
    pool = descriptor_pool.DescriptorPool()
    for dependency in (struct_pb2, timestamp_pb2, duration_pb2):
        pool.AddSerializedFile(dependency.DESCRIPTOR.serialized_pb)
    opaque.add_to(pool)
    base = admission_file()
    pool.Add(base)
    schema_files = [typed.file for typed in (object_type, params_type) if typed is not None]
    for file in schema_files:
        pool.Add(file)
    declared = descriptor_pb2.FileDescriptorProto(
        name="fakeapi_cel_policy_variables.proto",
        package="kubernetes",
        syntax="proto2",
        dependency=[
            "google/protobuf/struct.proto",
            "google/protobuf/timestamp.proto",
            "google/protobuf/duration.proto",
            base.name,
            *(file.name for file in schema_files),
        ],
    )
    message = declared.message_type.add(name="variables")
    # ``AddField`` replaces a field of the same name: the last variable of a name gives its type.
    fields = {name: spelled for name, spelled in variables or () if _IDENTIFIER.match(name)}
    for number, (name, spelled) in enumerate(fields.items(), start=1):
        _add_field(message, number, name, spelled)
    pool.Add(declared)
    object_cel_type = object_type.cel_type if object_type is not None else T.DYN
    names: dict[str, Any] = {
        "object": object_cel_type,
        "oldObject": object_cel_type,
        "request": T(REQUEST),
        "namespaceObject": T(NAMESPACE),
    }
    if variables is not None:
        names["variables"] = T(VARIABLES)
    if has_params:
        names["params"] = params_type.cel_type if params_type is not None else T.DYN
    extensions = _extensions(checked=True)
    add_declarations(pool, names, extensions, checked=True)
    return cel.NewEnv(pool, variables=names, extensions=extensions)


@lru_cache(maxsize=1)
def _runtime_env() -> Any:
    variables = dict.fromkeys(_NAMES, T.DYN)
    extensions = _extensions(checked=False)
    add_declarations(runtime_pool(), variables, extensions, checked=False)
    return cel.NewEnv(runtime_pool(), variables=variables, extensions=extensions)


def _go_types(returns: tuple[str, ...]) -> str:
    return returns[0] if len(returns) == 1 else "[" + " ".join(returns) + "]"


@lru_cache(maxsize=1024)
def compile_expression(
    expression: str, has_params: bool, variables: Variables | None, returns: tuple[str, ...] | None
) -> CompiledExpression:
    """``CompileCELExpression``; ``returns`` the types the result may have (None: any); ``variables`` None
    compiles without composition, as the validation of a policy without variables does."""
    try:
        checked = _checking_env(has_params, variables).compile(expression)
        issues: list[Issue] = []
    except RuntimeError as error:
        checked = None
        issues = parse_issues(str(error), expression) or [Issue(1, 1, str(error))]
    if not issues:
        issues = literal_issues(expression, _evaluate_literal)
    if issues or checked is None:
        return CompiledExpression(expression, error="compilation failed: " + issues_text(expression, issues))
    output = checked.return_type()
    got = _go_type_name(output)
    got = "null_type" if got == "null" else got
    if returns is not None and got not in returns:
        kind = "" if len(returns) == 1 else "one of "
        return CompiledExpression(expression, error=f"must evaluate to {kind}{_go_types(returns)} but got {got}")
    instantiation = program_error(expression, _evaluate_literal)
    if instantiation:
        return CompiledExpression(expression, error=f"program instantiation failed: {instantiation}")
    source = runtime_source(expression) if _uses_formats(read_checked(checked.serialize())) else expression
    program = _runtime_env().compile(source, disable_check=True)
    return CompiledExpression(expression, program=program, output=str(output.name()))


def _check_issues(env: Any, expression: str) -> tuple[Any, str]:
    """``env.Compile``: the checked expression, or cel-go's ``Issues.String()``."""
    try:
        checked = env.compile(expression)
        issues: list[Issue] = []
    except RuntimeError as error:
        checked = None
        issues = parse_issues(str(error), expression) or [Issue(1, 1, str(error))]
    if not issues:
        issues = literal_issues(expression, _evaluate_literal)
    return (None, issues_text(expression, issues)) if issues else (checked, "")


def type_check(
    expressions: Sequence[str],
    variables: Sequence[tuple[str, str]],
    object_type: SchemaType,
    params_type: SchemaType | None,
) -> list[str]:
    """``TypeChecker.CheckExpression`` against one kind: each expression's issues (``""`` for none).

    The variables (name, expression) are compiled first, in order, each with those before it declared as its
    result type, dyn when it does not compile (``CompileAndStoreVariables``); ``params`` is declared only with
    ``params_type``; no result type is required (``typeCheckingCompiler``)."""
    has_params = params_type is not None
    declared: list[tuple[str, str]] = []
    for name, expression in variables:
        checked, _ = _check_issues(_typed_env(has_params, tuple(declared), object_type, params_type), expression)
        declared.append((name, str(checked.return_type().name()) if checked is not None else "DYN"))
    env = _typed_env(has_params, tuple(declared), object_type, params_type)
    return [_check_issues(env, expression)[1] for expression in expressions]


def _select_on_null(expression: str, values: Mapping[str, Any], text: str) -> str:
    """cel-go's ``no such key: <field>`` for a field read on a null variable (cel-cpp does not name the field)."""
    if text != _CPP_SELECT_ON_NON_MESSAGE:
        return text
    for match in _ROOT_SELECT.finditer(expression):
        if values.get(match.group(1), "") is None:
            return f"no such key: {match.group(2)}"
    return text


@dataclass
class Evaluated:
    """What one expression gave: its value, or its error as ``activation.Evaluate`` words it."""

    value: Any = None
    error: str = ""
    is_string: bool = False
    is_null: bool = False


@dataclass
class Activation:
    """The variables of one evaluation, and the errors of the policy's variables that failed."""

    values: dict[str, Any]
    failed: dict[str, str] = field(default_factory=dict)
    # The functions bound per evaluation: the authorizer's ``check``, which asks the server's authorizer.
    functions: Sequence[Any] = ()


def _run(compiled: CompiledExpression, activation: Activation) -> tuple[Any, str, str]:
    """The value and its type's name, or the runtime error's text (cel-go's words)."""
    try:
        result = compiled.program.eval(
            _runtime_env().Activation(dict(activation.values), functions=list(activation.functions))
        )
    except Exception as error:  # a value the runtime cannot take is the expression's error, never a 500
        return None, "", str(error)
    type_name = str(result.type().name())
    if type_name == "ERROR":
        text = _select_on_null(compiled.expression, activation.values, runtime_text(str(result.value())))
        missing = _NO_SUCH_KEY.match(text)
        if missing and missing.group(1) in activation.failed and f"variables.{missing.group(1)}" in compiled.expression:
            text = activation.failed[missing.group(1)]
        return None, "", text
    return result.value(), type_name, ""


def evaluate(compiled: CompiledExpression, activation: Activation) -> Evaluated:
    """``Evaluate``: the result, or the error text (``compilation error: ...``, ``expression '...' resulted in ...``)."""
    if compiled.program is None:
        return Evaluated(error=f"compilation error: {compiled.error}")
    value, type_name, error = _run(compiled, activation)
    if error:
        return Evaluated(error=f"expression '{compiled.expression}' resulted in error: {error}")
    return Evaluated(value, is_string=type_name == "STRING", is_null=type_name in ("NULL_TYPE", "NULL"))


def bind_variable(name: str, compiled: CompiledExpression, activation: Activation) -> None:
    """``variableAccessor.Callback``: the variable's value into ``variables``, or its error kept for its readers."""
    if compiled.program is None:
        activation.failed[name] = f'composited variable "{name}" fails to compile: {compiled.error}'
        return
    value, _, error = _run(compiled, activation)
    if error:
        activation.failed[name] = f'composited variable "{name}" fails to evaluate: {error}'
        return
    activation.values["variables"] = {**activation.values["variables"], name: value}
