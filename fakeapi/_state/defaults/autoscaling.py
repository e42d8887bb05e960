"""Defaults of HorizontalPodAutoscalers, per served version (the fake keeps each version's own shape).

Reproduced from kube-apiserver 1.32: ``pkg/apis/autoscaling/v1/defaults.go``
``SetDefaults_HorizontalPodAutoscaler`` (one replica at least) and ``pkg/apis/autoscaling/v2/defaults.go``
(one replica at least; no metrics means CPU at 80 % average utilization; a ``behavior`` given gets
every scaling rule field it lacks from the defaults: scale up within 0 seconds by the larger of 4
pods or 100 % every 15 seconds, scale down by 100 % every 15 seconds, both selecting Max).
"""

from __future__ import annotations

import copy

from fakeapi._state.defaults.fields import Obj, default_if_absent, sub

__all__ = ["hpa_v1_defaults", "hpa_v2_defaults"]

_DEFAULT_CPU_UTILIZATION = 80
_SCALE_UP = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
# The scale-down window stays unset: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies.
_SCALE_DOWN = {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}


def hpa_v1_defaults(hpa: Obj, creating: bool | None) -> None:
    if (spec := sub(hpa, "spec")) is not None:
        default_if_absent(spec, "minReplicas", 1)


def _rules(given: object, defaults: Obj) -> Obj:
    """``copyHPAScalingRules``: the given rule's set fields over a copy of the defaults."""
    rules = copy.deepcopy(defaults)
    if isinstance(given, dict):
        for key in ("selectPolicy", "stabilizationWindowSeconds", "policies"):
            if given.get(key) is not None:
                rules[key] = given[key]
    return rules


def hpa_v2_defaults(hpa: Obj, creating: bool | None) -> None:
    spec = sub(hpa, "spec")
    if spec is None:
        return
    default_if_absent(spec, "minReplicas", 1)
    if not spec.get("metrics"):
        target = {"type": "Utilization", "averageUtilization": _DEFAULT_CPU_UTILIZATION}
        spec["metrics"] = [{"type": "Resource", "resource": {"name": "cpu", "target": target}}]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        behavior["scaleUp"] = _rules(behavior.get("scaleUp"), _SCALE_UP)
        behavior["scaleDown"] = _rules(behavior.get("scaleDown"), _SCALE_DOWN)
