"""The controllers a fake without controllers still has to emulate, or objects never go away.

The namespace controller empties a terminating namespace and then removes it, and while it cannot
(objects held by finalizers) it says why in the namespace's conditions (``namespace_deleter``,
docs/namespace-deletion.md); unless the simulated ``namespace`` controller runs, it runs inside the
write that made it due. The CRD finalizer
controller deletes every instance of a deleted CRD, waits for the last one (instances with
finalizers stay until those are removed) and then lets the CRD go; a removed CRD takes its
instances and its endpoints with it. All of it runs synchronously inside the write that
triggers it, so a client sees the end state as soon as its request returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state.namespace_deleter import delete_namespace_content
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


def finalize_namespace(store: StoreView, name: str) -> None:
    """The namespace controller, inline: a whole pass over namespace ``name`` inside the write that
    made it due. Nothing when the simulated ``namespace`` controller runs: it then acts on its own
    turn (settling, or one write per step), and the namespace stays terminating until it does."""
    if store.namespace_deletion_simulated:
        return
    namespace = store.find(store.registry.namespaces, "", name)
    if namespace is None or metadata_of(namespace).get("deletionTimestamp") is None:
        return
    if name in store.finalizing:
        return
    store.finalizing.add(name)
    try:
        delete_namespace_content(store, name)
    finally:
        store.finalizing.discard(name)


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
