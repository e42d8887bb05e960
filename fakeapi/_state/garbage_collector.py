"""The garbage collector's answer to deletions: dependents deleted, orphaned, or waited for (docs/garbage-collection.md).

kube-controller-manager's garbage collector (``pkg/controller/garbagecollector/garbagecollector.go``)
follows ``metadata.ownerReferences``. When an owner goes, each dependent is looked at
(``attemptToDeleteItem``): its owners are solid (there, with the uid named), dangling (gone, or
another uid) or waiting for their dependents' deletion (being deleted with the
``foregroundDeletion`` finalizer). A dependent with a solid owner keeps living, with the references
to dangling and waiting owners removed; one whose owners are all dangling is deleted, in the
propagation its own finalizers ask for (background by default); one with a waiting owner and
dependents of its own is deleted in the foreground. An owner deleted with ``propagationPolicy:
Orphan`` carries the ``orphan`` finalizer: its dependents lose their reference to it, then the
finalizer goes (``orphanDependents``). One deleted in the foreground carries ``foregroundDeletion``:
its dependents are deleted, and once none with ``blockOwnerDeletion`` is left the finalizer goes
(``processDeletingDependentsItem``).

The real collector works from informers, a moment after the write; here it runs inside the write
that triggers it, after the owner's own change is stored, so watchers see the owner's event before
its dependents'. Only deletions and deletion marks trigger it: an object written with an owner that
does not exist is left alone, where kube-controller-manager would delete it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from fakeapi._state.objects import metadata_of, with_metadata

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.storeview import StoreView

__all__ = ["FOREGROUND", "MANAGER", "ORPHAN", "dependent_deleted", "owner_deleted", "owner_marked"]

ORPHAN = "orphan"
FOREGROUND = "foregroundDeletion"
MANAGER = "kube-controller-manager"  # its user agent's first part, the field manager of its patches

Dependent = tuple["ResourceType", dict[str, Any]]


def owner_deleted(store: StoreView, rtype: ResourceType, owner: dict[str, Any]) -> None:
    """An owner is gone: every dependent that named it is looked at again."""
    for dependent_type, dependent in _dependents(store, rtype, owner):
        _attempt_to_delete(store, dependent_type, dependent)


def owner_marked(store: StoreView, rtype: ResourceType, owner: dict[str, Any]) -> None:
    """An owner was marked for deletion with the garbage collector's finalizers."""
    meta = metadata_of(owner)
    finalizers = meta.get("finalizers") or []
    if meta.get("deletionTimestamp") is None:
        return
    if ORPHAN in finalizers:
        for dependent_type, dependent in _dependents(store, rtype, owner):
            _remove_references(store, dependent_type, dependent, {meta.get("uid")})
        _remove_finalizer(store, rtype, owner, ORPHAN)
    elif FOREGROUND in finalizers:
        _delete_dependents(store, rtype, owner)


def dependent_deleted(store: StoreView, dependent: dict[str, Any]) -> None:
    """A dependent is gone: an owner waiting for it may now be unblocked."""
    namespace = metadata_of(dependent).get("namespace", "")
    for reference in _references(dependent):
        found = _owner(store, reference, namespace)
        if found is not None and _waiting(found[1]):
            _delete_dependents(store, found[0], found[1])


def _delete_dependents(store: StoreView, rtype: ResourceType, owner: dict[str, Any]) -> None:
    """``processDeletingDependentsItem``: delete what is not being deleted yet, and let the owner go
    once no dependent blocks it."""
    current = _latest(store, rtype, owner)
    if current is None or not _waiting(current):
        return
    uid = metadata_of(current).get("uid")
    blocking = []
    for dependent_type, dependent in _dependents(store, rtype, current):
        reference = next(ref for ref in _references(dependent) if ref.get("uid") == uid)
        if reference.get("blockOwnerDeletion") is True:
            blocking.append((dependent_type, dependent))
        if metadata_of(dependent).get("deletionTimestamp") is None:
            _attempt_to_delete(store, dependent_type, dependent)
    still = [d for t, d in blocking if _latest(store, t, d) is not None]
    if not still:
        latest = _latest(store, rtype, current)
        if latest is not None and _waiting(latest):
            _remove_finalizer(store, rtype, latest, FOREGROUND)


def _attempt_to_delete(store: StoreView, rtype: ResourceType, dependent: dict[str, Any]) -> None:
    latest = _latest(store, rtype, dependent)
    if latest is None:
        return
    meta = metadata_of(latest)
    if meta.get("deletionTimestamp") is not None and not _waiting(latest):
        return
    namespace = meta.get("namespace", "")
    solid, dangling, waiting = [], [], []
    for reference in _references(latest):
        found = _owner(store, reference, namespace)
        if found is _UNRESOLVABLE:
            solid.append(
                reference
            )  # an owner of a kind the server does not serve: left for later, as a lookup error is
        elif found is None:
            dangling.append(reference)
        elif _waiting(found[1]):
            waiting.append(reference)
        else:
            solid.append(reference)
    if solid:
        if dangling or waiting:
            _remove_references(store, rtype, latest, {ref.get("uid") for ref in (*dangling, *waiting)})
        return
    if waiting and any(True for _ in _dependents(store, rtype, latest)):
        policy = "Foreground"
    elif ORPHAN in (meta.get("finalizers") or []):
        policy = "Orphan"
    elif FOREGROUND in (meta.get("finalizers") or []):
        policy = "Foreground"
    else:
        policy = "Background"
    store.delete(rtype, namespace, meta.get("name", ""), uid=meta.get("uid"), propagation=policy)


# -- reading owners and dependents -------------------------------------------------------------------

_UNRESOLVABLE: Any = object()


def _references(obj: dict[str, Any]) -> list[dict[str, Any]]:
    references = metadata_of(obj).get("ownerReferences")
    return [ref for ref in references if isinstance(ref, dict)] if isinstance(references, list) else []


def _owner(
    store: StoreView, reference: dict[str, Any], namespace: str
) -> tuple[ResourceType, dict[str, Any]] | Any | None:
    """The owner a reference names, if it is there with the uid named; :data:`_UNRESOLVABLE` for a
    kind the server does not serve."""
    api_version, kind = str(reference.get("apiVersion", "")), reference.get("kind")
    group, _, version = api_version.rpartition("/")
    rtype = next(
        (t for t in store.registry.types_in(group, version) if t.kind == kind),
        None,
    )
    if rtype is None:
        return _UNRESOLVABLE
    if rtype.namespaced and not namespace:
        return None  # a cluster-scoped dependent cannot have a namespaced owner
    owner = store.find(rtype, namespace if rtype.namespaced else "", str(reference.get("name", "")))
    if owner is None or metadata_of(owner).get("uid") != reference.get("uid"):
        return None
    return rtype, owner


def _dependents(store: StoreView, rtype: ResourceType, owner: dict[str, Any]) -> Iterator[Dependent]:
    """Every stored object with a reference to ``owner``'s uid (the store keeps an index of them):
    in its namespace for a namespaced owner, anywhere for a cluster-scoped one."""
    meta = metadata_of(owner)
    uid = meta.get("uid")
    places = store.dependents_of(uid) if isinstance(uid, str) else []
    if not places:
        return
    namespace = meta.get("namespace") if rtype.namespaced else None
    types: dict[tuple[str, str], ResourceType] = {}
    for served in store.registry.all_types():
        types.setdefault(served.storage_key, served)
    for storage_key, object_namespace, name in places:
        candidate = types.get(storage_key)
        if candidate is None or (namespace is not None and object_namespace != namespace):
            continue
        obj = store.find(candidate, object_namespace, name)
        if obj is not None and any(ref.get("uid") == uid for ref in _references(obj)):
            yield candidate, obj


def _latest(store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any] | None:
    meta = metadata_of(obj)
    found = store.find(rtype, meta.get("namespace", "") if rtype.namespaced else "", meta.get("name", ""))
    if found is None or metadata_of(found).get("uid") != meta.get("uid"):
        return None
    return found


def _waiting(obj: dict[str, Any]) -> bool:
    meta = metadata_of(obj)
    return meta.get("deletionTimestamp") is not None and FOREGROUND in (meta.get("finalizers") or [])


# -- the collector's writes --------------------------------------------------------------------------


def _remove_references(store: StoreView, rtype: ResourceType, obj: dict[str, Any], uids: set[Any]) -> None:
    latest = _latest(store, rtype, obj)
    if latest is None:
        return
    kept = [ref for ref in _references(latest) if ref.get("uid") not in uids]
    meta = metadata_of(latest)
    store.update(
        rtype,
        meta.get("namespace", "") if rtype.namespaced else "",
        meta.get("name", ""),
        lambda current: with_metadata(current, ownerReferences=kept or None),
        manager=MANAGER,
    )


def _remove_finalizer(store: StoreView, rtype: ResourceType, obj: dict[str, Any], finalizer: str) -> None:
    meta = metadata_of(obj)
    store.update(
        rtype,
        meta.get("namespace", "") if rtype.namespaced else "",
        meta.get("name", ""),
        lambda current: with_metadata(
            current, finalizers=[f for f in metadata_of(current).get("finalizers") or [] if f != finalizer] or None
        ),
        manager=MANAGER,
    )
