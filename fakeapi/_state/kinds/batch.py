"""``batch/v1``: ``pkg/registry/batch/job`` and ``cronjob``; spec changes bump the generation; both validated
as ``pkg/apis/batch/validation`` does (:mod:`fakeapi._state.validation.batch`)."""

from __future__ import annotations

from fakeapi._state.defaults.workloads import cron_job_defaults, job_defaults
from fakeapi._state.kinds.declaring import builtin
from fakeapi._state.resources import ResourceType, Subresource
from fakeapi._state.strategy import GenerationStrategy
from fakeapi._state.tables.workloads import CRON_JOB_PRINTER, JOB_PRINTER
from fakeapi._state.validation.batch import CRON_JOB, JOB

__all__ = ["TYPES"]


class JobStrategy(GenerationStrategy):
    """``jobStrategy.DefaultGarbageCollectionPolicy``: batch/v1 orphans a deleted Job's pods unless
    the delete says otherwise, for backward compatibility (``pkg/registry/batch/job/strategy.go``)."""

    def default_propagation(self, rtype: ResourceType) -> str:
        return "Orphan"


TYPES: tuple[ResourceType, ...] = (
    builtin(
        "batch",
        "v1",
        "cronjobs",
        "CronJob",
        short_names=("cj",),
        categories=("all",),
        subresources=(Subresource("status"),),
        strategy=GenerationStrategy(CRON_JOB),
        printer=CRON_JOB_PRINTER,
        defaulter=cron_job_defaults,
    ),
    builtin(
        "batch",
        "v1",
        "jobs",
        "Job",
        categories=("all",),
        subresources=(Subresource("status"),),
        strategy=JobStrategy(JOB),
        defaulter=job_defaults,
        printer=JOB_PRINTER,
    ),
)
