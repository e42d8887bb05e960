"""Rows of deployments and jobs: replica counts, job state and duration, containers, images, selector.

Reproduced from kube-apiserver 1.32 ``pkg/printers/internalversion/printers.go`` (``printDeployment``,
``printJob``, wide), with the selector written as ``metav1.LabelSelectorAsSelector(s).String()``
(apimachinery ``pkg/labels/selector.go``): requirements sorted by key, values sorted.
"""

from __future__ import annotations

from typing import Any

from fakeapi._state.tables.columns import AGE_COLUMN, NAME_COLUMN, Printer, column
from fakeapi._state.tables.durations import NANOS, age, human_nanos, parse_time
from fakeapi._state.tables.fields import Obj, as_int, as_list, as_obj, as_str, dicts, metadata, nested

__all__ = ["DEPLOYMENT_PRINTER", "JOB_PRINTER"]

_DOCS = {
    "deployment.updatedReplicas": (
        "Total number of non-terminated pods targeted by this deployment that have the desired template spec."
    ),
    "deployment.availableReplicas": (
        "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."
    ),
    "deployment.selector": (
        "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected "
        "by this deployment."
    ),
    "job.succeeded": (
        "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. "
        "However, it may decrease in reaction to scale down of elastic indexed jobs."
    ),
    "job.selector": (
        "A label query over pods that should match the pod count. Normally, the system sets this field for you. "
        "More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
    ),
}
CONTAINERS_DOC = "Names of each container in the template."
IMAGES_DOC = "Images referenced by each container in the template."


def _deployment_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = as_obj(obj.get("spec")), as_obj(obj.get("status"))
    selector = _selector_string(spec.get("selector"))
    return [
        metadata(obj).get("name", ""),
        f"{as_int(status.get('readyReplicas'))}/{as_int(spec.get('replicas'))}",
        as_int(status.get("updatedReplicas")),
        as_int(status.get("availableReplicas")),
        age(obj, now_ns),
        *_containers_and_images(nested(spec, "template", "spec")),
        "<invalid>" if selector is None else selector,
    ]


def _job_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = as_obj(obj.get("spec")), as_obj(obj.get("status"))
    succeeded = as_int(status.get("succeeded"))
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{as_int(spec.get('completions'))}"
    elif as_int(spec.get("parallelism")) > 1:
        completions = f"{succeeded}/1 of {as_int(spec.get('parallelism'))}"
    else:
        completions = f"{succeeded}/1"
    start, completion = parse_time(status.get("startTime")), parse_time(status.get("completionTime"))
    duration = ""
    if start is not None:
        end = now_ns if completion is None else completion[0] * NANOS + completion[1]
        duration = human_nanos(end - (start[0] * NANOS + start[1]))
    conditions = dicts(status.get("conditions"))

    def has(kind: str) -> bool:
        matching = [c for c in conditions if c.get("type") == kind]
        return bool(matching) and matching[0].get("status") == "True"

    if has("Complete"):
        state = "Complete"
    elif has("Failed"):
        state = "Failed"
    elif metadata(obj).get("deletionTimestamp") is not None:
        state = "Terminating"
    else:
        state = next((kind for kind in ("Suspended", "FailureTarget") if has(kind)), "Running")
    selector = _selector_string(spec.get("selector"))
    return [
        metadata(obj).get("name", ""),
        state,
        completions,
        duration,
        age(obj, now_ns),
        *_containers_and_images(nested(spec, "template", "spec")),
        "<error>" if selector is None else selector or "<none>",
    ]


def _selector_string(selector: Any) -> str | None:
    """``metav1.LabelSelectorAsSelector(s).String()``; ``None`` when the selector is invalid."""
    if not isinstance(selector, dict):
        return ""
    requirements: list[tuple[str, str]] = []
    match_labels = selector.get("matchLabels")
    for key, value in (match_labels if isinstance(match_labels, dict) else {}).items():
        requirements.append((key, f"{key}={value}"))
    for expression in dicts(selector.get("matchExpressions")):
        key, operator = as_str(expression.get("key")), expression.get("operator")
        values = sorted(as_str(value) for value in as_list(expression.get("values")))
        if operator in ("In", "NotIn") and values:
            word = "in" if operator == "In" else "notin"
            requirements.append((key, f"{key} {word} ({','.join(values)})"))
        elif operator == "Exists" and not values:
            requirements.append((key, key))
        elif operator == "DoesNotExist" and not values:
            requirements.append((key, f"!{key}"))
        else:
            return None
    return ",".join(text for _, text in sorted(requirements, key=lambda requirement: requirement[0]))


def _containers_and_images(pod_spec: Any) -> list[str]:
    containers = dicts(nested(pod_spec, "containers"))
    return [",".join(as_str(c.get("name")) for c in containers), ",".join(as_str(c.get("image")) for c in containers)]


_CONTAINER_COLUMNS = (
    column("Containers", "string", CONTAINERS_DOC, priority=1),
    column("Images", "string", IMAGES_DOC, priority=1),
)
DEPLOYMENT_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Ready", "string", "Number of the pod with ready state"),
        column("Up-to-date", "string", _DOCS["deployment.updatedReplicas"]),
        column("Available", "string", _DOCS["deployment.availableReplicas"]),
        AGE_COLUMN,
        *_CONTAINER_COLUMNS,
        column("Selector", "string", _DOCS["deployment.selector"], priority=1),
    ),
    _deployment_cells,
)

JOB_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Status", "string", "Status of the job."),
        column("Completions", "string", _DOCS["job.succeeded"]),
        column("Duration", "string", "Time required to complete the job."),
        AGE_COLUMN,
        *_CONTAINER_COLUMNS,
        column("Selector", "string", _DOCS["job.selector"], priority=1),
    ),
    _job_cells,
)
