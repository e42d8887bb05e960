"""Which FlowSchema and PriorityLevelConfiguration API Priority and Fairness puts a request in.

Reproduces k8s.io/apiserver ``pkg/util/flowcontrol`` (docs/priority-and-fairness.md): the config
controller keeps the FlowSchemas whose priority level exists, sorted by matching precedence and
then name (``digestFlowSchemasLocked``, ``FlowSchemaSequence``), puts an imagined ``exempt`` first
and an imagined ``catch-all`` last when the stored ones are missing or dangling, and imagines the
``exempt`` and ``catch-all`` priority levels when they are missing (``imaginePL``); an imagined
object has no uid. ``startRequest`` takes the first FlowSchema that matches, by the rules of
``rule.go``: a subject (user, group or service account, ``*`` for any), then for a resource
request a resource rule (verbs, API groups, resources with their subresource as ``pods/status``,
namespaces, or cluster scope for a request without a namespace) and for any other a
non-resource rule (verbs and URLs: ``*``, the path itself, or a path below it: ``/livez`` and
``/livez/*`` both cover ``/livez/ping``).

The objects are read from the store as they are: a FlowSchema written a moment ago classifies the
next request (upstream's informer is a little later). The sorted sequence is kept until either
resource's stored objects change; stored objects are never changed in place, so comparing them by
identity says whether they did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fakeapi._state.kinds import builtin_type

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = ["Classification", "FlowClassifier", "RequestDigest"]

GROUP = "flowcontrol.apiserver.k8s.io"
EXEMPT = "exempt"
CATCH_ALL = "catch-all"
_SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"


@dataclass(frozen=True)
class RequestDigest:
    """What classification reads of a request: ``RequestDigest`` (its ``RequestInfo`` and ``user.Info``)."""

    user: str
    groups: tuple[str, ...]
    is_resource_request: bool
    verb: str
    path: str = ""
    api_group: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""


@dataclass(frozen=True)
class Classification:
    """The uids the answer names (``X-Kubernetes-Pf-Flowschema-Uid``, ``X-Kubernetes-Pf-Prioritylevel-Uid``)."""

    flow_schema_uid: str
    priority_level_uid: str


@dataclass(frozen=True)
class _Schema:
    name: str
    uid: str
    rules: tuple[dict[str, Any], ...]
    priority_level_uid: str


def _imagined(name: str, subjects: tuple[str, ...], priority_level_uid: str) -> _Schema:
    """A mandatory FlowSchema as ``fcboot`` declares it: everything, for the given groups."""
    rule = {
        "subjects": [{"kind": "Group", "group": {"name": group}} for group in subjects],
        "resourceRules": [
            {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": True, "namespaces": ["*"]}
        ],
        "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
    }
    return _Schema(name, "", (rule,), priority_level_uid)


class FlowClassifier:
    """The config controller's view of one store, and ``startRequest``'s choice for a request."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._flow_schemas = builtin_type(GROUP, "v1", "FlowSchema")
        self._priority_levels = builtin_type(GROUP, "v1", "PriorityLevelConfiguration")
        self._seen: tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]] = ((), ())
        self._sequence: tuple[_Schema, ...] = ()
        self._built = False

    def classify(self, digest: RequestDigest) -> Classification:
        for schema in self._current_sequence():
            if any(_matches_rule(digest, rule) for rule in schema.rules):
                return Classification(schema.uid, schema.priority_level_uid)
        # Unreachable with the mandatory catch-all last (it matches every user); as upstream, fall back to it.
        last = self._sequence[-1]
        return Classification(last.uid, last.priority_level_uid)

    def _current_sequence(self) -> tuple[_Schema, ...]:
        schemas = tuple(self._store.bucket(self._flow_schemas).values())
        levels = tuple(self._store.bucket(self._priority_levels).values())
        seen_schemas, seen_levels = self._seen
        if not (self._built and _same(schemas, seen_schemas) and _same(levels, seen_levels)):
            self._sequence = _sequence(schemas, levels)
            self._seen = (schemas, levels)
            self._built = True
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
        rules = tuple(rule for rule in spec.get("rules") or () if isinstance(rule, dict))
        name = _name(schema)
        ordered.append(
            (
                precedence if isinstance(precedence, int) else 0,
                name,
                _Schema(name, _uid(schema), rules, level_uids[level]),
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


def _matches_rule(digest: RequestDigest, rule: dict[str, Any]) -> bool:
    """``matchesPolicyRule``."""
    if not any(_matches_subject(digest, subject) for subject in _dicts(rule.get("subjects"))):
        return False
    if digest.is_resource_request:
        return any(_matches_resource_rule(digest, each) for each in _dicts(rule.get("resourceRules")))
    return any(_matches_non_resource_rule(digest, each) for each in _dicts(rule.get("nonResourceRules")))


def _matches_subject(digest: RequestDigest, subject: dict[str, Any]) -> bool:
    """``matchesSubject``: a subject of another kind, or missing its member, matches nobody."""
    kind = subject.get("kind")
    if kind == "User":
        user = subject.get("user")
        return isinstance(user, dict) and user.get("name") in ("*", digest.user)
    if kind == "Group":
        group = subject.get("group")
        if not isinstance(group, dict):
            return False
        return group.get("name") == "*" or group.get("name") in digest.groups
    if kind == "ServiceAccount":
        account = subject.get("serviceAccount")
        if not isinstance(account, dict):
            return False
        namespace, name = str(account.get("namespace", "")), account.get("name")
        if name == "*":
            # ``serviceAccountMatchesNamespace``: a prefix test, as upstream writes it.
            rest = digest.user.removeprefix(_SERVICE_ACCOUNT_PREFIX)
            return rest != digest.user and rest.startswith(namespace) and rest[len(namespace) :].startswith(":")
        return digest.user == f"{_SERVICE_ACCOUNT_PREFIX}{namespace}:{name}"
    return False


def _matches_resource_rule(digest: RequestDigest, rule: dict[str, Any]) -> bool:
    """``matchesResourcePolicyRule``."""
    resource = f"{digest.resource}/{digest.subresource}" if digest.subresource else digest.resource
    if not (
        _contains(digest.verb, rule.get("verbs"))
        and _contains(resource, rule.get("resources"))
        and _contains(digest.api_group, rule.get("apiGroups"))
    ):
        return False
    if not digest.namespace:
        return rule.get("clusterScope") is True
    return _contains(digest.namespace, rule.get("namespaces"))


def _matches_non_resource_rule(digest: RequestDigest, rule: dict[str, Any]) -> bool:
    """``matchesNonResourcePolicyRule``: the verb, then a URL equal, ``*``, or a prefix ending in ``/``."""
    if not _contains(digest.verb, rule.get("verbs")):
        return False
    for url in _strings(rule.get("nonResourceURLs")):
        if url in ("*", digest.path):
            return True
        prefix = url.removesuffix("*")
        if not prefix.endswith("/"):
            prefix += "/"
        if digest.path.startswith(prefix):
            return True
    return False


def _contains(value: str, listed: Any) -> bool:
    """``containsString``: the wildcard counts only as the list's one member."""
    members = _strings(listed)
    if len(members) == 1 and members[0] == "*":
        return True
    return value in members


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
