"""The built-in kinds, one descriptor each, grouped by API group as ``pkg/registry/<group>`` is.

Each group module declares its kinds' :class:`~fakeapi._state.resources.ResourceType`: names,
scope, verbs, short names, categories and subresources (as a 1.32 kube-apiserver's discovery lists
them), the strategy, the defaulter and the printer. Their Go structs, and so their strategic merge patch
metadata, come from :mod:`fakeapi._state.typed`. Adding a kind is one entry in one module; custom
resources get theirs from their CRD (:mod:`.custom`).
"""

from __future__ import annotations

from fakeapi._state.kinds import (
    admissionregistration,
    apiextensions,
    apiregistration,
    apps,
    authentication,
    authorization,
    autoscaling,
    batch,
    certificates,
    coordination,
    core,
    discovery,
    events,
    flowcontrol,
    networking,
    node,
    policy,
    rbac,
    scheduling,
    storage,
)
from fakeapi._state.resources import ResourceType

__all__ = ["BUILTIN_TYPES", "builtin_type"]

# The core group first, then the groups in the order a 1.32 kube-apiserver's /apis lists them (the
# aggregator's group priorities, ``pkg/controlplane/apiserver/aggregator.go``).
BUILTIN_TYPES: tuple[ResourceType, ...] = (
    *core.TYPES,
    *apiregistration.TYPES,
    *apps.TYPES,
    *events.TYPES,
    *authentication.TYPES,
    *authorization.TYPES,
    *autoscaling.TYPES,
    *batch.TYPES,
    *certificates.TYPES,
    *networking.TYPES,
    *policy.TYPES,
    *rbac.TYPES,
    *storage.TYPES,
    *admissionregistration.TYPES,
    *apiextensions.TYPES,
    *scheduling.TYPES,
    *coordination.TYPES,
    *node.TYPES,
    *discovery.TYPES,
    *flowcontrol.TYPES,
)

_BY_KIND = {(t.group, t.version, t.kind): t for t in reversed(BUILTIN_TYPES)}


def builtin_type(group: str, version: str, kind: str) -> ResourceType:
    """The descriptor of a built-in kind; ``KeyError`` if the fake does not serve it."""
    return _BY_KIND[(group, version, kind)]
