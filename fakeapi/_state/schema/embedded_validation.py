"""The checks the apiserver adds for embedded resources after the schema's own validation.

apiextensions-apiserver ``pkg/apiserver/schema/objectmeta/validation.go``, ``Validate``: at every
``x-kubernetes-embedded-resource`` node, ``apiVersion`` and ``kind`` are required non-empty strings (``kind``
a DNS-1035 label up to case, ``apiVersion`` a group/version), and ``metadata`` passes ``ValidateObjectMeta``
with names that need only be usable as one URL path segment.
"""

from __future__ import annotations

import re
from typing import Any

from fakeapi._state.schema.messages import invalid
from fakeapi._state.schema.structural import Node, key_path
from fakeapi._state.validation import field
from fakeapi._state.validation.names import is_dns1123_label, is_label_value, is_qualified_name
from fakeapi._state.validation.objectmeta import ANNOTATIONS_TOTAL_LIMIT
from fakeapi.errors import Cause

__all__ = ["validate_embedded"]

_DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_MESSAGE = (
    "a lowercase RFC 1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)


def validate_embedded(value: Any, node: Node | None, path: str, causes: list[Cause]) -> None:
    """Append the field errors of every embedded resource in ``value``, walking it in document order."""
    if node is None or not node.embeds:
        return
    if isinstance(value, dict):
        if node.embedded:
            causes.extend(_embedded_resource_causes(value, path))
        properties = node.properties
        for key, item in value.items():
            if key in properties:
                validate_embedded(item, properties[key], key_path(path, key), causes)
            elif node.additional:
                validate_embedded(item, node.extra, f"{path}[{key}]", causes)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            validate_embedded(item, node.items, f"{path}[{index}]", causes)


def _embedded_resource_causes(resource: dict[str, Any], path: str) -> list[Cause]:
    causes = [field.required(key_path(path, key)).cause() for key in ("apiVersion", "kind") if key not in resource]
    for key, value in resource.items():
        where = key_path(path, key)
        if key in ("apiVersion", "kind") and not isinstance(value, str):
            causes.append(invalid(where, value, "must be a string"))
        elif key in ("apiVersion", "kind") and not value:
            causes.append(invalid(where, value, "must not be empty"))
        elif key == "apiVersion" and value != "/" and value.count("/") > 1:
            causes.append(invalid(where, value, f"unexpected GroupVersion string: {value}"))
        elif key == "kind":
            problems = _dns1035_problems(value.lower())
            if problems:
                detail = "may have mixed case, but should otherwise match: " + ",".join(problems)
                causes.append(invalid(where, value, detail))
        elif key == "metadata" and isinstance(value, dict):
            causes.extend(_embedded_meta_causes(value, where))
    return causes


def _dns1035_problems(value: str) -> list[str]:
    problems = []
    if len(value) > 63:
        problems.append("must be no more than 63 characters")
    if not re.fullmatch(_DNS1035_LABEL, value):
        problems.append(
            f"{_DNS1035_MESSAGE} (e.g. 'my-name',  or 'abc-123', regex used for validation is '{_DNS1035_LABEL}')"
        )
    return problems


def _path_segment_problems(name: str, *, prefix: bool) -> list[str]:
    """``path.ValidatePathSegmentName``: embedded names need only be usable as one URL path segment."""
    if not prefix and name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{part}'" for part in ("/", "%") if part in name]


def _embedded_meta_causes(meta: dict[str, Any], path: str) -> list[Cause]:
    """``ValidateObjectMeta`` with path-segment names: generateName, name, namespace, labels, annotations."""
    causes = []
    generate_name = meta.get("generateName")
    if isinstance(generate_name, str) and generate_name:
        for problem in _path_segment_problems(generate_name, prefix=True):
            causes.append(invalid(f"{path}.generateName", generate_name, problem))
    name = meta.get("name") or "fakename"
    if isinstance(name, str):
        for problem in _path_segment_problems(name, prefix=False):
            causes.append(invalid(f"{path}.name", name, problem))
    namespace = meta.get("namespace")
    if isinstance(namespace, str) and namespace:
        for problem in is_dns1123_label(namespace):
            causes.append(invalid(f"{path}.namespace", namespace, problem))
    labels = meta.get("labels")
    for key, value in (labels if isinstance(labels, dict) else {}).items():
        causes.extend(invalid(f"{path}.labels", key, problem) for problem in is_qualified_name(key))
        if isinstance(value, str):
            causes.extend(invalid(f"{path}.labels", value, problem) for problem in is_label_value(value))
    annotations = meta.get("annotations")
    total = 0
    for key, value in (annotations if isinstance(annotations, dict) else {}).items():
        causes.extend(invalid(f"{path}.annotations", key, problem) for problem in is_qualified_name(key.lower()))
        total += len(key.encode()) + len(str(value).encode())
    if total > ANNOTATIONS_TOTAL_LIMIT:
        causes.append(field.too_long(f"{path}.annotations", ANNOTATIONS_TOTAL_LIMIT).cause())
    return causes
