"""``crConverter`` and the ``None`` strategy (``apiextensions-apiserver/.../conversion/converter.go``,
``nop_converter.go``).

A CRD's conversion settings (:class:`CRDConversion`) and the conversion of one object to one of its
versions (:func:`convert_object`): refused when either version is not in ``spec.versions``; with
``None`` only ``apiVersion`` changes; with ``Webhook`` the webhook converts
(:mod:`.webhook_converter`) and its answer is pruned by the target version's schema
(``schemaCoercingConverter`` in ``customresource_handler.go``). An object already at the version, or empty but for its type, is
never sent. docs/conversion.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi._state.conversion.webhook_converter import ConversionError, Post, convert_by_webhook
from fakeapi._state.schema.pruning import prune

__all__ = ["CRDConversion", "ConversionError", "convert_object"]


@dataclass(frozen=True)
class CRDConversion:
    """What ``NewConverter`` reads of a CRD."""

    crd_name: str
    group: str
    versions: frozenset[str]
    strategy: str
    client_config: Mapping[str, Any]
    review_versions: tuple[str, ...]
    preserve_unknown_fields: bool = False
    schemas: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, crd: Mapping[str, Any]) -> CRDConversion:
        spec = crd.get("spec") or {}
        conversion = spec.get("conversion") or {}
        webhook = conversion.get("webhook") or {}
        return cls(
            crd_name=str((crd.get("metadata") or {}).get("name") or ""),
            group=str(spec.get("group") or ""),
            versions=frozenset(str(v.get("name") or "") for v in spec.get("versions") or ()),
            strategy=str(conversion.get("strategy") or "None"),
            client_config=webhook.get("clientConfig") or {},
            review_versions=tuple(webhook.get("conversionReviewVersions") or ()),
            preserve_unknown_fields=bool(spec.get("preserveUnknownFields")),
            schemas={
                str(v.get("name") or ""): (v.get("schema") or {}).get("openAPIV3Schema")
                for v in spec.get("versions") or ()
            },
        )

    @property
    def by_webhook(self) -> bool:
        return self.strategy == "Webhook"


def _version_of(api_version: Any, group: str) -> str | None:
    """The version of an apiVersion in ``group``; None when it is another group's."""
    text = api_version if isinstance(api_version, str) else ""
    found_group, _, version = text.rpartition("/")
    return version if found_group == group else None


def _is_empty(obj: Mapping[str, Any]) -> bool:
    """``isEmptyUnstructuredObject``: nothing but apiVersion and kind."""
    return len(obj) == 2 and "apiVersion" in obj and "kind" in obj


async def convert_object(
    conversion: CRDConversion,
    obj: dict[str, Any],
    to_version: str,
    post: Post,
    new_uid: Callable[[], str],
) -> dict[str, Any]:
    """``crConverter.ConvertToVersion`` of one object: the object at ``to_version``, or
    :class:`ConversionError` with the apiserver's text. ``obj`` is never changed."""
    target = f"{conversion.group}/{to_version}"
    if to_version not in conversion.versions:
        raise ConversionError(f"request to convert CR to an invalid group/version: {target}")
    from_version = _version_of(obj.get("apiVersion"), conversion.group)
    if from_version not in conversion.versions:
        raise ConversionError(f"request to convert CR from an invalid group/version: {obj.get('apiVersion') or ''}")
    if from_version == to_version:
        return obj
    if not conversion.by_webhook or _is_empty(obj):
        return {**obj, "apiVersion": target}
    converted = await convert_by_webhook(obj, target, conversion.review_versions, post, new_uid())
    if conversion.preserve_unknown_fields:
        return converted
    # schemaCoercingConverter: what the webhook answers is pruned by the target version's schema.
    return prune(converted, conversion.schemas.get(to_version))[0]
