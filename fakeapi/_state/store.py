"""The object store: one global resourceVersion, optimistic concurrency, finalizers, history.

Reproduces the generic registry store and etcd3 storage of kube-apiserver (docs/writes.md;
``registry/generic/registry/store.go``, ``storage/etcd3/store.go``):

* every persisted write (create, update, patch, status, deletionTimestamp, finalizer edit, delete)
  takes the next value of one counter shared by all resources;
* a write whose encoding equals the stored one (resourceVersion aside) writes nothing: same
  resourceVersion, no watch event;
* an update carries its resourceVersion as a precondition: stale is 409 Conflict, missing is 422
  for kinds that do not allow unconditional updates (custom resources);
* DELETE of an object with finalizers sets deletionTimestamp (and bumps generation) instead, and
  the object goes when an update removes its last finalizer.

Objects are plain decoded dicts, never mutated once stored; every write builds a new dict. The
rules that differ per kind (status subresource, generation, defaults, validation) live in
:mod:`fakeapi._state.strategy`.
"""

from __future__ import annotations

import bisect
import contextvars
import secrets
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from fakeapi._patching.goencode import encode
from fakeapi._patching.gostrconv import parse_uint
from fakeapi._state import controllers, garbage_collector
from fakeapi._state.admission.plugins import NAMESPACE_LIFECYCLE, default_enabled
from fakeapi._state.admission.quota import charge_quotas
from fakeapi._state.clock import Clock
from fakeapi._state.conversion.events import EventConversion
from fakeapi._state.encodings import RevisionSlot, encode_kept, remember, with_revision_slot
from fakeapi._state.graceful_deletion import before_delete
from fakeapi._state.objects import metadata_of, with_metadata, without_resource_version
from fakeapi._state.registry import Registry
from fakeapi._state.releases import DEFAULT_KUBE_VERSION
from fakeapi._state.resources import ResourceType
from fakeapi._state.signing_keys import SigningKey
from fakeapi._state.storeview import Committed, Key, ObjectId
from fakeapi._state.strategy import Strategy, strategy_of
from fakeapi._state.typed.ordering import in_go_order
from fakeapi._state.validation import field
from fakeapi._state.watching import ADDED, DEFAULT_HISTORY_BYTES, DELETED, MODIFIED, Change, WatchHub
from fakeapi.errors import APIError, Cause

__all__ = ["CreatePlan", "Store", "StoreSnapshot", "UpdatePlan", "track_writes"]

GENERATE_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
GENERATE_NAME_ATTEMPTS = 8
OPTIMISTIC_LOCK_MESSAGE = "the object has been modified; please apply your changes to the latest version and try again"

# The resourceVersions given to the writes of the request being served. A request task sets its own
# list, so what happens while it awaits (other requests committing) is not counted as its doing.
_request_writes: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("request_writes", default=None)


def track_writes() -> list[int]:
    """Start recording, for the current task, the resourceVersions its writes take; returns the record."""
    record: list[int] = []
    _request_writes.set(record)
    return record


@dataclass(frozen=True)
class StoreSnapshot:
    revision: int
    objects: dict[tuple[str, str], dict[Key, dict[str, Any]]]
    crds: dict[str, Any]
    history: list[Change]
    compacted_through: int
    random_state: Any
    history_bytes: int = -1
    """What the history's objects weigh (the watch hub's count), so a restore need not add it up again."""


@dataclass(frozen=True)
class CreatePlan:
    """A create prepared and validated, not yet stored (:meth:`Store.plan_create`)."""

    rtype: ResourceType
    namespace: str
    object: dict[str, Any]
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class UpdatePlan:
    """An update prepared and validated against ``current``, not yet stored (:meth:`Store.plan_update`)."""

    rtype: ResourceType
    current: dict[str, Any]
    new: dict[str, Any]
    slot: RevisionSlot
    warnings: tuple[str, ...]
    unchanged: bool
    subresource: str = ""


def _etcd_key(key: Key) -> str:
    namespace, name = key
    return f"{namespace}/{name}" if namespace else name


class Store:
    """All objects of one fake apiserver, and the single revision counter."""

    def __init__(
        self,
        *,
        clock: Clock,
        history_window: int = 10000,
        seed: int = 0,
        watch_queue_limit: int = 10000,
        history_max_bytes: int = DEFAULT_HISTORY_BYTES,
        kube_version: str = DEFAULT_KUBE_VERSION,
    ) -> None:
        self.clock = clock
        self.registry = Registry(kube_version)
        self.finalizing: set[str] = set()
        # True while the simulated namespace controller runs: terminating namespaces wait for it
        # instead of being emptied inside the write that deleted them (docs/namespace-deletion.md).
        self.namespace_deletion_simulated = False
        # kube-controller-manager's per-namespace controllers (namespace_content), and the CA they publish.
        self.namespace_controllers = True
        self.root_ca = ""
        # The admission plugins switched on (docs/admission.md); the in-process ones read it.
        self.admission_plugins: frozenset[str] = frozenset(default_enabled())
        # The resources whose protection finalizer a simulated controller removes, so that
        # StorageObjectInUseProtection adds it (docs/storage.md).
        self.protected_storage: frozenset[str] = frozenset()
        self._encodings: dict[tuple[tuple[str, str], str, str], tuple[dict[str, Any], bytes]] = {}
        # Per resource: its bucket, and its keys (etcd's spelling, and as tuples) and objects in key order.
        self._order: dict[tuple[str, str], tuple[dict[Key, Any], list[str], list[Key], list[dict[str, Any]]]] = {}
        self.revision = 0
        self.objects: dict[tuple[str, str], dict[Key, dict[str, Any]]] = {}
        # Per resource, the revision of its last write; ``epoch`` counts the times every object was
        # replaced at once (a restore, a clear). Together they tell a reader whether anything of a
        # resource changed since it last looked (the stepped controllers' probes, docs/controllers.md).
        self.changed_at: dict[tuple[str, str], int] = {}
        self.epoch = 0
        self.hub = WatchHub(history_window, watch_queue_limit, history_max_bytes)
        # Owner uid -> the objects whose ownerReferences name it, for the garbage collector; None
        # until first asked for after a clear or restore (rebuilt then, so resets stay cheap).
        self._owned: dict[str, set[ObjectId]] | None = None
        self._random = secrets.SystemRandom() if seed == 0 else _SeededRandom(seed)
        # The key service account tokens are signed with: fixed by the seed, so replays issue the same tokens.
        self.signing_key = SigningKey(seed)

    # -- reading ---------------------------------------------------------------------------------

    def bucket(self, rtype: ResourceType) -> dict[Key, dict[str, Any]]:
        return self.objects.setdefault(rtype.storage_key, {})

    def find(self, rtype: ResourceType, namespace: str, name: str) -> dict[str, Any] | None:
        return self.bucket(rtype).get((namespace, name))

    def get(self, rtype: ResourceType, namespace: str, name: str) -> dict[str, Any]:
        found = self.find(rtype, namespace, name)
        if found is None:
            raise APIError.not_found(rtype.group_resource, name)
        return found

    def items(self, rtype: ResourceType, namespace: str | None) -> list[dict[str, Any]]:
        """All objects of a resource (in one namespace, or all), in etcd's key order.

        etcd sorts keys as strings, ``<namespace>/<name>``, so across namespaces ``a-b/x`` comes
        before ``a/x``. The order is sorted once, then kept in step by every write (see ``_keep_order``).
        """
        bucket = self.bucket(rtype)
        order = self._order.get(rtype.storage_key)
        if order is None or order[0] is not bucket or len(order[1]) != len(bucket):
            keys = sorted(bucket, key=_etcd_key)
            order = (bucket, [_etcd_key(key) for key in keys], keys, [bucket[key] for key in keys])
            self._order[rtype.storage_key] = order
        _, strings, _, values = order
        if namespace is None:
            return values[:]
        low = bisect.bisect_left(strings, namespace + "/")
        high = bisect.bisect_left(strings, namespace + "0")  # "0" is the character after "/"
        return values[low:high]

    def items_at(self, rtype: ResourceType, namespace: str | None, revision: int) -> list[dict[str, Any]] | None:
        """The objects as they were at ``revision`` (etcd's range read at a past revision), in key order.

        Worked back from the current objects through the changes made since, each undone to what it
        replaced. None when the changes since then are no longer all kept: etcd has compacted them.
        """
        if revision >= self.revision:
            return self.items(rtype, namespace)
        if revision < self.hub.compacted_through:
            return None
        replaced: dict[Key, dict[str, Any] | None] = {}
        for change in reversed(self.hub.history):
            if change.revision <= revision:
                break
            if change.storage_key == rtype.storage_key and (namespace is None or change.namespace == namespace):
                replaced[(change.namespace, change.name)] = change.previous  # the oldest change wins
        if not replaced:
            return self.items(rtype, namespace)
        bucket = self.bucket(rtype)
        state = {key: obj for key, obj in bucket.items() if namespace is None or key[0] == namespace}
        for key, previous in replaced.items():
            if previous is None:
                state.pop(key, None)
            else:
                state[key] = previous
        return [state[key] for key in sorted(state, key=_etcd_key)]

    def encoding_of(self, rtype: ResourceType, obj: dict[str, Any]) -> bytes:
        """Go's encoding of a stored object without its resourceVersion, cached per stored version."""
        return self._encoded_without_revision(rtype, obj)

    def _encoded_without_revision(self, rtype: ResourceType, obj: dict[str, Any]) -> bytes:
        """The stored bytes etcd compares a new write with (the revision is not part of them)."""
        meta = metadata_of(obj)
        key = (rtype.storage_key, meta.get("namespace", ""), meta.get("name", ""))
        cached = self._encodings.get(key)
        if cached is not None and cached[0] is obj:
            return cached[1]
        encoded = encode(without_resource_version(obj), in_order=rtype.struct_order)
        self._encodings[key] = (obj, encoded)
        return encoded

    # -- writing ---------------------------------------------------------------------------------

    def _next_revision(self) -> int:
        self.revision += 1
        return self.revision

    def persist(
        self,
        rtype: ResourceType,
        obj: dict[str, Any],
        change_type: str,
        previous: dict[str, Any] | None,
        slot: RevisionSlot | None = None,
    ) -> dict[str, Any]:
        """Store ``obj`` at the next revision; ``slot``, its encoding made for the no-op check, is reused."""
        revision = self._next_revision()
        metadata = metadata_of(obj)
        namespace, name = metadata.get("namespace", ""), metadata.get("name", "")
        stored = with_metadata(obj, resourceVersion=str(revision))
        encoded = slot.filled(str(revision)) if slot is not None else None
        if encoded is not None:
            remember(stored, encoded)
        else:
            encoded = encode_kept(stored, in_order=rtype.struct_order)  # its answer or watch events need it next
        key = (namespace, name)
        history_key = (rtype.storage_key, namespace, name)
        bucket = self.bucket(rtype)
        self.changed_at[rtype.storage_key] = revision
        if change_type == DELETED:
            bucket.pop(key, None)
            self._encodings.pop(history_key, None)
            self._keep_order(rtype.storage_key, bucket, key, None)
        else:
            bucket[key] = stored
            self._keep_order(rtype.storage_key, bucket, key, stored)
        if self._owned is not None:
            self._keep_owned(history_key, previous, None if change_type == DELETED else stored)
        self.hub.publish(
            Change(revision, rtype.storage_key, namespace, name, change_type, stored, previous, len(encoded))
        )
        record = _request_writes.get()
        if record is not None:
            record.append(revision)
        return stored

    def _keep_owned(self, identity: ObjectId, previous: dict[str, Any] | None, stored: dict[str, Any] | None) -> None:
        for uid in _owner_uids(previous):
            dependents = self._owned.get(uid) if self._owned is not None else None
            if dependents is not None:
                dependents.discard(identity)
        for uid in _owner_uids(stored):
            assert self._owned is not None
            self._owned.setdefault(uid, set()).add(identity)

    def dependents_of(self, uid: str) -> list[ObjectId]:
        """Where the objects whose ownerReferences name ``uid`` are stored (a superset: an entry can
        outlive its object when a whole resource is dropped; readers look each one up)."""
        if self._owned is None:
            self._owned = {}
            for storage_key, bucket in self.objects.items():
                for (namespace, name), obj in bucket.items():
                    for owner in _owner_uids(obj):
                        self._owned.setdefault(owner, set()).add((storage_key, namespace, name))
        return sorted(self._owned.get(uid, ()))

    def _keep_order(
        self, storage_key: tuple[str, str], bucket: dict[Key, Any], key: Key, stored: dict[str, Any] | None
    ) -> None:
        """Keep the ordered objects in step with one write: an update takes the old version's place, a
        create goes in at its key, a delete (``stored`` None) leaves; no list sorts everything again."""
        order = self._order.get(storage_key)
        if order is None or order[0] is not bucket:
            return
        _, strings, keys, values = order
        string = _etcd_key(key)
        position = bisect.bisect_left(strings, string)
        present = position < len(strings) and keys[position] == key
        if stored is None:
            if present:
                del strings[position], keys[position], values[position]
        elif present:
            values[position] = stored
        else:
            strings.insert(position, string)
            keys.insert(position, key)
            values.insert(position, stored)

    def new_uid(self) -> str:
        """A version 4 UUID from the store's random source (seeded runs give the same ones)."""
        return str(uuid.UUID(int=self._random.getrandbits(128), version=4))

    def generator_state(self) -> Any:
        """The seeded name and uid generator's state (None when unseeded), to put back with :meth:`set_generator_state`."""
        return self._random.getstate() if isinstance(self._random, _SeededRandom) else None

    def set_generator_state(self, state: Any) -> None:
        if state is not None and isinstance(self._random, _SeededRandom):
            self._random.setstate(state)

    def generate_name(self, base: str) -> str:
        return base[:58] + "".join(self._random.choice(GENERATE_NAME_ALPHABET) for _ in range(5))

    def admit(self, rtype: ResourceType, namespace: str, obj: dict[str, Any]) -> dict[str, Any]:
        """The in-process mutating admission plugins of a create (NamespaceLifecycle, ServiceAccount, Priority)."""
        if rtype.namespaced and NAMESPACE_LIFECYCLE in self.admission_plugins:
            strategy_of(rtype).check_namespace(self, rtype, with_metadata(obj, namespace=namespace or None))
        return strategy_of(rtype).admit(self, rtype, namespace, obj)

    def create(
        self,
        rtype: ResourceType,
        namespace: str,
        obj: dict[str, Any],
        *,
        dry_run: bool = False,
        manager: str = "",
        validate: bool = True,
        applied: dict[str, Any] | None = None,
    ) -> Committed:
        """``Store.Create``: name, system metadata, strategy, validation, the next revision.

        A resource stored in another's shape (events.k8s.io Events) is planned in its own and
        stored converted (docs/events.md); the stored object is returned.
        """
        plan = self.plan_create(rtype, namespace, obj, manager=manager, validate=validate, applied=applied)
        conversion = _stored_shape(rtype)
        if conversion is not None:
            plan = replace(plan, object=conversion.to_storage(self.registry.structs, plan.object))
        return self.commit_create(plan, dry_run=dry_run)

    def plan_create(
        self,
        rtype: ResourceType,
        namespace: str,
        obj: dict[str, Any],
        *,
        manager: str = "",
        validate: bool = True,
        applied: dict[str, Any] | None = None,
        admitted: bool = False,
        decoded: dict[str, Any] | None = None,
    ) -> CreatePlan:
        """A create up to its commit: admitted (unless ``admitted`` says the caller did), named, prepared, validated.

        Nothing is stored: :meth:`commit_create` stores it, so validating admission can run in between.
        ``decoded`` is the object before mutating admission when the caller admitted it: the create's
        managedFields are those of that object as decoding defaults it, for ``create.go`` runs the
        field manager before admission and before the registry prepares the object
        (docs/server-side-apply.md, "From client-side to server-side apply").
        """
        strategy = strategy_of(rtype)
        metadata = metadata_of(obj)
        if decoded is None:
            decoded = obj
        given = metadata.get("resourceVersion")
        if given not in (None, "", "0"):
            # etcd3 ``Create`` refuses only a resourceVersion that parses as a non-zero number;
            # anything else is cleared with the rest of the system metadata (docs/writes.md).
            revision, problem = parse_uint(str(given))
            if problem is None and revision != 0:
                raise APIError.internal("resourceVersion should not be set on objects to be created")
        if not admitted:
            obj = self.admit(rtype, namespace, obj)
        generated = not metadata.get("name") and bool(metadata.get("generateName"))
        attempts = GENERATE_NAME_ATTEMPTS if generated else 1
        for _ in range(attempts):
            candidate = obj
            if generated:
                candidate = with_metadata(obj, name=self.generate_name(metadata["generateName"]))
            prepared = self._prepare_create(rtype, strategy, namespace, candidate, manager, validate, applied, decoded)
            name = metadata_of(prepared)["name"]
            existing = self.find(rtype, namespace, name)
            if existing is None:
                break
            if not generated:
                raise APIError.already_exists(
                    rtype.group_resource, name, terminating=metadata_of(existing).get("deletionTimestamp") is not None
                )
        else:
            error = APIError.already_exists(rtype.group_resource, name)
            error.message += ", the server was not able to generate a unique name for the object"
            error.retry_after = 1
            raise error
        warnings = tuple(strategy.warnings_on_create(rtype, prepared))
        return CreatePlan(rtype, namespace, prepared, warnings)

    def commit_create(self, plan: CreatePlan, *, dry_run: bool = False) -> Committed:
        """Store a planned create, unless its name was taken while it waited (``AlreadyExists``)."""
        rtype, prepared = plan.rtype, plan.object
        name = metadata_of(prepared)["name"]
        existing = self.find(rtype, plan.namespace, name)
        if existing is not None:
            raise APIError.already_exists(
                rtype.group_resource, name, terminating=metadata_of(existing).get("deletionTimestamp") is not None
            )
        # ResourceQuota, the last validating admission plugin (docs/quota-disruption-autoscaling.md).
        charge_quotas(self, rtype, plan.namespace, prepared, None, dry_run=dry_run)
        if dry_run:
            return Committed(prepared, changed=False, warnings=plan.warnings)
        stored = self.persist(rtype, prepared, ADDED, None)
        strategy_of(rtype).after_create(self, rtype, stored)
        return Committed(stored, changed=True, warnings=plan.warnings)

    def _prepare_create(
        self,
        rtype: ResourceType,
        strategy: Strategy,
        namespace: str,
        obj: dict[str, Any],
        manager: str,
        validate: bool,
        applied: dict[str, Any] | None,
        decoded: dict[str, Any],
    ) -> dict[str, Any]:
        now = self.clock.timestamp()
        prepared = with_metadata(
            obj,
            namespace=namespace or None,
            uid=self.new_uid(),
            creationTimestamp=now,
            resourceVersion=None,
            deletionTimestamp=None,
            deletionGracePeriodSeconds=None,
            selfLink=None,
        )
        prepared = strategy.prepare_for_create(rtype, prepared)
        prepared = strategy.allocate(self, rtype, prepared)
        if validate:
            strategy.validate_create(self, rtype, prepared)
        tracked = prepared if applied is not None else rtype.default(decoded, creating=True)
        entries = metadata_of(strategy.track_create(rtype, tracked, manager, now, applied)).get("managedFields")
        return self._laid_out(rtype, with_metadata(prepared, managedFields=entries), None)

    def in_struct_order(self, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        """A built-in object laid out as its Go struct (what ``json.Marshal`` of the typed object writes)."""
        return self._laid_out(rtype, obj, None)

    def _laid_out(self, rtype: ResourceType, obj: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
        """A built-in object as its Go struct holds it (field order, omitempty), after the strategy's changes."""
        struct = self.registry.go_struct(rtype)
        if struct is None:
            return obj
        return in_go_order(self.registry.structs, struct, obj, previous)

    def update(
        self,
        rtype: ResourceType,
        namespace: str,
        name: str,
        compute: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        subresource: str = "",
        dry_run: bool = False,
        manager: str = "",
        unconditional: bool = False,
        track_fields: bool = True,
    ) -> Committed:
        """``Store.Update`` inside ``GuaranteedUpdate``: ``compute`` maps the stored object to the new one.

        ``unconditional`` is for updates whose body carries no resourceVersion by design (a patch
        computes the new object from the current one, so it inherits its resourceVersion).
        """
        current = self.get(rtype, namespace, name)
        conversion = _stored_shape(rtype)
        # A resource stored in another's shape computes on its own (docs/events.md).
        seen = conversion.from_storage(self.registry.structs, current) if conversion is not None else current
        plan = self.plan_update(
            rtype,
            seen,
            compute(seen),
            subresource=subresource,
            manager=manager,
            unconditional=unconditional,
            track_fields=track_fields,
        )
        if conversion is None or dry_run or plan.unchanged:
            return self.commit_update(plan, dry_run=dry_run)
        stored_plan = replace(plan, current=current)
        if self.commit_update(stored_plan, dry_run=True).deleted:
            return self.commit_update(stored_plan)
        committed = self.commit_converted_update(plan, current, conversion.to_storage(self.registry.structs, plan.new))
        assert committed is not None  # nothing ran between the read and the commit
        return committed

    def plan_update(
        self,
        rtype: ResourceType,
        current: dict[str, Any],
        new: dict[str, Any],
        *,
        subresource: str = "",
        manager: str = "",
        unconditional: bool = False,
        track_fields: bool = True,
    ) -> UpdatePlan:
        """An update of ``current`` to ``new`` up to its commit: preconditions, strategy, validation.

        Nothing is stored: :meth:`commit_update` stores it if ``current`` is still the stored version.
        """
        strategy = strategy_of(rtype)
        current_meta, new_meta = metadata_of(current), metadata_of(new)
        name = current_meta.get("name", "")
        new_revision = new_meta.get("resourceVersion")
        if new_revision in (None, "", "0") and not unconditional:
            if not strategy.allow_unconditional_update(rtype):
                raise APIError.invalid(
                    rtype.group_resource,
                    name,
                    [_rv_required_cause()],
                )
        elif new_revision not in (None, "", "0") and new_revision != current_meta.get("resourceVersion"):
            raise APIError.conflict(rtype.group_resource, name, OPTIMISTIC_LOCK_MESSAGE)
        new = strategy.before_update(rtype, new, current, subresource)
        strategy.validate_update(self, rtype, new, current, subresource)
        if track_fields:
            new = strategy.track_update(rtype, new, current, manager, subresource, self.clock.timestamp())
        warnings = tuple(strategy.warnings_on_update(rtype, new, current))
        new = self._laid_out(rtype, new, current)
        slot = with_revision_slot(new, in_order=rtype.struct_order)
        unchanged = slot.without_revision == self._encoded_without_revision(rtype, current)
        return UpdatePlan(rtype, current, new, slot, warnings, unchanged, subresource)

    def is_stored(self, rtype: ResourceType, obj: dict[str, Any]) -> bool:
        """Whether ``obj`` is still the stored version of its object (stored objects are never mutated)."""
        meta = metadata_of(obj)
        return self.find(rtype, meta.get("namespace", ""), meta.get("name", "")) is obj

    def commit_update(self, plan: UpdatePlan, *, dry_run: bool = False) -> Committed:
        """Store a planned update; the caller has made sure its ``current`` is still the stored one."""
        rtype, current, new, warnings = plan.rtype, plan.current, plan.new, plan.warnings
        strategy = strategy_of(rtype)
        current_meta = metadata_of(current)
        if plan.unchanged:
            return Committed(current, changed=False, warnings=warnings)
        if not plan.subresource:
            charge_quotas(self, rtype, current_meta.get("namespace", ""), new, current, dry_run=dry_run)
        if strategy.should_delete_during_update(new, current):
            if dry_run:
                return Committed(new, changed=False, deleted=True, warnings=warnings)
            self.delete_now(rtype, current)
            return Committed(
                with_metadata(new, resourceVersion=current_meta.get("resourceVersion")), True, True, warnings
            )
        if dry_run:
            return Committed(
                with_metadata(new, resourceVersion=current_meta.get("resourceVersion")), False, False, warnings
            )
        stored = self.persist(rtype, new, MODIFIED, current, plan.slot)
        namespace, name = current_meta.get("namespace", ""), current_meta.get("name", "")
        self._encodings[(rtype.storage_key, namespace, name)] = (stored, plan.slot.without_revision)
        strategy.after_update(self, rtype, stored, current)
        return Committed(stored, changed=True, warnings=warnings)

    def commit_converted_update(
        self, plan: UpdatePlan, current: dict[str, Any], obj: dict[str, Any]
    ) -> Committed | None:
        """Store ``obj``, a planned update converted to the storage version since it was planned from
        ``current`` (docs/conversion.md); None when ``current`` is no longer the stored version (the
        caller computes again, as ``GuaranteedUpdate`` does on a conflict)."""
        if not self.is_stored(plan.rtype, current):
            return None
        stored = self.persist(plan.rtype, obj, MODIFIED, current)
        strategy_of(plan.rtype).after_update(self, plan.rtype, stored, current)
        return Committed(stored, changed=True, warnings=plan.warnings)

    def delete(
        self,
        rtype: ResourceType,
        namespace: str,
        name: str,
        *,
        uid: str | None = None,
        resource_version: str | None = None,
        propagation: str | None = None,
        grace_period: int | None = None,
        dry_run: bool = False,
    ) -> Committed:
        """``Store.Delete``: preconditions, then a graceful kind's grace period (docs/graceful-deletion.md),
        then finalizers mark the object, or it goes now."""
        strategy = strategy_of(rtype)
        current = self.check_delete_preconditions(rtype, namespace, name, uid=uid, resource_version=resource_version)
        meta = metadata_of(current)
        decision = before_delete(
            current, grace_period, strategy.check_graceful_delete(rtype, current, grace_period), self.clock.now()
        )
        if decision.pending:
            return Committed(current, changed=False)
        finalizers = list(meta.get("finalizers") or [])
        propagation = propagation or strategy.default_propagation(rtype)
        policy_finalizer = {"Orphan": "orphan", "Foreground": "foregroundDeletion"}.get(propagation)
        if policy_finalizer and strategy.garbage_collected(rtype) and policy_finalizer not in finalizers:
            finalizers.append(policy_finalizer)
        if decision.marked is not None:
            return self._delete_gracefully(
                rtype, current, decision.marked, finalizers, policy_finalizer, decision.grace, dry_run
            )
        if not finalizers and not strategy.graceful(rtype, current):
            if dry_run:
                return Committed(current, changed=False, deleted=True)
            deleted = self.delete_now(rtype, current)
            return Committed(deleted, changed=True, deleted=True)
        marked = self._laid_out(
            rtype, strategy.mark_for_deletion(rtype, current, finalizers, self.clock.timestamp()), current
        )
        if encode(marked) == encode(current):
            return Committed(current, changed=False)
        if dry_run:
            return Committed(marked, changed=False)
        return self._store_marked(rtype, marked, current, policy_finalizer)

    def _delete_gracefully(
        self,
        rtype: ResourceType,
        current: dict[str, Any],
        marked: dict[str, Any],
        finalizers: list[str],
        policy_finalizer: str | None,
        grace: int,
        dry_run: bool,
    ) -> Committed:
        """``updateForGracefulDeletionAndFinalizers``: the grace is written; the object goes at once
        only when the grace is 0 and no finalizer holds it (answered with its last stored state)."""
        marked = self._laid_out(rtype, with_metadata(marked, finalizers=finalizers or None), current)
        held = bool(finalizers) or grace > 0
        if dry_run:
            return Committed(marked, changed=False, deleted=not held)
        stored = current
        if encode(marked) != encode(current):
            stored = self._store_marked(rtype, marked, current, policy_finalizer).object
        if held:
            return Committed(stored, changed=stored is not current)
        self.delete_now(rtype, stored)
        return Committed(stored, changed=True, deleted=True)

    def _store_marked(
        self, rtype: ResourceType, marked: dict[str, Any], current: dict[str, Any], policy_finalizer: str | None
    ) -> Committed:
        meta = metadata_of(current)
        stored = self.persist(rtype, marked, MODIFIED, current)
        strategy_of(rtype).after_update(self, rtype, stored, current)
        if policy_finalizer:
            garbage_collector.owner_marked(self, rtype, stored)
            stored = self.find(rtype, meta.get("namespace", ""), meta.get("name", "")) or stored
        return Committed(stored, changed=True)

    def check_delete_preconditions(
        self, rtype: ResourceType, namespace: str, name: str, *, uid: str | None, resource_version: str | None
    ) -> dict[str, Any]:
        """The stored object a delete targets, once its ``preconditions`` hold (409 when they do not)."""
        current = self.get(rtype, namespace, name)
        meta = metadata_of(current)
        if uid is not None and uid != meta.get("uid"):
            raise APIError.conflict(
                rtype.group_kind,
                name,
                f"the UID in the precondition ({uid}) does not match the UID in record ({meta.get('uid')}). "
                "The object might have been deleted and then recreated",
            )
        if resource_version is not None and resource_version != meta.get("resourceVersion"):
            raise APIError.conflict(
                rtype.group_kind,
                name,
                f"the ResourceVersion in the precondition ({resource_version}) does not match the ResourceVersion "
                f"in record ({meta.get('resourceVersion')}). The object might have been modified",
            )
        return current

    def delete_now(self, rtype: ResourceType, current: dict[str, Any]) -> dict[str, Any]:
        """Remove an object at once (its last finalizer is gone, or it never had one)."""
        deleted = self.persist(rtype, current, DELETED, current)
        strategy_of(rtype).after_delete(self, rtype, deleted)
        garbage_collector.owner_deleted(self, rtype, deleted)
        garbage_collector.dependent_deleted(self, deleted)
        namespace = metadata_of(current).get("namespace")
        if namespace and rtype.namespaced:
            controllers.finalize_namespace(self, namespace)
        return deleted

    def clear(self) -> None:
        """No objects, no CRDs, no history; the revision counter keeps counting."""
        self._reset(objects={}, crds={}, history=(), compacted_through=self.revision)

    # -- snapshots, for running the same start state many times -------------------------------

    def snapshot(self) -> StoreSnapshot:
        """Everything needed to come back to this exact state, revision and random names included."""
        return StoreSnapshot(
            revision=self.revision,
            objects={key: dict(bucket) for key, bucket in self.objects.items()},
            crds=self.registry.snapshot(),
            history=list(self.hub.history),
            compacted_through=self.hub.compacted_through,
            random_state=self._random.getstate() if isinstance(self._random, _SeededRandom) else None,
            history_bytes=self.hub.history_bytes,
        )

    def restore(self, snapshot: StoreSnapshot) -> None:
        self.revision = snapshot.revision
        self._reset(
            objects={key: dict(bucket) for key, bucket in snapshot.objects.items()},
            crds=snapshot.crds,
            history=snapshot.history,
            compacted_through=snapshot.compacted_through,
            history_bytes=snapshot.history_bytes,
        )
        if snapshot.random_state is not None and isinstance(self._random, _SeededRandom):
            self._random.setstate(snapshot.random_state)

    def _reset(
        self,
        *,
        objects: dict[tuple[str, str], dict[Key, dict[str, Any]]],
        crds: dict[str, list[ResourceType]],
        history: Iterable[Change],
        compacted_through: int,
        history_bytes: int = -1,
    ) -> None:
        """Replace what is stored and remembered; every watch ends, every cache and index is dropped."""
        self.hub.close_all()
        self._encodings.clear()
        self._order.clear()
        self._owned = None
        self.epoch += 1
        self.changed_at = {}
        self.objects = objects
        self.registry.restore(crds)
        self.hub.restore_history(history, compacted_through, history_bytes)


"""An object's place: its resource's storage key, namespace and name."""


def _stored_shape(rtype: ResourceType) -> EventConversion | None:
    """The conversion of a resource stored in another resource's shape, if it is one."""
    return rtype.conversion if isinstance(rtype.conversion, EventConversion) else None


def _owner_uids(obj: dict[str, Any] | None) -> list[str]:
    references = metadata_of(obj).get("ownerReferences") if obj is not None else None
    if not isinstance(references, list):
        return []
    return [ref["uid"] for ref in references if isinstance(ref, dict) and isinstance(ref.get("uid"), str)]


def _rv_required_cause() -> Cause:
    return field.invalid("metadata.resourceVersion", 0, "must be specified for an update").cause()


class _SeededRandom:
    """Names and uids from a seed, so a scenario run replays byte for byte.

    Its state is read before every controller probe and compared in every probe's cache key
    (docs/controllers.md), far more often than a name is drawn, and ``random.Random.getstate``
    copies 625 numbers. So each state gets a token when a draw makes it, and ``getstate`` gives
    ``(token, state)``, read once per token: equal tokens mean equal states, and ``setstate`` with
    the current token has nothing to put back. A token is unique in the process (its identity).
    """

    def __init__(self, seed: int) -> None:
        import random

        self._random = random.Random(seed)
        self._state: tuple[object, Any] | None = None
        self._token = object()

    def choice(self, alphabet: str) -> str:
        self._token = object()
        return self._random.choice(alphabet)

    def getrandbits(self, bits: int) -> int:
        self._token = object()
        return self._random.getrandbits(bits)

    def getstate(self) -> Any:
        state = self._state
        if state is None or state[0] is not self._token:
            state = self._state = (self._token, self._random.getstate())
        return state

    def setstate(self, state: Any) -> None:
        token, inner = state
        if token is not self._token:
            self._random.setstate(inner)
            self._token = token
            self._state = state
