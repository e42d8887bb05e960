"""The AdmissionReview sent to a webhook and what its answer must be (``webhook/request/admissionreview.go``).

``CreateV1AdmissionReview``: the request carries a fresh uid, the kind and resource the webhook
matched (under ``matchPolicy: Equivalent``, possibly another version's) with ``requestKind`` and
``requestResource`` the request's own, the name, namespace, operation, the requester, the object and
old object (``null`` when there is none: ``RawExtension`` marshals nil as null), ``dryRun`` and the
operation's options. It is encoded as the apiserver's JSON serializer writes it: struct field order,
the objects in their own order (a typed object's struct, a custom resource's sorted keys), HTML
escaped, a newline at the end.

:func:`read_response` reproduces what the webhook client does with the answer: client-go's
``Result.Into`` (a status outside 2xx is the error ``NewGenericServerResponse`` builds, unless the
body is a failure Status; a body that does not decode is the JSON serializer's error) and then
``VerifyAdmissionResponse`` (response present, same uid, ``admission.k8s.io/v1, Kind=AdmissionReview``,
and the patch rules of mutating and validating webhooks). Every failure is a :class:`CallFailed`
holding the text the apiserver prints after ``failed calling webhook "<name>": ``.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass, field
from typing import Any

from fakeapi._patching.godecode import decode
from fakeapi._patching.goencode import encode
from fakeapi._patching.goscanner import GoSyntaxError
from fakeapi._patching.jsonpatch import json_kind
from fakeapi._state.admission.attributes import Attributes
from fakeapi._state.admission.matching import Invocation

__all__ = [
    "FIND_KIND_TYPE",
    "AdmissionResponse",
    "CallFailed",
    "HTTPAnswer",
    "read_response",
    "review_request",
    "review_version",
]

_V1 = "admission.k8s.io/v1"
# ``findKind`` of apimachinery's ``SimpleMetaFactory.Interpret``, as reflect spells its type.
FIND_KIND_TYPE = (
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
)
_MAX_UNSTRUCTURED_TEXT = 2048


class CallFailed(Exception):
    """``ErrCallingWebhook``: ``reason`` is what follows ``failed calling webhook "<name>": ``."""

    def __init__(self, reason: str, status: dict[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


@dataclass(frozen=True)
class HTTPAnswer:
    """What came back over the wire."""

    status: int
    content_type: str
    body: bytes


@dataclass
class AdmissionResponse:
    allowed: bool
    patch: bytes = b""
    patch_type: str = ""
    result: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)


# Where a custom resource's own encoding goes: no string of the request can spell these.
_OBJECT_MARK = f"\x00object-{uuid.uuid4()}"
_OLD_OBJECT_MARK = f"\x00old-object-{uuid.uuid4()}"
_ENCODED_OBJECT_MARK = encode(_OBJECT_MARK)
_ENCODED_OLD_OBJECT_MARK = encode(_OLD_OBJECT_MARK)


def review_version(webhook: dict[str, Any]) -> str:
    """``CreateAdmissionObjects``: the first of the webhook's ``admissionReviewVersions`` it knows."""
    for version in webhook.get("admissionReviewVersions") or []:
        if version in ("v1", "v1beta1"):
            return str(version)
    raise CallFailed(
        "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)"
    )


def review_request(
    uid: str, invocation: Invocation, attributes: Attributes, obj: dict[str, Any] | None, version: str = "v1"
) -> bytes:
    """The request body; ``obj`` is the object at the invocation's version (None when there is none).

    ``v1beta1`` has the same request fields under another apiVersion."""
    kind_group, kind_version, kind = invocation.kind
    rtype = invocation.rtype
    request_group, request_version, request_kind = attributes.group_version_kind
    old = attributes.old_object
    if old is not None and old.get("apiVersion") != rtype.api_version and attributes.kind is None:
        old = {**old, "apiVersion": rtype.api_version}
    user: dict[str, Any] = {}
    if attributes.user.username:
        user["username"] = attributes.user.username
    if attributes.user.uid:
        user["uid"] = attributes.user.uid
    if attributes.user.groups:
        user["groups"] = list(attributes.user.groups)
    if attributes.user.extra:
        user["extra"] = {key: list(values) for key, values in sorted(attributes.user.extra.items())}
    request: dict[str, Any] = {
        "uid": uid,
        "kind": {"group": kind_group, "version": kind_version, "kind": kind},
        "resource": {"group": rtype.group, "version": rtype.version, "resource": rtype.plural},
    }
    if attributes.subresource:
        request["subResource"] = attributes.subresource
    request["requestKind"] = {"group": request_group, "version": request_version, "kind": request_kind}
    group, version_, resource = attributes.group_version_resource
    request["requestResource"] = {"group": group, "version": version_, "resource": resource}
    if attributes.subresource:
        request["requestSubResource"] = attributes.subresource
    if attributes.name:
        request["name"] = attributes.name
    if attributes.namespace:
        request["namespace"] = attributes.namespace
    request["operation"] = attributes.operation
    request["userInfo"] = user
    # A built-in object is laid out as its struct already; a custom resource's keys are sorted, as
    # Go marshals a map: those are encoded on their own and put in place of a marker.
    struct_order = rtype.struct_order or attributes.kind is not None
    request["object"] = obj if struct_order or obj is None else _OBJECT_MARK
    request["oldObject"] = old if struct_order or old is None else _OLD_OBJECT_MARK
    request["dryRun"] = attributes.dry_run
    request["options"] = attributes.options
    review = {"kind": "AdmissionReview", "apiVersion": f"admission.k8s.io/{version}", "request": request}
    body = encode(review, in_order=True)
    if not struct_order:
        if obj is not None:
            body = body.replace(_ENCODED_OBJECT_MARK, encode(obj), 1)
        if old is not None:
            body = body.replace(_ENCODED_OLD_OBJECT_MARK, encode(old), 1)
    return body + b"\n"


# -- the answer -------------------------------------------------------------------------------------


def _unmarshal_error(value: Any, struct: str, path: str, type_name: str) -> CallFailed:
    return CallFailed(
        f"failed to call webhook: json: cannot unmarshal {json_kind(value)} into Go struct field {struct}.{path} of type {type_name}"
    )


def _generic_server_response(code: int, message: str) -> dict[str, Any]:
    """apimachinery ``NewGenericServerResponse`` for a POST with no resource, as client-go builds it."""
    reason, text = "Unknown", f"the server responded with the status code {code} but did not return more information"
    fixed = {
        409: ("AlreadyExists", "the server reported a conflict"),
        404: ("NotFound", "the server could not find the requested resource"),
        400: ("BadRequest", "the server rejected our request for an unknown reason"),
        401: ("Unauthorized", "the server has asked for the client to provide credentials"),
        405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
        422: ("Invalid", "the server rejected our request due to an error in our request"),
        503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
        504: (
            "Timeout",
            "the server was unable to return a response in the time allotted, but may still be processing the request",
        ),
        429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
    }
    if code in fixed:
        reason, text = fixed[code]
    elif code == 403:
        reason, text = "Forbidden", message
    elif code == 406:
        reason = "NotAcceptable"
        text = (
            "the server was unable to respond with a content type that the client supports"
            if message in ("", "unknown")
            else message
        )
    elif code == 415:
        reason, text = "UnsupportedMediaType", message
    elif code >= 500:
        quoted = encode(message).decode()
        reason, text = "InternalError", f"an error on the server ({quoted}) has prevented the request from succeeding"
    return {
        "status": "Failure",
        "message": text,
        "reason": reason,
        "details": {"causes": [{"reason": "UnexpectedServerResponse", "message": message}]},
        "code": code,
    }


def _failure_status(body: bytes) -> dict[str, Any] | None:
    """``Result.Error``: a body that decodes to a Status with status Failure is the error itself."""
    try:
        value = decode(body)
    except (GoSyntaxError, ValueError):
        return None
    if not isinstance(value, dict) or value.get("kind") != "Status" or value.get("status") != "Failure":
        return None
    if value.get("apiVersion") not in (None, "", "v1", "meta.k8s.io/v1"):
        return None
    return value


def _status_message(status: dict[str, Any]) -> str:
    message = status.get("message")
    return message if isinstance(message, str) and message else "unknown"


def _decode_review(body: bytes) -> dict[str, Any]:
    try:
        value = decode(body)
    except GoSyntaxError as error:
        raise CallFailed(f"failed to call webhook: couldn't get version/kind; json parse error: {error}") from None
    if not isinstance(value, dict):
        raise CallFailed(
            f"failed to call webhook: couldn't get version/kind; json parse error: json: cannot unmarshal "
            f"{json_kind(value)} into Go value of type {FIND_KIND_TYPE}"
        )
    for key in ("apiVersion", "kind"):
        if value.get(key) is not None and not isinstance(value[key], str):
            raise CallFailed(
                "failed to call webhook: couldn't get version/kind; json parse error: json: cannot unmarshal "
                f"{json_kind(value[key])} into Go struct field .{key} of type string"
            )
    return value


def _typed_response(review: dict[str, Any], version: str) -> dict[str, Any] | None:
    response = review.get("response")
    if response is None:
        return None
    if not isinstance(response, dict):
        raise _unmarshal_error(response, "AdmissionReview", "response", f"{version}.AdmissionResponse")
    strings = {"uid": "types.UID", "patchType": f"{version}.PatchType"}
    for key, type_name in strings.items():
        if response.get(key) is not None and not isinstance(response[key], str):
            raise _unmarshal_error(response[key], "AdmissionResponse", f"response.{key}", type_name)
    if response.get("allowed") is not None and not isinstance(response["allowed"], bool):
        raise _unmarshal_error(response["allowed"], "AdmissionResponse", "response.allowed", "bool")
    if response.get("patch") is not None and not isinstance(response["patch"], str):
        raise _unmarshal_error(response["patch"], "AdmissionResponse", "response.patch", "[]uint8")
    warnings = response.get("warnings")
    if warnings is not None:
        if not isinstance(warnings, list):
            raise _unmarshal_error(warnings, "AdmissionResponse", "response.warnings", "[]string")
        for item in warnings:
            if item is not None and not isinstance(item, str):
                raise _unmarshal_error(item, "AdmissionResponse", "response.warnings", "string")
    status = response.get("status")
    if status is not None:
        if not isinstance(status, dict):
            raise _unmarshal_error(status, "AdmissionResponse", "response.status", "v1.Status")
        for key in ("status", "message", "reason"):
            if status.get(key) is not None and not isinstance(status[key], str):
                raise _unmarshal_error(status[key], "Status", f"response.status.{key}", "string")
        code = status.get("code")
        if code is not None and (isinstance(code, bool) or not isinstance(code, int) or not -(2**31) <= code < 2**31):
            raise _unmarshal_error(code, "Status", "response.status.code", "int32")
    return response


def _patch_bytes(text: str) -> bytes:
    """``[]byte`` from JSON: standard base64; Go names the first byte it cannot use."""
    try:
        return base64.b64decode(text.encode(), validate=True)
    except (binascii.Error, ValueError):
        alphabet = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        data = text.encode()
        position = next((i for i, byte in enumerate(data) if byte not in alphabet and byte != ord("=")), None)
        if position is None:
            position = len(data) - len(data) % 4 if len(data) % 4 else len(data) - 1
        raise CallFailed(f"failed to call webhook: illegal base64 data at input byte {position}") from None


def read_response(answer: HTTPAnswer, uid: str, *, mutating: bool, version: str = "v1") -> AdmissionResponse:
    """The webhook's verdict, or :class:`CallFailed` with the apiserver's words.

    A ``v1beta1`` answer is checked less: no uid, no apiVersion, and a patch is a JSON patch."""
    if not 200 <= answer.status <= 206:
        status = _failure_status(answer.body) if answer.body else None
        if status is not None:
            raise CallFailed(f"failed to call webhook: {_status_message(status)}", status)
        body = answer.body[:_MAX_UNSTRUCTURED_TEXT]
        text = body.decode("utf-8", "replace").strip() if answer.content_type.startswith("text/") else "unknown"
        generic = _generic_server_response(answer.status, text)
        raise CallFailed(f"failed to call webhook: {generic['message']}", generic)
    if not answer.body:
        raise CallFailed(
            f"failed to call webhook: 0-length response with status code: {answer.status} "
            f"and content type: {answer.content_type}"
        )
    review = _decode_review(answer.body)
    if review.get("kind") == "Status" and review.get("apiVersion") in ("v1", "meta.k8s.io/v1"):
        if review.get("status") != "Success":
            raise CallFailed(f"failed to call webhook: {_status_message(review)}", review)
        review = {}
    response = _typed_response(review, version)
    if response is None:
        raise CallFailed("received invalid webhook response: webhook response was absent")
    if version == "v1beta1":
        patch = _patch_bytes(response["patch"]) if mutating and response.get("patch") else b""
        return AdmissionResponse(
            allowed=response.get("allowed") is True,
            patch=patch,
            patch_type="JSONPatch" if patch else "",
            result=response.get("status"),
            warnings=[item or "" for item in response.get("warnings") or []],
        )
    got_uid = response.get("uid") or ""
    if got_uid != uid:
        raise CallFailed(f'received invalid webhook response: expected response.uid="{uid}", got "{got_uid}"')
    api_version, kind = review.get("apiVersion") or "", review.get("kind") or ""
    if (api_version, kind) != (_V1, "AdmissionReview"):
        group, _, version = api_version.rpartition("/") if "/" in api_version else ("", "", api_version)
        raise CallFailed(
            "received invalid webhook response: expected webhook response of admission.k8s.io/v1, "
            f"Kind=AdmissionReview, got {group}/{version}, Kind={kind}"
        )
    patch_text, patch_type = response.get("patch"), response.get("patchType")
    patch = _patch_bytes(patch_text) if patch_text else b""
    if mutating:
        if patch and patch_type is None:
            raise CallFailed(
                "received invalid webhook response: webhook returned response.patch but not response.patchType"
            )
        if not patch and patch_type is not None:
            raise CallFailed(
                "received invalid webhook response: webhook returned response.patchType but not response.patch"
            )
        if patch_type is not None and not patch_type:
            raise CallFailed(
                f'received invalid webhook response: webhook returned invalid response.patchType of "{patch_type}"'
            )
    else:
        if patch:
            raise CallFailed("received invalid webhook response: validating webhook may not return response.patch")
        if patch_type is not None:
            raise CallFailed("received invalid webhook response: validating webhook may not return response.patchType")
    return AdmissionResponse(
        allowed=response.get("allowed") is True,
        patch=patch if mutating else b"",
        patch_type=str(patch_type or ""),
        result=response.get("status"),
        warnings=[item or "" for item in response.get("warnings") or []],
    )
