"""Deployments as ``pkg/apis/apps/validation/validation.go`` and their registry strategy validate them.

``ValidateDeploymentSpec``: replicas not negative; a selector, valid (``ValidateLabelSelector``) and
not empty; the template's labels matched by it (``spec.template.metadata.labels: Invalid value:
map[string]string{...}: `selector` does not match template `labels```); the pod template
(:mod:`.pods`), which must restart Always and has no deadline; the strategy (``Recreate`` without
rollingUpdate, or ``RollingUpdate`` with maxUnavailable and maxSurge non-negative ints or valid
percents, not both 0, maxUnavailable at most 100%); minReadySeconds, revisionHistoryLimit and
progressDeadlineSeconds not negative, the deadline above minReadySeconds. On update the selector
is immutable (``pkg/registry/apps/deployment/strategy.go`` ``ValidateUpdate``, for apps/v1):
``spec.selector: Invalid value: v1.LabelSelector{...}: field is immutable``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from fakeapi._state.label_selectors import requirements_match
from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError, Printed
from fakeapi._state.validation.names import is_percent, name_is_dns_label
from fakeapi._state.validation.objectmeta import (
    FIELD_IMMUTABLE,
    semantic,
    validate_annotations,
    validate_label_selector,
    validate_labels,
    validate_nonnegative,
)
from fakeapi._state.validation.pods import validate_pod_template
from fakeapi._state.validation.rules import KindRules
from fakeapi._state.validation.values import ADDRESS, int_or_string, label_selector, strategy, string_map

__all__ = ["DAEMON_SET", "DEPLOYMENT", "REPLICA_SET", "STATEFUL_SET"]

Obj = Mapping[str, Any]


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _selects(selector: Obj | None, labels: Obj) -> bool | None:
    """Whether the selector matches the labels; None for a selector that selects everything."""
    if selector is None:
        return False
    match_labels = _dict(selector.get("matchLabels"))
    expressions = [_dict(item) for item in selector.get("matchExpressions") or [] if isinstance(item, dict)]
    if not match_labels and not expressions:
        return None
    return requirements_match(match_labels, expressions, labels)


def validate_replica_set_template(spec: Obj, kind: str, path: str) -> list[FieldError]:
    """``ValidatePodTemplateSpecForReplicaSet``: labels matched by the selector, the template, Always, no deadline."""
    errors: list[FieldError] = []
    template = _dict(spec.get("template"))
    labels = _dict(template.get("metadata")).get("labels")
    selector = spec.get("selector") if isinstance(spec.get("selector"), dict) else None
    if _selects(selector, _dict(labels)) is False:
        errors.append(
            field.invalid(
                f"{path}.metadata.labels",
                string_map(labels),
                "`selector` does not match template `labels`",
                "map[string]string",
            )
        )
    errors += validate_pod_template(template, path)
    pod_spec = _dict(template.get("spec"))
    restart = pod_spec.get("restartPolicy") or ""
    if restart != "Always":
        errors.append(field.not_supported(f"{path}.spec.restartPolicy", restart, ("Always",)))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        detail = f"activeDeadlineSeconds in {kind} is not Supported"
        errors.append(field.forbidden(f"{path}.spec.activeDeadlineSeconds", detail))
    return errors


def _atoi_saturating(text: str) -> int:
    """``strconv.Atoi`` of a number Go parsed: past int64 it is the bound of its sign (``ErrRange`` ignored)."""
    if len(text.lstrip("+-").lstrip("0")) > 19:
        return -(2**63) if text.startswith("-") else 2**63 - 1
    return max(-(2**63), min(int(text), 2**63 - 1))


def _int_or_percent_value(value: Any) -> int:
    """``getIntOrPercentValue``: a valid percent's number, else the int (a string that is no number is 0)."""
    if isinstance(value, str):
        if not is_percent(value):
            return _atoi_saturating(value[:-1])
        return _atoi_saturating(value) if re.fullmatch("[+-]?[0-9]+", value) else 0
    return value if isinstance(value, int) else 0


def _validate_positive_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent``."""
    if isinstance(value, str):
        return [field.invalid(path, int_or_string(value), problem) for problem in is_percent(value)]
    return validate_nonnegative(value if isinstance(value, int) else 0, path)


def _validate_strategy(deployment_strategy: Obj, path: str) -> list[FieldError]:
    """``ValidateDeploymentStrategy`` and ``ValidateRollingUpdateDeployment``."""
    kind = deployment_strategy.get("type") or ""
    rolling = deployment_strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            detail = "may not be specified when strategy `type` is 'Recreate'"
            return [field.forbidden(f"{path}.rollingUpdate", detail)]
        return []
    if kind != "RollingUpdate":
        shown = strategy("DeploymentStrategy", "RollingUpdateDeployment", deployment_strategy)
        return [field.not_supported(path, shown, ("Recreate", "RollingUpdate"))]
    if not isinstance(rolling, dict):
        return [field.required(f"{path}.rollingUpdate", "this should be defaulted and never be nil")]
    where = f"{path}.rollingUpdate"
    unavailable, surge = rolling.get("maxUnavailable", 0), rolling.get("maxSurge", 0)
    errors = _validate_positive_int_or_percent(unavailable, f"{where}.maxUnavailable")
    errors += _validate_positive_int_or_percent(surge, f"{where}.maxSurge")
    if _int_or_percent_value(unavailable) == 0 and _int_or_percent_value(surge) == 0:
        detail = "may not be 0 when `maxSurge` is 0"
        errors.append(field.invalid(f"{where}.maxUnavailable", int_or_string(unavailable), detail))
    return errors + _not_more_than_100_percent(unavailable, f"{where}.maxUnavailable")


def _validate_selector(spec: Obj, kind: str) -> tuple[list[FieldError], bool]:
    """A required, valid, non-empty selector; and whether ``LabelSelectorAsSelector`` would take it."""
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        return [field.required("spec.selector")], True
    errors = validate_label_selector(selector, "spec.selector")
    converts = not errors
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        errors.append(field.invalid("spec.selector", label_selector(selector), f"empty selector is invalid for {kind}"))
    return errors, converts


def validate_deployment(deployment: Obj) -> list[FieldError]:
    """``ValidateDeploymentSpec`` (``ValidateDeployment`` past the metadata)."""
    spec = _dict(deployment.get("spec"))
    errors = validate_nonnegative(spec.get("replicas") or 0, "spec.replicas")
    selector_errors, converts = _validate_selector(spec, "deployment")
    errors += selector_errors
    if converts:
        errors += validate_replica_set_template(spec, "ReplicaSet", "spec.template")
    else:
        shown = label_selector(_dict(spec.get("selector")))
        errors.append(field.invalid("spec.selector", shown, "invalid label selector"))
    errors += _validate_strategy(_dict(spec.get("strategy")), "spec.strategy")
    min_ready = spec.get("minReadySeconds") or 0
    errors += validate_nonnegative(min_ready, "spec.minReadySeconds")
    if spec.get("revisionHistoryLimit") is not None:
        errors += validate_nonnegative(spec["revisionHistoryLimit"], "spec.revisionHistoryLimit")
    deadline = spec.get("progressDeadlineSeconds")
    if isinstance(deadline, int):
        errors += validate_nonnegative(deadline, "spec.progressDeadlineSeconds")
        if deadline <= min_ready:
            errors.append(
                field.invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds")
            )
    return errors


def validate_replica_set(replica_set: Obj) -> list[FieldError]:
    """``ValidateReplicaSetSpec`` (its empty-selector message says "deployment", as upstream's does)."""
    spec = _dict(replica_set.get("spec"))
    errors = validate_nonnegative(spec.get("replicas") or 0, "spec.replicas")
    errors += validate_nonnegative(spec.get("minReadySeconds") or 0, "spec.minReadySeconds")
    selector_errors, converts = _validate_selector(spec, "deployment")
    errors += selector_errors
    if converts:
        errors += validate_replica_set_template(spec, "ReplicaSet", "spec.template")
    else:
        shown = label_selector(_dict(spec.get("selector")))
        errors.append(field.invalid("spec.selector", shown, "invalid label selector"))
    return errors


def _selector_of(obj: Obj) -> Obj:
    """The selector as ``apiequality.Semantic`` compares it: empty and absent maps and lists alike."""
    selector = _dict(_dict(obj.get("spec")).get("selector"))
    return {key: value for key, value in selector.items() if value}


def _immutable_selector(new: Obj, old: Obj) -> list[FieldError]:
    """What the Deployment, ReplicaSet and DaemonSet strategies add on update for apps/v1."""
    if _selector_of(new) == _selector_of(old):
        return []
    selector = _dict(new.get("spec")).get("selector")
    shown: Printed = label_selector(selector if isinstance(selector, dict) else None)
    return [field.invalid("spec.selector", shown, FIELD_IMMUTABLE)]


def _with_immutable_selector(validate: Callable[[Obj], list[FieldError]]) -> Callable[[Obj, Obj], list[FieldError]]:
    def validate_update(new: Obj, old: Obj) -> list[FieldError]:
        return validate(new) + _immutable_selector(new, old)

    return validate_update


# -- StatefulSet ---------------------------------------------------------------------------------


def _printed_stateful_rolling(rolling: Obj) -> Printed:
    """``apps.RollingUpdateStatefulSetStrategy``, the internal type: ``%#v`` and its untagged JSON."""
    partition = rolling.get("partition") or 0
    unavailable = rolling.get("maxUnavailable")
    pointer = "(*intstr.IntOrString)(nil)" if unavailable is None else f"(*intstr.IntOrString)({ADDRESS})"
    go = f"apps.RollingUpdateStatefulSetStrategy{{Partition:{partition}, MaxUnavailable:{pointer}}}"
    json_value = "null" if unavailable is None else int_or_string(unavailable).json
    return Printed(go, f'{{"Partition":{partition},"MaxUnavailable":{json_value}}}')


def _validate_stateful_strategy(update_strategy: Obj, path: str) -> list[FieldError]:
    kind = update_strategy.get("type") or ""
    rolling = update_strategy.get("rollingUpdate")
    if not kind:
        return [field.required(path)]
    if kind == "OnDelete":
        if isinstance(rolling, dict):
            detail = "only allowed for updateStrategy 'RollingUpdate'"
            return [field.invalid(f"{path}.rollingUpdate", _printed_stateful_rolling(rolling), detail)]
        return []
    if kind != "RollingUpdate":
        shown = strategy("StatefulSetUpdateStrategy", "RollingUpdateStatefulSetStrategy", update_strategy)
        return [field.invalid(path, shown, "must be 'RollingUpdate' or 'OnDelete'")]
    if not isinstance(rolling, dict):
        return []
    where = f"{path}.rollingUpdate"
    errors = validate_nonnegative(rolling.get("partition") or 0, f"{where}.partition")
    unavailable = rolling.get("maxUnavailable")
    if unavailable is not None:
        errors += _validate_positive_int_or_percent(unavailable, f"{where}.maxUnavailable")
        if _int_or_percent_value(unavailable) == 0:
            errors.append(field.invalid(f"{where}.maxUnavailable", int_or_string(unavailable), "cannot be 0"))
        errors += _not_more_than_100_percent(unavailable, f"{where}.maxUnavailable")
    return errors


def _not_more_than_100_percent(value: Any, path: str) -> list[FieldError]:
    """``IsNotMoreThan100Percent``."""
    if isinstance(value, str) and not is_percent(value) and _atoi_saturating(value[:-1]) > 100:
        return [field.invalid(path, int_or_string(value), "must not be greater than 100%")]
    return []


def validate_stateful_set(stateful_set: Obj) -> list[FieldError]:
    """``ValidateStatefulSetSpec``: the template's labels and annotations are checked, not its pod spec."""
    spec = _dict(stateful_set.get("spec"))
    errors: list[FieldError] = []
    policy = spec.get("podManagementPolicy") or ""
    if not policy:
        errors.append(field.required("spec.podManagementPolicy"))
    elif policy not in ("OrderedReady", "Parallel"):
        errors.append(field.invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    errors += _validate_stateful_strategy(_dict(spec.get("updateStrategy")), "spec.updateStrategy")
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(retention, dict):
        for name in ("whenDeleted", "whenScaled"):
            value = retention.get(name) or ""
            if value not in ("Retain", "Delete"):
                path = f"spec.persistentVolumeClaimRetentionPolicy.{name}"
                errors.append(field.not_supported(path, value, ("Retain", "Delete")))
    errors += validate_nonnegative(spec.get("replicas") or 0, "spec.replicas")
    errors += validate_nonnegative(spec.get("minReadySeconds") or 0, "spec.minReadySeconds")
    ordinals = spec.get("ordinals")
    if isinstance(ordinals, dict):
        errors += validate_nonnegative(ordinals.get("start") or 0, "spec.ordinals.start")
    selector_errors, converts = _validate_selector(spec, "statefulset")
    errors += selector_errors
    template = _dict(spec.get("template"))
    if converts:
        labels = _dict(template.get("metadata")).get("labels")
        selector = spec.get("selector") if isinstance(spec.get("selector"), dict) else None
        if _selects(selector, _dict(labels)) is False:
            detail = "`selector` does not match template `labels`"
            shown = string_map(labels)
            errors.append(field.invalid("spec.template.metadata.labels", shown, detail, "map[string]string"))
        meta = _dict(template.get("metadata"))
        errors += validate_labels(_dict(meta.get("labels")), "spec.template.labels")
        errors += validate_annotations(_dict(meta.get("annotations")), "spec.template.annotations")
    else:
        errors.append(field.invalid("spec.selector", label_selector(_dict(spec.get("selector"))), ""))
    pod_spec = _dict(template.get("spec"))
    restart = pod_spec.get("restartPolicy") or ""
    if restart != "Always":
        errors.append(field.not_supported("spec.template.spec.restartPolicy", restart, ("Always",)))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        detail = "activeDeadlineSeconds in StatefulSet is not Supported"
        errors.append(field.forbidden("spec.template.spec.activeDeadlineSeconds", detail))
    return errors


_STATEFUL_SET_UPDATABLE = (
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
)


def validate_stateful_set_update(new: Obj, old: Obj) -> list[FieldError]:
    """``ValidateStatefulSetUpdate``: the spec, then nothing but the updatable fields changed."""
    errors = validate_stateful_set(new)
    new_spec, old_spec = _dict(new.get("spec")), _dict(old.get("spec"))
    kept = {key: value for key, value in new_spec.items() if key not in _STATEFUL_SET_UPDATABLE}
    before = {key: value for key, value in old_spec.items() if key not in _STATEFUL_SET_UPDATABLE}
    if semantic(kept) != semantic(before):
        detail = (
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
            "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
        )
        errors.append(field.forbidden("spec", detail))
    return errors


# -- DaemonSet -----------------------------------------------------------------------------------


def _validate_daemon_strategy(update_strategy: Obj, path: str) -> list[FieldError]:
    """``ValidateDaemonSetUpdateStrategy`` and ``ValidateRollingUpdateDaemonSet``."""
    kind = update_strategy.get("type") or ""
    if kind == "OnDelete":
        return []
    if kind != "RollingUpdate":
        shown = strategy("DaemonSetUpdateStrategy", "RollingUpdateDaemonSet", update_strategy)
        return [field.not_supported(path, shown, ("RollingUpdate", "OnDelete"))]
    rolling = update_strategy.get("rollingUpdate")
    if not isinstance(rolling, dict):
        return [field.required(f"{path}.rollingUpdate")]
    where = f"{path}.rollingUpdate"
    unavailable, surge = rolling.get("maxUnavailable", 0), rolling.get("maxSurge", 0)
    errors = _validate_positive_int_or_percent(unavailable, f"{where}.maxUnavailable")
    errors += _validate_positive_int_or_percent(surge, f"{where}.maxSurge")
    errors += _not_more_than_100_percent(unavailable, f"{where}.maxUnavailable")
    errors += _not_more_than_100_percent(surge, f"{where}.maxSurge")
    has_unavailable = _int_or_percent_value(unavailable) != 0
    has_surge = _int_or_percent_value(surge) != 0
    if has_unavailable and has_surge:
        detail = "may not be set when maxUnavailable is non-zero"
        errors.append(field.invalid(f"{where}.maxSurge", int_or_string(surge), detail))
    elif not has_unavailable and not has_surge:
        errors.append(field.required(f"{where}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
    return errors


def validate_daemon_set(daemon_set: Obj) -> list[FieldError]:
    """``ValidateDaemonSetSpec``."""
    spec = _dict(daemon_set.get("spec"))
    selector = spec.get("selector") if isinstance(spec.get("selector"), dict) else None
    errors = validate_label_selector(selector, "spec.selector") if selector is not None else []
    template = _dict(spec.get("template"))
    labels = _dict(template.get("metadata")).get("labels")
    if not errors and _selects(selector, _dict(labels)) is False:
        detail = "`selector` does not match template `labels`"
        errors.append(field.invalid("spec.template.metadata.labels", string_map(labels), detail, "map[string]string"))
    if selector is not None and not selector.get("matchLabels") and not selector.get("matchExpressions"):
        errors.append(
            field.invalid("spec.selector", label_selector(selector), "empty selector is invalid for daemonset")
        )
    errors += validate_pod_template(template, "spec.template")
    pod_spec = _dict(template.get("spec"))
    restart = pod_spec.get("restartPolicy") or ""
    if restart != "Always":
        errors.append(field.not_supported("spec.template.spec.restartPolicy", restart, ("Always",)))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        detail = "activeDeadlineSeconds in DaemonSet is not Supported"
        errors.append(field.forbidden("spec.template.spec.activeDeadlineSeconds", detail))
    errors += validate_nonnegative(spec.get("minReadySeconds") or 0, "spec.minReadySeconds")
    errors += _validate_daemon_strategy(_dict(spec.get("updateStrategy")), "spec.updateStrategy")
    if spec.get("revisionHistoryLimit") is not None:
        errors += validate_nonnegative(spec["revisionHistoryLimit"], "spec.revisionHistoryLimit")
    return errors


DEPLOYMENT = KindRules(create=validate_deployment, update=_with_immutable_selector(validate_deployment))
REPLICA_SET = KindRules(create=validate_replica_set, update=_with_immutable_selector(validate_replica_set))
STATEFUL_SET = KindRules(names=name_is_dns_label, create=validate_stateful_set, update=validate_stateful_set_update)
DAEMON_SET = KindRules(create=validate_daemon_set, update=_with_immutable_selector(validate_daemon_set))
