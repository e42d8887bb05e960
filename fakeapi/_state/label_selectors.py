"""Whether a ``metav1.LabelSelector``'s requirements hold for a set of labels.

apimachinery ``LabelSelectorAsSelector`` then ``Matches``: every ``matchLabels`` pair is an
equality, and each ``matchExpressions`` entry an ``In``, ``NotIn``, ``Exists`` or ``DoesNotExist``
requirement; all must hold. What an empty selector means differs by caller (everything for a
workload's own selector, nothing for a PodDisruptionBudget's), so callers decide that first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["requirements_match"]


def requirements_match(
    match_labels: Mapping[str, Any], expressions: Iterable[Mapping[str, Any]], labels: Mapping[str, Any]
) -> bool:
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
