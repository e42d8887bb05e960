"""The namespace controller's work on a terminating namespace, one level-triggered pass at a time.

``namespacedResourcesDeleter.Delete`` (kube-controller-manager,
``pkg/controller/namespace/deletion/namespaced_resources_deleter.go``) reads the namespace and, if it
is terminating and its ``spec.finalizers`` are not empty yet: deletes every namespaced object in it
(``deleteAllContent``), writes the deletion conditions that say what remains to its ``status``
(``status_condition_utils.go``), and once nothing remains removes its own ``kubernetes`` token from
``spec.finalizers`` through ``/finalize``, which deletes the namespace when no finalizer is left
(docs/namespace-deletion.md). Each pass reads the store afresh, so it can stop after any write and
carry on from there: the simulated controller (``fakeapi/_cluster/namespaces.py``) makes one write at a
time, the inline trigger (``controllers.finalize_namespace``) runs a whole pass inside a write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.objects import metadata_of

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.storeview import StoreView

__all__ = ["NAMESPACE_CONTROLLER", "NAMESPACE_FINALIZER", "delete_namespace_content", "terminating_namespaces"]

NAMESPACE_CONTROLLER = "kube-controller-manager"
NAMESPACE_FINALIZER = "kubernetes"


def terminating_namespaces(store: StoreView) -> list[str]:
    """The names of the namespaces the controller has work on: terminating, ``spec.finalizers`` not empty."""
    names = []
    for namespace in store.bucket(store.registry.namespaces).values():
        if metadata_of(namespace).get("deletionTimestamp") is not None and _spec_finalizers(namespace):
            names.append(metadata_of(namespace).get("name", ""))
    return sorted(names)


def delete_namespace_content(store: StoreView, name: str) -> None:
    """One pass of ``Delete`` for namespace ``name``: content, conditions, then the finalizer."""
    namespaces = store.registry.namespaces
    namespace = store.find(namespaces, "", name)
    if namespace is None or metadata_of(namespace).get("deletionTimestamp") is None:
        return
    if not _spec_finalizers(namespace):
        return  # ``finalized``: nothing of the controller's left to do
    remaining, finalizers = _delete_content(store, name)
    conditions = _deletion_conditions(remaining, finalizers)

    def with_conditions(current: dict[str, Any]) -> dict[str, Any]:
        status = current.get("status") or {}
        merged = _updated_conditions(status.get("conditions") or [], conditions, store.clock.timestamp())
        return {**current, "status": {**status, "conditions": merged}}

    store.update(
        namespaces, "", name, with_conditions, subresource="status", manager=NAMESPACE_CONTROLLER, unconditional=True
    )
    if remaining:
        return

    def finalized(current: dict[str, Any]) -> dict[str, Any]:
        # ``finalizeNamespace`` sends the others back as a sorted set.
        kept = sorted({f for f in _spec_finalizers(current) if f != NAMESPACE_FINALIZER})
        return {**current, "spec": {**(current.get("spec") or {}), "finalizers": kept}}

    store.update(
        namespaces, "", name, finalized, subresource="finalize", manager=NAMESPACE_CONTROLLER, unconditional=True
    )


def _spec_finalizers(namespace: dict[str, Any]) -> list[str]:
    spec = namespace.get("spec")
    return list(spec.get("finalizers") or []) if isinstance(spec, dict) else []


def _delete_content(store: StoreView, name: str) -> tuple[dict[tuple[str, str], int], dict[str, int]]:
    """``deleteAllContent``: delete what is not being deleted yet; what is left, by resource and finalizer."""
    remaining: dict[tuple[str, str], int] = {}
    finalizers: dict[str, int] = {}
    for rtype in _namespaced_storage_types(store):
        for obj in [o for (ns, _), o in list(store.bucket(rtype).items()) if ns == name]:
            meta = metadata_of(obj)
            if meta.get("deletionTimestamp") is None:
                store.delete(rtype, name, meta.get("name", ""))
            left = store.find(rtype, name, meta.get("name", ""))
            if left is not None:
                remaining[(rtype.plural, rtype.group)] = remaining.get((rtype.plural, rtype.group), 0) + 1
                for finalizer in metadata_of(left).get("finalizers") or []:
                    finalizers[finalizer] = finalizers.get(finalizer, 0) + 1
    return remaining, finalizers


# ``pkg/controller/namespace/deletion/status_condition_utils.go``: every deletion condition, its
# reason and message while it is not failing.
_DELETION_CONDITIONS = (
    ("NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"),
    ("NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"),
    (
        "NamespaceDeletionContentFailure",
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    ),
    ("NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"),
    ("NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"),
)


def _deletion_conditions(remaining: dict[tuple[str, str], int], finalizers: dict[str, int]) -> list[dict[str, str]]:
    """``ProcessContentTotals``: what is left, by resource and by finalizer, sorted."""
    failing: dict[str, tuple[str, str]] = {}
    if remaining:
        resources = sorted(
            f"{plural}.{group} has {count} resource instances" for (plural, group), count in remaining.items()
        )
        failing["NamespaceContentRemaining"] = (
            "SomeResourcesRemain",
            "Some resources are remaining: " + ", ".join(resources),
        )
    if finalizers:
        held = sorted(f"{finalizer} in {count} resource instances" for finalizer, count in finalizers.items())
        failing["NamespaceFinalizersRemaining"] = (
            "SomeFinalizersRemain",
            "Some content in the namespace has finalizers remaining: " + ", ".join(held),
        )
    conditions = []
    for kind, reason, message in _DELETION_CONDITIONS:
        status, (reason, message) = ("True", failing[kind]) if kind in failing else ("False", (reason, message))
        conditions.append({"type": kind, "status": status, "reason": reason, "message": message})
    return conditions


def _updated_conditions(old: list[Any], new: list[dict[str, str]], now: str) -> list[dict[str, Any]]:
    """``namespaceConditionUpdater.Update``: an unchanged condition keeps its transition time."""
    previous = {c.get("type"): c for c in old if isinstance(c, dict)}
    merged = []
    for condition in new:
        before = previous.pop(condition["type"], None)
        if before is not None and all(before.get(k) == condition[k] for k in ("status", "reason", "message")):
            merged.append(before)
        else:
            merged.append(
                {
                    "type": condition["type"],
                    "status": condition["status"],
                    "lastTransitionTime": now,
                    "reason": condition["reason"],
                    "message": condition["message"],
                }
            )
    merged.extend(previous.values())
    return merged


def _namespaced_storage_types(store: StoreView) -> list[ResourceType]:
    seen: set[tuple[str, str]] = set()
    types = []
    for rtype in store.registry.all_types():
        if rtype.namespaced and rtype.storage_key not in seen:
            seen.add(rtype.storage_key)
            types.append(rtype)
    return types
