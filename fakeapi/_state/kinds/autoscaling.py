"""``autoscaling/v2`` and ``autoscaling/v1``: HorizontalPodAutoscalers (``pkg/registry/autoscaling``).

Both versions are served, v2 preferred, over the same stored objects. The apiserver converts
between the two shapes (``pkg/apis/autoscaling/v1/conversion.go``); the fake does not yet, so an
object read at the other version than it was written at keeps its own fields.
"""

from __future__ import annotations

from fakeapi._state.defaults.autoscaling import hpa_v1_defaults, hpa_v2_defaults
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.tables.access import HPA_PRINTER

__all__ = ["TYPES"]

TYPES: tuple[ResourceType, ...] = tuple(
    builtin(
        "autoscaling",
        version,
        "horizontalpodautoscalers",
        "HorizontalPodAutoscaler",
        short_names=("hpa",),
        categories=("all",),
        subresources=(Subresource("status"),),
        stored_as=("autoscaling", "v2", "HorizontalPodAutoscaler"),
        printer=HPA_PRINTER,
        defaulter=hpa_v2_defaults if version == "v2" else hpa_v1_defaults,
    )
    for version in ("v2", "v1")
)
