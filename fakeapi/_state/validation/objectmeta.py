"""ObjectMeta validation with the apiserver's messages (apimachinery ``api/validation/objectmeta.go``).

``ValidateObjectMetaAccessor``: generateName and name by the kind's name rule (``names.NameRule``),
the namespace (required for a namespaced kind, a DNS label, forbidden otherwise), generation not
negative, label keys and values (``meta/v1/validation`` ``ValidateLabels``), annotation keys and
their 256 KiB total, owner references (apiVersion, kind, name, uid, one controller), finalizer
names and the orphan/foregroundDeletion pair; ``ValidateObjectMetaAccessorUpdate``: no new
finalizers while deleting, then the immutable fields. ``ValidateLabelSelector`` is here too, as
workloads and budgets validate their selectors with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi._patching.godecode import normalize
from fakeapi._patching.goencode import encode
from fakeapi._patching.gostrconv import quote
from fakeapi._patching.slices import paused
from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError, Printed
from fakeapi._state.validation.names import (
    NameRule,
    is_dns1123_label,
    is_label_value,
    is_qualified_name,
    name_is_dns_subdomain,
)

__all__ = [
    "ANNOTATIONS_TOTAL_LIMIT",
    "FIELD_IMMUTABLE",
    "IS_NEGATIVE",
    "finalizer_warnings",
    "semantic",
    "validate_annotations",
    "validate_immutable",
    "validate_label_selector",
    "validate_labels",
    "validate_nonnegative",
    "validate_object_meta",
    "validate_update_meta",
]

ANNOTATIONS_TOTAL_LIMIT = 256 * 1024
FIELD_IMMUTABLE = "field is immutable"
IS_NEGATIVE = "must be greater than or equal to 0"


def validate_object_meta(
    meta: Mapping[str, Any],
    *,
    namespaced: bool,
    names: NameRule = name_is_dns_subdomain,
    previous: Mapping[str, Any] | None = None,
    path: str = "metadata",
) -> list[FieldError]:
    """``ValidateObjectMetaAccessor``.

    ``previous`` is the stored metadata on an update: a map or list it shares with the new one (the
    very same object) was validated when it was stored, so it is not walked again.
    """
    errors: list[FieldError] = []
    name = meta.get("name") or ""
    generate_name = meta.get("generateName") or ""
    if generate_name:
        errors.extend(field.invalid(f"{path}.generateName", generate_name, m) for m in names(generate_name, True))
    if not name:
        errors.append(field.required(f"{path}.name", "name or generateName is required"))
    else:
        errors.extend(field.invalid(f"{path}.name", name, problem) for problem in names(name, False))
    namespace = meta.get("namespace") or ""
    if namespaced:
        if not namespace:
            errors.append(field.required(f"{path}.namespace"))
        else:
            errors.extend(field.invalid(f"{path}.namespace", namespace, m) for m in is_dns1123_label(namespace))
    elif namespace:
        errors.append(field.forbidden(f"{path}.namespace", "not allowed on this type"))
    errors.extend(validate_nonnegative(meta.get("generation") or 0, f"{path}.generation"))
    previous = previous or {}
    if not _shared(meta, previous, "labels"):
        errors.extend(validate_labels(meta.get("labels") or {}, f"{path}.labels"))
    if not _shared(meta, previous, "annotations"):
        errors.extend(validate_annotations(meta.get("annotations") or {}, f"{path}.annotations"))
    if not _shared(meta, previous, "ownerReferences"):
        errors.extend(_validate_owner_references(meta.get("ownerReferences") or [], f"{path}.ownerReferences"))
    if not _shared(meta, previous, "finalizers"):
        errors.extend(_validate_finalizers(meta.get("finalizers") or [], f"{path}.finalizers"))
    return errors


def _shared(meta: Mapping[str, Any], previous: Mapping[str, Any], name: str) -> bool:
    value = meta.get(name)
    return value is not None and value is previous.get(name)


def validate_nonnegative(value: Any, path: str) -> list[FieldError]:
    """``ValidateNonnegativeField``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        return [field.invalid(path, value, IS_NEGATIVE)]
    return []


def semantic(value: Any) -> Any:
    """A value as ``apiequality.Semantic.DeepEqual`` sees it: empty and absent maps and lists alike."""
    if isinstance(value, dict):
        return {key: semantic(item) for key, item in value.items() if item not in (None, {}, [])}
    if isinstance(value, list):
        return [semantic(item) for item in value]
    return value


def validate_immutable(new: Any, old: Any, path: str, go_type: str = "") -> list[FieldError]:
    """``ValidateImmutableField``: the new value, when it differs from the old one."""
    if new != old:
        return [field.invalid(path, new, FIELD_IMMUTABLE, go_type)]
    return []


def validate_labels(labels: Mapping[str, Any], path: str) -> list[FieldError]:
    """``ValidateLabels``: each key a qualified name, each value a label value."""
    errors: list[FieldError] = []
    for key, value in paused(labels.items(), len(labels)):
        errors.extend(field.invalid(path, key, problem) for problem in is_qualified_name(key))
        if isinstance(value, str):
            errors.extend(field.invalid(path, value, problem) for problem in is_label_value(value))
    return errors


def validate_annotations(annotations: Mapping[str, Any], path: str) -> list[FieldError]:
    """``ValidateAnnotations``: keys (lower-cased) are qualified names; keys and values total 256 KiB."""
    errors: list[FieldError] = []
    total = 0
    for key, value in paused(annotations.items(), len(annotations)):
        errors.extend(field.invalid(path, key, problem) for problem in is_qualified_name(key.lower()))
        total += len(key.encode()) + len(str(value).encode())
    if total > ANNOTATIONS_TOTAL_LIMIT:
        errors.append(field.too_long(path, ANNOTATIONS_TOTAL_LIMIT))
    return errors


def _validate_owner_references(references: list[Any], path: str) -> list[FieldError]:
    """``ValidateOwnerReferences``."""
    errors = []
    controller = ""
    for reference in references:
        if not isinstance(reference, dict):
            continue
        api_version = str(reference.get("apiVersion") or "")
        kind = str(reference.get("kind") or "")
        version = api_version.rsplit("/", 1)[-1] if api_version.count("/") <= 1 else ""
        if not version:
            errors.append(field.invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
        if not kind:
            errors.append(field.invalid(f"{path}.kind", kind, "kind must not be empty"))
        if not reference.get("name"):
            errors.append(field.invalid(f"{path}.name", reference.get("name") or "", "name must not be empty"))
        if not reference.get("uid"):
            errors.append(field.invalid(f"{path}.uid", reference.get("uid") or "", "uid must not be empty"))
        if api_version == "v1" and kind == "Event":
            shown = Printed(_owner_syntax(reference), encode(normalize(reference)).decode())
            errors.append(field.invalid(path, shown, "/v1, Kind=Event is disallowed from being an owner"))
        if reference.get("controller") is True:
            current = f"{kind}/{reference.get('name') or ''}"
            if controller:
                listed = [item for item in references if isinstance(item, dict)]
                shown = Printed(
                    "[]v1.OwnerReference{" + ", ".join(_owner_syntax(item) for item in listed) + "}",
                    encode(normalize(listed)).decode(),
                )
                errors.append(
                    field.invalid(
                        path,
                        shown,
                        'Only one reference can have Controller set to true. Found "true" in references for '
                        f"{controller} and {current}",
                    )
                )
            else:
                controller = current
    return errors


def _owner_syntax(reference: Mapping[str, Any]) -> str:
    """``%#v`` of an OwnerReference. Go prints a set pointer as its address, which no one can predict;
    a fixed one stands in for it."""

    def pointer(name: str) -> str:
        return "(*bool)(nil)" if reference.get(name) is None else "(*bool)(0xc000000000)"

    return (
        f"v1.OwnerReference{{APIVersion:{quote(str(reference.get('apiVersion') or ''))}, "
        f"Kind:{quote(str(reference.get('kind') or ''))}, Name:{quote(str(reference.get('name') or ''))}, "
        f"UID:{quote(str(reference.get('uid') or ''))}, Controller:{pointer('controller')}, "
        f"BlockOwnerDeletion:{pointer('blockOwnerDeletion')}}}"
    )


def _validate_finalizers(finalizers: list[Any], path: str) -> list[FieldError]:
    """``ValidateFinalizers``."""
    errors: list[FieldError] = []
    for finalizer in finalizers:
        if isinstance(finalizer, str):
            errors.extend(field.invalid(path, finalizer, problem) for problem in is_qualified_name(finalizer))
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        errors.append(
            field.invalid(path, finalizers, "finalizer orphan and foregroundDeletion cannot be both set", "[]string")
        )
    return errors


def finalizer_warnings(finalizers: list[Any]) -> list[str]:
    """The warnings for finalizer names that are not domain-qualified (strategy.go)."""
    warnings = []
    for finalizer in finalizers:
        if not isinstance(finalizer, str) or "/" in finalizer:
            continue
        if finalizer in ("kubernetes", "orphan", "foregroundDeletion"):
            continue
        if "." in finalizer:
            warnings.append(
                f'metadata.finalizers: "{finalizer}": prefer a domain-qualified finalizer name including a path (/) '
                "to avoid accidental conflicts with other finalizer writers"
            )
        else:
            warnings.append(
                f'metadata.finalizers: "{finalizer}": prefer a domain-qualified finalizer name '
                "to avoid accidental conflicts with other finalizer writers"
            )
    return warnings


def validate_update_meta(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateObjectMetaAccessorUpdate``: no new finalizers while deleting, then the immutable fields."""
    errors = []
    if old.get("deletionTimestamp") is not None:
        old_finalizers = set(old.get("finalizers") or [])
        added = sorted({f for f in new.get("finalizers") or [] if f not in old_finalizers})
        if added:
            errors.append(
                field.forbidden(
                    "metadata.finalizers",
                    "no new finalizers can be added if the object is being deleted, found new finalizers "
                    + field.go_syntax(added, "[]string"),
                )
            )
    for name in ("name", "namespace", "uid", "creationTimestamp"):
        if new.get(name) != old.get(name):
            errors.append(field.invalid(f"metadata.{name}", new.get(name), FIELD_IMMUTABLE))
    for name in ("deletionTimestamp", "deletionGracePeriodSeconds"):
        if old.get(name) is None and new.get(name) is not None:
            errors.append(field.invalid(f"metadata.{name}", new.get(name), FIELD_IMMUTABLE))
    return errors


def validate_label_selector(selector: Any, path: str, *, allow_invalid_label_values: bool = False) -> list[FieldError]:
    """``ValidateLabelSelector``: matchLabels as labels, each matchExpressions requirement.

    ``allow_invalid_label_values`` is ``AllowInvalidLabelValueInSelector``: the requirements' values
    are then not checked as label values (an update of an object that already held such a value).
    """
    if not isinstance(selector, dict):
        return []
    errors = validate_labels(selector.get("matchLabels") or {}, f"{path}.matchLabels")
    for position, requirement in enumerate(selector.get("matchExpressions") or []):
        if not isinstance(requirement, dict):
            continue
        where = f"{path}.matchExpressions[{position}]"
        operator = requirement.get("operator") or ""
        values = requirement.get("values") or []
        if operator in ("In", "NotIn"):
            if not values:
                errors.append(field.required(f"{where}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                errors.append(
                    field.forbidden(
                        f"{where}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                    )
                )
        else:
            errors.append(field.invalid(f"{where}.operator", operator, "not a valid selector operator"))
        key = requirement.get("key") or ""
        errors.extend(field.invalid(f"{where}.key", key, problem) for problem in is_qualified_name(key))
        for index, value in enumerate([] if allow_invalid_label_values else values):
            if isinstance(value, str):
                errors.extend(field.invalid(f"{where}.values[{index}]", value, m) for m in is_label_value(value))
    return errors
