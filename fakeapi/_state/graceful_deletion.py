"""Graceful deletion: what a DELETE does to an object whose kind deletes gracefully (pods).

Reproduces ``rest.BeforeDelete`` (k8s.io/apiserver ``pkg/registry/rest/delete.go``) for a strategy
that implements ``CheckGracefulDelete`` (docs/graceful-deletion.md):

* the first DELETE asks the kind for the grace period (the pod strategy: the request's
  ``gracePeriodSeconds``, else ``spec.terminationGracePeriodSeconds``; 0 for a pod not scheduled or
  already Succeeded or Failed; a negative value is 1) and sets ``deletionTimestamp`` to now plus
  that grace and ``deletionGracePeriodSeconds`` to it (generation + 1 when the object has one);
* a later DELETE of an object whose grace is pending may only shorten it: a shorter
  ``gracePeriodSeconds`` moves ``deletionTimestamp`` back by the difference; anything else leaves
  the object as it is (the store answers with it);
* an object already marked with grace 0 (or none) is not graceful any more: the store deletes it,
  or, while finalizers hold it, leaves it marked.

The store then writes the marked object (``updateForGracefulDeletionAndFinalizers``) and deletes it
at once only when the grace is 0 and no finalizer holds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakeapi._state.clock import format_timestamp, parse_timestamp
from fakeapi._state.objects import metadata_of, with_metadata

__all__ = ["GracefulDelete", "before_delete"]


@dataclass(frozen=True)
class GracefulDelete:
    """What ``BeforeDelete`` decided: ``marked`` is the object to write for a graceful delete; a
    ``pending`` one leaves the object alone; neither means the ordinary delete path."""

    marked: dict[str, Any] | None = None
    grace: int = 0
    pending: bool = False


def before_delete(
    obj: dict[str, Any], grace_period: int | None, default_grace: int | None, now: float
) -> GracefulDelete:
    """The decision for ``obj``; ``default_grace`` is the kind's ``CheckGracefulDelete`` answer for
    a first delete (None: the kind does not delete gracefully)."""
    if default_grace is None:
        return GracefulDelete()
    if grace_period is not None and grace_period < 0:
        grace_period = 1
    meta = metadata_of(obj)
    current_grace = meta.get("deletionGracePeriodSeconds")
    if isinstance(current_grace, int) and current_grace < 0:
        current_grace = 1
    if meta.get("deletionTimestamp") is not None:
        if not current_grace:
            return GracefulDelete()
        if grace_period is None or grace_period >= current_grace:
            return GracefulDelete(pending=True)
        deadline = parse_timestamp(meta["deletionTimestamp"]) or now
        moved = format_timestamp(deadline - current_grace + grace_period)
        marked = with_metadata(obj, deletionTimestamp=moved, deletionGracePeriodSeconds=grace_period)
        return GracefulDelete(marked, grace_period)
    changes: dict[str, Any] = {
        "deletionTimestamp": format_timestamp(now + default_grace),
        "deletionGracePeriodSeconds": default_grace,
    }
    if (meta.get("generation") or 0) > 0:
        changes["generation"] = meta["generation"] + 1
    return GracefulDelete(with_metadata(obj, **changes), default_grace)
