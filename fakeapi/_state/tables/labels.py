"""``labels.FormatLabels`` (apimachinery ``pkg/labels/labels.go``): a label map as ``k=v,k2=v2``, keys sorted."""

from __future__ import annotations

from typing import Any

__all__ = ["format_labels"]


def format_labels(labels: Any) -> str:
    """``<none>`` for no labels."""
    if not isinstance(labels, dict) or not labels:
        return "<none>"
    return ",".join(f"{key}={labels[key]}" for key in sorted(labels))
