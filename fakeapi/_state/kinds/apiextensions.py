"""``apiextensions.k8s.io/v1``: CustomResourceDefinitions (``apiextensions-apiserver/pkg/registry/customresourcedefinition``).

A CRD is served as soon as it is stored, with the conditions a real apiserver's controllers set
(NamesAccepted, Established; Terminating while its instances are removed), and validated for the
mistakes a client is likely to make (``apiextensions/validation``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakeapi._state import controllers
from fakeapi._state.controllers import CRD_CLEANUP_FINALIZER
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.objects import metadata_of
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.schema.crd_rules import crd_rule_errors
from fakeapi._state.strategy import GenerationStrategy
from fakeapi._state.validation import field
from fakeapi._state.validation.crd_conversion import conversion_defaults, validate_conversion
from fakeapi._state.validation.field import go_value
from fakeapi.errors import Cause

if TYPE_CHECKING:
    from fakeapi._state.storeview import StoreView

__all__ = ["TYPES"]


class CustomResourceDefinitionStrategy(GenerationStrategy):
    """CRDs are served as soon as they are stored, with the conditions a real apiserver sets."""

    def prepare_for_create(self, rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        return _with_crd_status(super().prepare_for_create(rtype, obj))

    def before_update(
        self, rtype: ResourceType, new: dict[str, Any], old: dict[str, Any], subresource: str
    ) -> dict[str, Any]:
        return _with_crd_status(super().before_update(rtype, new, old, subresource), subresource=subresource)

    def validate_content(self, rtype: ResourceType, obj: dict[str, Any], *, subresource: str = "") -> list[Cause]:
        return _crd_causes(obj) + _stored_versions_causes(obj)

    def validate_rules(
        self,
        rtype: ResourceType,
        obj: dict[str, Any],
        old: dict[str, Any] | None,
        subresource: str,
        causes: list[Cause],
    ) -> list[Cause]:
        """The ``x-kubernetes-validations`` rules of the schemas: their fields, compilation and cost."""
        if subresource:
            return []
        old_spec = (old or {}).get("spec") if old is not None else None
        return field.causes(crd_rule_errors(obj.get("spec") or {}, old_spec if isinstance(old_spec, dict) else None))

    def after_create(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
        store.registry.register_crd(obj)

    def after_update(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any], old: dict[str, Any]) -> None:
        store.registry.register_crd(obj)
        if metadata_of(obj).get("deletionTimestamp") is not None:
            controllers.clean_up_custom_resources(store, obj)

    def after_delete(self, store: StoreView, rtype: ResourceType, obj: dict[str, Any]) -> None:
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


def _stored_versions_causes(crd: dict[str, Any]) -> list[Cause]:
    """``ValidateCustomResourceDefinitionStoredVersions`` (docs/conversion.md, "storedVersions")."""
    stored = [str(v) for v in (crd.get("status") or {}).get("storedVersions") or []]
    path = "status.storedVersions"
    if not stored:
        return [field.invalid(path, stored, "must have at least one stored version", "[]string").cause()]
    positions = {version: position for position, version in enumerate(stored)}
    causes = []
    for version in (crd.get("spec") or {}).get("versions") or []:
        name = version.get("name")
        if version.get("storage") and name not in positions:
            causes.append(field.invalid(path, stored, f"must have the storage version {name}", "[]string").cause())
        positions.pop(name, None)
    causes.extend(
        field.invalid(f"{path}[{position}]", version, "must appear in spec.versions").cause()
        for version, position in positions.items()
    )
    return causes


def _with_crd_status(crd: dict[str, Any], *, subresource: str = "") -> dict[str, Any]:
    spec = conversion_defaults(crd.get("spec") or {})
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
    # The CRD strategy adds a new storage version on create and spec updates; a status update
    # (the way storedVersions is pruned) keeps what it is given.
    for version in spec.get("versions") or [] if subresource != "status" else []:
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
        causes.append(field.invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group').cause())
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
    causes.extend(error.cause() for error in validate_conversion(spec))
    return causes


TYPES: tuple[ResourceType, ...] = (
    builtin(
        "apiextensions.k8s.io",
        "v1",
        "customresourcedefinitions",
        "CustomResourceDefinition",
        False,
        short_names=("crd", "crds"),
        categories=("api-extensions",),
        subresources=(Subresource("status"),),
        strategy=CustomResourceDefinitionStrategy(),
        # Not a k8s.io/api kind: its Go struct is not recorded, so its keys stay sorted.
        struct_order=False,
    ),
)
