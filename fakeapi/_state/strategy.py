"""Per-kind write rules: what the apiserver's registry strategies do around a store write.

* Custom resources (``apiextensions-apiserver/pkg/registry/customresource/strategy.go``): create
  drops ``status`` when the status subresource is on and sets generation 1; an update through the
  main endpoint keeps the old status, one through ``/status`` keeps everything but the status;
  generation goes up by one iff the object minus ``metadata`` changed (status never counts when it
  is a subresource); kind and apiVersion must match (``ValidateTypeMeta``); no unconditional
  updates.
* Built-ins: the same status rules for kinds with a status subresource, generation only for
  kinds that have one (Deployment, Job, CustomResourceDefinition), apiserver defaulting on every
  write, and unconditional updates allowed.
* Common to all (``rest.BeforeUpdate``, ``objectmeta.go``): uid, creationTimestamp and generation
  come from the stored object, deletionTimestamp cannot be changed once set, immutable fields,
  label/annotation/finalizer validation, no new finalizers while deleting, and the namespace
  must exist (the NamespaceLifecycle admission plugin).
* A built-in kind whose strategy holds :class:`~fakeapi._state.validation.rules.KindRules` is
  validated as its ``pkg/apis/<group>/validation`` does: its name rule, the core group's finalizer
  names, and its own checks past the metadata on writes to the object itself (a status write is
  ``ValidateXStatusUpdate``, which these rules do not reproduce).

Each kind's descriptor (:mod:`fakeapi._state.kinds`) holds its strategy: an instance of
:class:`Strategy` or of a subclass declared next to the kind, whose lifecycle hooks keep CRDs
served (registration, conditions) and namespaces finalizing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state import controllers, field_ownership, schema
from fakeapi._state.admission.plugins import NAMESPACE_LIFECYCLE
from fakeapi._state.clock import parse_timestamp
from fakeapi._state.objects import metadata_of, with_metadata
from fakeapi._state.releases import DEFAULT_KUBE_VERSION
from fakeapi._state.validation import field
from fakeapi._state.validation.names import NameRule, name_is_dns_label, name_is_dns_subdomain
from fakeapi._state.validation.objectmeta import finalizer_warnings, validate_object_meta, validate_update_meta
from fakeapi._state.validation.rules import KindRules, validate_kube_finalizers
from fakeapi.errors import APIError, Cause, GroupResource

if TYPE_CHECKING:
    from fakeapi._state.resources import ResourceType
    from fakeapi._state.storeview import StoreView

__all__ = ["CustomResourceStrategy", "GenerationStrategy", "Strategy", "strategy_of", "without"]

_NAMESPACES = GroupResource("", "namespaces")


def strategy_of(rtype: ResourceType) -> Strategy:
    """A resource type's strategy; every served type has one (:mod:`fakeapi._state.kinds` gives it)."""
    strategy = rtype.strategy
    assert isinstance(strategy, Strategy), f"{rtype.plural} has no strategy"
    return strategy


def without(obj: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in obj.items() if key not in keys}


class Strategy:
    """The rules every kind shares; subclasses add what is specific."""

    has_generation = False
    rules: KindRules | None = None

    def __init__(self, rules: KindRules | None = None) -> None:
        self.rules = rules

    def allow_unconditional_update(self, rtype: ResourceType) -> bool:
        return True

    def garbage_collected(self, rtype: ResourceType) -> bool:
        return True

    def field_renaming(self, rtype: ResourceType) -> field_ownership.Renaming | None:
        """How managedFields entries of another apiVersion name this kind's fields, for a kind
        served in shapes that differ by field names (Events); None where names never differ."""
        return None

    def default_propagation(self, rtype: ResourceType) -> str:
        """``DefaultGarbageCollectionPolicy``: what a delete without a policy does to dependents."""
        return "Background"

    def graceful(self, rtype: ResourceType, obj: dict[str, Any]) -> bool:
        return False

    def check_graceful_delete(self, rtype: ResourceType, obj: dict[str, Any], grace_period: int | None) -> int | None:
        """``CheckGracefulDelete``: the grace period a first DELETE gives ``obj`` (None: the kind does
        not delete gracefully; docs/graceful-deletion.md)."""
        return None

    # -- create -----------------------------------------------------------------------------------

    def admit(self, store: StoreView, rtype: ResourceType, namespace: str, obj: dict[str, Any]) -> dict[str, Any]:
        """Hook for the in-process mutating admission plugins of a create, before the registry's rules
        (the store has checked the namespace first, as NamespaceLifecycle runs before them)."""
        return obj

    def prepare_for_create(self, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        obj = with_metadata(obj, generation=1 if self.has_generation else None)
        return rtype.default(obj, creating=True)

    def allocate(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        """Hook for what a registry allocates on create (addresses, ports)."""
        return obj

    def validate_create(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        name = metadata_of(obj).get("name", "")
        if NAMESPACE_LIFECYCLE in store.admission_plugins:
            self.check_namespace(store, rtype, obj)
        self._raise_type_meta(rtype, name, obj)
        meta = metadata_of(obj)
        errors = validate_object_meta(meta, namespaced=rtype.namespaced, names=self._names(rtype))
        if self.rules is not None:
            errors += validate_kube_finalizers(meta.get("finalizers"))
            errors += self.rules.create(obj)
        causes = field.causes(errors, store.registry.kube_version) + self.validate_content(rtype, obj)
        causes += self.validate_rules(rtype, obj, None, "", causes)
        self._raise_if(rtype, name, causes)

    def warnings_on_create(self, rtype: ResourceType, obj: dict[str, Any]) -> list[str]:
        return []

    def track_create(
        self, rtype: ResourceType, obj: dict[str, Any], manager: str, now: str, applied: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """managedFields of a new object: an Update's, or for a create by apply the applied fields."""
        status_is_subresource = "status" in rtype.subresources
        atom = field_ownership.kind_atom(rtype)
        if applied is None:
            return field_ownership.track(
                obj,
                None,
                atom=atom,
                empty=field_ownership.empty_object(rtype),
                manager=manager,
                api_version=rtype.api_version,
                subresource="",
                now=now,
                status_is_subresource=status_is_subresource,
                renaming=self.field_renaming(rtype),
            )
        owned = field_ownership.applied_fields(applied, atom, status_is_subresource=status_is_subresource)
        entry = {
            "apiVersion": rtype.api_version,
            "fieldsType": "FieldsV1",
            "fieldsV1": field_ownership.encode_fields(owned),
            "manager": manager,
            "operation": "Apply",
            "time": now,
        }
        return with_metadata(obj, managedFields=[entry] if owned else None)

    def after_create(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        """Hook for controllers the fake emulates."""

    # -- update -----------------------------------------------------------------------------------

    def before_update(
        self, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> dict[str, Any]:
        old_meta = metadata_of(old)
        new_meta = metadata_of(new)
        new = with_metadata(
            new,
            uid=new_meta.get("uid") or old_meta.get("uid"),
            creationTimestamp=old_meta.get("creationTimestamp"),
            generation=old_meta.get("generation"),
            selfLink=None,
        )
        if old_meta.get("deletionTimestamp") is not None:
            new = with_metadata(
                new,
                deletionTimestamp=old_meta["deletionTimestamp"],
                deletionGracePeriodSeconds=old_meta.get("deletionGracePeriodSeconds"),
            )
        written = rtype.subresource(subresource) if subresource else None
        if written is not None and written.writes:
            kept = with_metadata(old, managedFields=metadata_of(new).get("managedFields"))
            for path in written.writes:
                kept = _with_path(kept, path, _path_of(new, path))
            return kept
        if subresource == "status":
            status_and_fields = with_metadata(old, managedFields=metadata_of(new).get("managedFields"))
            if "status" in new:
                return {**status_and_fields, "status": new["status"]}
            return without(status_and_fields, "status")
        if "status" in rtype.subresources:
            new = {**new, "status": old["status"]} if "status" in old else without(new, "status")
        new = rtype.default(new, creating=False)
        if self.has_generation and without(new, "metadata") != without(old, "metadata"):
            new = with_metadata(new, generation=(old_meta.get("generation") or 0) + 1)
        return new

    def validate_update(
        self, store: StoreView, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> None:
        name = metadata_of(old).get("name", "")
        self._raise_type_meta(rtype, name, new)
        errors = validate_update_meta(metadata_of(new), metadata_of(old))
        meta_errors = validate_object_meta(
            metadata_of(new), namespaced=rtype.namespaced, names=self._names(rtype), previous=metadata_of(old)
        )
        if self.rules is not None:
            meta_errors += validate_kube_finalizers(metadata_of(new).get("finalizers"))
        errors += [error for error in meta_errors if error not in errors]
        if self.rules is not None and subresource in ("", "scale"):
            errors += self.rules.on_update(new, old)
        causes = field.causes(errors, store.registry.kube_version) + self.validate_content(
            rtype, new, subresource=subresource
        )
        causes += self.validate_rules(rtype, new, old, subresource, causes)
        self._raise_if(rtype, name, causes)

    def warnings_on_update(self, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return []

    def track_update(
        self, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], manager: str, subresource: str, now: str
    ) -> dict[str, Any]:
        return field_ownership.track(
            new,
            old,
            atom=field_ownership.kind_atom(rtype),
            empty=field_ownership.empty_object(rtype),
            manager=manager,
            api_version=rtype.api_version,
            subresource=subresource,
            now=now,
            status_is_subresource="status" in rtype.subresources,
            renaming=self.field_renaming(rtype),
        )

    def should_delete_during_update(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        """``ShouldDeleteDuringUpdate``: the last finalizer of a deleting object went."""
        old_meta = metadata_of(old)
        return (
            not metadata_of(new).get("finalizers")
            and old_meta.get("deletionTimestamp") is not None
            and not old_meta.get("deletionGracePeriodSeconds")
        )

    def after_update(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """Hook for controllers the fake emulates."""

    # -- delete -----------------------------------------------------------------------------------

    def mark_for_deletion(
        self, rtype: ResourceType, obj: dict[str, Any], finalizers: list[str], now: str
    ) -> dict[str, Any]:
        """``markAsDeleting``: deletionTimestamp now unless it is set to an earlier time, grace period
        0, generation + 1 the first time."""
        meta = metadata_of(obj)
        changes: dict[str, Any] = {"finalizers": finalizers or None, "deletionGracePeriodSeconds": 0}
        if meta.get("deletionTimestamp") is None:
            changes["deletionTimestamp"] = now
            if (meta.get("generation") or 0) > 0:
                changes["generation"] = meta["generation"] + 1
        elif _later(meta["deletionTimestamp"], now):
            changes["deletionTimestamp"] = now
        return with_metadata(obj, **changes)

    def after_delete(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        """Hook for controllers the fake emulates."""

    # -- helpers ----------------------------------------------------------------------------------

    def validate_content(self, rtype: ResourceType, obj: dict[str, Any], *, subresource: str = "") -> list[Cause]:
        return []

    def validate_rules(
        self,
        rtype: ResourceType,
        obj: dict[str, Any],
        old: dict[str, Any] | None,
        subresource: str,
        causes: list[Cause],
    ) -> list[Cause]:
        """Hook for validation that runs last and sees the errors found before it (a CRD's CEL rules)."""
        return []

    def _names(self, rtype: ResourceType) -> NameRule:
        if self.rules is not None:
            return self.rules.names
        return name_is_dns_label if rtype.kind == "Namespace" else name_is_dns_subdomain

    def _type_meta_causes(self, rtype: ResourceType, obj: dict[str, Any]) -> list[Cause]:
        return []

    def _raise_type_meta(self, rtype: ResourceType, name: str, obj: dict[str, Any]) -> None:
        """``ValidateTypeMeta`` names the object's own kind in its message."""
        causes = self._type_meta_causes(rtype, obj)
        if causes:
            kind = obj.get("kind") if isinstance(obj.get("kind"), str) else ""
            raise APIError.invalid(GroupResource(rtype.group, kind or rtype.kind), name, causes)

    def _raise_if(self, rtype: ResourceType, name: str, causes: list[Cause]) -> None:
        if causes:
            raise APIError.invalid(rtype.group_kind, name, causes)

    def check_namespace(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        """NamespaceLifecycle on a create (of an object, or on a subresource of ``obj``'s name): the
        namespace must exist and not be terminating (docs/namespace-deletion.md)."""
        if not rtype.namespaced:
            return
        namespace = metadata_of(obj).get("namespace", "")
        existing = store.find(store.registry.namespaces, "", namespace)
        if existing is None:
            raise APIError.not_found(_NAMESPACES, namespace)
        if metadata_of(existing).get("deletionTimestamp") is not None:
            # ``extractResourceName``: admission runs before a generated name exists.
            meta = metadata_of(obj)
            raise APIError.forbidden(
                rtype.group_resource,
                meta.get("name") or meta.get("generateName") or "Unknown",
                f"unable to create new content in namespace {namespace} because it is being terminated",
                [Cause("NamespaceTerminating", f"namespace {namespace} is being terminated", "metadata.namespace")],
            )


def _later(stamp: str, now: str) -> bool:
    """Whether timestamp ``stamp`` is after ``now`` (both RFC 3339 in whole seconds, UTC)."""
    then, current = parse_timestamp(stamp), parse_timestamp(now)
    return then is not None and current is not None and then > current


def _path_of(obj: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = obj
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _with_path(obj: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """``obj`` with the field at ``path`` set to ``value`` (removed when None), sharing the rest."""
    head, rest = path[0], path[1:]
    if rest:
        child: dict[str, Any] = obj[head] if isinstance(obj.get(head), dict) else {}
        return {**obj, head: _with_path(child, rest, value)}
    if value is None:
        return without(obj, head)
    return {**obj, head: value}


class CustomResourceStrategy(Strategy):
    """``customresource/strategy.go``: the CRD's schema validates, updates need a resourceVersion.

    Every custom resource has a generation, a create drops the status when it is a subresource,
    kind and apiVersion must be the resource's (``ValidateTypeMeta``), and finalizer names not
    qualified are warned about on every write that adds them.
    """

    has_generation = True

    def allow_unconditional_update(self, rtype: ResourceType) -> bool:
        return False

    def prepare_for_create(self, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        if "status" in rtype.subresources:
            obj = without(obj, "status")
        return super().prepare_for_create(rtype, obj)

    def __init__(self) -> None:
        super().__init__()
        # The warnings of the ratcheted rule errors of the update being validated, keyed by the stored object:
        # the store asks for warnings right after validating, with no await in between.
        self._ratcheted: tuple[int, list[str]] | None = None
        # The stored object an update through the main resource is validated against (ratcheting), set only
        # for the duration of that validation.
        self._ratchet_against: dict[str, Any] | None = None
        # The stored object of the update being validated, whatever the subresource (list types ratchet on it).
        self._updating: dict[str, Any] | None = None
        self._kube_version = DEFAULT_KUBE_VERSION

    def validate_update(
        self, store: StoreView, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> None:
        self._ratchet_against = old if not subresource else None
        self._updating = old
        self._kube_version = store.registry.kube_version
        try:
            super().validate_update(store, rtype, new, old, subresource)
        finally:
            self._ratchet_against = self._updating = None

    def validate_create(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        self._kube_version = store.registry.kube_version
        super().validate_create(store, rtype, obj)

    def warnings_on_create(self, rtype: ResourceType, obj: dict[str, Any]) -> list[str]:
        return finalizer_warnings(metadata_of(obj).get("finalizers") or [])

    def warnings_on_update(self, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        before = set(metadata_of(old).get("finalizers") or [])
        added = sorted(f for f in metadata_of(new).get("finalizers") or [] if f not in before)
        ratcheted, self._ratcheted = self._ratcheted, None
        rule_warnings = ratcheted[1] if ratcheted is not None and ratcheted[0] == id(old) else []
        return rule_warnings + finalizer_warnings(added)

    def validate_rules(
        self,
        rtype: ResourceType,
        obj: dict[str, Any],
        old: dict[str, Any] | None,
        subresource: str,
        causes: list[Cause],
    ) -> list[Cause]:
        self._ratcheted = None
        if rtype.schema is None or subresource not in ("", "status"):
            return []
        found, warnings = schema.rule_causes(rtype.schema, obj, old, causes, ratcheting=not subresource)
        if old is not None and warnings:
            self._ratcheted = (id(old), warnings)
        return found

    def _type_meta_causes(self, rtype: ResourceType, obj: dict[str, Any]) -> list[Cause]:
        causes = []
        if obj.get("kind") != rtype.kind:
            causes.append(field.invalid("kind", obj.get("kind", ""), f"must be {rtype.kind}").cause())
        if obj.get("apiVersion") != rtype.api_version:
            causes.append(
                field.invalid("apiVersion", obj.get("apiVersion", ""), f"must be {rtype.api_version}").cause()
            )
        return causes

    def after_delete(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        controllers.finish_crd_cleanup(store, rtype)

    def validate_content(self, rtype: ResourceType, obj: dict[str, Any], *, subresource: str = "") -> list[Cause]:
        if rtype.schema is None:
            return []
        if subresource == "status":
            # ``ValidateStatusUpdate`` checks the status alone, against the schema's status property.
            found = (
                schema.validate({"status": obj["status"]}, schema.status_only(rtype.schema)) if "status" in obj else []
            )
        else:
            found = schema.validate(obj, rtype.schema, self._ratchet_against)
        return found + self._list_type_causes(rtype, obj)

    def _list_type_causes(self, rtype: ResourceType, obj: dict[str, Any]) -> list[Cause]:
        """``ValidateListSetsAndMaps`` on the whole object, after the schema and embedded checks. An update,
        through any subresource, reports nothing when the stored object already breaks a list type
        (docs/validation.md, "List types")."""
        errors = schema.list_type_errors(obj, rtype.schema)
        if errors and self._updating is not None and schema.list_type_errors(self._updating, rtype.schema):
            return []
        return field.causes(errors, self._kube_version)


class GenerationStrategy(Strategy):
    """Kinds whose spec changes bump ``metadata.generation`` (Deployment, Job, CRD, ...)."""

    has_generation = True
