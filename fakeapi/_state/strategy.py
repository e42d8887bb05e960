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

The lifecycle hooks keep CRDs served (registration, conditions) and namespaces finalizing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state import controllers, defaults, managedfields, schema
from fakeapi._state.controllers import CRD_CLEANUP_FINALIZER
from fakeapi._state.objects import metadata_of, with_metadata
from fakeapi._state.resources import NAMESPACE_TYPE, ResourceType
from fakeapi._state.validation import (
    finalizer_warnings,
    go_value,
    invalid,
    validate_object_meta,
    validate_update_meta,
)
from fakeapi.errors import APIError, Cause, GroupResource

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = ["Strategy", "strategy_for"]

NAMESPACE_FINALIZER = "kubernetes"
_GENERATION_KINDS = {("apps", "Deployment"), ("batch", "Job"), ("apiextensions.k8s.io", "CustomResourceDefinition")}
_NAMESPACES = GroupResource("", "namespaces")


def _without(obj: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in obj.items() if key not in keys}


class Strategy:
    """The rules every kind shares; subclasses add what is specific."""

    has_generation = False

    def allow_unconditional_update(self, rtype: ResourceType) -> bool:
        return True

    def garbage_collected(self, rtype: ResourceType) -> bool:
        return True

    def graceful(self, rtype: ResourceType, obj: dict[str, Any]) -> bool:
        return False

    # -- create -----------------------------------------------------------------------------------

    def prepare_for_create(self, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        if "status" in rtype.subresources and rtype.custom:
            obj = _without(obj, "status")
        obj = with_metadata(obj, generation=1 if self.has_generation or rtype.custom else None)
        return defaults.apply_defaults(rtype.group, rtype.version, rtype.kind, obj, creating=True)

    def allocate(self, store: Store, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        """Hook for what a registry allocates on create (addresses, ports)."""
        return obj

    def validate_create(self, store: Store, rtype: ResourceType, obj: dict[str, Any]) -> None:
        name = metadata_of(obj).get("name", "")
        self._check_namespace(store, rtype, obj)
        self._raise_type_meta(rtype, name, obj)
        causes = validate_object_meta(
            metadata_of(obj), namespaced=rtype.namespaced, dns_label_names=rtype.kind == "Namespace"
        )
        causes += self.validate_content(rtype, obj)
        self._raise_if(rtype, name, causes)

    def warnings_on_create(self, rtype: ResourceType, obj: dict[str, Any]) -> list[str]:
        return finalizer_warnings(metadata_of(obj).get("finalizers") or []) if rtype.custom else []

    def track_create(
        self, rtype: ResourceType, obj: dict[str, Any], manager: str, now: str, operation: str = "Update"
    ) -> dict[str, Any]:
        return managedfields.track(
            obj,
            None,
            manager=manager,
            api_version=rtype.api_version,
            subresource="",
            now=now,
            status_is_subresource="status" in rtype.subresources,
            operation=operation,
        )

    def after_create(self, store: Store, rtype: ResourceType, obj: dict[str, Any]) -> None:
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
        if subresource == "status":
            status_and_fields = with_metadata(old, managedFields=metadata_of(new).get("managedFields"))
            if "status" in new:
                return {**status_and_fields, "status": new["status"]}
            return _without(status_and_fields, "status")
        if "status" in rtype.subresources:
            new = {**new, "status": old["status"]} if "status" in old else _without(new, "status")
        new = defaults.apply_defaults(rtype.group, rtype.version, rtype.kind, new, creating=False)
        if (self.has_generation or rtype.custom) and _without(new, "metadata") != _without(old, "metadata"):
            new = with_metadata(new, generation=(old_meta.get("generation") or 0) + 1)
        return new

    def validate_update(
        self, store: Store, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> None:
        name = metadata_of(old).get("name", "")
        self._raise_type_meta(rtype, name, new)
        causes = validate_update_meta(metadata_of(new), metadata_of(old))
        meta_causes = validate_object_meta(
            metadata_of(new),
            namespaced=rtype.namespaced,
            dns_label_names=rtype.kind == "Namespace",
            previous=metadata_of(old),
        )
        causes += [cause for cause in meta_causes if cause not in causes]
        causes += self.validate_content(rtype, new, subresource=subresource)
        self._raise_if(rtype, name, causes)

    def warnings_on_update(self, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        if not rtype.custom:
            return []
        before = set(metadata_of(old).get("finalizers") or [])
        added = sorted(f for f in metadata_of(new).get("finalizers") or [] if f not in before)
        return finalizer_warnings(added)

    def track_update(
        self, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], manager: str, subresource: str, now: str
    ) -> dict[str, Any]:
        return managedfields.track(
            new,
            old,
            manager=manager,
            api_version=rtype.api_version,
            subresource=subresource,
            now=now,
            status_is_subresource="status" in rtype.subresources,
        )

    def should_delete_during_update(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        """``ShouldDeleteDuringUpdate``: the last finalizer of a deleting object went."""
        old_meta = metadata_of(old)
        return (
            not metadata_of(new).get("finalizers")
            and old_meta.get("deletionTimestamp") is not None
            and not old_meta.get("deletionGracePeriodSeconds")
        )

    def after_update(self, store: Store, rtype: ResourceType, obj: dict[str, Any], old: dict[str, Any]) -> None:
        """Hook for controllers the fake emulates."""

    # -- delete -----------------------------------------------------------------------------------

    def mark_for_deletion(
        self, rtype: ResourceType, obj: dict[str, Any], finalizers: list[str], now: str
    ) -> dict[str, Any]:
        """``markAsDeleting``: deletionTimestamp once, grace period 0, generation + 1 the first time."""
        meta = metadata_of(obj)
        changes: dict[str, Any] = {"finalizers": finalizers or None, "deletionGracePeriodSeconds": 0}
        if meta.get("deletionTimestamp") is None:
            changes["deletionTimestamp"] = now
            if (meta.get("generation") or 0) > 0:
                changes["generation"] = meta["generation"] + 1
        return with_metadata(obj, **changes)

    def after_delete(self, store: Store, rtype: ResourceType, obj: dict[str, Any]) -> None:
        """Hook for controllers the fake emulates."""

    # -- helpers ----------------------------------------------------------------------------------

    def validate_content(self, rtype: ResourceType, obj: dict[str, Any], *, subresource: str = "") -> list[Cause]:
        return []

    def _type_meta_causes(self, rtype: ResourceType, obj: dict[str, Any]) -> list[Cause]:
        if not rtype.custom:
            return []
        causes = []
        if obj.get("kind") != rtype.kind:
            causes.append(invalid("kind", obj.get("kind", ""), f"must be {rtype.kind}"))
        if obj.get("apiVersion") != rtype.api_version:
            causes.append(invalid("apiVersion", obj.get("apiVersion", ""), f"must be {rtype.api_version}"))
        return causes

    def _raise_type_meta(self, rtype: ResourceType, name: str, obj: dict[str, Any]) -> None:
        """``ValidateTypeMeta`` names the object's own kind in its message."""
        causes = self._type_meta_causes(rtype, obj)
        if causes:
            kind = obj.get("kind") if isinstance(obj.get("kind"), str) else ""
            raise APIError.invalid(GroupResource(rtype.group, kind or rtype.kind), name, causes)

    def _raise_if(self, rtype: ResourceType, name: str, causes: list[Cause]) -> None:
        if causes:
            raise APIError.invalid(rtype.group_kind, name, causes)

    def _check_namespace(self, store: Store, rtype: ResourceType, obj: dict[str, Any]) -> None:
        if not rtype.namespaced:
            return
        namespace = metadata_of(obj).get("namespace", "")
        existing = store.find(NAMESPACE_TYPE, "", namespace)
        if existing is None:
            raise APIError.not_found(_NAMESPACES, namespace)
        if metadata_of(existing).get("deletionTimestamp") is not None:
            raise APIError.forbidden(
                rtype.group_resource,
                metadata_of(obj).get("name", ""),
                f"unable to create new content in namespace {namespace} because it is being terminated",
                [Cause("NamespaceTerminating", f"namespace {namespace} is being terminated", "metadata.namespace")],
            )


class CustomResourceStrategy(Strategy):
    def allow_unconditional_update(self, rtype: ResourceType) -> bool:
        return False

    def after_delete(self, store: Store, rtype: ResourceType, obj: dict[str, Any]) -> None:
        controllers.finish_crd_cleanup(store, rtype)

    def validate_content(self, rtype: ResourceType, obj: dict[str, Any], *, subresource: str = "") -> list[Cause]:
        if rtype.schema is None:
            return []
        return schema.validate(obj, rtype.schema)


class GenerationStrategy(Strategy):
    has_generation = True


class ServiceStrategy(Strategy):
    """Services get a cluster IP and node ports allocated on create (``alloc.go``)."""

    def allocate(self, store: Store, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        used_ips: set[str] = set()
        used_ports: set[int] = set()
        for service in store.bucket(rtype).values():
            spec = service.get("spec") or {}
            used_ips.update(ip for ip in spec.get("clusterIPs") or [spec.get("clusterIP")] if isinstance(ip, str))
            used_ports.update(p.get("nodePort") for p in spec.get("ports") or [] if isinstance(p.get("nodePort"), int))
        return defaults.allocate_node_ports(defaults.allocate_cluster_ip(obj, used_ips), used_ports)


class NamespaceStrategy(Strategy):
    """Namespaces finalize through ``spec.finalizers``, which the namespace controller clears."""

    def graceful(self, rtype: ResourceType, obj: dict[str, Any]) -> bool:
        return True

    def before_update(
        self, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> dict[str, Any]:
        new = super().before_update(rtype, new, old, subresource)
        if subresource != "finalize" and "spec" in old:
            new = {**new, "spec": old["spec"]}
        return new

    def mark_for_deletion(
        self, rtype: ResourceType, obj: dict[str, Any], finalizers: list[str], now: str
    ) -> dict[str, Any]:
        marked = super().mark_for_deletion(rtype, obj, finalizers, now)
        return {**marked, "status": {**(marked.get("status") or {}), "phase": "Terminating"}}

    def after_update(self, store: Store, rtype: ResourceType, obj: dict[str, Any], old: dict[str, Any]) -> None:
        if metadata_of(obj).get("deletionTimestamp") is not None:
            controllers.finalize_namespace(store, metadata_of(obj).get("name", ""))


class CustomResourceDefinitionStrategy(GenerationStrategy):
    """CRDs are served as soon as they are stored, with the conditions a real apiserver sets."""

    def prepare_for_create(self, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        return _with_crd_status(super().prepare_for_create(rtype, obj))

    def before_update(
        self, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> dict[str, Any]:
        return _with_crd_status(super().before_update(rtype, new, old, subresource))

    def validate_content(self, rtype: ResourceType, obj: dict[str, Any], *, subresource: str = "") -> list[Cause]:
        return _crd_causes(obj)

    def after_create(self, store: Store, rtype: ResourceType, obj: dict[str, Any]) -> None:
        store.registry.register_crd(obj)

    def after_update(self, store: Store, rtype: ResourceType, obj: dict[str, Any], old: dict[str, Any]) -> None:
        store.registry.register_crd(obj)
        if metadata_of(obj).get("deletionTimestamp") is not None:
            controllers.clean_up_custom_resources(store, obj)

    def after_delete(self, store: Store, rtype: ResourceType, obj: dict[str, Any]) -> None:
        controllers.remove_custom_resources(store, obj)

    def mark_for_deletion(
        self, rtype: ResourceType, obj: dict[str, Any], finalizers: list[str], now: str
    ) -> dict[str, Any]:
        if CRD_CLEANUP_FINALIZER not in finalizers:
            finalizers = [*finalizers, CRD_CLEANUP_FINALIZER]
        marked = super().mark_for_deletion(rtype, obj, finalizers, now)
        return _with_condition(
            marked,
            "Terminating",
            "True",
            "InstanceDeletionInProgress",
            "CustomResource deletion is in progress",
            now,
        )

    def graceful(self, rtype: ResourceType, obj: dict[str, Any]) -> bool:
        return True


def _with_condition(obj: dict[str, Any], kind: str, status: str, reason: str, message: str, now: str) -> dict[str, Any]:
    conditions = [c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") != kind]
    conditions.append({"lastTransitionTime": now, "message": message, "reason": reason, "status": status, "type": kind})
    return {**obj, "status": {**(obj.get("status") or {}), "conditions": conditions}}


def _with_crd_status(crd: dict[str, Any]) -> dict[str, Any]:
    spec = crd.get("spec") or {}
    names = dict(spec.get("names") or {})
    if names.get("kind") and "listKind" not in names:
        names["listKind"] = names["kind"] + "List"
    if names.get("kind") and "singular" not in names:
        names["singular"] = names["kind"].lower()
    status = dict(crd.get("status") or {})
    transition = metadata_of(crd).get("creationTimestamp")
    previous = {c.get("type"): c for c in status.get("conditions") or []}
    conditions = []
    for kind, reason, message in (
        ("NamesAccepted", "NoConflicts", "no conflicts found"),
        ("Established", "InitialNamesAccepted", "the initial names have been accepted"),
    ):
        old = previous.get(kind) or {}
        conditions.append(
            {
                "lastTransitionTime": old.get("lastTransitionTime") or transition,
                "message": message,
                "reason": reason,
                "status": "True",
                "type": kind,
            }
        )
    if "Terminating" in previous:
        conditions.append(previous["Terminating"])
    status["acceptedNames"] = names
    status["conditions"] = conditions
    stored = list(status.get("storedVersions") or [])
    for version in spec.get("versions") or []:
        if version.get("storage") and version.get("name") not in stored:
            stored.append(version.get("name"))
    status["storedVersions"] = stored
    return {**crd, "spec": {**spec, "names": names}, "status": status}


def _crd_causes(crd: dict[str, Any]) -> list[Cause]:
    """The CRD validation a client is likely to trip over (``apiextensions/validation``)."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    causes: list[Cause] = []
    group, plural = spec.get("group", ""), names.get("plural", "")
    name = metadata_of(crd).get("name", "")
    if name != f"{plural}.{group}":
        causes.append(invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'))
    if not group:
        causes.append(Cause("FieldValueRequired", "Required value", "spec.group"))
    if not plural:
        causes.append(Cause("FieldValueRequired", "Required value", "spec.names.plural"))
    if not names.get("kind"):
        causes.append(Cause("FieldValueRequired", "Required value", "spec.names.kind"))
    if spec.get("scope") not in ("Namespaced", "Cluster"):
        causes.append(
            Cause(
                "FieldValueNotSupported",
                f'Unsupported value: {go_value(spec.get("scope", ""))}: supported values: "Cluster", "Namespaced"',
                "spec.scope",
            )
        )
    versions = spec.get("versions") or []
    if sum(1 for version in versions if version.get("storage")) != 1:
        causes.append(
            Cause(
                "FieldValueInvalid",
                "Invalid value: "
                + ("[]apiextensions.CustomResourceDefinitionVersion(nil)" if not versions else '""')
                + ": must have exactly one version marked as storage version",
                "spec.versions",
            )
        )
    return causes


_STRATEGIES: dict[tuple[str, str], Strategy] = {
    ("", "Namespace"): NamespaceStrategy(),
    ("", "Service"): ServiceStrategy(),
    ("apps", "Deployment"): GenerationStrategy(),
    ("batch", "Job"): GenerationStrategy(),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): CustomResourceDefinitionStrategy(),
}
_DEFAULT = Strategy()
_CUSTOM = CustomResourceStrategy()


def strategy_for(rtype: ResourceType) -> Strategy:
    if rtype.custom:
        return _CUSTOM
    return _STRATEGIES.get((rtype.group, rtype.kind), _DEFAULT)
