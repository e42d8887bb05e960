"""Jobs and CronJobs as ``pkg/apis/batch/validation/validation.go`` and their registry strategies validate them.

A Job (``ValidateJob``): unless ``manualSelector`` is true, the selector and the template's labels
are the generated ones (``validateGeneratedSelector``: ``controller-uid`` and ``job-name``, and their
``batch.kubernetes.io/`` forms); then ``ValidateJobSpec``: parallelism, completions, deadlines and
backoff limits not negative, ``managedBy`` a domain-prefixed path, ``completionMode``
``NonIndexed`` or ``Indexed`` with the indexed rules, the pod failure, success and replacement
policies, the pod template, whose ``restartPolicy`` is ``OnFailure`` or ``Never``; a selector,
valid, matching the template's labels; an indexed Job's last pod hostname a DNS label. An update
(``pkg/registry/batch/job/strategy.go`` ``ValidateUpdate``) runs ``ValidateJob`` and then
``ValidateJobUpdate``, which checks the spec once more (so its errors come twice in the causes, once
in the message) and keeps completions (an indexed Job may change it with parallelism), the
selector, the template (but for the scheduling directives of a suspended Job that never started),
completionMode, podFailurePolicy, backoffLimitPerIndex, managedBy and successPolicy.

A CronJob (``ValidateCronJobCreate``): a schedule robfig/cron parses (:mod:`.cron`), no ``TZ=`` in it,
a known ``timeZone``, startingDeadlineSeconds not negative, ``concurrencyPolicy`` ``Allow``,
``Forbid`` or ``Replace``, the job template (its spec as a Job's, without a selector or
``manualSelector``), history limits not negative; a name of at most 52 characters on create only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fakeapi._patching.godecode import normalize
from fakeapi._patching.goencode import encode
from fakeapi._patching.gostrconv import quote
from fakeapi._state.label_selectors import requirements_match
from fakeapi._state.validation import field
from fakeapi._state.validation.cron import load_location_error, parse_standard
from fakeapi._state.validation.field import FieldError, GoText, Printed
from fakeapi._state.validation.names import is_dns1123_label, is_dns1123_subdomain, is_qualified_name, regex_error
from fakeapi._state.validation.objectmeta import (
    FIELD_IMMUTABLE,
    semantic,
    validate_label_selector,
    validate_nonnegative,
)
from fakeapi._state.validation.pods import validate_pod_template
from fakeapi._state.validation.rules import KindRules
from fakeapi._state.validation.values import ADDRESS, label_selector, string_map

__all__ = ["CRON_JOB", "JOB"]

Obj = Mapping[str, Any]

_MAX_INDEXED_PARALLELISM = 100_000
_MAX_FAILED_INDEXES = 100_000
_COMPLETIONS_SOFT_LIMIT = 100_000
_PARALLELISM_FOR_HIGH_COMPLETIONS = 10_000
_MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS = 10_000
_MAX_FAILURE_RULES = 20
_MAX_EXIT_CODES = 255
_MAX_CONDITION_PATTERNS = 20
_MAX_MANAGED_BY = 63
_MAX_SUCCEEDED_INDEXES = 64 * 1024
_MAX_SUCCESS_RULES = 20
_FAILURE_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
_EXIT_CODE_OPERATORS = ("In", "NotIn")
_CONDITION_STATUSES = ("False", "True", "Unknown")
_REPLACEMENT_POLICIES = ("Failed", "TerminatingOrFailed")
_CONCURRENCY_POLICIES = ("Allow", "Forbid", "Replace")
_HTTP_PATH = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"
_TIME_ZONE_PART = re.compile("[A-Za-z.\\-_0-9+]{1,14}")
_LEGACY_LABELS = ("controller-uid", "job-name")
_PREFIXED_LABELS = ("batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name")
# What a suspended Job that never started may change in its template (AllowMutableSchedulingDirectives).
_SCHEDULING_DIRECTIVES = ("nodeSelector", "tolerations", "schedulingGates")


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _selector_matches(selector: Any, labels: Obj) -> bool | None:
    """``LabelSelectorAsSelector(selector).Matches(labels)``; None when the selector does not convert.

    A nil selector is ``labels.Nothing()`` and an empty one ``labels.Everything()``.
    """
    if not isinstance(selector, dict):
        return False
    if validate_label_selector(selector, ""):
        return None
    match_labels = _dict(selector.get("matchLabels"))
    expressions = [_dict(item) for item in _list(selector.get("matchExpressions"))]
    return requirements_match(match_labels, expressions, labels)


# -- Job ------------------------------------------------------------------------------------------


def _has_label(labels: Obj, key: str, expected: str) -> list[FieldError]:
    """``ValidateHasLabel`` at ``spec.template.metadata.labels[<key>]``."""
    path = field.key("spec.template.metadata.labels", key)
    if key not in labels:
        return [field.required(path, f"must be '{expected}'")]
    if labels[key] != expected:
        return [field.invalid(path, dict(labels), f"must be '{expected}'", "map[string]string")]
    return []


def _validate_generated_selector(job: Obj, prefixed_labels: bool) -> list[FieldError]:
    """``validateGeneratedSelector``: the labels and selector ``generateSelector`` writes."""
    spec = _dict(job.get("spec"))
    selector = spec.get("selector")
    if spec.get("manualSelector") is True or not isinstance(selector, dict):
        return []
    meta = _dict(job.get("metadata"))
    uid, name = str(meta.get("uid") or ""), str(meta.get("name") or "")
    errors = [] if uid else [field.required("metadata.uid")]
    labels = _dict(_dict(_dict(spec.get("template")).get("metadata")).get("labels"))
    keys = _LEGACY_LABELS + (_PREFIXED_LABELS if prefixed_labels else ())
    for key in keys:
        errors += _has_label(labels, key, uid if key.endswith("controller-uid") else name)
    expected = {key: uid if key.endswith("controller-uid") else name for key in keys}
    if _selector_matches(selector, expected) is False:
        errors.append(field.invalid("spec.selector", label_selector(selector), "`selector` not auto-generated"))
    return errors


def _validate_managed_by(value: str, path: str) -> list[FieldError]:
    """``IsDomainPrefixedPath`` and the length limit of ``managedBy``."""
    errors: list[FieldError] = []
    host, slash, rest = value.partition("/")
    if not value:
        errors.append(field.required(path))
    elif not slash or not host or not rest:
        errors.append(field.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")'))
    else:
        errors += [field.invalid(path, host, problem) for problem in is_dns1123_subdomain(host)]
        if re.fullmatch(_HTTP_PATH, rest) is None:
            errors.append(field.invalid(path, rest, regex_error("Invalid path", _HTTP_PATH)))
    if len(value.encode()) > _MAX_MANAGED_BY:
        errors.append(field.too_long(path, _MAX_MANAGED_BY))
    return errors


def _validate_indexed(spec: Obj, path: str) -> list[FieldError]:
    """What ``completionMode: Indexed`` requires of completions, parallelism and maxFailedIndexes."""
    errors: list[FieldError] = []
    completions, parallelism = _int(spec.get("completions")), _int(spec.get("parallelism"))
    max_failed = _int(spec.get("maxFailedIndexes"))
    if spec.get("completions") is None:
        errors.append(field.required(f"{path}.completions", "when completion mode is Indexed"))
    if parallelism is not None and parallelism > _MAX_INDEXED_PARALLELISM:
        detail = f"must be less than or equal to {_MAX_INDEXED_PARALLELISM} when completion mode is Indexed"
        errors.append(field.invalid(f"{path}.parallelism", parallelism, detail))
    if completions is not None and max_failed is not None and max_failed > completions:
        errors.append(
            field.invalid(f"{path}.maxFailedIndexes", max_failed, "must be less than or equal to completions")
        )
    if max_failed is not None and max_failed > _MAX_FAILED_INDEXES:
        detail = f"must be less than or equal to {_MAX_FAILED_INDEXES}"
        errors.append(field.invalid(f"{path}.maxFailedIndexes", max_failed, detail))
    if (
        completions is not None
        and completions > _COMPLETIONS_SOFT_LIMIT
        and spec.get("backoffLimitPerIndex") is not None
    ):
        high = f"when completions are above {_COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"
        if spec.get("maxFailedIndexes") is None:
            detail = f"must be specified when completions is above {_COMPLETIONS_SOFT_LIMIT}"
            errors.append(field.required(f"{path}.maxFailedIndexes", detail))
        if parallelism is not None and parallelism > _PARALLELISM_FOR_HIGH_COMPLETIONS:
            detail = f"must be less than or equal to {_PARALLELISM_FOR_HIGH_COMPLETIONS} {high}"
            errors.append(field.invalid(f"{path}.parallelism", parallelism, detail))
        if max_failed is not None and max_failed > _MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS:
            detail = f"must be less than or equal to {_MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS} {high}"
            errors.append(field.invalid(f"{path}.maxFailedIndexes", max_failed, detail))
    return errors


def _valid_values(options: tuple[str, ...]) -> str:
    """``fmt.Sprintf("valid values: %q", list)``: a Go ``[]string`` printed with ``%q``."""
    return "valid values: [" + " ".join(quote(option) for option in options) + "]"


def _validate_pod_failure_policy(spec: Obj, policy: Obj, path: str) -> list[FieldError]:
    """``validatePodFailurePolicy`` and its rules."""
    errors: list[FieldError] = []
    rules = _list(policy.get("rules"))
    if len(rules) > _MAX_FAILURE_RULES:
        errors.append(field.too_many(f"{path}.rules", len(rules), _MAX_FAILURE_RULES))
    pod_spec = _dict(_dict(spec.get("template")).get("spec"))
    names = {
        _dict(container).get("name") or ""
        for kind in ("containers", "initContainers")
        for container in _list(pod_spec.get(kind))
    }
    for position, item in enumerate(rules):
        rule, where = _dict(item), field.index(f"{path}.rules", position)
        action = rule.get("action") or ""
        if not action:
            errors.append(field.required(f"{where}.action", _valid_values(_FAILURE_ACTIONS)))
        elif action == "FailIndex":
            if spec.get("backoffLimitPerIndex") is None:
                detail = "requires the backoffLimitPerIndex to be set"
                errors.append(field.invalid(f"{where}.action", action, detail))
        elif action not in _FAILURE_ACTIONS:
            errors.append(field.not_supported(f"{where}.action", action, _FAILURE_ACTIONS))
        on_exit_codes = rule.get("onExitCodes")
        conditions = _list(rule.get("onPodConditions"))
        if isinstance(on_exit_codes, dict):
            errors += _validate_exit_codes(on_exit_codes, f"{where}.onExitCodes", names)
        if conditions:
            errors += _validate_condition_patterns(conditions, f"{where}.onPodConditions")
        if isinstance(on_exit_codes, dict) and conditions:
            detail = "specifying both OnExitCodes and OnPodConditions is not supported"
            errors.append(field.invalid(where, field.OMIT, detail))
        if not isinstance(on_exit_codes, dict) and not conditions:
            detail = "specifying one of OnExitCodes and OnPodConditions is required"
            errors.append(field.invalid(where, field.OMIT, detail))
    return errors


def _validate_condition_patterns(patterns: list[Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if len(patterns) > _MAX_CONDITION_PATTERNS:
        errors.append(field.too_many(path, len(patterns), _MAX_CONDITION_PATTERNS))
    for position, item in enumerate(patterns):
        pattern, where = _dict(item), field.index(path, position)
        kind = str(pattern.get("type") or "")
        errors += [field.invalid(f"{where}.type", kind, problem) for problem in is_qualified_name(kind)]
        status = pattern.get("status") or ""
        if not status:
            errors.append(field.required(f"{where}.status", _valid_values(_CONDITION_STATUSES)))
        elif status not in _CONDITION_STATUSES:
            errors.append(field.not_supported(f"{where}.status", status, _CONDITION_STATUSES))
    return errors


def _validate_exit_codes(requirement: Obj, path: str, names: set[str]) -> list[FieldError]:
    errors: list[FieldError] = []
    operator = requirement.get("operator") or ""
    if not operator:
        errors.append(field.required(f"{path}.operator", _valid_values(_EXIT_CODE_OPERATORS)))
    elif operator not in _EXIT_CODE_OPERATORS:
        errors.append(field.not_supported(f"{path}.operator", operator, _EXIT_CODE_OPERATORS))
    container = requirement.get("containerName")
    if container is not None and container not in names:
        detail = "must be one of the container or initContainer names in the pod template"
        errors.append(field.invalid(f"{path}.containerName", container, detail))
    values = [value for value in _list(requirement.get("values")) if _int(value) is not None]
    if not values:
        shown = Printed("[]int32(nil)", "null") if requirement.get("values") is None else Printed("[]int32{}", "[]")
        errors.append(field.invalid(f"{path}.values", shown, "at least one value is required"))
    elif len(values) > _MAX_EXIT_CODES:
        errors.append(field.too_many(f"{path}.values", len(values), _MAX_EXIT_CODES))
    seen: set[int] = set()
    for position, value in enumerate(values):
        where = field.index(f"{path}.values", position)
        if operator == "In" and value == 0:
            errors.append(field.invalid(where, value, "must not be 0 for the In operator"))
        if value in seen:
            errors.append(field.duplicate(where, value))
        seen.add(value)
    if values != sorted(values):
        errors.append(field.invalid(f"{path}.values", values, "must be ordered", "[]int32"))
    return errors


def _parse_interval(text: str, completions: int) -> tuple[int, int]:
    """``parseIndexInterval``: ``x`` or ``x-y``, each below completions, x below y."""
    limits = text.split("-")
    if len(limits) > 2:
        detail = f"the fragment {quote(text)} violates the requirement that an index interval can have at most two parts separated by '-'"
        raise ValueError(detail)
    bounds = []
    for limit in limits:
        if re.fullmatch("[+-]?[0-9]+", limit) is None:
            raise ValueError(f"cannot convert string to integer for index: {quote(limit)}")
        if int(limit) >= completions:
            raise ValueError(f"too large index: {quote(limit)}")
        bounds.append(int(limit))
    if len(bounds) == 2 and bounds[0] >= bounds[1]:
        raise ValueError(f"non-increasing order, previous: {bounds[0]}, current: {bounds[1]}")
    return bounds[0], bounds[-1]


def _count_indexes(text: str, completions: int) -> int:
    """``validateIndexesFormat``: how many indexes the intervals hold, in increasing order."""
    if not text:
        return 0
    last: int | None = None
    total = 0
    for interval in text.split(","):
        low, high = _parse_interval(interval, completions)
        if last is not None and last >= low:
            raise ValueError(f"non-increasing order, previous: {last}, current: {low}")
        total += high - low + 1
        last = high
    return total


def _validate_success_policy(spec: Obj, policy: Obj, path: str) -> list[FieldError]:
    """``validateSuccessPolicy`` of an indexed Job."""
    errors: list[FieldError] = []
    rules = _list(policy.get("rules"))
    if not rules:
        detail = "at least one rules must be specified when the successPolicy is specified"
        errors.append(field.required(f"{path}.rules", detail))
    if len(rules) > _MAX_SUCCESS_RULES:
        errors.append(field.too_many(f"{path}.rules", len(rules), _MAX_SUCCESS_RULES))
    completions = _int(spec.get("completions")) or 0
    for position, item in enumerate(rules):
        rule, where = _dict(item), field.index(f"{path}.rules", position)
        indexes, count = rule.get("succeededIndexes"), _int(rule.get("succeededCount"))
        if indexes is None and rule.get("succeededCount") is None:
            detail = "at least one of succeededCount or succeededIndexes must be specified"
            errors.append(field.required(where, detail))
        total = 0
        if isinstance(indexes, str):
            if len(indexes.encode()) > _MAX_SUCCEEDED_INDEXES:
                errors.append(field.too_long(f"{where}.succeededIndexes", _MAX_SUCCEEDED_INDEXES))
            try:
                total = _count_indexes(indexes, completions)
            except ValueError as error:
                detail = f"error parsing succeededIndexes: {error}"
                errors.append(field.invalid(f"{where}.succeededIndexes", indexes, detail))
        if count is not None:
            errors += validate_nonnegative(count, f"{where}.succeededCount")
            if count > completions:
                detail = f"must be less than or equal to {completions} (the number of specified completions)"
                errors.append(field.invalid(f"{where}.succeededCount", count, detail))
            if isinstance(indexes, str) and count > total:
                detail = (
                    f"must be less than or equal to {total} (the number of indexes in the specified "
                    "succeededIndexes field)"
                )
                errors.append(field.invalid(f"{where}.succeededCount", count, detail))
    return errors


def _printed_failure_policy(policy: Obj) -> Printed:
    """The internal ``batch.PodFailurePolicy``: ``%#v`` (a set ``OnExitCodes`` pointer as an address) and its untagged JSON."""
    shown, untagged = [], []
    for item in _list(policy.get("rules")):
        rule = _dict(item)
        on_exit_codes = rule.get("onExitCodes")
        patterns = [_dict(pattern) for pattern in _list(rule.get("onPodConditions"))]
        pointer = "nil" if not isinstance(on_exit_codes, dict) else ADDRESS
        shown_patterns = (
            "[]batch.PodFailurePolicyOnPodConditionsPattern{"
            + ", ".join(
                f"batch.PodFailurePolicyOnPodConditionsPattern{{Type:{quote(str(p.get('type') or ''))}, "
                f"Status:{quote(str(p.get('status') or ''))}}}"
                for p in patterns
            )
            + "}"
            if patterns
            else "[]batch.PodFailurePolicyOnPodConditionsPattern(nil)"
        )
        shown.append(
            f"batch.PodFailurePolicyRule{{Action:{quote(str(rule.get('action') or ''))}, "
            f"OnExitCodes:(*batch.PodFailurePolicyOnExitCodesRequirement)({pointer}), OnPodConditions:{shown_patterns}}}"
        )
        exit_codes = _dict(on_exit_codes)
        untagged.append(
            {
                "Action": rule.get("action") or "",
                "OnExitCodes": None
                if not isinstance(on_exit_codes, dict)
                else {
                    "ContainerName": exit_codes.get("containerName"),
                    "Operator": exit_codes.get("operator") or "",
                    "Values": exit_codes.get("values") or None,
                },
                "OnPodConditions": [{"Type": p.get("type") or "", "Status": p.get("status") or ""} for p in patterns]
                or None,
            }
        )
    rules = "[]batch.PodFailurePolicyRule{" + ", ".join(shown) + "}" if shown else "[]batch.PodFailurePolicyRule(nil)"
    return Printed(f"batch.PodFailurePolicy{{Rules:{rules}}}", _json({"Rules": untagged or None}))


def _printed_success_policy(policy: Obj) -> Printed:
    """The internal ``batch.SuccessPolicy``: its rules' two pointers as addresses, and its untagged JSON."""
    shown, untagged = [], []
    for item in _list(policy.get("rules")):
        rule = _dict(item)
        indexes = "nil" if rule.get("succeededIndexes") is None else ADDRESS
        count = "nil" if rule.get("succeededCount") is None else ADDRESS
        shown.append(
            f"batch.SuccessPolicyRule{{SucceededIndexes:(*string)({indexes}), SucceededCount:(*int32)({count})}}"
        )
        untagged.append(
            {"SucceededIndexes": rule.get("succeededIndexes"), "SucceededCount": rule.get("succeededCount")}
        )
    rules = "[]batch.SuccessPolicyRule{" + ", ".join(shown) + "}" if shown else "[]batch.SuccessPolicyRule(nil)"
    return Printed(f"batch.SuccessPolicy{{Rules:{rules}}}", _json({"Rules": untagged or None}))


def _json(value: Any) -> str:
    return encode(normalize(value)).decode()


def _validate_job_spec_fields(spec: Obj, path: str) -> list[FieldError]:
    """``validateJobSpec``: what a Job and a CronJob's job template share."""
    errors: list[FieldError] = []
    for name in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"):
        errors += validate_nonnegative(spec.get(name), f"{path}.{name}")
    errors += validate_nonnegative(spec.get("backoffLimitPerIndex"), f"{path}.backoffLimitPerIndex")
    if spec.get("maxFailedIndexes") is not None:
        errors += validate_nonnegative(spec.get("maxFailedIndexes"), f"{path}.maxFailedIndexes")
        if spec.get("backoffLimitPerIndex") is None:
            errors.append(field.required(f"{path}.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    if isinstance(spec.get("managedBy"), str):
        errors += _validate_managed_by(spec["managedBy"], f"{path}.managedBy")
    mode = spec.get("completionMode")
    if isinstance(mode, str):
        if mode not in ("NonIndexed", "Indexed"):
            errors.append(field.not_supported(f"{path}.completionMode", mode, ("NonIndexed", "Indexed")))
        if mode == "Indexed":
            errors += _validate_indexed(spec, path)
    if mode in (None, "NonIndexed"):
        for name in ("backoffLimitPerIndex", "maxFailedIndexes"):
            if spec.get(name) is not None:
                errors.append(field.invalid(f"{path}.{name}", spec[name], "requires indexed completion mode"))
    failure_policy = spec.get("podFailurePolicy")
    if isinstance(failure_policy, dict):
        errors += _validate_pod_failure_policy(spec, failure_policy, f"{path}.podFailurePolicy")
    success_policy = spec.get("successPolicy")
    if isinstance(success_policy, dict):
        if mode != "Indexed":
            shown = _printed_success_policy(success_policy)
            errors.append(field.invalid(f"{path}.successPolicy", shown, "requires indexed completion mode"))
        else:
            errors += _validate_success_policy(spec, success_policy, f"{path}.successPolicy")
    replacement = spec.get("podReplacementPolicy")
    if isinstance(replacement, str):
        if isinstance(failure_policy, dict):
            if replacement != "Failed":
                errors.append(field.not_supported(f"{path}.podReplacementPolicy", replacement, ("Failed",)))
        elif replacement not in _REPLACEMENT_POLICIES:
            errors.append(field.not_supported(f"{path}.podReplacementPolicy", replacement, _REPLACEMENT_POLICIES))
    template = _dict(spec.get("template"))
    errors += validate_pod_template(template, f"{path}.template")
    restart = _dict(template.get("spec")).get("restartPolicy") or ""
    where = f"{path}.template.spec.restartPolicy"
    if restart in ("Always", ""):
        errors.append(field.required(where, 'valid values: "OnFailure", "Never"'))
    elif restart not in ("OnFailure", "Never"):
        errors.append(field.not_supported(where, restart, ("OnFailure", "Never")))
    elif isinstance(failure_policy, dict) and restart != "Never":
        errors.append(field.invalid(where, restart, 'only "Never" is supported when podFailurePolicy is specified'))
    return errors


def _validate_job_spec(spec: Obj, path: str) -> list[FieldError]:
    """``ValidateJobSpec``: the shared fields, a valid selector, and the template's labels selected by it."""
    errors = _validate_job_spec_fields(spec, path)
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        errors.append(field.required(f"{path}.selector"))
    else:
        errors += validate_label_selector(selector, f"{path}.selector")
    labels = _dict(_dict(spec.get("template")).get("metadata")).get("labels")
    if _selector_matches(selector, _dict(labels)) is False:
        detail = "`selector` does not match template `labels`"
        errors.append(
            field.invalid(f"{path}.template.metadata.labels", string_map(labels), detail, "map[string]string")
        )
    return errors


def _validate_job(job: Obj, prefixed_labels: bool) -> list[FieldError]:
    """``ValidateJob`` past the metadata."""
    spec = _dict(job.get("spec"))
    errors = _validate_generated_selector(job, prefixed_labels)
    errors += _validate_job_spec(spec, "spec")
    completions = _int(spec.get("completions"))
    if spec.get("completionMode") == "Indexed" and completions is not None and completions > 0:
        name = str(_dict(job.get("metadata")).get("name") or "")
        hostname = f"{name}-{completions - 1}"
        if is_dns1123_label(hostname):
            detail = f"will not able to create pod with invalid DNS label: {hostname}"
            errors.append(field.invalid("metadata.name", name, detail))
    return errors


def validate_job(job: Obj) -> list[FieldError]:
    return _validate_job(job, prefixed_labels=True)


def _template_for_comparison(new_spec: Obj, old_spec: Obj, old_job: Obj) -> tuple[Any, Any]:
    """The templates ``validatePodTemplateUpdate`` compares: a suspended Job that never started
    may change its scheduling directives, node affinity, labels and annotations."""
    new_template, old_template = _dict(new_spec.get("template")), dict(_dict(old_spec.get("template")))
    suspended = old_spec.get("suspend") is True
    started = _dict(old_job.get("status")).get("startTime") is not None
    if not suspended or started:
        return new_template, old_template
    old_pod, new_pod = dict(_dict(old_template.get("spec"))), _dict(new_template.get("spec"))
    for name in _SCHEDULING_DIRECTIVES:
        old_pod.pop(name, None)
        if name in new_pod:
            old_pod[name] = new_pod[name]
    new_affinity, old_affinity = new_pod.get("affinity"), old_pod.get("affinity")
    if isinstance(old_affinity, dict) or isinstance(new_affinity, dict):
        kept = {key: value for key, value in _dict(old_affinity).items() if key != "nodeAffinity"}
        if isinstance(new_affinity, dict) and "nodeAffinity" in new_affinity:
            kept["nodeAffinity"] = new_affinity["nodeAffinity"]
        if new_affinity is None and not kept:
            old_pod.pop("affinity", None)
        else:
            old_pod["affinity"] = kept
    old_meta = dict(_dict(old_template.get("metadata")))
    new_meta = _dict(new_template.get("metadata"))
    for name in ("labels", "annotations"):
        old_meta.pop(name, None)
        if name in new_meta:
            old_meta[name] = new_meta[name]
    old_template["metadata"], old_template["spec"] = old_meta, old_pod
    return new_template, old_template


def _immutable(new: Any, old: Any, path: str, shown: Any) -> list[FieldError]:
    if semantic(new) == semantic(old):
        return []
    return [field.invalid(path, shown, FIELD_IMMUTABLE)]


def _validate_completions_update(new_spec: Obj, old_spec: Obj) -> list[FieldError]:
    """``validateCompletions`` (ElasticIndexedJob is GA): an indexed Job changes completions with parallelism."""
    completions, old_completions = new_spec.get("completions"), old_spec.get("completions")
    if new_spec.get("completionMode") != "Indexed":
        return _immutable(completions, old_completions, "spec.completions", completions)
    if completions == old_completions or completions is None:
        return []
    if completions != new_spec.get("parallelism"):
        return [field.invalid("spec.completions", completions, "can only be modified in tandem with spec.parallelism")]
    return []


def validate_job_update(new: Obj, old: Obj) -> list[FieldError]:
    """The strategy's ``ValidateUpdate``: ``ValidateJob``, then ``ValidateJobSpecUpdate``."""
    old_labels = _dict(_dict(_dict(_dict(old.get("spec")).get("template")).get("metadata")).get("labels"))
    prefixed = all(key in old_labels for key in _PREFIXED_LABELS)
    new_spec, old_spec = _dict(new.get("spec")), _dict(old.get("spec"))
    errors = _validate_job(new, prefixed)
    errors += _validate_job_spec(new_spec, "spec")
    errors += _validate_completions_update(new_spec, old_spec)
    selector = new_spec.get("selector")
    shown_selector = label_selector(selector) if isinstance(selector, dict) else None
    errors += _immutable(selector, old_spec.get("selector"), "spec.selector", shown_selector)
    new_template, old_template = _template_for_comparison(new_spec, old_spec, old)
    # Go prints the whole internal core.PodTemplateSpec here, pointers as addresses; it is not reproduced.
    errors += _immutable(new_template, old_template, "spec.template", GoText("core.PodTemplateSpec{...}"))
    for name in ("completionMode", "backoffLimitPerIndex", "managedBy"):
        errors += _immutable(new_spec.get(name), old_spec.get(name), f"spec.{name}", new_spec.get(name))
    failure = new_spec.get("podFailurePolicy")
    shown_failure = _printed_failure_policy(failure) if isinstance(failure, dict) else None
    errors += _immutable(failure, old_spec.get("podFailurePolicy"), "spec.podFailurePolicy", shown_failure)
    success = new_spec.get("successPolicy")
    shown_success = _printed_success_policy(success) if isinstance(success, dict) else None
    errors += _immutable(success, old_spec.get("successPolicy"), "spec.successPolicy", shown_success)
    return errors


# -- CronJob --------------------------------------------------------------------------------------


def _validate_schedule(schedule: str, allow_tz: bool, time_zone: Any, path: str) -> list[FieldError]:
    """``validateScheduleFormat``."""
    errors: list[FieldError] = []
    problem = parse_standard(schedule)
    if problem is not None:
        errors.append(field.invalid(path, schedule, problem))
    if allow_tz and "TZ" in schedule and time_zone is not None:
        errors.append(field.invalid(path, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
    elif not allow_tz and "TZ" in schedule:
        errors.append(field.invalid(path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
    return errors


def _validate_time_zone(time_zone: Any, path: str) -> list[FieldError]:
    """``validateTimeZone``: an IANA name, not ``Local``, that ``time.LoadLocation`` knows."""
    if not isinstance(time_zone, str):
        return []
    if not time_zone:
        return [field.invalid(path, time_zone, "timeZone must be nil or non-empty string")]
    for part in time_zone.split("/"):
        if part in (".", "..") or part.startswith("-") or _TIME_ZONE_PART.fullmatch(part) is None:
            return [field.invalid(path, time_zone, f"unknown time zone {time_zone}")]
    errors: list[FieldError] = []
    if time_zone.lower() == "local":
        detail = "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
        errors.append(field.invalid(path, time_zone, detail))
    problem = load_location_error(time_zone)
    if problem is not None:
        errors.append(field.invalid(path, time_zone, problem))
    return errors


def _validate_job_template(template: Obj, path: str) -> list[FieldError]:
    """``ValidateJobTemplateSpec``: the job spec, whose selector is always generated."""
    spec = _dict(template.get("spec"))
    errors = _validate_job_spec_fields(spec, f"{path}.spec")
    selector = spec.get("selector")
    if isinstance(selector, dict):
        errors.append(
            field.invalid(f"{path}.spec.selector", label_selector(selector), "`selector` will be auto-generated")
        )
    if spec.get("manualSelector") is True:
        errors.append(field.not_supported(f"{path}.spec.manualSelector", True, ("nil", "false")))
    return errors


def _validate_cron_job_spec(spec: Obj, old_spec: Obj | None) -> list[FieldError]:
    """``validateCronJobSpec``; on update a ``TZ=`` schedule stays allowed if the old one had it."""
    errors: list[FieldError] = []
    schedule = spec.get("schedule") or ""
    if not schedule:
        errors.append(field.required("spec.schedule"))
    else:
        allow_tz = old_spec is not None and "TZ" in str(old_spec.get("schedule") or "")
        errors += _validate_schedule(schedule, allow_tz, spec.get("timeZone"), "spec.schedule")
    errors += validate_nonnegative(spec.get("startingDeadlineSeconds"), "spec.startingDeadlineSeconds")
    if old_spec is None or old_spec.get("timeZone") != spec.get("timeZone"):
        errors += _validate_time_zone(spec.get("timeZone"), "spec.timeZone")
    policy = spec.get("concurrencyPolicy") or ""
    if not policy:
        errors.append(field.required("spec.concurrencyPolicy"))
    elif policy not in _CONCURRENCY_POLICIES:
        errors.append(field.not_supported("spec.concurrencyPolicy", policy, _CONCURRENCY_POLICIES))
    errors += _validate_job_template(_dict(spec.get("jobTemplate")), "spec.jobTemplate")
    for name in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        errors += validate_nonnegative(spec.get(name), f"spec.{name}")
    return errors


def validate_cron_job(cron_job: Obj) -> list[FieldError]:
    """``ValidateCronJobCreate`` past the metadata: the spec, then a name short enough for its Jobs' names."""
    errors = _validate_cron_job_spec(_dict(cron_job.get("spec")), None)
    name = str(_dict(cron_job.get("metadata")).get("name") or "")
    # The controller appends an 11-character suffix to name each Job, whose name is a 63-character DNS label.
    if len(name) > 52:
        errors.append(field.invalid("metadata.name", name, "must be no more than 52 characters"))
    return errors


def validate_cron_job_update(new: Obj, old: Obj) -> list[FieldError]:
    """``ValidateCronJobUpdate``: the spec against the old one; longer names stay updatable."""
    return _validate_cron_job_spec(_dict(new.get("spec")), _dict(old.get("spec")))


JOB = KindRules(create=validate_job, update=validate_job_update)
CRON_JOB = KindRules(create=validate_cron_job, update=validate_cron_job_update)
