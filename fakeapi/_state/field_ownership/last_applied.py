"""kubectl's ``last-applied-configuration`` annotation in server-side applies by the manager ``kubectl``.

Two managers of apimachinery's field manager chain (``util/managedfields/internal``,
docs/server-side-apply.md "From client-side to server-side apply") exist so that ``kubectl apply
--server-side`` can take over an object ``kubectl apply`` made:

- ``lastAppliedManager.Apply``: an apply by ``kubectl`` that conflicts is retried with force when
  every conflicting field is one the annotation records with the value the object still has
  (:func:`allowed_conflicts`); otherwise the conflicts outside that set are the answer.
- ``lastAppliedUpdater.Apply``: after an apply by ``kubectl``, an object that has the annotation gets
  it rewritten to the applied configuration as sent (:func:`with_last_applied`), or loses it when
  the annotations would pass 256 KiB; the field sets are computed before and do not see it.
"""

from __future__ import annotations

from typing import Any

from fakeapi._patching.godecode import GoNumberRangeError, GoSyntaxError, decode
from fakeapi._patching.goencode import encode
from fakeapi._patching.gofloat import GoFloat
from fakeapi._state.field_ownership.fieldpath import FieldSet
from fakeapi._state.field_ownership.schema import Atom
from fakeapi._state.field_ownership.typed import TypedError, compare, conversion_refused, field_set, list_errors

__all__ = ["KUBECTL_MANAGER", "LAST_APPLIED", "allowed_conflicts", "with_last_applied"]

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# Both managers act only for this field manager name, kubectl's default for --server-side.
KUBECTL_MANAGER = "kubectl"
# ``TotalAnnotationSizeLimitB`` of apimachinery ``api/validation/objectmeta.go``.
ANNOTATIONS_SIZE_LIMIT = 256 * 1024


def _annotations(obj: dict[str, Any]) -> Any:
    meta = obj.get("metadata")
    return meta.get("annotations") if isinstance(meta, dict) else None


def _last_applied_object(text: str) -> dict[str, Any] | None:
    """``json.Unmarshal`` into an ``Unstructured``: a JSON object with a ``kind``, or nothing."""
    try:
        value = decode(text.encode("utf-8", "surrogatepass"))
    except (GoSyntaxError, GoNumberRangeError):
        return None
    if not isinstance(value, dict):
        return None
    api_version = value.get("apiVersion")
    kind = value.get("kind")
    # ``ParseGroupVersion`` refuses a second slash, and the kind it then reads is empty.
    if not isinstance(kind, str) or not kind or (isinstance(api_version, str) and api_version.count("/") > 1):
        return None
    return value


def allowed_conflicts(live: dict[str, Any], atom: Atom, *, api_version: str) -> FieldSet | None:
    """``allowedConflictsFromLastApplied``: the annotation's fields whose value is still the live one.

    Nothing (the conflicts stand) when the annotation is missing or empty, is not an object of the
    request's apiVersion and the live object's kind, or does not convert to a typed value.
    """
    annotations = _annotations(live)
    text = annotations.get(LAST_APPLIED) if isinstance(annotations, dict) else None
    if not isinstance(text, str) or not text:
        return None
    last = _last_applied_object(text)
    if last is None or last.get("apiVersion") != api_version or last.get("kind") != live.get("kind"):
        return None
    # The live object is a typed Go struct there: only a repeated list key keeps it from converting.
    if conversion_refused(last, atom) or list_errors(live, atom):
        return None
    try:
        fields = field_set(last, atom)
        comparison = compare(last, live, atom)
    except TypedError:
        return None
    return fields - comparison.modified - comparison.added - comparison.removed


def _as_decoded(value: Any) -> Any:
    """The applied configuration as ``yaml.Unmarshal`` leaves it: every number a float64."""
    if isinstance(value, dict):
        return {key: _as_decoded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_decoded(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return GoFloat(value)
    return value


def _annotation_text(applied: dict[str, Any]) -> str:
    """``buildLastApplied``: the applied configuration without the annotation, as
    ``UnstructuredJSONScheme`` encodes it (sorted keys, HTML escaped, a newline at the end)."""
    config = dict(applied)
    meta = config.get("metadata")
    if isinstance(meta, dict):
        annotations = meta.get("annotations")
        # ``GetAnnotations`` reads anything but a map of strings as none, and ``SetAnnotations(nil)`` drops the key.
        if isinstance(annotations, dict) and all(isinstance(item, str) for item in annotations.values()):
            kept = {key: item for key, item in annotations.items() if key != LAST_APPLIED}
            config["metadata"] = {**meta, "annotations": kept}
        elif "annotations" in meta:
            config["metadata"] = {key: item for key, item in meta.items() if key != "annotations"}
    return (encode(_as_decoded(config)) + b"\n").decode("utf-8", "surrogatepass")


def _size(annotations: dict[str, str]) -> int:
    return sum(
        len(key.encode("utf-8", "surrogatepass")) + len(item.encode("utf-8", "surrogatepass"))
        for key, item in annotations.items()
    )


def with_last_applied(result: dict[str, Any], applied: dict[str, Any], manager: str) -> dict[str, Any]:
    """``lastAppliedUpdater.Apply``: ``result`` of an apply by ``manager`` of ``applied`` (the body as
    decoded, before the request's namespace is set in it), its annotation brought up to date."""
    annotations = _annotations(result)
    if manager != KUBECTL_MANAGER or not isinstance(annotations, dict) or not annotations.get(LAST_APPLIED):
        return result
    updated = {**annotations, LAST_APPLIED: _annotation_text(applied)}
    if _size(updated) > ANNOTATIONS_SIZE_LIMIT:
        del updated[LAST_APPLIED]
    return {**result, "metadata": {**result["metadata"], "annotations": updated}}
