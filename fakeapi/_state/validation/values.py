"""The struct values field errors report, printed both ways (``field.Printed``).

Up to Kubernetes 1.33 ``ErrorBody`` prints a struct with ``%#v`` and its Go type; from 1.34 on as
its JSON (docs/validation.md). The structs that the workload validations report:

* ``metav1.LabelSelector`` (a selector that is empty, immutable, or not auto-generated):
  ``v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}``,
  its JSON with the API's tags;
* a nil label map (``map[string]string(nil)``), where a set one prints as ``%#v`` does;
* ``intstr.IntOrString`` (a rolling update's maxUnavailable or maxSurge):
  ``intstr.IntOrString{Type:1, IntVal:0, StrVal:"25x"}``, its JSON the bare value;
* the internal strategies of ``pkg/apis/apps`` (``apps.DeploymentStrategy{Type:"Foo",
  RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}``), whose JSON carries Go's field names, as
  internal types have no JSON tags. A set pointer prints as its address in Go; no one can predict
  it, so ``0xc000000000`` stands in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._patching.godecode import normalize
from fakeapi._patching.goencode import encode
from fakeapi._patching.gostrconv import quote
from fakeapi._state.validation.field import Printed, go_syntax

__all__ = ["int_or_string", "label_selector", "strategy", "string_map"]

ADDRESS = "0xc000000000"


def _json(value: Any) -> str:
    return encode(normalize(value)).decode()


def label_selector(selector: Mapping[str, Any] | None) -> Printed:
    selector = selector or {}
    labels = selector.get("matchLabels")
    expressions = selector.get("matchExpressions")
    shown_labels = go_syntax(labels if labels else None, "map[string]string")
    if expressions:
        parts = []
        for requirement in expressions:
            requirement = requirement if isinstance(requirement, dict) else {}
            values = requirement.get("values")
            parts.append(
                f"v1.LabelSelectorRequirement{{Key:{quote(str(requirement.get('key') or ''))}, "
                f"Operator:{quote(str(requirement.get('operator') or ''))}, "
                f"Values:{go_syntax(values if values else None, '[]string')}}}"
            )
        shown_expressions = "[]v1.LabelSelectorRequirement{" + ", ".join(parts) + "}"
    else:
        shown_expressions = "[]v1.LabelSelectorRequirement(nil)"
    tagged: dict[str, Any] = {}
    if labels:
        tagged["matchLabels"] = labels
    if expressions:
        tagged["matchExpressions"] = expressions
    return Printed(
        f"v1.LabelSelector{{MatchLabels:{shown_labels}, MatchExpressions:{shown_expressions}}}", _json(tagged)
    )


def string_map(labels: Any) -> Any:
    """A ``map[string]string`` as a bad value: a nil one is ``map[string]string(nil)``, not ``null``
    (``ErrorBody`` prints ``null`` only for a nil interface or pointer)."""
    if not labels:
        return Printed("map[string]string(nil)", "null")
    return labels


def int_or_string(value: Any) -> Printed:
    if isinstance(value, str):
        return Printed(f"intstr.IntOrString{{Type:1, IntVal:0, StrVal:{quote(value)}}}", _json(value))
    number = value if isinstance(value, int) else 0
    return Printed(f'intstr.IntOrString{{Type:0, IntVal:{number}, StrVal:""}}', _json(number))


def strategy(kind: str, rolling_kind: str, value: Mapping[str, Any]) -> Printed:
    """``apps.<kind>{Type:"...", RollingUpdate:(*apps.<rolling_kind>)(...)}`` and its untagged JSON."""
    rolling = value.get("rollingUpdate")
    pointer = f"(*apps.{rolling_kind})({'nil' if rolling is None else ADDRESS})"
    go = f"apps.{kind}{{Type:{quote(str(value.get('type') or ''))}, RollingUpdate:{pointer}}}"
    untagged = {
        "Type": value.get("type") or "",
        "RollingUpdate": None
        if not isinstance(rolling, dict)
        else {key[0].upper() + key[1:]: item for key, item in rolling.items()},
    }
    return Printed(go, _json(untagged))
