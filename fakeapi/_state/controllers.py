"""The controllers a fake without controllers still has to emulate, or objects never go away.

The namespace controller empties a terminating namespace and then removes it, and while it cannot
(objects held by finalizers) it says why in the namespace's conditions, as
``pkg/controller/namespace/deletion/namespaced_resources_deleter.go`` does (docs/namespace-deletion.md); the CRD finalizer
controller deletes every instance of a deleted CRD, waits for the last one (instances with
finalizers stay until those are removed) and then lets the CRD go; a removed CRD takes its
instances and its endpoints with it. All of it runs synchronously inside the write that
triggers it, so a client sees the end state as soon as its request returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.objects import metadata_of, with_metadata
from fakeapi._state.watching import DELETED

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.storeview import StoreView

__all__ = [
    "CRD_CLEANUP_FINALIZER",
    "clean_up_custom_resources",
    "finalize_namespace",
    "finish_crd_cleanup",
    "remove_custom_resources",
]

CRD_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"
CONTROLLER_MANAGER = "kube-apiserver"
NAMESPACE_CONTROLLER = "kube-controller-manager"
NAMESPACE_FINALIZER = "kubernetes"


def finalize_namespace(store: StoreView, name: str) -> None:
    """The namespace controller: delete what is inside, then the namespace once it is empty."""
    namespace = store.find(store.registry.namespaces, "", name)
    if namespace is None or metadata_of(namespace).get("deletionTimestamp") is None:
        return
    if name in store.finalizing:
        return
    store.finalizing.add(name)
    try:
        _finalize_namespace(store, name)
    finally:
        store.finalizing.discard(name)


def _finalize_namespace(store: StoreView, name: str) -> None:
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
    namespaces = store.registry.namespaces
    namespace = store.get(namespaces, "", name)
    spec_finalizers = (namespace.get("spec") or {}).get("finalizers") or []
    if not remaining and not metadata_of(namespace).get("finalizers") and set(spec_finalizers) <= {NAMESPACE_FINALIZER}:
        store.delete_now(namespaces, namespace)
        return
    conditions = _deletion_conditions(remaining, finalizers)

    def with_conditions(current: dict[str, Any]) -> dict[str, Any]:
        status = current.get("status") or {}
        merged = _updated_conditions(status.get("conditions") or [], conditions, store.clock.timestamp())
        return {**current, "status": {**status, "conditions": merged}}

    store.update(
        namespaces, "", name, with_conditions, subresource="status", manager=NAMESPACE_CONTROLLER, unconditional=True
    )
    if not remaining and NAMESPACE_FINALIZER in spec_finalizers:

        def finalized(current: dict[str, Any]) -> dict[str, Any]:
            kept = [f for f in (current.get("spec") or {}).get("finalizers") or [] if f != NAMESPACE_FINALIZER]
            return {**current, "spec": {**(current.get("spec") or {}), "finalizers": kept}}

        store.update(
            namespaces, "", name, finalized, subresource="finalize", manager=NAMESPACE_CONTROLLER, unconditional=True
        )


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


def clean_up_custom_resources(store: StoreView, crd: dict[str, Any]) -> None:
    """The CRD finalizer controller: delete every instance, then let the CRD go."""
    crd_name = metadata_of(crd).get("name", "")
    types = store.registry.custom_types_of(crd_name)
    if types:
        rtype = types[0]
        for obj in list(store.bucket(rtype).values()):
            meta = metadata_of(obj)
            if meta.get("deletionTimestamp") is None:
                store.delete(rtype, meta.get("namespace", ""), meta.get("name", ""))
    _release_crd(store, crd_name)


def finish_crd_cleanup(store: StoreView, rtype: ResourceType) -> None:
    """After an instance went: if its CRD is waiting for the last one, release it."""
    crd = store.find(store.registry.customresourcedefinitions, "", rtype.crd_name)
    if crd is not None and metadata_of(crd).get("deletionTimestamp") is not None:
        _release_crd(store, rtype.crd_name)


def _release_crd(store: StoreView, crd_name: str) -> None:
    types = store.registry.custom_types_of(crd_name)
    if types and store.bucket(types[0]):
        return
    crd = store.find(store.registry.customresourcedefinitions, "", crd_name)
    if crd is None:
        return
    finalizers = [f for f in metadata_of(crd).get("finalizers") or [] if f != CRD_CLEANUP_FINALIZER]
    store.update(
        store.registry.customresourcedefinitions,
        "",
        crd_name,
        lambda current: with_metadata(current, finalizers=finalizers or None),
        unconditional=True,
        manager=CONTROLLER_MANAGER,
    )


def remove_custom_resources(store: StoreView, crd: dict[str, Any]) -> None:
    """The CRD is gone: so are its instances and its served types."""
    crd_name = metadata_of(crd).get("name", "")
    for rtype in store.registry.custom_types_of(crd_name)[:1]:
        for obj in list(store.bucket(rtype).values()):
            store.persist(rtype, obj, DELETED, obj)
        store.objects.pop(rtype.storage_key, None)
        store.hub.close_all(rtype.storage_key)
    store.registry.unregister_crd(crd_name)
