"""A custom resource's descriptors, built from its CRD (``customresource_discovery_controller.go``).

One :class:`~fakeapi._state.resources.ResourceType` per served version, preferred version first
(kube-aware order), each with the CRD's names, scope, subresources, printer columns, selectable
fields and schema, and the custom resource strategy (``customresource/strategy.go``). A CRD being
deleted keeps serving reads and deletes only.
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.conversion import CRDConversion
from fakeapi._state.resources import ResourceType, Subresource, kube_version_sort_key
from fakeapi._state.strategy import CustomResourceStrategy
from fakeapi._state.tables.custom_columns import custom_resource_printer

__all__ = ["types_from_crd"]

CRD_VERBS = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")
TERMINATING_CRD_VERBS = ("delete", "deletecollection", "get", "list", "watch")
_STRATEGY = CustomResourceStrategy()
_SUBRESOURCES = {
    "scale": Subresource("scale", kind="Scale", group="autoscaling", version="v1"),
    "status": Subresource("status"),
}


def _scale_paths(scale: Any) -> tuple[str, str, str]:
    if not isinstance(scale, dict):
        return ("spec.replicas", "status.replicas", "")
    return (
        str(scale.get("specReplicasPath", ".spec.replicas")).lstrip("."),
        str(scale.get("statusReplicasPath", ".status.replicas")).lstrip("."),
        str(scale.get("labelSelectorPath") or "").lstrip("."),
    )


def types_from_crd(crd: dict[str, Any], *, terminating: bool = False) -> list[ResourceType]:
    """The served resource types of one CRD, preferred version first."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    group = spec.get("group", "")
    plural = names.get("plural", "")
    kind = names.get("kind", "")
    versions = [v for v in spec.get("versions") or [] if v.get("served")]
    storage = next((v.get("name", "") for v in spec.get("versions") or [] if v.get("storage")), "")
    conversion = CRDConversion.of(crd)
    types = []
    for version in sorted(versions, key=lambda v: kube_version_sort_key(v.get("name", ""))):
        subresources = version.get("subresources") or {}
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        types.append(
            ResourceType(
                group=group,
                version=version.get("name", ""),
                plural=plural,
                singular=names.get("singular") or kind.lower(),
                kind=kind,
                namespaced=spec.get("scope") == "Namespaced",
                verbs=TERMINATING_CRD_VERBS if terminating else CRD_VERBS,
                short_names=tuple(names.get("shortNames") or ()),
                categories=tuple(names.get("categories") or ()),
                subresource_table=tuple(_SUBRESOURCES[name] for name in ("scale", "status") if name in subresources),
                custom=True,
                storage_version=storage,
                selectable_fields=tuple(
                    f.get("jsonPath", "").lstrip(".") for f in version.get("selectableFields") or ()
                ),
                schema=schema,
                preserve_unknown_fields=bool(spec.get("preserveUnknownFields")),
                crd_name=(crd.get("metadata") or {}).get("name", ""),
                scale_paths=_scale_paths(subresources.get("scale")),
                strategy=_STRATEGY,
                conversion=conversion,
                printer=custom_resource_printer(tuple(version.get("additionalPrinterColumns") or ())),
            )
        )
    return types
