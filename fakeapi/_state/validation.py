"""ObjectMeta validation with the apiserver's messages (apimachinery ``api/validation/objectmeta.go``).

Names (DNS-1123 subdomains for most kinds, labels for namespaces), label keys and values,
annotation keys and their 256 KiB total, finalizer names, and the update-only immutability rules.
Each failure is a :class:`~fakeapi.errors.Cause` whose text matches ``field.Error``:
``Invalid value: "<v>": <detail>`` with Go's ``%q`` quoting, and the RegexError examples joined by
``',  or '`` (two spaces), as the real messages are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fakeapi._patching.gostrconv import quote
from fakeapi.errors import Cause

__all__ = [
    "ANNOTATIONS_TOTAL_LIMIT",
    "go_value",
    "invalid",
    "validate_label_value",
    "validate_object_meta",
    "validate_qualified_name",
    "validate_update_meta",
]

ANNOTATIONS_TOTAL_LIMIT = 256 * 1024

_DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN = _DNS1123_LABEL + r"(\." + _DNS1123_LABEL + r")*"
_QUALIFIED_NAME_PART = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE = r"(" + _QUALIFIED_NAME_PART + r")?"

_SUBDOMAIN_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_MESSAGE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_NAME_PART_MESSAGE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_QUALIFIED_MESSAGE = (
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MESSAGE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)


def _regex_error(message: str, pattern: str, *examples: str) -> str:
    if not examples:
        return f"{message} (regex used for validation is '{pattern}')"
    shown = ",  or ".join(f"'{example}'" for example in examples)
    return f"{message} (e.g. {shown}, regex used for validation is '{pattern}')"


def go_value(value: Any) -> str:
    """How ``field.Invalid`` prints a value: ``%q`` for strings, plain numbers and bools."""
    if isinstance(value, str):
        return quote(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return "[]string{" + ", ".join(quote(item) for item in value) + "}"
    return str(value)


def invalid(path: str, value: Any, detail: str) -> Cause:
    return Cause("FieldValueInvalid", f"Invalid value: {go_value(value)}: {detail}", path)


def _is_subdomain(value: str) -> list[str]:
    problems = []
    if len(value) > 253:
        problems.append("must be no more than 253 characters")
    if not re.fullmatch(_DNS1123_SUBDOMAIN, value):
        problems.append(_regex_error(_SUBDOMAIN_MESSAGE, _DNS1123_SUBDOMAIN, "example.com"))
    return problems


def _is_label(value: str) -> list[str]:
    problems = []
    if len(value) > 63:
        problems.append("must be no more than 63 characters")
    if not re.fullmatch(_DNS1123_LABEL, value):
        problems.append(_regex_error(_LABEL_MESSAGE, _DNS1123_LABEL, "my-name", "123-abc"))
    return problems


def validate_qualified_name(value: str) -> list[str]:
    """``IsQualifiedName``: an optional DNS subdomain prefix and a name part of at most 63 characters."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return ["prefix part must be non-empty"]
        problems = [f"prefix part {problem}" for problem in _is_subdomain(prefix)]
        if problems:
            return problems
    else:
        return [
            _regex_error(_QUALIFIED_MESSAGE, _QUALIFIED_NAME_PART, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    problems = []
    if not name:
        problems.append("name part must be non-empty")
    elif len(name) > 63:
        problems.append("name part must be no more than 63 characters")
    if not re.fullmatch(_QUALIFIED_NAME_PART, name):
        problems.append(_regex_error(_NAME_PART_MESSAGE, _QUALIFIED_NAME_PART, "MyName", "my.name", "123-abc"))
    return problems


def validate_label_value(value: str) -> list[str]:
    problems = []
    if len(value) > 63:
        problems.append("must be no more than 63 characters")
    if not re.fullmatch(_LABEL_VALUE, value):
        problems.append(_regex_error(_LABEL_VALUE_MESSAGE, _LABEL_VALUE, "MyValue", "my_value", "12345"))
    return problems


def validate_name(value: str, *, dns_label: bool) -> list[str]:
    return _is_label(value) if dns_label else _is_subdomain(value)


def validate_object_meta(
    meta: Mapping[str, Any],
    *,
    namespaced: bool,
    dns_label_names: bool = False,
    previous: Mapping[str, Any] | None = None,
) -> list[Cause]:
    """``ValidateObjectMetaAccessor``: generateName, name, labels, annotations, finalizers, in that order.

    ``previous`` is the stored metadata on an update: a map or list it shares with the new one (the
    very same object) was validated when it was stored, so it is not walked again.
    """
    causes: list[Cause] = []
    name = meta.get("name") or ""
    generate_name = meta.get("generateName") or ""
    if generate_name:
        masked = generate_name[:-1] + "a" if generate_name.endswith("-") else generate_name
        for problem in validate_name(masked, dns_label=dns_label_names):
            causes.append(invalid("metadata.generateName", generate_name, problem))
    if not name:
        causes.append(Cause("FieldValueRequired", "Required value: name or generateName is required", "metadata.name"))
    else:
        for problem in validate_name(name, dns_label=dns_label_names):
            causes.append(invalid("metadata.name", name, problem))
    previous = previous or {}
    if not _shared(meta, previous, "labels"):
        causes.extend(_validate_labels(meta.get("labels") or {}))
    if not _shared(meta, previous, "annotations"):
        causes.extend(_validate_annotations(meta.get("annotations") or {}))
    if not _shared(meta, previous, "finalizers"):
        causes.extend(_validate_finalizers(meta.get("finalizers") or []))
    return causes


def _shared(meta: Mapping[str, Any], previous: Mapping[str, Any], field: str) -> bool:
    value = meta.get(field)
    return value is not None and value is previous.get(field)


def _validate_labels(labels: Mapping[str, Any]) -> list[Cause]:
    causes = []
    for key, value in labels.items():
        for problem in validate_qualified_name(key):
            causes.append(invalid("metadata.labels", key, problem))
        if isinstance(value, str):
            for problem in validate_label_value(value):
                causes.append(invalid("metadata.labels", value, problem))
    return causes


def _validate_annotations(annotations: Mapping[str, Any]) -> list[Cause]:
    causes = []
    total = 0
    for key, value in annotations.items():
        for problem in validate_qualified_name(key.lower()):
            causes.append(invalid("metadata.annotations", key, problem))
        total += len(key.encode()) + len(str(value).encode())
    if total > ANNOTATIONS_TOTAL_LIMIT:
        causes.append(
            Cause(
                "FieldValueTooLong",
                f"Too long: may not be more than {ANNOTATIONS_TOTAL_LIMIT} bytes",
                "metadata.annotations",
            )
        )
    return causes


def _validate_finalizers(finalizers: list[Any]) -> list[Cause]:
    causes = []
    for finalizer in finalizers:
        if isinstance(finalizer, str):
            for problem in validate_qualified_name(finalizer):
                causes.append(invalid("metadata.finalizers", finalizer, problem))
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        causes.append(
            invalid("metadata.finalizers", finalizers, "finalizer orphan and foregroundDeletion cannot be both set")
        )
    return causes


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


def validate_update_meta(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[Cause]:
    """``ValidateObjectMetaAccessorUpdate``: immutable fields, then no new finalizers while deleting."""
    causes = []
    for field in ("name", "namespace", "uid", "creationTimestamp"):
        if new.get(field) != old.get(field):
            causes.append(invalid(f"metadata.{field}", new.get(field), "field is immutable"))
    for field in ("deletionTimestamp", "deletionGracePeriodSeconds"):
        if old.get(field) is None and new.get(field) is not None:
            causes.append(invalid(f"metadata.{field}", new.get(field), "field is immutable"))
    if old.get("deletionTimestamp") is not None:
        old_finalizers = set(old.get("finalizers") or [])
        added = [f for f in new.get("finalizers") or [] if f not in old_finalizers]
        if added:
            causes.append(
                Cause(
                    "FieldValueForbidden",
                    "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers "
                    + go_value(added),
                    "metadata.finalizers",
                )
            )
    return causes
