"""When a CronJob's schedule next fires: robfig/cron v3.0.1's own ``TestNext`` cases (``spec_test.go``),
those whose seconds field is 0, read as the five-field schedules ``cron.ParseStandard`` takes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fakeapi._cluster.cron_times import next_time
from fakeapi._state.validation.cron import parse_schedule

CASES = [
    ("Mon Jul 9 14:45 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 14:59 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 14:59:59 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 15:45 2012", "20-35/15 * * * *", "Mon Jul 9 16:20 2012"),
    ("Mon Jul 9 23:46 2012", "*/15 * * * *", "Tue Jul 10 00:00 2012"),
    ("Mon Jul 9 23:45 2012", "20-35/15 * * * *", "Tue Jul 10 00:20 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 9 Apr-Oct ?", "Thu Aug 9 00:00 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 */5 Apr,Aug,Oct Mon", "Tue Aug 1 00:00 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 */5 Oct Mon", "Mon Oct 1 00:00 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 * Feb Mon", "Mon Feb 4 00:00 2013"),
    ("Mon Jul 9 23:35 2012", "0 0 * Feb Mon/2", "Fri Feb 1 00:00 2013"),
    ("Mon Dec 31 23:59:45 2012", "* * * * *", "Tue Jan 1 00:00:00 2013"),
    ("Mon Jul 9 23:35 2012", "0 0 29 Feb ?", "Mon Feb 29 00:00 2016"),
    ("2012-03-11T00:00:00-0500", "TZ=America/New_York 30 2 11 Mar ?", "2013-03-11T02:30:00-0400"),
    ("2012-03-11T00:00:00-0500", "TZ=America/New_York 0 * * * ?", "2012-03-11T01:00:00-0500"),
    ("2012-03-11T01:00:00-0500", "TZ=America/New_York 0 * * * ?", "2012-03-11T03:00:00-0400"),
    ("2012-03-11T03:00:00-0400", "TZ=America/New_York 0 * * * ?", "2012-03-11T04:00:00-0400"),
    ("2012-03-11T01:00:00-0500", "CRON_TZ=America/New_York 0 * * * ?", "2012-03-11T03:00:00-0400"),
    ("2012-03-11T00:00:00-0500", "TZ=America/New_York 0 1 * * ?", "2012-03-11T01:00:00-0500"),
    ("2012-03-11T01:00:00-0500", "TZ=America/New_York 0 1 * * ?", "2012-03-12T01:00:00-0400"),
    ("2012-03-11T00:00:00-0500", "TZ=America/New_York 0 2 * * ?", "2012-03-12T02:00:00-0400"),
    ("2012-11-04T00:00:00-0400", "TZ=America/New_York 30 2 04 Nov ?", "2012-11-04T02:30:00-0500"),
    ("2012-11-04T01:45:00-0400", "TZ=America/New_York 30 1 04 Nov ?", "2012-11-04T01:30:00-0500"),
    ("2012-11-04T00:00:00-0400", "TZ=America/New_York 0 * * * ?", "2012-11-04T01:00:00-0400"),
    ("2012-11-04T01:00:00-0400", "TZ=America/New_York 0 * * * ?", "2012-11-04T01:00:00-0500"),
    ("2012-11-04T01:00:00-0500", "TZ=America/New_York 0 * * * ?", "2012-11-04T02:00:00-0500"),
    ("2012-11-04T00:00:00-0400", "TZ=America/New_York 0 1 * * ?", "2012-11-04T01:00:00-0400"),
    ("2012-11-04T01:00:00-0400", "TZ=America/New_York 0 1 * * ?", "2012-11-04T01:00:00-0500"),
    ("2012-11-04T01:00:00-0500", "TZ=America/New_York 0 1 * * ?", "2012-11-05T01:00:00-0500"),
    ("2012-11-04T00:00:00-0400", "TZ=America/New_York 0 2 * * ?", "2012-11-04T02:00:00-0500"),
    ("2012-11-04T02:00:00-0500", "TZ=America/New_York 0 2 * * ?", "2012-11-05T02:00:00-0500"),
    ("2012-11-04T00:00:00-0400", "TZ=America/New_York 0 3 * * ?", "2012-11-04T03:00:00-0500"),
    ("2012-11-04T03:00:00-0500", "TZ=America/New_York 0 3 * * ?", "2012-11-05T03:00:00-0500"),
    ("Mon Jul 9 23:35 2012", "0 0 30 Feb ?", ""),
    ("Mon Jul 9 23:35 2012", "0 0 31 Apr ?", ""),
    ("2018-10-17T05:00:00-0400", "TZ=America/Sao_Paulo 0 9 10 * ?", "2018-11-10T06:00:00-0500"),
    ("2018-02-14T05:00:00-0500", "TZ=America/Sao_Paulo 0 9 22 * ?", "2018-02-22T07:00:00-0500"),
]


def instant(text: str) -> float:
    for layout in ("%a %b %d %H:%M %Y", "%a %b %d %H:%M:%S %Y"):
        try:
            return datetime.strptime(text, layout).replace(tzinfo=UTC).timestamp()
        except ValueError:
            pass
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S%z").timestamp()


@pytest.mark.parametrize(("after", "schedule", "expected"), CASES)
def test_next_matches_robfig_cron(after: str, schedule: str, expected: str) -> None:
    assert next_time(parse_schedule(schedule), instant(after)) == (instant(expected) if expected else None)


@pytest.mark.parametrize(
    ("schedule", "expected"),
    [("@every 90s", 1_700_000_090.0), ("@every 1500ms", 1_700_000_001.0), ("@every 1h", 1_700_003_600.0)],
)
def test_every_adds_whole_seconds(schedule: str, expected: float) -> None:
    assert next_time(parse_schedule(schedule), 1_700_000_000.25) == expected


def test_descriptors_fire_at_their_instants() -> None:
    after = instant("Tue Nov 14 22:13:20 2023")
    assert next_time(parse_schedule("@hourly"), after) == instant("Tue Nov 14 23:00 2023")
    assert next_time(parse_schedule("@daily"), after) == instant("Wed Nov 15 00:00 2023")
    assert next_time(parse_schedule("@weekly"), after) == instant("Sun Nov 19 00:00 2023")
    assert next_time(parse_schedule("@monthly"), after) == instant("Fri Dec 1 00:00 2023")
    assert next_time(parse_schedule("@yearly"), after) == instant("Mon Jan 1 00:00 2024")
