"""PATCH bodies turned into the new object, inside the store's update, as ``handlers/patch.go`` does.

The patch is applied to the object as currently stored, so a ``test`` op runs against exactly the
state being replaced. JSON patch: strict pre-decode (400 ``error decoding patch``), at most 10,000
ops (413), any library error the generic 422, a library panic the panic recovery's 500. Merge
patch: strict pre-decode, then ``Invalid JSON Patch`` (400). Strategic merge patch (built-ins
only): the map decode (400 with Go's raw text) and the patch's own errors. Then the result is
decoded as a request body would be (422 ``"" is invalid: patch: Invalid value: ...``), and its
name and namespace must still match the URL (400).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi._http.bodies import check_object_meta, coerce_builtin, coerce_custom_resource, convert_patched
from fakeapi._http.negotiation import JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH
from fakeapi._http.options import WriteOptions
from fakeapi._patching import (
    INVALID_JSON_PATCH,
    GoError,
    GoNumberRangeError,
    GoSyntaxError,
    MergeOutcome,
    PatchOutcome,
    PatchText,
    PreDecodeError,
    apply_patch,
    decode_patch,
    diagnose_failed_test,
    json_kind,
    merge_patch,
    normalize,
    predecode_json_patch,
    predecode_merge_patch,
)
from fakeapi._state.resources import ResourceType
from fakeapi._state.typed import GoStructs
from fakeapi._state.validation import field
from fakeapi.errors import GENERIC_INVALID_MESSAGE, APIError, GroupResource

__all__ = ["ApiserverPanic", "PatchContext", "compute_patch"]

MAX_JSON_PATCH_OPERATIONS = 10000
JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024
PANIC_MESSAGE = "This request caused apiserver to panic. Look in the logs for details."
_NO_KIND = GroupResource("", "")


class ApiserverPanic(Exception):
    """json-patch panicked; the apiserver's panic recovery answers a plain-text 500."""


class PatchContext:
    """What a patch computation reports besides the new object."""

    def __init__(self, structs: GoStructs, encoding_of: Callable[[dict[str, Any]], bytes] | None = None) -> None:
        # The server's Go types: the patched object is decoded into them.
        self.structs = structs
        self.warnings: list[str] = []
        self.diagnoses: list[str] = []
        self._encoding_of = encoding_of

    def document_encoding(self, document: dict[str, Any]) -> bytes | None:
        """The stored encoding of the patched document, when the store has it at hand."""
        return self._encoding_of(document) if self._encoding_of is not None else None


def _invalid_patch(patched_json: bytes, problem: str) -> APIError:
    cause = field.invalid("patch", patched_json.decode("utf-8", "replace"), problem).cause()
    return APIError.invalid(_NO_KIND, "", [cause])


def decode_patched(
    rtype: ResourceType, value: Any, patched_json: Callable[[], bytes], options: WriteOptions, context: PatchContext
) -> dict[str, Any]:
    """``runtime.DecodeInto`` of the patched JSON: what a body with that content would decode to."""
    if not isinstance(value, dict):
        target = (
            'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
        )
        if value is None:
            raise _invalid_patch(patched_json(), f"Object 'Kind' is missing in '{patched_json().decode()}'")
        raise _invalid_patch(
            patched_json(),
            f"couldn't get version/kind; json parse error: json: cannot unmarshal {json_kind(value)} into Go value of type {target}",
        )
    for key in ("apiVersion", "kind"):
        if value.get(key) is not None and not isinstance(value[key], str):
            raise _invalid_patch(
                patched_json(),
                f"couldn't get version/kind; json parse error: json: cannot unmarshal {json_kind(value[key])} "
                f"into Go struct field .{key} of type string",
            )
    if not value.get("kind"):
        raise _invalid_patch(
            patched_json(), f"Object 'Kind' is missing in '{patched_json().decode('utf-8', 'replace')}'"
        )

    def fail(problem: str) -> APIError:
        return _invalid_patch(patched_json(), problem)

    strict: list[str] = []
    if not rtype.custom:
        value, strict, problem = coerce_builtin(rtype, value, context.structs)
        if problem is not None:
            raise fail(problem)
    checked, unknown = check_object_meta(value, fail)
    if rtype.custom:
        strict = unknown
    coerced, pruned, problem = coerce_custom_resource(rtype, checked)
    if problem is not None:
        raise fail(problem)
    strict = strict + pruned
    if strict:
        if options.field_validation == "Strict":
            raise _invalid_patch(patched_json(), "strict decoding error: " + ", ".join(strict))
        if options.field_validation == "Warn":
            context.warnings.extend(strict)
    return coerced


def _patched_object(
    rtype: ResourceType,
    current: dict[str, Any],
    outcome: PatchOutcome | MergeOutcome,
    strict: list[str],
    options: WriteOptions,
    context: PatchContext,
) -> dict[str, Any]:
    """What a JSON or merge patch that applied leaves: strict-decoding errors first, then the object."""
    if strict:
        if options.field_validation == "Strict":
            raise _invalid_patch(outcome.marshal(), "strict decoding error: " + ", ".join(strict))
        context.warnings.extend(strict)
    try:
        value = outcome.value(context.document_encoding(current))
    except (GoNumberRangeError, GoSyntaxError) as error:
        raise _invalid_patch(outcome.marshal(), str(error)) from None
    return decode_patched(rtype, value, outcome.marshal, options, context)


def _json_patch(
    rtype: ResourceType, body: bytes, options: WriteOptions, context: PatchContext
) -> Callable[[dict[str, Any]], Any]:
    def compute(current: dict[str, Any]) -> Any:
        if options.field_validation in ("Warn", "Strict"):
            try:
                predecoded = predecode_json_patch(body)
            except PreDecodeError as error:
                raise APIError.bad_request(f"error decoding patch: {error}") from None
            strict = [f"json patch {error}" for error in predecoded.strict_errors]
            text = predecoded.text
        else:
            strict = []
            try:
                text = PatchText(body)
            except GoSyntaxError as error:
                raise APIError.bad_request(str(error)) from None
        try:
            patch = decode_patch(text)
        except (GoError, GoSyntaxError) as error:
            raise APIError.bad_request(str(error)) from None
        if len(patch) > MAX_JSON_PATCH_OPERATIONS:
            raise APIError.too_large(
                f"The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {len(patch)}"
            )
        outcome = apply_patch(current, patch, copy_limit=JSON_PATCH_MAX_COPY_BYTES)
        for path, actual, expected in outcome.failed_tests:
            diagnosis = diagnose_failed_test(path, actual, expected)
            if diagnosis is not None:
                context.diagnoses.append(diagnosis.summary())
        if outcome.panic is not None:
            raise ApiserverPanic(outcome.panic)
        if outcome.error is not None:
            context.warnings.extend(context.diagnoses)
            raise APIError.generic(422, "Invalid", GENERIC_INVALID_MESSAGE)
        return _patched_object(rtype, current, outcome, strict, options, context)

    return compute


def _merge_patch(
    rtype: ResourceType, body: bytes, options: WriteOptions, context: PatchContext
) -> Callable[[dict[str, Any]], Any]:
    def compute(current: dict[str, Any]) -> Any:
        if options.field_validation in ("Warn", "Strict"):
            try:
                predecoded = predecode_merge_patch(body)
            except PreDecodeError as error:
                raise APIError.bad_request(f"error decoding patch: {error}") from None
            text: bytes | PatchText = predecoded.text
            strict = list(predecoded.strict_errors)
        else:
            text, strict = body, []
        outcome = merge_patch(current, text)
        if outcome.panic is not None:
            raise ApiserverPanic(outcome.panic)
        if outcome.error == INVALID_JSON_PATCH:
            raise APIError.bad_request(INVALID_JSON_PATCH)
        if outcome.error is not None:
            raise APIError.internal(outcome.error)
        return _patched_object(rtype, current, outcome, strict, options, context)

    return compute


def _strategic_merge_patch(
    rtype: ResourceType, body: bytes, options: WriteOptions, context: PatchContext
) -> Callable[[dict[str, Any]], Any]:
    """``strategicPatchObject``: the strict map decode, ``StrategicMergeMapPatch`` with the kind's
    struct as schema, then ``FromUnstructuredWithValidation`` into the kind's Go type
    (docs/strategic-merge-patch.md)."""
    # Loaded with the first strategic merge patch (kubectl's): most sessions never send one.
    from fakeapi._patching.patchmeta import PLAIN
    from fakeapi._patching.smp import StrategicMergeError, StrategicMergePanic, strategic_merge_patch
    from fakeapi._state.typed.patchmeta import kind_patch_meta

    meta = kind_patch_meta(context.structs, rtype.api_version, rtype.kind) or PLAIN
    collect_unknown = options.field_validation in ("Warn", "Strict")

    def compute(current: dict[str, Any]) -> Any:
        try:
            predecoded = predecode_merge_patch(body)
        except PreDecodeError as error:
            raise APIError.bad_request(str(error)) from None
        patch = normalize(predecoded.text.value)
        if patch is None:
            return current
        try:
            value = strategic_merge_patch(current, patch, meta, consume_patch=True)
        except StrategicMergePanic as error:
            raise ApiserverPanic(error.message) from None
        except StrategicMergeError as error:
            if error.code == 422:
                raise APIError.generic(422, "Invalid", GENERIC_INVALID_MESSAGE) from None
            if error.code == 400:
                raise APIError.bad_request(error.message) from None
            raise APIError.internal(error.message) from None
        converted = convert_patched(rtype, value, context.structs, collect_unknown=collect_unknown)
        if converted is None:
            return value
        typed, problem = converted
        if problem is not None:
            raise _invalid_patch_map(patch, problem)
        strict = list(predecoded.strict_errors) if collect_unknown else []
        strict += typed.unknown
        if strict:
            if options.field_validation == "Strict":
                raise _invalid_patch_map(patch, "strict decoding error: " + ", ".join(strict))
            context.warnings.extend(strict)
        return typed.value

    return compute


def _invalid_patch_map(patch: dict[str, Any], problem: str) -> APIError:
    """``field.Invalid(field.NewPath("patch"), fmt.Sprintf("%+v", patchMap), ...)``."""
    from fakeapi._patching.govalues import format_value

    cause = field.invalid("patch", format_value(patch), problem).cause()
    return APIError.invalid(_NO_KIND, "", [cause])


def compute_patch(
    rtype: ResourceType, media_type: str, body: bytes, options: WriteOptions, context: PatchContext
) -> Callable[[dict[str, Any]], Any]:
    if media_type == JSON_PATCH:
        return _json_patch(rtype, body, options, context)
    if media_type == MERGE_PATCH:
        return _merge_patch(rtype, body, options, context)
    if media_type == STRATEGIC_MERGE_PATCH:
        return _strategic_merge_patch(rtype, body, options, context)
    raise AssertionError(f"unexpected patch type {media_type}")
