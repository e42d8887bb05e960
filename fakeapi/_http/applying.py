"""Server-side apply requests (``application/apply-patch+yaml``): the body and the field manager.

The apply patcher decodes the body with ``yaml.Unmarshal`` into a map and refuses an apply without
``fieldManager``; the field manager's ``versionCheckManager`` then refuses an applied configuration
of another group, version or kind than the endpoint's (:func:`check_applied_type`); what the apply does to the object and its managedFields is field ownership's
(:mod:`fakeapi._state.field_ownership`, docs/server-side-apply.md).
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.godecode import normalize
from fakeapi._patching.jsonpatch import json_kind
from fakeapi._patching.yamltojson import YAMLToJSONError, yaml_to_value
from fakeapi.errors import APIError, Cause, GroupResource

__all__ = ["check_applied_type", "decode_apply_body", "require_manager"]


def check_applied_type(applied: dict[str, Any], *, group: str, version: str, kind: str) -> None:
    """``versionCheckManager.Apply`` (apimachinery ``util/managedfields/internal/versioncheck.go``): the
    applied object's ``GroupVersionKind`` must be the endpoint's, else a 400 ``invalid object type: <gvk>``,
    before anything is merged or stored. The GVK is ``Unstructured.GroupVersionKind()``'s: an
    ``apiVersion`` or ``kind`` that is not a string reads as empty, an ``apiVersion`` with more than one
    slash as the empty GVK. docs/conversion.md, "A body at another version"."""
    api_version = applied.get("apiVersion")
    applied_kind = applied.get("kind")
    text = api_version if isinstance(api_version, str) else ""
    found_kind = applied_kind if isinstance(applied_kind, str) else ""
    if text.count("/") > 1:
        found_group, found_version, found_kind = "", "", ""
    else:
        found_group, _, found_version = text.rpartition("/")
    if (found_group, found_version, found_kind) != (group, version, kind):
        raise APIError.bad_request(f"invalid object type: {found_group}/{found_version}, Kind={found_kind}")


def decode_apply_body(body: bytes) -> dict[str, Any]:
    """The applied configuration as ``yaml.Unmarshal`` into a map gives it, or the apply patcher's 400."""
    try:
        value = yaml_to_value(body)
    except YAMLToJSONError as error:
        raise APIError.bad_request(f"error decoding YAML: error converting YAML to JSON: {error}") from None
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise APIError.bad_request(
            "error decoding YAML: error unmarshaling JSON: while decoding JSON: "
            f"json: cannot unmarshal {json_kind(value)} into Go value of type map[string]interface {{}}"
        )
    applied: dict[str, Any] = normalize(value)
    return applied


def require_manager(manager: str | None) -> str:
    if not manager:
        raise APIError.invalid(
            GroupResource("meta.k8s.io", "PatchOptions"),
            "",
            [Cause("FieldValueRequired", "Required value: is required for apply patch", "fieldManager")],
        )
    return manager
