"""``webhookConverter.Convert`` for one object (``apiextensions-apiserver/.../conversion/webhook_converter.go``).

The object goes out in a ConversionReview (``v1``, or ``v1beta1`` when the CRD's
``conversionReviewVersions`` names it first), with a new request uid; the answer is read as the
webhook client reads it (:mod:`fakeapi._state.webhook_client`), then checked: the review's kind,
the uid, the result, the count of converted objects, the converted object's apiVersion and kind,
its identity and its metadata (:mod:`.object_meta`). Every refusal is the upstream error text.
docs/conversion.md, "Webhook".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fakeapi._patching.godecode import decode
from fakeapi._patching.goencode import encode, encode_string
from fakeapi._patching.goscanner import GoSyntaxError
from fakeapi._patching.gostrconv import quote
from fakeapi._state.conversion.object_meta import restore_object_meta, validate_converted_object
from fakeapi._state.webhook_client import HookError, HookResponse, unexpected_response_error

__all__ = ["ConversionError", "Post", "convert_by_webhook", "review_body"]

Post = Callable[[bytes], Awaitable[HookResponse]]
REVIEW_GROUP = "apiextensions.k8s.io"


class ConversionError(Exception):
    """A conversion the apiserver refuses, with its error text."""


def review_version(review_versions: tuple[str, ...]) -> str:
    """``createConversionReviewObjects``: the first of the CRD's versions this server speaks."""
    for version in review_versions:
        if version in ("v1beta1", "v1"):
            return version
    raise ConversionError("no supported conversion review versions")


def review_body(version: str, uid: str, desired_api_version: str, objects: list[dict[str, Any]]) -> bytes:
    """The ConversionReview as the webhook client's codec writes it: TypeMeta first, then the
    request, then the empty response the apiserver sends along."""
    return (
        b'{"kind":"ConversionReview","apiVersion":"'
        + f"{REVIEW_GROUP}/{version}".encode()
        + b'","request":{"uid":'
        + encode_string(uid)
        + b',"desiredAPIVersion":'
        + encode_string(desired_api_version)
        + b',"objects":['
        + b",".join(encode(obj) for obj in objects)
        + b']},"response":{"uid":"","convertedObjects":null,"result":{"metadata":{}}}}'
    )


def gvk_text(api_version: str, kind: str) -> str:
    """``GroupVersionKind.String`` of an object's apiVersion and kind."""
    group, version = _group_version(api_version)
    return f"{group}/{version}, Kind={kind}"


def _group_version(api_version: str) -> tuple[str, str]:
    """``schema.ParseGroupVersion``; unparsable is the empty GroupVersion, as ``GroupVersionKind()`` has it."""
    if not api_version:
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    return "", ""


def _gv_text(api_version: str) -> str:
    group, version = _group_version(api_version)
    return f"{group}/{version}" if group else version


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array"


def _decoded_review(response: HookResponse, sent_version: str) -> dict[str, Any]:
    """``Result.Into(&ConversionReview{})``: the review, or the client's error text."""
    if not 200 <= response.status <= 206:
        raise ConversionError(unexpected_response_error(response))
    if not response.body:
        raise ConversionError(
            f"0-length response with status code: {response.status} and content type: {response.content_type}"
        )
    try:
        value = decode(response.body, mark_numbers=False)
    except GoSyntaxError as error:
        raise ConversionError(f"couldn't get version/kind; json parse error: {error}") from None
    except ValueError as error:
        raise ConversionError(str(error)) from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConversionError(
            f"couldn't get version/kind; json parse error: json: cannot unmarshal {_json_kind(value)} "
            'into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
            'Kind string "json:\\"kind,omitempty\\"" }'
        )
    api_version, kind = value.get("apiVersion"), value.get("kind")
    if kind == "ConversionReview" and isinstance(api_version, str):
        other = _group_version(api_version)
        if other[0] == REVIEW_GROUP and other[1] in ("v1", "v1beta1") and other[1] != sent_version:
            raise ConversionError(
                f"converting ({other[1]}.ConversionReview) to ({sent_version}.ConversionReview): unknown conversion"
            )
    return value


def _converted_objects(review: dict[str, Any], sent_version: str, uid: str) -> list[Any]:
    """``getConvertedObjectsFromResponse``."""
    if sent_version == "v1":
        api_version, kind = review.get("apiVersion"), review.get("kind")
        got = gvk_text(api_version if isinstance(api_version, str) else "", kind if isinstance(kind, str) else "")
        expected = f"{REVIEW_GROUP}/v1, Kind=ConversionReview"
        if got != expected:
            raise ConversionError(f"expected webhook response of {expected}, got {got}")
    answer = review.get("response")
    if not isinstance(answer, dict):
        raise ConversionError("no response provided")
    if sent_version == "v1":
        answered_uid = answer.get("uid")
        answered_uid = answered_uid if isinstance(answered_uid, str) else ""
        if answered_uid != uid:
            raise ConversionError(f"expected response.uid={quote(uid)}, got {quote(answered_uid)}")
    result = answer.get("result")
    result = result if isinstance(result, dict) else {}
    status = result.get("status") if isinstance(result.get("status"), str) else ""
    if status != "Success":
        message = result.get("message")
        if isinstance(message, str) and message:
            raise ConversionError(message)
        raise ConversionError(f"response.result.status was '{status}', not 'Success'")
    objects = answer.get("convertedObjects")
    return objects if isinstance(objects, list) else []


def _raw_object(item: Any) -> dict[str, Any]:
    """``getRawExtensionObject``: an item as an unstructured object."""
    if item is None:
        raise ConversionError("unexpected end of JSON input")
    if not isinstance(item, dict):
        raise ConversionError(
            f"json: cannot unmarshal {_json_kind(item)} into Go value of type map[string]interface {{}}"
        )
    kind = item.get("kind")
    if not isinstance(kind, str) or not kind:
        raise ConversionError(f"Object 'Kind' is missing in '{encode(item, in_order=True).decode()}'")
    return item


async def convert_by_webhook(
    obj: dict[str, Any],
    desired_api_version: str,
    review_versions: tuple[str, ...],
    post: Post,
    uid: str,
) -> dict[str, Any]:
    """``webhookConverter.Convert`` of one object not yet at ``desired_api_version``."""
    version = review_version(review_versions)
    source = gvk_text(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
    try:
        response = await post(review_body(version, uid, desired_api_version, [obj]))
        review = _decoded_review(response, version)
        converted_objects = _converted_objects(review, version, uid)
    except (HookError, ConversionError) as error:
        raise ConversionError(f"conversion webhook for {source} failed: {error}") from None
    if len(converted_objects) != 1:
        raise ConversionError(f"conversion webhook for {source} returned {len(converted_objects)} objects, expected 1")
    converted = _raw_object(converted_objects[0])
    api_version = converted.get("apiVersion")
    got = _gv_text(api_version if isinstance(api_version, str) else "")
    if got != _gv_text(desired_api_version):
        raise ConversionError(
            f"conversion webhook for {source} returned invalid object at index 0: invalid groupVersion "
            f"(expected {_gv_text(desired_api_version)}, received {got})"
        )
    if converted.get("kind") != obj.get("kind"):
        raise ConversionError(
            f"conversion webhook for {source} returned invalid object at index 0: invalid kind "
            f"(expected {obj.get('kind')}, received {converted.get('kind')})"
        )
    problem = validate_converted_object(obj, converted)
    if problem is not None:
        raise ConversionError(f"conversion webhook for {source} returned invalid object: {problem}")
    problem = restore_object_meta(obj, converted)
    if problem is not None:
        raise ConversionError(f"conversion webhook for {source} returned invalid metadata: {problem}")
    return converted
