"""kube-controller-manager's CronJob controller (``pkg/controller/cronjob/cronjob_controllerv2.go`` ``sync``, ``utils.go``).

For each CronJob, from the Jobs whose controller reference names it (upstream matches the name only):

* ``cleanupFinishedJobs``: past ``successfulJobsHistoryLimit``/``failedJobsHistoryLimit`` the oldest
  finished Jobs (by ``status.startTime``, then name) are deleted with background propagation, each
  with a ``SuccessfulDelete`` Event (``Deleted job <name>``);
* ``syncCronJob``: a finished Job in ``status.active`` leaves it (``SawCompletedJob``, ``Saw completed
  job: <name>, condition: Complete``), a succeeded one moves ``lastSuccessfulTime`` to its
  ``completionTime``, an active reference whose Job is gone leaves it (``MissingJob``, ``Active job went
  missing: <name>``); then, unless the CronJob is being deleted or suspended, the most recent unmet
  schedule time (``mostRecentScheduleTime``, bounded by ``startingDeadlineSeconds``) gets a Job named
  ``<cronjob>-<minutes since the epoch>`` from the template, with the
  ``batch.kubernetes.io/cronjob-scheduled-timestamp`` annotation (RFC 3339 in ``spec.timeZone``) and a
  controller ownerReference (``SuccessfulCreate``, ``Created job <name>``), after ``Forbid`` held it
  back (``JobAlreadyActive``) or ``Replace`` deleted the active ones; more than 100 missed times warn
  ``TooManyMissedTimes``;
* one ``cronjobs/status`` update with ``active``, ``lastScheduleTime`` and ``lastSuccessfulTime``.

The controller is requeued for the next schedule time: :func:`cronjob_due` returns it (without the
100 ms upstream adds against clock skew), so an advance creates each Job at its instant. Writes are by
``kube-controller-manager``, Events from ``cronjob-controller``. So that a call cut short at any write
is completed by the next without a repeat, the history-limit deletes and the bookkeeping Events
follow the status update (upstream deletes first and emits before it), a Job of the CronJob whose
``SuccessfulCreate`` Event is missing gets it, and an active Job this controller deleted leaves
without ``MissingJob``. The Events upstream repeats on every sync while nothing changes (``JobAlreadyActive``,
``TooManyMissedTimes``, ``InvalidSchedule``), which its recorder folds into one Event with a count,
are written once for each schedule time here (once per CronJob for ``InvalidSchedule``);
``UnexpectedJob`` for a Job not in ``active`` is not written.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from fakeapi._cluster.controller_refs import controller_reference
from fakeapi._cluster.cron_times import next_time, zone_of
from fakeapi._cluster.recording import object_reference
from fakeapi._cluster.status_writes import CONTROLLER_MANAGER, write_status_fields
from fakeapi._state.clock import format_timestamp, parse_timestamp
from fakeapi._state.kinds import builtin_type
from fakeapi._state.objects import metadata_of
from fakeapi._state.validation.cron import (
    ConstantDelaySchedule,
    ScheduleError,
    SpecSchedule,
    load_location_error,
    parse_schedule,
)

if TYPE_CHECKING:
    from fakeapi._cluster.context import ControllerContext

__all__ = ["SCHEDULED_TIMESTAMP_ANNOTATION", "cronjob_due", "sync_cronjobs"]

CRON_JOBS = builtin_type("batch", "v1", "CronJob")
JOBS = builtin_type("batch", "v1", "Job")
EVENTS = builtin_type("", "v1", "Event")
COMPONENT = "cronjob-controller"
SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp"
MANY_MISSED = 100
Schedule = SpecSchedule | ConstantDelaySchedule


def sync_cronjobs(simulation: ControllerContext) -> None:
    for cron_job in simulation.store.items(CRON_JOBS, None):
        _sync(simulation, cron_job)


def cronjob_due(simulation: ControllerContext) -> float | None:
    """``nextScheduleTimeDuration``: the next schedule time of each CronJob that is requeued."""
    now = simulation.store.clock.now()
    times = []
    for cron_job in simulation.store.items(CRON_JOBS, None):
        spec = cron_job.get("spec") or {}
        if metadata_of(cron_job).get("deletionTimestamp") is not None or spec.get("suspend"):
            continue
        schedule = _schedule(cron_job)
        if schedule is None:
            continue
        earliest, most_recent, missed, error = _most_recent(cron_job, now, schedule, with_deadline=False)
        if error is not None:
            most_recent = now
        elif most_recent is None:
            most_recent = earliest if missed == 0 else now
        when = next_time(schedule, most_recent)
        if when is not None and when > now:
            times.append(when)
    return min(times, default=None)


def _schedule(cron_job: dict[str, Any]) -> Schedule | None:
    """``cron.ParseStandard(formatSchedule(cj))``; None when it does not parse (validation prevents it)."""
    spec = cron_job.get("spec") or {}
    text = str(spec.get("schedule") or "")
    time_zone = spec.get("timeZone")
    if "TZ" not in text and time_zone is not None and load_location_error(time_zone) is None:
        text = f"TZ={time_zone} {text}"
    try:
        return parse_schedule(text)
    except ScheduleError:
        return None


def _most_recent(
    cron_job: dict[str, Any], now: float, schedule: Schedule, *, with_deadline: bool
) -> tuple[float, float | None, int, str | None]:
    """``mostRecentScheduleTime``: (earliest, most recent unmet time or None, missed count, error)."""
    meta, spec, status = metadata_of(cron_job), cron_job.get("spec") or {}, cron_job.get("status") or {}
    earliest = parse_timestamp(status.get("lastScheduleTime") or "") or parse_timestamp(
        meta.get("creationTimestamp") or ""
    )
    earliest = earliest or 0.0
    deadline = spec.get("startingDeadlineSeconds")
    if with_deadline and deadline is not None:
        earliest = max(earliest, now - int(deadline))
    first = next_time(schedule, earliest)
    second = None if first is None else next_time(schedule, first)
    if first is not None and now < first:
        return earliest, None, 0, None
    if second is not None and now < second:
        return earliest, first, 0, None
    between = 0 if first is None or second is None else round(second - first)
    if first is None or between < 1:
        return earliest, None, 0, "time difference between two schedules is less than 1 second"
    missed = int(now - first) // between + 1
    most_recent = None
    moment = next_time(schedule, first + (missed - 2) * between)
    while moment is not None and moment <= now:
        most_recent = moment
        moment = next_time(schedule, moment)
    return earliest, most_recent, missed, None


def _jobs_of(simulation: ControllerContext, cron_job: dict[str, Any]) -> list[dict[str, Any]]:
    meta = metadata_of(cron_job)
    jobs = []
    for job in simulation.store.items(JOBS, meta.get("namespace", "")):
        controller = next(
            (ref for ref in metadata_of(job).get("ownerReferences") or [] if ref.get("controller") is True), None
        )
        if controller is not None and controller.get("name") == meta.get("name"):
            jobs.append(job)
    return jobs


def _finished_condition(job: dict[str, Any]) -> str | None:
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return str(condition["type"])
    return None


def _start_order(job: dict[str, Any]) -> tuple[int, float, str]:
    """``byJobStartTime``: Jobs with a start time first, oldest first, then by name."""
    started = parse_timestamp((job.get("status") or {}).get("startTime") or "")
    name = str(metadata_of(job).get("name", ""))
    return (0, started, name) if started is not None else (1, 0.0, name)


class _Sync:
    """One ``sync`` of one CronJob: the copy of its status that the final update writes."""

    def __init__(self, simulation: ControllerContext, cron_job: dict[str, Any]) -> None:
        self.simulation = simulation
        self.cron_job = cron_job
        self.meta = metadata_of(cron_job)
        self.namespace = self.meta.get("namespace", "")
        status = cron_job.get("status") or {}
        self.active: list[dict[str, Any]] = list(status.get("active") or [])
        self.last_schedule = status.get("lastScheduleTime")
        self.last_successful = status.get("lastSuccessfulTime")
        self.update = False
        self.cleanup: list[dict[str, Any]] = []
        self.after_update: list[tuple[str, str, str]] = []

    def event(self, event_type: str, reason: str, message: str) -> None:
        self.simulation.recorder.record(
            self.cron_job, event_type, reason, message, component=COMPONENT, manager=CONTROLLER_MANAGER
        )

    def said_since(self, reason: str, since: float, message: str | None = None) -> bool:
        """Whether this CronJob already has an Event with this reason (and message) from ``since`` on."""
        uid = self.meta.get("uid")
        for event in self.simulation.store.items(EVENTS, self.namespace):
            if (
                (event.get("involvedObject") or {}).get("uid") == uid
                and event.get("reason") == reason
                and (message is None or event.get("message") == message)
                and (parse_timestamp(event.get("lastTimestamp") or "") or 0.0) >= since
            ):
                return True
        return False

    def delete_job(self, job: dict[str, Any]) -> None:
        """``deleteJob``: the Job (its pods go by background propagation), then its active reference."""
        name = metadata_of(job)["name"]
        if self.simulation.store.find(JOBS, self.namespace, name) is not None:
            self.simulation.store.delete(JOBS, self.namespace, name, propagation="Background")
            self.event("Normal", "SuccessfulDelete", f"Deleted job {name}")
        self.active = [ref for ref in self.active if ref.get("uid") != metadata_of(job).get("uid")]

    def write_status(self) -> None:
        if not self.update:
            return
        fields = {
            "active": self.active or None,
            "lastScheduleTime": self.last_schedule,
            "lastSuccessfulTime": self.last_successful,
        }

        write_status_fields(self.simulation, CRON_JOBS, self.cron_job, fields)


def _sync(simulation: ControllerContext, cron_job: dict[str, Any]) -> None:
    jobs = _jobs_of(simulation, cron_job)
    sync = _Sync(simulation, cron_job)
    _cleanup_finished(sync, jobs)
    _track_jobs(sync, jobs)
    _schedule_job(sync)
    sync.write_status()
    for job in sync.cleanup:
        sync.delete_job(job)
    for event in sync.after_update:
        sync.event(*event)


def _cleanup_finished(sync: _Sync, jobs: list[dict[str, Any]]) -> None:
    """``cleanupFinishedJobs``: the oldest finished Jobs past each history limit."""
    spec = sync.cron_job.get("spec") or {}
    for kind, limit in (("Complete", "successfulJobsHistoryLimit"), ("Failed", "failedJobsHistoryLimit")):
        if spec.get(limit) is None:
            continue
        finished = sorted((j for j in jobs if _finished_condition(j) == kind), key=_start_order)
        for job in finished[: max(0, len(finished) - int(spec[limit]))]:
            sync.cleanup.append(job)
            sync.active = [ref for ref in sync.active if ref.get("uid") != metadata_of(job).get("uid")]
            sync.update = True


def _track_jobs(sync: _Sync, jobs: list[dict[str, Any]]) -> None:
    """The first part of ``syncCronJob``: finished and missing Jobs leave ``active``."""
    children = {metadata_of(job).get("uid") for job in jobs}
    for job in jobs:
        meta, status = metadata_of(job), job.get("status") or {}
        condition = _finished_condition(job)
        if condition is None:
            continue
        if any(ref.get("uid") == meta.get("uid") for ref in sync.active):
            sync.active = [ref for ref in sync.active if ref.get("uid") != meta.get("uid")]
            sync.after_update.append(
                ("Normal", "SawCompletedJob", f"Saw completed job: {meta.get('name')}, condition: {condition}")
            )
            sync.update = True
        if condition == "Complete":
            completed = status.get("completionTime")
            if sync.last_successful is None:
                sync.last_successful = completed
                sync.update = True
            if completed is not None and (parse_timestamp(completed) or 0.0) > (
                parse_timestamp(sync.last_successful or "") or 0.0
            ):
                sync.last_successful = completed
                sync.update = True
    for ref in list(sync.active):
        if ref.get("uid") in children or sync.simulation.store.find(
            JOBS, ref.get("namespace", ""), ref.get("name", "")
        ):
            continue
        sync.after_update.append(("Normal", "MissingJob", f"Active job went missing: {ref.get('name')}"))
        sync.active = [r for r in sync.active if r.get("uid") != ref.get("uid")]
        sync.update = True


def _schedule_job(sync: _Sync) -> None:
    """The rest of ``syncCronJob``: the Job of the most recent unmet schedule time, if one is due."""
    cron_job, spec = sync.cron_job, sync.cron_job.get("spec") or {}
    if sync.meta.get("deletionTimestamp") is not None or spec.get("suspend"):
        return
    schedule = _schedule(cron_job)
    if schedule is None:
        return
    now = sync.simulation.store.clock.now()
    _, scheduled, missed, error = _most_recent(cron_job, now, schedule, with_deadline=True)
    many = scheduled is not None and scheduled <= now and missed > MANY_MISSED
    if many and scheduled is not None and not sync.said_since("TooManyMissedTimes", scheduled):
        sync.event(
            "Warning",
            "TooManyMissedTimes",
            "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
        )
    if error is not None:
        if not sync.said_since("InvalidSchedule", 0.0):
            sync.event("Warning", "InvalidSchedule", f"invalid schedule: {spec.get('schedule')} : {error}")
        return
    if scheduled is None or scheduled > now:
        return
    name = f"{sync.meta.get('name')}-{int(scheduled) // 60}"
    stamp = format_timestamp(scheduled)
    if any(ref.get("name") == name for ref in sync.active) or sync.last_schedule == stamp:
        return
    policy = spec.get("concurrencyPolicy", "Allow")
    if policy == "Forbid" and sync.active:
        if not sync.said_since("JobAlreadyActive", scheduled):
            message = "Not starting job because prior execution is running and concurrency policy is Forbid"
            sync.event("Normal", "JobAlreadyActive", message)
        return
    store = sync.simulation.store
    if policy == "Replace":
        for ref in list(sync.active):
            job = store.find(JOBS, ref.get("namespace", ""), ref.get("name", ""))
            if job is None:
                return
            sync.delete_job(job)
            sync.update = True
    existing = store.find(JOBS, sync.namespace, name)
    if existing is None:
        created = store.create(
            JOBS, sync.namespace, _job_from_template(cron_job, scheduled, name), manager=CONTROLLER_MANAGER
        )
        job = created.object
        sync.event("Normal", "SuccessfulCreate", f"Created job {name}")
    else:
        owner: dict[str, Any] = next(
            (r for r in metadata_of(existing).get("ownerReferences") or [] if r.get("controller")), {}
        )
        if owner.get("uid") != sync.meta.get("uid"):
            return
        if any(ref.get("uid") == metadata_of(existing).get("uid") for ref in sync.active):
            return
        job = existing
        if not sync.said_since("SuccessfulCreate", 0.0, f"Created job {name}"):
            sync.event("Normal", "SuccessfulCreate", f"Created job {name}")
    sync.active.append(object_reference(job))
    sync.last_schedule = stamp
    sync.update = True


def _job_from_template(cron_job: dict[str, Any], scheduled: float, name: str) -> dict[str, Any]:
    """``getJobFromTemplate2``."""
    spec = cron_job.get("spec") or {}
    template = spec.get("jobTemplate") or {}
    template_meta = template.get("metadata") or {}
    zone = zone_of(spec.get("timeZone"))
    annotations = {
        **(template_meta.get("annotations") or {}),
        SCHEDULED_TIMESTAMP_ANNOTATION: _rfc3339(datetime.fromtimestamp(scheduled, zone)),
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            **({"labels": dict(template_meta["labels"])} if template_meta.get("labels") else {}),
            "annotations": annotations,
            "ownerReferences": [controller_reference(cron_job, "batch/v1", "CronJob")],
        },
        "spec": template.get("spec") or {},
    }


def _rfc3339(moment: datetime) -> str:
    """Go's ``time.RFC3339``: ``Z`` for a zero offset, else ``±hh:mm``."""
    text = moment.strftime("%Y-%m-%dT%H:%M:%S%z")
    if text.endswith("+0000"):
        return text[:-5] + "Z"
    return text[:-2] + ":" + text[-2:]
