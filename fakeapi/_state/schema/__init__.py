"""A custom resource's ``openAPIV3Schema`` applied as kube-apiserver 1.32 applies it, as pure functions.

The request pipeline for a CR body, step by step (apiextensions-apiserver ``customresource_handler.go``,
``unstructuredSchemaCoercer.apply``, then the versioning decoder's defaulter, then the strategy):

- :func:`prune` (:mod:`.pruning`): unknown keys of the root ``metadata``, then ``pruning.PruneWithOptions``,
  then the ObjectMeta round trip of embedded resources (:mod:`.embedded`), their paths in the order of the
  ``unknown field "<path>"`` warnings and strict-decoding errors.
- :func:`embedded_coercion_error` (:mod:`.embedded`): the decode error ``CoerceWithOptions`` raises for an
  embedded resource whose ``apiVersion``/``kind`` is not a string or whose ``metadata`` is not an object (a
  400, not a 422).
- :func:`drop_nulls_without_defaults` and :func:`apply_defaults` (:mod:`.defaulting`):
  ``PruneNonNullableNullsWithoutDefaults`` and ``Default``.
- :func:`validate` (:mod:`.validating`): kube-openapi's ``SchemaValidator`` mapped to field errors, then the
  embedded-resource checks of ``objectmeta.Validate`` (:mod:`.embedded_validation`), with Go's spellings of
  values in messages (:mod:`.messages`) and strfmt's formats (:mod:`.formats`).
- :func:`list_type_errors` (:mod:`.listtypes`): ``ValidateListSetsAndMaps``, the uniqueness of ``set`` and
  ``map`` lists.
- :func:`rule_causes` (:mod:`.rules`): the ``x-kubernetes-validations`` CEL rules, last (:mod:`fakeapi._cel`).

These run on every write, so none of them copies the object up front: each returns its input itself when
nothing changes and otherwise copies only the containers on the way to a change, never changing the input. What
a schema allows to skip (no defaults, nothing to prune under ``x-kubernetes-preserve-unknown-fields``, no
embedded resources) is decided once per schema (:mod:`.structural`).
"""

from __future__ import annotations

from fakeapi._state.schema.defaulting import apply_defaults, drop_nulls_without_defaults
from fakeapi._state.schema.embedded import embedded_coercion_error
from fakeapi._state.schema.listtypes import list_type_errors
from fakeapi._state.schema.pruning import prune
from fakeapi._state.schema.rules import rule_causes
from fakeapi._state.schema.structural import Schema, status_only
from fakeapi._state.schema.validating import validate

__all__ = [
    "Schema",
    "apply_defaults",
    "drop_nulls_without_defaults",
    "embedded_coercion_error",
    "list_type_errors",
    "prune",
    "rule_causes",
    "status_only",
    "validate",
]
