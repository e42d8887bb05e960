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
from collections.abc import Mapping
from typing import Any

from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError, Printed
from fakeapi._state.validation.names import is_percent
from fakeapi._state.validation.objectmeta import FIELD_IMMUTABLE, validate_label_selector, validate_nonnegative
from fakeapi._state.validation.pods import validate_pod_template
from fakeapi._state.validation.rules import KindRules
from fakeapi._state.validation.values import int_or_string, label_selector, strategy

__all__ = ["DEPLOYMENT", "validate_deployment", "validate_deployment_update"]

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
    if any(labels.get(key) != value for key, value in match_labels.items()):
        return False
    for requirement in expressions:
        key, operator = str(requirement.get("key") or ""), requirement.get("operator")
        values = requirement.get("values") or []
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


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
                labels if labels else None,
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


def _int_or_percent_value(value: Any) -> int:
    """``getIntOrPercentValue``: a valid percent's number, else the int (a string that is no number is 0)."""
    if isinstance(value, str):
        if not is_percent(value):
            return int(value[:-1])
        return int(value) if re.fullmatch("[+-]?[0-9]+", value) else 0
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
    if isinstance(unavailable, str) and not is_percent(unavailable) and int(unavailable[:-1]) > 100:
        detail = "must not be greater than 100%"
        errors.append(field.invalid(f"{where}.maxUnavailable", int_or_string(unavailable), detail))
    return errors


def validate_deployment(deployment: Obj) -> list[FieldError]:
    """``ValidateDeploymentSpec`` (``ValidateDeployment`` past the metadata)."""
    spec = _dict(deployment.get("spec"))
    errors = validate_nonnegative(spec.get("replicas") or 0, "spec.replicas")
    selector = spec.get("selector")
    selector_errors: list[FieldError] = []
    if not isinstance(selector, dict):
        errors.append(field.required("spec.selector"))
    else:
        selector_errors = validate_label_selector(selector, "spec.selector")
        errors += selector_errors
        if not selector.get("matchLabels") and not selector.get("matchExpressions"):
            detail = "empty selector is invalid for deployment"
            errors.append(field.invalid("spec.selector", label_selector(selector), detail))
    # LabelSelectorAsSelector fails exactly where ValidateLabelSelector found a problem.
    if selector_errors:
        errors.append(field.invalid("spec.selector", label_selector(_dict(selector)), "invalid label selector"))
    else:
        errors += validate_replica_set_template(spec, "ReplicaSet", "spec.template")
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


def _selector_of(obj: Obj) -> Obj:
    """The selector as ``apiequality.Semantic`` compares it: empty and absent maps and lists alike."""
    selector = _dict(_dict(obj.get("spec")).get("selector"))
    return {key: value for key, value in selector.items() if value}


def validate_deployment_update(new: Obj, old: Obj) -> list[FieldError]:
    """``ValidateDeploymentUpdate`` past the metadata, then the strategy's immutable selector."""
    errors = validate_deployment(new)
    if _selector_of(new) != _selector_of(old):
        selector = _dict(new.get("spec")).get("selector")
        shown: Printed = label_selector(selector if isinstance(selector, dict) else None)
        errors.append(field.invalid("spec.selector", shown, FIELD_IMMUTABLE))
    return errors


DEPLOYMENT = KindRules(create=validate_deployment, update=validate_deployment_update)
