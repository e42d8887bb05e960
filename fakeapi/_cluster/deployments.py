"""kube-controller-manager's Deployment controller (``pkg/controller/deployment``), one sync per Deployment.

``deployment_controller.go`` ``syncDeployment``: a Deployment being deleted only has its status
synced; otherwise the paused condition is checked (``sync.go`` ``checkPausedConditions``), a paused
Deployment or one whose ReplicaSets record another ``desired-replicas`` (``isScalingEvent``) is
scaled (``sync``), and any other is rolled out by its strategy (:mod:`.rollouts`). This module
holds what every path shares, read from ``sync.go``, ``progress.go`` and ``util/deployment_util.go``
(the conditions are in :mod:`.deployment_progress`, the sizes and annotations in
:mod:`.deployment_specs`):

* the ReplicaSets the Deployment controls and its selector matches (``ListReplicaSets``), the new
  one being the oldest whose template equals the Deployment's but for ``pod-template-hash``
  (``FindNewReplicaSet``, ``EqualIgnoreHash``);
* ``getNewReplicaSet``: the new ReplicaSet created as ``<deployment>-<hash>`` (:mod:`.podhash`),
  labelled and selected by ``pod-template-hash``, with the Deployment's annotations and the
  ``revision``, ``desired-replicas`` and ``max-replicas`` ones, a ``ScalingReplicaSet`` Event
  ``Scaled up replica set <rs> from 0 to <n>``, and on the Deployment the revision annotation and
  Progressing ``NewReplicaSetCreated`` (``Created new replica set "<rs>"``); an existing one gets its
  annotations and ``minReadySeconds`` brought up to date, or Progressing ``FoundNewReplicaSet``;
  a name taken by a ReplicaSet with another template bumps ``status.collisionCount``;
* ``calculateStatus``, the Available condition and ``syncRolloutStatus``'s Progressing condition
  (``ReplicaSetUpdated``, ``NewReplicaSetAvailable``, ``ProgressDeadlineExceeded`` once the last
  progress is older than ``progressDeadlineSeconds`` on the server's clock) and the ReplicaSets'
  ``ReplicaFailure`` copied over (``getReplicaFailures``);
* ``cleanupDeployment``: old ReplicaSets beyond ``revisionHistoryLimit``, scaled to zero, deleted
  oldest revision first.

Writes are by ``kube-controller-manager``; Events come from ``deployment-controller``.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.controller_refs import controller_of, controller_reference, owned_by
from fakeapi._cluster.deployment_progress import (
    DEPLOYMENTS,
    complete,
    condition_of,
    go_status,
    progressing,
    remove_condition,
    replica_failure,
    set_condition,
    timed_out,
)
from fakeapi._cluster.deployment_specs import (
    ANNOTATIONS_TO_SKIP,
    DESIRED_REPLICAS,
    HASH_LABEL,
    MAX_INT32,
    MAX_REPLICAS,
    MAX_REVISION_HISTORY_CHARS,
    REVISION,
    REVISION_HISTORY,
    by_creation,
    equal_ignore_hash,
    has_progress_deadline,
    int_or_percent,
    is_rolling,
    max_surge,
    max_unavailable,
    replicas_of,
    revision_of,
)
from fakeapi._cluster.podhash import compute_hash
from fakeapi._cluster.replicasets import REPLICASETS, selects
from fakeapi._cluster.status_writes import CONTROLLER_MANAGER
from fakeapi._state.objects import metadata_of
from fakeapi.errors import APIError

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["DeploymentSync"]

COMPONENT = "deployment-controller"


class DeploymentSync:
    """One ``syncDeployment`` call: the Deployment as the controller holds it, its ReplicaSets, its writes."""

    def __init__(self, simulation: ControllerContext, deployment: dict[str, Any]) -> None:
        self.simulation = simulation
        self.store = simulation.store
        self.d = copy.deepcopy(deployment)
        meta = metadata_of(deployment)
        self.namespace, self.name = str(meta.get("namespace") or ""), str(meta.get("name") or "")
        self.replicasets = [
            rs
            for rs in self.store.items(REPLICASETS, self.namespace)
            if owned_by(rs, deployment) and selects(deployment, rs)
        ]

    @property
    def status(self) -> dict[str, Any]:
        status: dict[str, Any] = self.d.setdefault("status", {})
        return status

    def now(self) -> str:
        return self.store.clock.timestamp()

    # ReplicaSets

    def find_new(self) -> dict[str, Any] | None:
        template = (self.d.get("spec") or {}).get("template") or {}
        for rs in sorted(self.replicasets, key=by_creation):
            if equal_ignore_hash((rs.get("spec") or {}).get("template") or {}, template):
                return rs
        return None

    def all_replicasets(self, create: bool) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """``getAllReplicaSetsAndSyncRevision``: the new ReplicaSet (created if asked) and all the old ones."""
        new = self.find_new()
        olds = [
            rs for rs in self.replicasets if new is None or metadata_of(rs).get("uid") != metadata_of(new).get("uid")
        ]
        return self.new_replicaset(new, olds, create), olds

    def replace(self, updated: dict[str, Any]) -> dict[str, Any]:
        uid = metadata_of(updated).get("uid")
        self.replicasets = [updated if metadata_of(rs).get("uid") == uid else rs for rs in self.replicasets]
        return updated

    def new_replicaset(
        self, existing: dict[str, Any] | None, olds: list[dict[str, Any]], create: bool
    ) -> dict[str, Any] | None:
        """``getNewReplicaSet``."""
        new_revision = str(max((revision_of(rs) for rs in olds), default=0) + 1)
        if existing is not None:
            annotations = dict(metadata_of(existing).get("annotations") or {})
            changed = self._new_rs_annotations(annotations, new_revision, exists=True)
            spec = existing.get("spec") or {}
            min_ready = (self.d.get("spec") or {}).get("minReadySeconds") or 0
            if changed or (spec.get("minReadySeconds") or 0) != min_ready:
                return self.update_replicaset(existing, annotations=annotations, min_ready_seconds=min_ready)
            needs_update = self._set_revision(annotations.get(REVISION, ""))
            if has_progress_deadline(self.d) and condition_of(self.status, "Progressing") is None:
                message = f'Found new replica set "{metadata_of(existing).get("name")}"'
                self.set_condition("Progressing", "True", "FoundNewReplicaSet", message)
                needs_update = True
            if needs_update:
                self.write_status()
            return existing
        if not create:
            return None
        return self._create_new(olds, new_revision)

    def _create_new(self, olds: list[dict[str, Any]], new_revision: str) -> dict[str, Any] | None:
        spec = self.d.get("spec") or {}
        template = copy.deepcopy(spec.get("template") or {})
        collision = self.status.get("collisionCount")
        template_hash = compute_hash(template, collision)
        template_meta = template.setdefault("metadata", {})
        template_meta["labels"] = {**(template_meta.get("labels") or {}), HASH_LABEL: template_hash}
        selector = copy.deepcopy(spec.get("selector") or {})
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}), HASH_LABEL: template_hash}
        name = f"{self.name}-{template_hash}"
        annotations: dict[str, str] = {}
        replicas = self._new_replicas([*olds], None)
        self._new_rs_annotations(annotations, new_revision, exists=False)
        replicaset = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": name,
                "namespace": self.namespace,
                "labels": template_meta["labels"],
                "annotations": annotations,
                "ownerReferences": [controller_reference(self.d, "apps/v1", "Deployment")],
            },
            "spec": {
                "replicas": replicas,
                **({"minReadySeconds": spec["minReadySeconds"]} if spec.get("minReadySeconds") else {}),
                "selector": selector,
                "template": template,
            },
        }
        created = self._create_or_collide(replicaset, template)
        if created is None:
            return None
        replicaset_created, already = created
        if not already and replicas > 0:
            self.scaling_event("up", name, 0, replicas)
        needs_update = self._set_revision(new_revision)
        if not already and has_progress_deadline(self.d):
            self.set_condition("Progressing", "True", "NewReplicaSetCreated", f'Created new replica set "{name}"')
            needs_update = True
        if needs_update:
            self.write_status()
        return replicaset_created

    def _create_or_collide(
        self, replicaset: dict[str, Any], template: dict[str, Any]
    ) -> tuple[dict[str, Any], bool] | None:
        try:
            stored = self.store.create(REPLICASETS, self.namespace, replicaset, manager=CONTROLLER_MANAGER).object
        except APIError as error:
            if error.reason != "AlreadyExists":
                self._create_failed(str(metadata_of(replicaset)["name"]), error)
                return None
            found = self.store.get(REPLICASETS, self.namespace, metadata_of(replicaset)["name"])
            reference = controller_of(found)
            if (
                reference is not None
                and reference.get("uid") == metadata_of(self.d).get("uid")
                and equal_ignore_hash((found.get("spec") or {}).get("template") or {}, template)
            ):
                self.replicasets.append(found)
                return found, True
            self.status["collisionCount"] = int(self.status.get("collisionCount") or 0) + 1
            self.write_status()
            return None
        self.replicasets.append(stored)
        return stored, False

    def _create_failed(self, name: str, error: APIError) -> None:
        """A refused create: Progressing False ``ReplicaSetCreateError`` and a Warning Event, reported once."""
        causes = (error.details or {}).get("causes") or []
        if any(cause.get("reason") == "NamespaceTerminating" for cause in causes):
            return
        message = f'Failed to create new replica set "{name}": {error.message}'
        reported = (condition_of(self.status, "Progressing") or {}).get("reason") == "ReplicaSetCreateError"
        if has_progress_deadline(self.d) and not reported:
            self.set_condition("Progressing", "False", "ReplicaSetCreateError", message)
            self.write_status()
        if not reported:
            self.simulation.recorder.record(
                self.d, "Warning", "ReplicaSetCreateError", message, component=COMPONENT, manager=CONTROLLER_MANAGER
            )

    def _new_replicas(self, olds: list[dict[str, Any]], new: dict[str, Any] | None) -> int:
        """``NewRSNewReplicas``."""
        desired = replicas_of(self.d)
        current_new = replicas_of(new) if new is not None else 0
        if not is_rolling(self.d):
            return desired
        surge = int_or_percent(
            (((self.d.get("spec") or {}).get("strategy") or {}).get("rollingUpdate") or {}).get("maxSurge", 0),
            desired,
            True,
        )
        current = sum(replicas_of(rs) for rs in olds) + current_new
        most = desired + surge
        if current >= most:
            return current_new
        return current_new + min(most - current, desired - current_new)

    def _new_rs_annotations(self, annotations: dict[str, str], new_revision: str, *, exists: bool) -> bool:
        """``SetNewReplicaSetAnnotations``, changing ``annotations`` in place."""
        changed = False
        for key, value in (metadata_of(self.d).get("annotations") or {}).items():
            if key in ANNOTATIONS_TO_SKIP or annotations.get(key) == value:
                continue
            annotations[key] = value
            changed = True
        old_revision = annotations.get(REVISION, "")
        try:
            old_number = int(old_revision) if old_revision else 0
        except ValueError:
            return False
        if old_number < int(new_revision):
            annotations[REVISION] = new_revision
            changed = True
            if old_revision:
                history = annotations.get(REVISION_HISTORY, "")
                if not history:
                    annotations[REVISION_HISTORY] = old_revision
                else:
                    kept = history.split(",")
                    total = len(history) + len(old_revision) + 1
                    while total > MAX_REVISION_HISTORY_CHARS and kept:
                        total -= len(kept.pop(0)) + 1
                    if total <= MAX_REVISION_HISTORY_CHARS:
                        annotations[REVISION_HISTORY] = ",".join([*kept, old_revision])
        if not exists and self._replicas_annotations(annotations):
            changed = True
        return changed

    def _replicas_annotations(self, annotations: dict[str, str]) -> bool:
        """``SetReplicasAnnotations`` with the Deployment's replicas and replicas + maxSurge."""
        desired = replicas_of(self.d)
        wanted = {DESIRED_REPLICAS: str(desired), MAX_REPLICAS: str(desired + max_surge(self.d))}
        changed = any(annotations.get(key) != value for key, value in wanted.items())
        annotations.update(wanted)
        return changed

    def _set_revision(self, revision: str) -> bool:
        annotations = metadata_of(self.d).setdefault("annotations", {})
        if annotations.get(REVISION) == revision:
            return False
        annotations[REVISION] = revision
        return True

    def update_replicaset(
        self,
        replicaset: dict[str, Any],
        *,
        replicas: int | None = None,
        annotations: dict[str, str] | None = None,
        min_ready_seconds: int | None = None,
    ) -> dict[str, Any]:
        def changed(current: dict[str, Any]) -> dict[str, Any]:
            meta = dict(current.get("metadata") or {})
            spec = dict(current.get("spec") or {})
            if annotations is not None:
                meta["annotations"] = annotations
            if replicas is not None:
                spec["replicas"] = replicas
            if min_ready_seconds is not None:
                if min_ready_seconds:
                    spec["minReadySeconds"] = min_ready_seconds
                else:
                    spec.pop("minReadySeconds", None)
            return {**current, "metadata": meta, "spec": spec}

        meta = metadata_of(replicaset)
        updated = self.store.update(
            REPLICASETS, self.namespace, str(meta.get("name")), changed, manager=CONTROLLER_MANAGER, unconditional=True
        ).object
        return self.replace(updated)

    def scale_replicaset(self, replicaset: dict[str, Any], new_scale: int, operation: str | None = None) -> bool:
        """``scaleReplicaSet``: size and replicas annotations, then the ``ScalingReplicaSet`` Event."""
        old_scale = replicas_of(replicaset)
        annotations = dict(metadata_of(replicaset).get("annotations") or {})
        annotations_changed = self._replicas_annotations(annotations)
        if old_scale == new_scale and not annotations_changed:
            return False
        self.update_replicaset(replicaset, replicas=new_scale, annotations=annotations)
        if old_scale == new_scale:
            return False
        if operation is None:
            operation = "up" if old_scale < new_scale else "down"
        self.scaling_event(operation, str(metadata_of(replicaset).get("name")), old_scale, new_scale)
        return True

    def scale_and_record(self, replicaset: dict[str, Any], new_scale: int) -> bool:
        """``scaleReplicaSetAndRecordEvent``."""
        if replicas_of(replicaset) == new_scale:
            return False
        return self.scale_replicaset(replicaset, new_scale)

    def scaling_event(self, operation: str, name: str, old: int, new: int) -> None:
        message = f"Scaled {operation} replica set {name} from {old} to {new}"
        self.simulation.recorder.record(
            self.d, "Normal", "ScalingReplicaSet", message, component=COMPONENT, manager=CONTROLLER_MANAGER
        )

    def current(self, replicaset: dict[str, Any]) -> dict[str, Any]:
        uid = metadata_of(replicaset).get("uid")
        return next((rs for rs in self.replicasets if metadata_of(rs).get("uid") == uid), replicaset)

    # Status

    def set_condition(self, kind: str, value: str, reason: str, message: str) -> None:
        set_condition(self.status, kind, value, reason, message, self.now())

    def write_status(self) -> None:
        annotations = metadata_of(self.d).get("annotations")
        status = self.status

        def with_status(current: dict[str, Any]) -> dict[str, Any]:
            meta = dict(current.get("metadata") or {})
            if annotations:
                meta["annotations"] = annotations
            return {**current, "metadata": meta, "status": go_status(status)}

        self.d = copy.deepcopy(
            self.store.update(
                DEPLOYMENTS,
                self.namespace,
                self.name,
                with_status,
                subresource="status",
                manager=CONTROLLER_MANAGER,
                unconditional=True,
            ).object
        )

    def calculate_status(self, all_rs: list[dict[str, Any]], new: dict[str, Any] | None) -> dict[str, Any]:
        """``calculateStatus``, with the Available condition."""

        def total(key: str, replicasets: list[dict[str, Any]]) -> int:
            return sum(int((rs.get("status") or {}).get(key) or 0) for rs in replicasets)

        available = total("availableReplicas", all_rs)
        status: dict[str, Any] = {
            "observedGeneration": metadata_of(self.d).get("generation"),
            "replicas": total("replicas", all_rs),
            "updatedReplicas": total("replicas", [new] if new is not None else []),
            "readyReplicas": total("readyReplicas", all_rs),
            "availableReplicas": available,
            "unavailableReplicas": max(sum(replicas_of(rs) for rs in all_rs) - available, 0),
        }
        if self.status.get("collisionCount") is not None:
            status["collisionCount"] = self.status["collisionCount"]
        if self.status.get("conditions"):
            status["conditions"] = copy.deepcopy(self.status["conditions"])
        now = self.now()
        if available >= replicas_of(self.d) - max_unavailable(self.d):
            set_condition(
                status, "Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", now
            )
        else:
            message = "Deployment does not have minimum availability."
            set_condition(status, "Available", "False", "MinimumReplicasUnavailable", message, now)
        return status

    def sync_status(self, all_rs: list[dict[str, Any]], new: dict[str, Any] | None) -> None:
        """``syncDeploymentStatus``: the calculated status, written when it differs."""
        status = self.calculate_status(all_rs, new)
        if go_status(status) != go_status(self.status):
            self.d["status"] = status
            self.write_status()

    def sync_rollout_status(self, all_rs: list[dict[str, Any]], new: dict[str, Any] | None) -> None:
        """``syncRolloutStatus``: the calculated status and the Progressing condition (``progress.go``)."""
        old = self.status
        status = self.calculate_status(all_rs, new)
        if not has_progress_deadline(self.d):
            remove_condition(status, "Progressing")
        current = condition_of(old, "Progressing")
        complete_before = (
            status["replicas"] == status["updatedReplicas"]
            and current is not None
            and current.get("reason") == "NewReplicaSetAvailable"
        )
        subject = f'ReplicaSet "{metadata_of(new).get("name")}"' if new is not None else f'Deployment "{self.name}"'
        now = self.now()
        if has_progress_deadline(self.d) and not complete_before:
            if complete(self.d, status):
                message = f"{subject} has successfully progressed."
                set_condition(status, "Progressing", "True", "NewReplicaSetAvailable", message, now)
            elif progressing(old, status):
                # Progressing is set anew on every sign of progress: lastUpdateTime moves, the transition stays.
                kept = (
                    current.get("lastTransitionTime")
                    if current is not None and current.get("status") == "True"
                    else None
                )
                remove_condition(status, "Progressing")
                message = f"{subject} is progressing."
                set_condition(status, "Progressing", "True", "ReplicaSetUpdated", message, now, transition=kept)
            elif timed_out(self.d, status, self.store.clock.now()):
                message = f"{subject} has timed out progressing."
                set_condition(status, "Progressing", "False", "ProgressDeadlineExceeded", message, now)
        failure = replica_failure(all_rs, new)
        if failure is None:
            remove_condition(status, "ReplicaFailure")
        else:
            # ReplicaSetToDeploymentCondition: both times are the ReplicaSet condition's transition.
            since = str(failure.get("lastTransitionTime") or now)
            set_condition(status, "ReplicaFailure", failure["status"], failure["reason"], failure["message"], since)
        if go_status(status) != go_status(old):
            self.d["status"] = status
            self.write_status()

    def cleanup(self, olds: list[dict[str, Any]]) -> None:
        """``cleanupDeployment``: delete the oldest revisions beyond ``revisionHistoryLimit``."""
        limit = (self.d.get("spec") or {}).get("revisionHistoryLimit")
        if limit is None or int(limit) == MAX_INT32:
            return
        alive = [rs for rs in (self.current(rs) for rs in olds) if metadata_of(rs).get("deletionTimestamp") is None]
        surplus = len(alive) - int(limit)
        if surplus <= 0:
            return
        for rs in sorted(alive, key=lambda rs: (revision_of(rs), *by_creation(rs)))[:surplus]:
            status = rs.get("status") or {}
            meta = metadata_of(rs)
            if (
                int(status.get("replicas") or 0) != 0
                or replicas_of(rs) != 0
                or int(meta.get("generation") or 0) > int(status.get("observedGeneration") or 0)
            ):
                continue
            self.store.delete(REPLICASETS, self.namespace, str(meta.get("name")))
            self.replicasets = [other for other in self.replicasets if metadata_of(other).get("uid") != meta.get("uid")]
