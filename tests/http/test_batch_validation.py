"""Jobs and CronJobs validated as ``pkg/apis/batch/validation`` does: 422 bodies to the byte, nothing stored."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RawClient
from tests.http.test_builtin_validation import assert_rejected, status_422

pytestmark = pytest.mark.asyncio

JOBS = "/apis/batch/v1/namespaces/default/jobs"
CRONJOBS = "/apis/batch/v1/namespaces/default/cronjobs"
NEGATIVE = "Invalid value: -1: must be greater than or equal to 0"
RESTART_REQUIRED = 'Required value: valid values: "OnFailure", "Never"'


def pod_template(restart: str | None = "Never", labels: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "busybox:1.36"}]}
    if restart is not None:
        spec["restartPolicy"] = restart
    return {"metadata": {"labels": labels} if labels else {}, "spec": spec}


def job(name: str = "work", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"template": pod_template(), **spec},
    }


def cron_job(name: str = "nightly", job_spec: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name},
        "spec": {
            "schedule": "0 3 * * *",
            "jobTemplate": {"spec": job_spec if job_spec is not None else {"template": pod_template("OnFailure")}},
            **spec,
        },
    }


def job_422(*causes: tuple[str, str, str], name: str = "work") -> bytes:
    return status_422("Job.batch", name, "Job", "batch", list(causes))


def cron_422(*causes: tuple[str, str, str], name: str = "nightly") -> bytes:
    return status_422("CronJob.batch", name, "CronJob", "batch", list(causes))


# -- Job ------------------------------------------------------------------------------------------


async def test_a_jobs_counts_are_not_negative_and_its_pods_do_not_restart_always(client: RawClient) -> None:
    body = job(parallelism=-1, backoffLimit=-1, activeDeadlineSeconds=-1)
    body["spec"]["template"]["spec"]["restartPolicy"] = "Always"
    expected = job_422(
        ("FieldValueInvalid", NEGATIVE, "spec.parallelism"),
        ("FieldValueInvalid", NEGATIVE, "spec.activeDeadlineSeconds"),
        ("FieldValueInvalid", NEGATIVE, "spec.backoffLimit"),
        ("FieldValueRequired", RESTART_REQUIRED, "spec.template.spec.restartPolicy"),
    )
    await assert_rejected(client, JOBS, body, expected)


async def test_a_job_without_a_restart_policy_is_defaulted_to_always_and_refused(client: RawClient) -> None:
    body = job()
    body["spec"]["template"] = pod_template(restart=None)
    expected = job_422(("FieldValueRequired", RESTART_REQUIRED, "spec.template.spec.restartPolicy"))
    await assert_rejected(client, JOBS, body, expected)


async def test_a_manual_selector_must_select_the_template(client: RawClient) -> None:
    body = job(manualSelector=True, selector={"matchLabels": {"app": "batch"}})
    body["spec"]["template"] = pod_template(labels={"app": "other"})
    expected = job_422(
        (
            "FieldValueInvalid",
            'Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
            "spec.template.metadata.labels",
        )
    )
    await assert_rejected(client, JOBS, body, expected)


async def test_a_manual_selector_is_required(client: RawClient) -> None:
    body = job(manualSelector=True)
    body["spec"]["template"] = pod_template(labels={"app": "batch"})
    expected = job_422(
        ("FieldValueRequired", "Required value", "spec.selector"),
        (
            "FieldValueInvalid",
            'Invalid value: map[string]string{"app":"batch"}: `selector` does not match template `labels`',
            "spec.template.metadata.labels",
        ),
    )
    await assert_rejected(client, JOBS, body, expected)


async def test_a_completion_mode_is_known_and_indexed_needs_completions(client: RawClient) -> None:
    expected = job_422(
        (
            "FieldValueNotSupported",
            'Unsupported value: "Random": supported values: "NonIndexed", "Indexed"',
            "spec.completionMode",
        )
    )
    await assert_rejected(client, JOBS, job(completionMode="Random"), expected)
    expected = job_422(
        ("FieldValueRequired", "Required value: when completion mode is Indexed", "spec.completions"),
    )
    await assert_rejected(client, JOBS, job(completionMode="Indexed", parallelism=2), expected)


async def test_an_indexed_jobs_last_hostname_must_be_a_dns_label(client: RawClient) -> None:
    name = "a" * 62
    expected = job_422(
        (
            "FieldValueInvalid",
            f'Invalid value: "{name}": will not able to create pod with invalid DNS label: {name}-9',
            "metadata.name",
        ),
        name=name,
    )
    await assert_rejected(client, JOBS, job(name, completionMode="Indexed", completions=10, parallelism=1), expected)


async def test_a_backoff_limit_per_index_needs_indexed_completion(client: RawClient) -> None:
    expected = job_422(
        ("FieldValueRequired", "Required value: when maxFailedIndexes is specified", "spec.backoffLimitPerIndex"),
        ("FieldValueInvalid", "Invalid value: 2: requires indexed completion mode", "spec.maxFailedIndexes"),
    )
    await assert_rejected(client, JOBS, job(maxFailedIndexes=2), expected)


async def test_a_pod_failure_policy_needs_never_and_well_formed_rules(client: RawClient) -> None:
    body = job(
        podFailurePolicy={
            "rules": [
                {"action": "Retry", "onExitCodes": {"operator": "In", "values": [3, 0, 3]}},
                {"action": "Ignore"},
            ]
        }
    )
    body["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    expected = job_422(
        (
            "FieldValueNotSupported",
            'Unsupported value: "Retry": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
            "spec.podFailurePolicy.rules[0].action",
        ),
        (
            "FieldValueInvalid",
            "Invalid value: 0: must not be 0 for the In operator",
            "spec.podFailurePolicy.rules[0].onExitCodes.values[1]",
        ),
        ("FieldValueDuplicate", "Duplicate value: 3", "spec.podFailurePolicy.rules[0].onExitCodes.values[2]"),
        (
            "FieldValueInvalid",
            "Invalid value: []int32{3, 0, 3}: must be ordered",
            "spec.podFailurePolicy.rules[0].onExitCodes.values",
        ),
        (
            "FieldValueInvalid",
            "Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
            "spec.podFailurePolicy.rules[1]",
        ),
        (
            "FieldValueInvalid",
            'Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified',
            "spec.template.spec.restartPolicy",
        ),
    )
    await assert_rejected(client, JOBS, body, expected)


async def test_a_managed_by_is_a_domain_prefixed_path(client: RawClient) -> None:
    expected = job_422(
        (
            "FieldValueInvalid",
            'Invalid value: "kueue": must be a domain-prefixed path (such as "acme.io/foo")',
            "spec.managedBy",
        )
    )
    await assert_rejected(client, JOBS, job(managedBy="kueue"), expected)


async def test_a_jobs_completions_are_immutable_and_spec_errors_come_twice(client: RawClient) -> None:
    created = await client.post(JOBS, job())
    assert created.status == 201
    stored = created.json()
    stored["spec"]["completions"] = 3
    stored["spec"]["parallelism"] = -1
    expected = job_422(
        ("FieldValueInvalid", NEGATIVE, "spec.parallelism"),
        ("FieldValueInvalid", NEGATIVE, "spec.parallelism"),
        ("FieldValueInvalid", "Invalid value: 3: field is immutable", "spec.completions"),
    )
    await assert_rejected(client, f"{JOBS}/work", stored, expected, method="PUT")


async def test_a_jobs_template_is_immutable_but_a_suspended_job_may_move(client: RawClient) -> None:
    created = await client.post(JOBS, job(suspend=True))
    assert created.status == 201
    stored = created.json()
    stored["spec"]["template"]["spec"]["nodeSelector"] = {"disk": "ssd"}
    stored["spec"]["template"]["metadata"]["labels"]["queue"] = "gpu"
    moved = await client.put(f"{JOBS}/work", stored)
    assert moved.status == 200, moved.body
    changed = moved.json()
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "busybox:1.37"
    reply = await client.put(f"{JOBS}/work", changed)
    assert reply.status == 422
    causes = reply.json()["details"]["causes"]
    assert [(cause["reason"], cause["field"]) for cause in causes] == [("FieldValueInvalid", "spec.template")]
    assert causes[0]["message"].endswith(": field is immutable")
    after = await client.get(f"{JOBS}/work")
    assert after.json()["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox:1.36"


# -- CronJob --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schedule", "problem"),
    [
        ("61 * * * *", "end of range (61) above maximum (59): 61"),
        ("* * *", "expected exactly 5 fields, found 3: [* * *]"),
        ("0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
        ("5-2 * * * *", "beginning of range (5) beyond end of range (2): 5-2"),
        ("*/0 * * * *", "step of range should be a positive number: */0"),
        ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
        ("* * * foo *", 'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax'),
        ("@sometimes", "unrecognized descriptor: @sometimes"),
        ("@every 5", 'failed to parse duration @every 5: time: missing unit in duration "5"'),
        ("@every 5y", 'failed to parse duration @every 5y: time: unknown unit "y" in duration "5y"'),
    ],
)
async def test_a_cron_schedule_is_parsed_with_robfig_crons_errors(
    client: RawClient, schedule: str, problem: str
) -> None:
    expected = cron_422(("FieldValueInvalid", f'Invalid value: "{schedule}": {problem}', "spec.schedule"))
    await assert_rejected(client, CRONJOBS, cron_job(schedule=schedule), expected)


async def test_a_cron_schedule_takes_descriptors_names_and_steps(client: RawClient) -> None:
    for position, schedule in enumerate(("@every 1h30m", "@midnight", "0 9-17/2 * JAN-mar mon-FRI", "*/15 * * * ?")):
        created = await client.post(CRONJOBS, cron_job(f"ok-{position}", schedule=schedule))
        assert created.status == 201, (schedule, created.body)


async def test_a_schedule_may_not_name_a_time_zone_and_the_field_must_be_known(client: RawClient) -> None:
    expected = cron_422(
        (
            "FieldValueInvalid",
            'Invalid value: "TZ=UTC 0 3 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
            "spec.schedule",
        ),
        ("FieldValueInvalid", 'Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus', "spec.timeZone"),
    )
    await assert_rejected(client, CRONJOBS, cron_job(schedule="TZ=UTC 0 3 * * *", timeZone="Mars/Olympus"), expected)
    expected = cron_422(
        (
            "FieldValueInvalid",
            'Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
            "spec.timeZone",
        )
    )
    await assert_rejected(client, CRONJOBS, cron_job(timeZone="Local"), expected)
    assert (await client.post(CRONJOBS, cron_job(timeZone="Europe/Paris"))).status == 201


async def test_a_cron_jobs_policy_deadline_and_template(client: RawClient) -> None:
    job_spec = {"selector": {"matchLabels": {"app": "x"}}, "template": pod_template(restart=None)}
    body = cron_job(job_spec=job_spec, concurrencyPolicy="Sometimes", startingDeadlineSeconds=-1)
    expected = cron_422(
        ("FieldValueInvalid", NEGATIVE, "spec.startingDeadlineSeconds"),
        (
            "FieldValueNotSupported",
            'Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
            "spec.concurrencyPolicy",
        ),
        ("FieldValueRequired", RESTART_REQUIRED, "spec.jobTemplate.spec.template.spec.restartPolicy"),
        (
            "FieldValueInvalid",
            'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x"}, '
            "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated",
            "spec.jobTemplate.spec.selector",
        ),
    )
    await assert_rejected(client, CRONJOBS, body, expected)


async def test_a_cron_job_name_leaves_room_for_its_jobs_suffix(client: RawClient) -> None:
    name = "n" * 53
    expected = cron_422(
        ("FieldValueInvalid", f'Invalid value: "{name}": must be no more than 52 characters', "metadata.name"),
        name=name,
    )
    await assert_rejected(client, CRONJOBS, cron_job(name), expected)
    assert (await client.post(CRONJOBS, cron_job("n" * 52))).status == 201


async def test_a_cron_job_is_defaulted_as_the_apiserver_does(client: RawClient) -> None:
    created = await client.post(CRONJOBS, cron_job())
    assert created.status == 201
    spec = created.json()["spec"]
    assert (spec["concurrencyPolicy"], spec["suspend"]) == ("Allow", False)
    assert (spec["successfulJobsHistoryLimit"], spec["failedJobsHistoryLimit"]) == (3, 1)
    job_spec = spec["jobTemplate"]["spec"]
    assert "backoffLimit" not in job_spec and "completions" not in job_spec
    assert job_spec["template"]["spec"]["terminationGracePeriodSeconds"] == 30


async def test_a_cron_job_update_checks_the_schedule_again(client: RawClient) -> None:
    created = await client.post(CRONJOBS, cron_job())
    assert created.status == 201
    stored = created.json()
    stored["spec"]["schedule"] = "0 25 * * *"
    expected = cron_422(
        ("FieldValueInvalid", 'Invalid value: "0 25 * * *": end of range (25) above maximum (23): 25', "spec.schedule")
    )
    await assert_rejected(client, f"{CRONJOBS}/nightly", stored, expected, method="PUT")
