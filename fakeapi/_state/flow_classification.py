"""Which FlowSchema and PriorityLevelConfiguration API Priority and Fairness puts a request in.

Reproduces k8s.io/apiserver ``pkg/util/flowcontrol/apf_controller.go`` (docs/priority-and-fairness.md):
the config controller keeps the FlowSchemas whose priority level exists, sorted by matching
precedence and then name (``digestFlowSchemasLocked``, ``FlowSchemaSequence``), puts an imagined
``exempt`` first and an imagined ``catch-all`` last when the stored ones are missing or dangling,
and imagines the ``exempt`` and ``catch-all`` priority levels when they are missing
(``imaginePL``); an imagined object has no uid. ``startRequest`` takes the first FlowSchema one of
whose rules matches (:mod:`fakeapi._state.flow_rules`).

The objects are read from the store as they are: a FlowSchema written a moment ago classifies the
next request (upstream's informer is a little later). The compiled sequence is kept while the
store's revision stays the same, and past a write while both resources' stored objects are the
same ones (stored objects are never changed in place, so identity says whether they changed);
with it, the answers given for up to 4096 distinct request digests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fakeapi._state.flow_rules import PolicyRule, RequestDigest, compile_rule
from fakeapi._state.kinds import builtin_type

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = ["Classification", "FlowClassifier", "RequestDigest"]

GROUP = "flowcontrol.apiserver.k8s.io"
EXEMPT = "exempt"
CATCH_ALL = "catch-all"
_ANSWERS_KEPT = 4096


@dataclass(frozen=True)
class Classification:
    """The uids the answer names (``X-Kubernetes-Pf-Flowschema-Uid``, ``X-Kubernetes-Pf-Prioritylevel-Uid``)."""

    flow_schema_uid: str
    priority_level_uid: str


@dataclass(frozen=True)
class _Schema:
    name: str
    rules: tuple[PolicyRule, ...]
    classification: Classification


def _imagined(name: str, subjects: tuple[str, ...], priority_level_uid: str) -> _Schema:
    """A mandatory FlowSchema as ``fcboot`` declares it: everything, for the given groups."""
    rule = {
        "subjects": [{"kind": "Group", "group": {"name": group}} for group in subjects],
        "resourceRules": [
            {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": True, "namespaces": ["*"]}
        ],
        "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
    }
    return _Schema(name, (compile_rule(rule),), Classification("", priority_level_uid))


class FlowClassifier:
    """The config controller's view of one store, and ``startRequest``'s choice for a request."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._flow_schemas = builtin_type(GROUP, "v1", "FlowSchema")
        self._priority_levels = builtin_type(GROUP, "v1", "PriorityLevelConfiguration")
        self._revision: tuple[int, int] = (-1, -1)
        self._buckets: tuple[dict[Any, Any], dict[Any, Any]] = ({}, {})
        self._seen: tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]] = ((), ())
        self._sequence: tuple[_Schema, ...] = ()
        # The answers for the requests seen since the sequence was built: tests repeat the same few.
        self._answers: dict[RequestDigest, Classification] = {}

    def classify(self, digest: RequestDigest) -> Classification:
        sequence = self._current_sequence()
        known = self._answers.get(digest)
        if known is not None:
            return known
        # Unreachable without a match with the mandatory catch-all last (it matches every user); as
        # upstream, the fallback is the catch-all.
        found = next(
            (schema for schema in sequence if any(rule.matches(digest) for rule in schema.rules)), sequence[-1]
        )
        if len(self._answers) >= _ANSWERS_KEPT:
            self._answers.clear()
        self._answers[digest] = found.classification
        return found.classification

    def _current_sequence(self) -> tuple[_Schema, ...]:
        store = self._store
        schema_bucket = store.bucket(self._flow_schemas)
        level_bucket = store.bucket(self._priority_levels)
        seen_schema_bucket, seen_level_bucket = self._buckets
        # Neither resource written since the last look (nor the store restored): the sequence stands.
        changed_at = store.changed_at
        revision = max(
            changed_at.get(self._flow_schemas.storage_key, 0), changed_at.get(self._priority_levels.storage_key, 0)
        )
        if (
            (store.epoch, revision) == self._revision
            and schema_bucket is seen_schema_bucket
            and level_bucket is seen_level_bucket
        ):
            return self._sequence
        schemas, levels = tuple(schema_bucket.values()), tuple(level_bucket.values())
        seen_schemas, seen_levels = self._seen
        if not (self._sequence and _same(schemas, seen_schemas) and _same(levels, seen_levels)):
            self._sequence = _sequence(schemas, levels)
            self._seen = (schemas, levels)
            self._answers = {}
        self._revision = (store.epoch, revision)
        self._buckets = (schema_bucket, level_bucket)
        return self._sequence


def _same(now: tuple[dict[str, Any], ...], before: tuple[dict[str, Any], ...]) -> bool:
    return len(now) == len(before) and all(a is b for a, b in zip(now, before, strict=True))


def _sequence(schemas: tuple[dict[str, Any], ...], levels: tuple[dict[str, Any], ...]) -> tuple[_Schema, ...]:
    level_uids = {_name(level): _uid(level) for level in levels}
    ordered: list[tuple[int, str, _Schema]] = []
    for schema in schemas:
        spec = schema.get("spec")
        if not isinstance(spec, dict):
            continue
        reference = spec.get("priorityLevelConfiguration")
        level = reference.get("name") if isinstance(reference, dict) else None
        if level not in level_uids:
            continue  # dangling: ignored until its priority level exists
        precedence = spec.get("matchingPrecedence")
        rules = tuple(compile_rule(rule) for rule in spec.get("rules") or () if isinstance(rule, dict))
        name = _name(schema)
        ordered.append(
            (
                precedence if isinstance(precedence, int) else 0,
                name,
                _Schema(name, rules, Classification(_uid(schema), level_uids[level])),
            )
        )
    ordered.sort(key=lambda entry: (entry[0], entry[1]))
    sequence = [schema for _, _, schema in ordered]
    # The mandatory priority levels are imagined when missing; an imagined one has no uid.
    exempt_level = level_uids.get(EXEMPT, "")
    catch_all_level = level_uids.get(CATCH_ALL, "")
    if not any(schema.name == EXEMPT for schema in sequence):
        sequence.insert(0, _imagined(EXEMPT, ("system:masters",), exempt_level))
    if not any(schema.name == CATCH_ALL for schema in sequence):
        sequence.append(_imagined(CATCH_ALL, ("system:unauthenticated", "system:authenticated"), catch_all_level))
    return tuple(sequence)


def _name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    return str(meta.get("name", "")) if isinstance(meta, dict) else ""


def _uid(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    return str(meta.get("uid", "")) if isinstance(meta, dict) else ""
