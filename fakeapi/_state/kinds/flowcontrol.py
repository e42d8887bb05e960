"""``flowcontrol.apiserver.k8s.io/v1``: API priority and fairness objects, stored and served."""

from __future__ import annotations

from fakeapi._state.defaults.flowcontrol import flow_schema_defaults, priority_level_defaults
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.strategy import GenerationStrategy
from fakeapi._state.tables.access import FLOW_SCHEMA_PRINTER, PRIORITY_LEVEL_PRINTER

__all__ = ["TYPES"]

_GROUP = "flowcontrol.apiserver.k8s.io"
_GENERATION = GenerationStrategy()

TYPES: tuple[ResourceType, ...] = (
    builtin(
        _GROUP,
        "v1",
        "flowschemas",
        "FlowSchema",
        False,
        subresources=(Subresource("status"),),
        strategy=_GENERATION,
        printer=FLOW_SCHEMA_PRINTER,
        defaulter=flow_schema_defaults,
    ),
    builtin(
        _GROUP,
        "v1",
        "prioritylevelconfigurations",
        "PriorityLevelConfiguration",
        False,
        subresources=(Subresource("status"),),
        strategy=_GENERATION,
        printer=PRIORITY_LEVEL_PRINTER,
        defaulter=priority_level_defaults,
    ),
)
