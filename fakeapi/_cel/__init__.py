"""CEL validation rules of CustomResourceDefinitions (``x-kubernetes-validations``), as pure functions.

The CEL language itself is cel-expr-python's (the C++ implementation of CEL, with its type checker); what is
Kubernetes' is here: the types a structural schema gives ``self`` (:mod:`.declarations`, :mod:`.escaping`),
the values rules see (:mod:`.values`), the Kubernetes CEL library (:mod:`.library`), compiling a rule as
apiextensions-apiserver does (:mod:`.compiling`) with cel-go's texts (:mod:`.texts`), ``fieldPath``
(:mod:`.field_paths`) and running the rules on a write with ratcheting (:mod:`.validating`). No store, no
HTTP: the state layer calls in and turns :class:`RuleError` into field errors. See docs/cel.md.
"""

from __future__ import annotations

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
