"""The built-in kinds, one descriptor each, grouped by API group as ``pkg/registry/<group>`` is.

Each group module declares its kinds' :class:`~fakeapi._state.resources.ResourceType`: names,
scope, verbs, short names, categories and subresources (as a 1.32 kube-apiserver's discovery lists
them, and from which later release a kind is served: ``since``), the strategy, the defaulter and
the printer. Their Go structs, and so their strategic merge patch
metadata, come from :mod:`fakeapi._state.typed`. Adding a kind is one entry in one module; custom
resources get theirs from their CRD (:mod:`.custom`).
"""

from __future__ import annotations

import functools

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
    resource,
    scheduling,
    storage,
)
from fakeapi._state.releases import kube_release
from fakeapi._state.resources import ResourceType

__all__ = ["BUILTIN_TYPES", "builtin_type", "builtin_types"]

# The core group first, then the groups in the order kube-apiserver's /apis lists them (the
# aggregator's group priorities, ``pkg/controlplane/apiserver/aggregator.go``: resource.k8s.io
# shares discovery.k8s.io's 16200 and sorts after it by name). Every kind of every release.
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
    *resource.TYPES,
    *flowcontrol.TYPES,
)

_BY_KIND = {(t.group, t.version, t.kind): t for t in reversed(BUILTIN_TYPES)}


def builtin_type(group: str, version: str, kind: str) -> ResourceType:
    """The descriptor of a built-in kind of any release; ``KeyError`` if no release the fake serves has it."""
    return _BY_KIND[(group, version, kind)]


@functools.cache
def builtin_types(kube_version: str) -> tuple[ResourceType, ...]:
    """The built-in kinds a kube-apiserver of ``kube_version`` serves by default, in discovery order."""
    minor = kube_release(kube_version).minor
    return tuple(t for t in BUILTIN_TYPES if not t.since or kube_release(t.since).minor <= minor)
