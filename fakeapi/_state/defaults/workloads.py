"""Defaults of the workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job), beyond their pod template.

Reproduced from kube-apiserver 1.32: ``pkg/apis/apps/v1/defaults.go`` ``SetDefaults_Deployment``
(replicas, strategy, revision history, progress deadline), ``SetDefaults_ReplicaSet`` (replicas),
``SetDefaults_StatefulSet`` (pod management, update strategy and partition, the claim retention
policy of the StatefulSetAutoDeletePVC gate, on in 1.32, replicas, revision history) with its claim
templates' ``SetDefaults_PersistentVolumeClaim`` (phase Pending) and ``volumeMode: Filesystem``,
``SetDefaults_DaemonSet`` (a rolling update of one pod, no surge, revision history);
``pkg/apis/batch/v1/defaults.go``
``SetDefaults_CronJob`` (concurrency Allow, not suspended, three successful and one failed Job kept;
the job template's pod template defaulted, not its Job spec) and ``SetDefaults_Job`` (completions, parallelism, backoff limit, completion mode, pod failure and
replacement policies), ``pkg/registry/batch/job/strategy.go`` ``generateSelector`` (template labels
and a selector keyed on the Job's uid) and the Job's labels copied from its template; a status
struct is always written (``"status":{}``), reset on create.
"""

from __future__ import annotations

from fakeapi._state.defaults.fields import Obj, default, default_if_absent, items, sub
from fakeapi._state.defaults.pods import template_defaults

__all__ = [
    "cron_job_defaults",
    "daemon_set_defaults",
    "deployment_defaults",
    "job_defaults",
    "replica_set_defaults",
    "stateful_set_defaults",
]

MAX_INT32 = 2**31 - 1


def deployment_defaults(deployment: Obj, creating: bool | None) -> None:
    spec = sub(deployment, "spec")
    if spec is not None:
        default_if_absent(spec, "replicas", 1)
        if (strategy := sub(spec, "strategy")) is not None:
            default(strategy, "type", "RollingUpdate")
            if strategy["type"] == "RollingUpdate" and (rolling := sub(strategy, "rollingUpdate")) is not None:
                default_if_absent(rolling, "maxUnavailable", "25%")
                default_if_absent(rolling, "maxSurge", "25%")
        default_if_absent(spec, "revisionHistoryLimit", 10)
        default_if_absent(spec, "progressDeadlineSeconds", 600)
        template_defaults(spec)
    _status_struct(deployment, creating)


def replica_set_defaults(replica_set: Obj, creating: bool | None) -> None:
    """``SetDefaults_ReplicaSet``: one replica; the pod template's defaults."""
    spec = sub(replica_set, "spec")
    if spec is not None:
        default_if_absent(spec, "replicas", 1)
        template_defaults(spec)
    _status_struct(replica_set, creating)


def daemon_set_defaults(daemon_set: Obj, creating: bool | None) -> None:
    """``SetDefaults_DaemonSet``: a rolling update of one pod at a time, no surge; ten revisions kept."""
    spec = sub(daemon_set, "spec")
    if spec is not None:
        if (strategy := sub(spec, "updateStrategy")) is not None:
            default(strategy, "type", "RollingUpdate")
            if strategy["type"] == "RollingUpdate" and (rolling := sub(strategy, "rollingUpdate")) is not None:
                default_if_absent(rolling, "maxUnavailable", 1)
                default_if_absent(rolling, "maxSurge", 0)
        default_if_absent(spec, "revisionHistoryLimit", 10)
        template_defaults(spec)
    _status_struct(daemon_set, creating)


def stateful_set_defaults(stateful_set: Obj, creating: bool | None) -> None:
    """``SetDefaults_StatefulSet`` (StatefulSetAutoDeletePVC is on in 1.32) and its claim templates' defaults."""
    spec = sub(stateful_set, "spec")
    if spec is not None:
        default(spec, "podManagementPolicy", "OrderedReady")
        if (strategy := sub(spec, "updateStrategy")) is not None:
            if not strategy.get("type"):
                strategy["type"] = "RollingUpdate"
                sub(strategy, "rollingUpdate")
            rolling = strategy.get("rollingUpdate")
            if strategy["type"] == "RollingUpdate" and isinstance(rolling, dict):
                default_if_absent(rolling, "partition", 0)
        if (retention := sub(spec, "persistentVolumeClaimRetentionPolicy")) is not None:
            default(retention, "whenDeleted", "Retain")
            default(retention, "whenScaled", "Retain")
        default_if_absent(spec, "replicas", 1)
        default_if_absent(spec, "revisionHistoryLimit", 10)
        template_defaults(spec)
        for claim in items(spec, "volumeClaimTemplates"):
            if (claim_meta := sub(claim, "metadata")) is not None:
                claim_meta.setdefault("creationTimestamp", None)
            if (claim_spec := sub(claim, "spec")) is not None:
                default_if_absent(claim_spec, "volumeMode", "Filesystem")
            if (claim_status := sub(claim, "status")) is not None:
                default(claim_status, "phase", "Pending")
    _status_struct(stateful_set, creating)


def cron_job_defaults(cron_job: Obj, creating: bool | None) -> None:
    spec = sub(cron_job, "spec")
    if spec is not None:
        default(spec, "concurrencyPolicy", "Allow")
        default_if_absent(spec, "suspend", False)
        default_if_absent(spec, "successfulJobsHistoryLimit", 3)
        default_if_absent(spec, "failedJobsHistoryLimit", 1)
        if (job_template := sub(spec, "jobTemplate")) is not None:
            if (meta := sub(job_template, "metadata")) is not None:
                meta.setdefault("creationTimestamp", None)
            if (job_spec := sub(job_template, "spec")) is not None:
                template_defaults(job_spec)
    _status_struct(cron_job, creating)


def _status_struct(obj: Obj, creating: bool | None) -> None:
    if creating:
        obj["status"] = {}
    else:
        sub(obj, "status")


def job_defaults(job: Obj, creating: bool | None) -> None:
    spec = sub(job, "spec")
    meta = sub(job, "metadata")
    if spec is not None and meta is not None:
        _job_spec(spec)
        template = template_defaults(spec)
        if creating is not False and spec.get("manualSelector") is not True and template is not None:
            _generate_selector(spec, template, meta)
        template_meta = template.get("metadata") if template is not None else None
        template_labels = template_meta.get("labels") if isinstance(template_meta, dict) else None
        if isinstance(template_labels, dict) and template_labels and not meta.get("labels"):
            meta["labels"] = dict(template_labels)
    _status_struct(job, creating)


def _job_spec(spec: Obj) -> None:
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    default_if_absent(spec, "parallelism", 1)
    default_if_absent(spec, "backoffLimit", MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6)
    default_if_absent(spec, "completionMode", "NonIndexed")
    default_if_absent(spec, "suspend", False)
    failure_policy = spec.get("podFailurePolicy")
    for rule in items(failure_policy if isinstance(failure_policy, dict) else None, "rules"):
        for pattern in items(rule, "onPodConditions"):
            default(pattern, "status", "True")
    default_if_absent(spec, "podReplacementPolicy", "Failed" if failure_policy is not None else "TerminatingOrFailed")
    default_if_absent(spec, "manualSelector", False)


def _generate_selector(spec: Obj, template: Obj, meta: Obj) -> None:
    """``generateSelector``: template labels and a selector keyed on the Job's uid."""
    uid = str(meta.get("uid") or "")
    name = str(meta.get("name") or "")
    template_meta = sub(template, "metadata")
    labels = sub(template_meta, "labels") if template_meta is not None else None
    if labels is None:
        return
    for key in ("job-name", "batch.kubernetes.io/job-name"):
        labels.setdefault(key, name)
    for key in ("controller-uid", "batch.kubernetes.io/controller-uid"):
        labels.setdefault(key, uid)
    selector = sub(spec, "selector")
    match_labels = sub(selector, "matchLabels") if selector is not None else None
    if match_labels is not None:
        match_labels.setdefault("batch.kubernetes.io/controller-uid", uid)
