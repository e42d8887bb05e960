"""Server-side apply requests (``application/apply-patch+yaml``): the body and the field manager.

The apply patcher decodes the body with ``yaml.Unmarshal`` into a map and refuses an apply without
``fieldManager``; what the apply does to the object and its managedFields is field ownership's
(:mod:`fakeapi._state.field_ownership`, docs/server-side-apply.md).
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.godecode import normalize
from fakeapi._patching.jsonpatch import json_kind
from fakeapi._patching.yamltojson import YAMLToJSONError, yaml_to_value
from fakeapi.errors import APIError, Cause, GroupResource

__all__ = ["decode_apply_body", "require_manager"]


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
