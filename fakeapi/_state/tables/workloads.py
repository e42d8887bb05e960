"""Rows of the workload kinds: replica counts, job state and duration, schedules, containers, images, selector.

Reproduced from kube-apiserver 1.32 ``pkg/printers/internalversion/printers.go`` (``printDeployment``,
``printReplicaSet``, ``printStatefulSet``, ``printDaemonSet``, ``printReplicationController``,
``printJob``, ``printCronJob``, ``printPodTemplate``, ``printControllerRevision``, always wide), with
the selector written as ``metav1.LabelSelectorAsSelector(s).String()`` (apimachinery
``pkg/labels/selector.go``): requirements sorted by key, values sorted; ``FormatLabelSelector``
writes an empty one as ``<none>`` and an invalid one as ``<error>``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi._state.tables.columns import AGE_COLUMN, NAME_COLUMN, Cells, Printer, column
from fakeapi._state.tables.durations import NANOS, age, human_nanos, parse_time, since
from fakeapi._state.tables.fields import Obj, as_int, as_list, as_obj, as_str, dicts, metadata, nested
from fakeapi._state.tables.labels import format_labels
from fakeapi._state.tables.swagger_docs import SWAGGER_DOCS

__all__ = [
    "CONTROLLER_REVISION_PRINTER",
    "CRON_JOB_PRINTER",
    "DAEMON_SET_PRINTER",
    "DEPLOYMENT_PRINTER",
    "JOB_PRINTER",
    "POD_TEMPLATE_PRINTER",
    "REPLICATION_CONTROLLER_PRINTER",
    "REPLICA_SET_PRINTER",
    "STATEFUL_SET_PRINTER",
    "format_label_selector",
]

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
    return [
        metadata(obj).get("name", ""),
        state,
        completions,
        duration,
        age(obj, now_ns),
        *_containers_and_images(nested(spec, "template", "spec")),
        format_label_selector(spec.get("selector")),
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


def format_label_selector(selector: Any) -> str:
    """``metav1.FormatLabelSelector``: ``<none>`` for no requirements, ``<error>`` for an invalid selector."""
    text = _selector_string(selector)
    return "<error>" if text is None else text or "<none>"


def _replica_cells(selector: Callable[[Any], str]) -> Cells:
    """The rows of a ReplicaSet or a ReplicationController, which differ only in how the selector prints."""

    def cells(obj: Obj, now_ns: int) -> list[Any]:
        spec, status = as_obj(obj.get("spec")), as_obj(obj.get("status"))
        return [
            metadata(obj).get("name", ""),
            as_int(spec.get("replicas")),
            as_int(status.get("replicas")),
            as_int(status.get("readyReplicas")),
            age(obj, now_ns),
            *_containers_and_images(nested(spec, "template", "spec")),
            selector(spec.get("selector")),
        ]

    return cells


def _stateful_set_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = as_obj(obj.get("spec")), as_obj(obj.get("status"))
    return [
        metadata(obj).get("name", ""),
        f"{as_int(status.get('readyReplicas'))}/{as_int(spec.get('replicas'))}",
        age(obj, now_ns),
        *_containers_and_images(nested(spec, "template", "spec")),
    ]


def _daemon_set_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = as_obj(obj.get("spec")), as_obj(obj.get("status"))
    return [
        metadata(obj).get("name", ""),
        as_int(status.get("desiredNumberScheduled")),
        as_int(status.get("currentNumberScheduled")),
        as_int(status.get("numberReady")),
        as_int(status.get("updatedNumberScheduled")),
        as_int(status.get("numberAvailable")),
        format_labels(nested(spec, "template", "spec", "nodeSelector")),
        age(obj, now_ns),
        *_containers_and_images(nested(spec, "template", "spec")),
        format_label_selector(spec.get("selector")),
    ]


def _cron_job_cells(obj: Obj, now_ns: int) -> list[Any]:
    spec, status = as_obj(obj.get("spec")), as_obj(obj.get("status"))
    last = status.get("lastScheduleTime")
    suspend = spec.get("suspend")
    job_spec = nested(spec, "jobTemplate", "spec")
    return [
        metadata(obj).get("name", ""),
        as_str(spec.get("schedule")),
        spec["timeZone"] if isinstance(spec.get("timeZone"), str) else "<none>",
        # ``printBoolPtr``: a nil pointer prints as <unset>.
        ("True" if suspend else "False") if isinstance(suspend, bool) else "<unset>",
        len(as_list(status.get("active"))),
        "<none>" if last is None else since(parse_time(last), now_ns),
        age(obj, now_ns),
        *_containers_and_images(nested(job_spec, "template", "spec")),
        format_label_selector(nested(job_spec, "selector")),
    ]


def _pod_template_cells(obj: Obj, now_ns: int) -> list[Any]:
    template = as_obj(obj.get("template"))
    return [
        metadata(obj).get("name", ""),
        *_containers_and_images(nested(template, "spec")),
        format_labels(nested(template, "metadata", "labels")),
    ]


def _controller_revision_cells(obj: Obj, now_ns: int) -> list[Any]:
    owner = next((ref for ref in dicts(metadata(obj).get("ownerReferences")) if ref.get("controller") is True), None)
    controller = "<none>"
    if owner is not None:
        group = as_str(owner.get("apiVersion")).rpartition("/")[0]
        kind = as_str(owner.get("kind"))
        group_kind = f"{kind}.{group}" if group else kind
        controller = f"{group_kind.lower()}/{as_str(owner.get('name'))}" if kind or group else as_str(owner.get("name"))
    return [metadata(obj).get("name", ""), controller, as_int(obj.get("revision")), age(obj, now_ns)]


def _doc(key: str) -> str:
    return SWAGGER_DOCS[key]


REPLICA_SET_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Desired", "integer", _doc("extensions.v1beta1.ReplicaSetSpec.replicas")),
        column("Current", "integer", _doc("extensions.v1beta1.ReplicaSetStatus.replicas")),
        column("Ready", "integer", _doc("extensions.v1beta1.ReplicaSetStatus.readyReplicas")),
        AGE_COLUMN,
        *_CONTAINER_COLUMNS,
        column("Selector", "string", _doc("extensions.v1beta1.ReplicaSetSpec.selector"), priority=1),
    ),
    _replica_cells(format_label_selector),
)

REPLICATION_CONTROLLER_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Desired", "integer", _doc("core.v1.ReplicationControllerSpec.replicas")),
        column("Current", "integer", _doc("core.v1.ReplicationControllerStatus.replicas")),
        column("Ready", "integer", _doc("core.v1.ReplicationControllerStatus.readyReplicas")),
        AGE_COLUMN,
        *_CONTAINER_COLUMNS,
        column("Selector", "string", _doc("core.v1.ReplicationControllerSpec.selector"), priority=1),
    ),
    _replica_cells(format_labels),
)

STATEFUL_SET_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Ready", "string", "Number of the pod with ready state"),
        AGE_COLUMN,
        *_CONTAINER_COLUMNS,
    ),
    _stateful_set_cells,
)

DAEMON_SET_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Desired", "integer", _doc("extensions.v1beta1.DaemonSetStatus.desiredNumberScheduled")),
        column("Current", "integer", _doc("extensions.v1beta1.DaemonSetStatus.currentNumberScheduled")),
        column("Ready", "integer", _doc("extensions.v1beta1.DaemonSetStatus.numberReady")),
        column("Up-to-date", "integer", _doc("extensions.v1beta1.DaemonSetStatus.updatedNumberScheduled")),
        column("Available", "integer", _doc("extensions.v1beta1.DaemonSetStatus.numberAvailable")),
        column("Node Selector", "string", _doc("core.v1.PodSpec.nodeSelector")),
        AGE_COLUMN,
        *_CONTAINER_COLUMNS,
        column("Selector", "string", _doc("extensions.v1beta1.DaemonSetSpec.selector"), priority=1),
    ),
    _daemon_set_cells,
)

CRON_JOB_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Schedule", "string", _doc("batch.v1beta1.CronJobSpec.schedule")),
        column("Timezone", "string", _doc("batch.v1beta1.CronJobSpec.timeZone")),
        column("Suspend", "boolean", _doc("batch.v1beta1.CronJobSpec.suspend")),
        column("Active", "integer", _doc("batch.v1beta1.CronJobStatus.active")),
        column("Last Schedule", "string", _doc("batch.v1beta1.CronJobStatus.lastScheduleTime")),
        AGE_COLUMN,
        *_CONTAINER_COLUMNS,
        column("Selector", "string", _DOCS["job.selector"], priority=1),
    ),
    _cron_job_cells,
)

POD_TEMPLATE_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Containers", "string", CONTAINERS_DOC),
        column("Images", "string", IMAGES_DOC),
        column("Pod Labels", "string", "The labels for the pod template."),
    ),
    _pod_template_cells,
)

CONTROLLER_REVISION_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Controller", "string", "Controller of the object"),
        column("Revision", "string", _doc("apps.v1beta1.ControllerRevision.revision")),
        AGE_COLUMN,
    ),
    _controller_revision_cells,
)
