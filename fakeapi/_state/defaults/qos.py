"""A pod's QoS class, which the pod strategy writes into ``status.qosClass`` on create.

Reproduced from kube-apiserver 1.32 ``pkg/apis/core/helper/qos/qos.go`` ``ComputePodQOS`` (cpu and
memory only, init containers included, zero amounts ignored), with the amounts read as
apimachinery ``pkg/api/resource/quantity.go`` ``ParseQuantity`` reads them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from fakeapi._state.defaults.fields import Obj, items

__all__ = ["qos_class"]

_QUANTITY = re.compile(
    r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:[eE]([+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$"
)
_SUFFIXES = {
    None: Decimal(1), "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "k": Decimal("1e3"),
    "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"), "P": Decimal("1e15"), "E": Decimal("1e18"),
    "Ki": Decimal(2**10), "Mi": Decimal(2**20), "Gi": Decimal(2**30), "Ti": Decimal(2**40), "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}  # fmt: skip


def _quantity(value: Any) -> Decimal | None:
    """A resource quantity's amount (``resource.ParseQuantity``; JSON numbers are accepted too)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    match = _QUANTITY.match(value.strip() if isinstance(value, str) else repr(value))
    if match is None:
        return None
    number = Decimal(match.group(1))
    if match.group(2) is not None:
        return number.scaleb(int(match.group(2)))
    return number * _SUFFIXES[match.group(3)]


def qos_class(spec: Obj) -> str:
    """``ComputePodQOS``: cpu and memory only, init containers included, zero amounts ignored."""
    requests: dict[str, Decimal] = {}
    limits: dict[str, Decimal] = {}
    guaranteed = True
    for key in ("containers", "initContainers"):
        for container in items(spec, key):
            resources = container.get("resources")
            resources = resources if isinstance(resources, dict) else {}
            for name, amount in _compute_amounts(resources.get("requests")):
                requests[name] = requests.get(name, Decimal(0)) + amount
            found = set()
            for name, amount in _compute_amounts(resources.get("limits")):
                found.add(name)
                limits[name] = limits.get(name, Decimal(0)) + amount
            if not {"cpu", "memory"} <= found:
                guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    equal = all(limits.get(name) == amount for name, amount in requests.items())
    if guaranteed and equal and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


def _compute_amounts(resources: Any) -> Iterator[tuple[str, Decimal]]:
    if isinstance(resources, dict):
        for name in ("cpu", "memory"):
            amount = _quantity(resources.get(name))
            if amount is not None and amount > 0:
                yield name, amount
