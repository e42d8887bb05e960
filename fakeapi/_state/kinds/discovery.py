"""``discovery.k8s.io/v1``: EndpointSlices; changes bump the generation (``endpointslice/strategy.go``)."""

from __future__ import annotations

from fakeapi._state.defaults.networking import endpoint_slice_defaults
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType
from fakeapi._state.strategy import GenerationStrategy
from fakeapi._state.tables.networking import ENDPOINT_SLICE_PRINTER

__all__ = ["TYPES"]

TYPES: tuple[ResourceType, ...] = (
    builtin(
        "discovery.k8s.io",
        "v1",
        "endpointslices",
        "EndpointSlice",
        strategy=GenerationStrategy(),
        printer=ENDPOINT_SLICE_PRINTER,
        defaulter=endpoint_slice_defaults,
    ),
)
