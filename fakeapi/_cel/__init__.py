"""CEL validation rules of CustomResourceDefinitions (``x-kubernetes-validations``), as pure functions.

The CEL language itself is cel-expr-python's (the C++ implementation of CEL, with its type checker); what is
Kubernetes' is here: the types a structural schema gives ``self`` (:mod:`.declarations`, :mod:`.escaping`),
the values rules see (:mod:`.values`), the Kubernetes CEL library (:mod:`.library`, :mod:`.opaque_functions`),
compiling a rule as apiextensions-apiserver does (:mod:`.compiling`) with cel-go's texts (:mod:`.texts`,
:mod:`.literals`), ``fieldPath`` (:mod:`.field_paths`), the estimated cost (:mod:`.costs`) and running the
rules on a write with ratcheting (:mod:`.validating`). Admission webhooks' ``matchConditions`` are compiled and
evaluated in the admission composition environment (:mod:`.admission_conditions`, :mod:`.admission_types`),
which has the authorizer library (:mod:`.authorizer_library`, :mod:`.authorizer_types`).
No store, no HTTP: the state layer calls in and turns :class:`RuleError` into field errors. See docs/cel.md
and docs/admission.md.

The names are loaded on first use: a server whose CRDs have no rules never loads the CEL runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakeapi._cel.compiling import Compiled, RuleCompiler
    from fakeapi._cel.declarations import Declared, declare
    from fakeapi._cel.escaping import escape
    from fakeapi._cel.field_paths import valid_field_path
    from fakeapi._cel.validating import Outcome, RuleError, SchemaRules, rules_of

__all__ = [
    "Compiled",
    "Declared",
    "Outcome",
    "RuleCompiler",
    "RuleError",
    "SchemaRules",
    "declare",
    "escape",
    "rules_of",
    "valid_field_path",
]

_HOMES = {
    "Compiled": "compiling",
    "RuleCompiler": "compiling",
    "Declared": "declarations",
    "declare": "declarations",
    "escape": "escaping",
    "valid_field_path": "field_paths",
    "Outcome": "validating",
    "RuleError": "validating",
    "SchemaRules": "validating",
    "rules_of": "validating",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(name)
    return getattr(importlib.import_module(f"fakeapi._cel.{home}"), name)
