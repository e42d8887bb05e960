"""The command line as a user sees it: verdicts and exit codes of the built-in suite, bad usage,
help, and replays that print the same report bytes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scenarios.conftest import REPO, cli

VERDICTS = [
    ("completion-claim", "whole-annotations", 1, "LIVENESS"),
    ("completion-claim", "resource-version", 0, "HOLDS"),
    ("completion-claim", "unconditional", 1, "SAFETY"),
    ("startup-failure-claim", "whole-spec-and-annotations", 1, "LIVENESS"),
    ("startup-failure-claim", "resource-version-and-startup-issue", 1, "LIVENESS"),
    ("startup-failure-claim", "resource-version", 0, "HOLDS"),
    ("non-ascii", "spec-string", 1, "LIVENESS"),
    ("non-ascii", "resource-version", 0, "HOLDS"),
    ("lost-response", "reread-claimer", 0, "HOLDS"),
    ("lost-response", "trust-response", 1, "LIVENESS"),
    ("kopf-finalizer", "resource-version", 0, "HOLDS"),
    ("kopf-finalizer", "no-precondition", 1, "SAFETY"),
    ("pod-outcome-claims", "resource-version", 0, "HOLDS"),
    ("pod-outcome-claims", "startup-issue-whole", 1, "LIVENESS"),
    ("pod-outcome-claims", "unconditional", 1, "SAFETY"),
]


@pytest.mark.parametrize(("name", "variant", "code", "verdict"), VERDICTS, ids=[f"{n}:{v}" for n, v, _, _ in VERDICTS])
def test_builtin_verdicts(name: str, variant: str, code: int, verdict: str) -> None:
    result = cli("run", name, "--variant", variant, "--exhaustive", "--no-progress")
    assert result.code == code, result.out + result.err
    if verdict == "HOLDS":
        assert "HOLDS in every one of" in result.out and "exhaustively" in result.out
    else:
        assert f"{verdict} VIOLATION in schedule s" in result.out or f"{verdict}," in result.out.upper()
        assert f"python -m scenarios run {name} --variant {variant} --replay s" in result.out


def test_the_pre_fix_claim_fails_in_every_schedule() -> None:
    result = cli("run", "completion-claim", "--variant", "whole-annotations", "--exhaustive", "--keep-going")
    assert result.code == 1
    line = next(line for line in result.out.splitlines() if "schedules violate it" in line)
    violating, _, total = line.split(" schedules")[0].partition(" of ")
    assert violating == total and int(total) > 1


def test_list_names_every_scenario_and_variant() -> None:
    result = cli("list")
    assert result.code == 0
    for name, variant, _, _ in VERDICTS:
        assert name in result.out and f"--variant {variant} " in result.out


def test_a_reader_that_goes_away_ends_the_listing_quietly() -> None:
    """``python -m scenarios list | head -3``: the pipe closes early, and that is not a crash."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "scenarios", "list"],
            cwd=REPO,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 1
    assert done.stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        ["run", "no-such-scenario", "--variant", "x"],
        ["run", "completion-claim"],
        ["run", "completion-claim", "--variant", "no-such-variant"],
        ["run", "completion-claim", "--variant", "unconditional", "--replay", "not-an-id"],
        ["run", "completion-claim", "--variant", "unconditional", "--replay", "s9"],
        ["run", "completion-claim", "--variant", "unconditional", "--faults", "gremlins"],
        ["run", "completion-claim", "--variant", "unconditional", "--exhaustive", "--schedules", "3"],
        ["run", "completion-claim", "--variant", "unconditional", "--shard", "3/2"],
        ["frobnicate"],
    ],
)
def test_bad_usage_exits_2(args: list[str]) -> None:
    assert cli(*args).code == 2


def test_help_documents_every_flag() -> None:
    result = cli("run", "--help")
    assert result.code == 0
    for flag in (
        "--variant", "--exhaustive", "--schedules", "--seed", "--replay", "--report", "--reduction", "--max-runs",
        "--keep-going", "--no-shrink", "--faults", "--max-faults", "--shard", "--hostile", "--mutate", "--plain",
        "--kubeconfig", "--quiet", "--no-progress", "--interchangeable",
    ):  # fmt: skip
        assert flag in result.out
    assert "exit status" in result.out


@pytest.mark.parametrize(
    ("name", "variant"), [("completion-claim", "unconditional"), ("lost-response", "trust-response")]
)
def test_a_replayed_schedule_prints_the_same_report(tmp_path: Path, name: str, variant: str) -> None:
    found = cli("run", name, "--variant", variant, "--schedules", "30", "--seed", "3", "--report", tmp_path / "a.md")
    assert found.code == 1
    schedule = found.out.split("--replay ")[-1].split()[0]
    replayed = cli("run", name, "--variant", variant, "--replay", schedule, "--report", tmp_path / "b.md")
    assert replayed.code == 1
    assert (tmp_path / "a.md").read_bytes() == (tmp_path / "b.md").read_bytes()
    assert (tmp_path / "a.md").read_text().startswith(f"# {name} / {variant}: ")


def test_random_exploration_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    first = cli(
        "run", "completion-claim", "--variant", "unconditional", "--schedules", "20", "--seed", "11", "--no-shrink"
    )
    second = cli(
        "run", "completion-claim", "--variant", "unconditional", "--schedules", "20", "--seed", "11", "--no-shrink"
    )
    assert first.code == second.code == 1
    assert first.out == second.out


def test_hostile_values_name_the_field_and_value_that_break_the_claim() -> None:
    result = cli("run", "completion-claim", "--variant", "whole-annotations", "--hostile", "--schedules", "2")
    assert result.code == 1  # a mutation's counterexample is a violation, even found on a sample
    assert "baseline (user strings and numbers spelled plainly): unknown: a random sample" in result.out
    assert "job-1/spec/command = 'echo hi > /tmp/x' (gt): violated: liveness" in result.out
    assert "--mutate job-1/spec/command=gt --replay s" in result.out


def test_hostile_values_leave_the_fixed_claim_alone() -> None:
    result = cli("run", "startup-failure-claim", "--variant", "resource-version", "--hostile", "--exhaustive")
    assert result.code == 0, result.out
    assert "No mutation changed the verdict." in result.out
    sampled = cli("run", "startup-failure-claim", "--variant", "resource-version", "--hostile", "--schedules", "1")
    assert sampled.code == 3 and "## Robust fields" not in sampled.out


def test_the_post_fix_claim_breaks_on_the_startup_message() -> None:
    result = cli(
        "run",
        "startup-failure-claim",
        "--variant",
        "resource-version-and-startup-issue",
        "--hostile",
        "--exhaustive",
    )
    assert result.code == 1
    assert "job-2/status/startupIssue/message = 'scope=pull&service=registry' (amp)" in result.out
    assert "job-2/spec/command" in result.out.split("## Robust fields")[1]


def test_a_shard_alone_is_unknown_and_the_shards_together_cover_the_whole_search() -> None:
    whole = cli("run", "non-ascii", "--variant", "resource-version", "--exhaustive", "-q")
    halves = [
        cli("run", "non-ascii", "--variant", "resource-version", "--exhaustive", "-q", "--shard", f"{k}/2")
        for k in (1, 2)
    ]
    assert whole.code == 0 and "HOLDS in every one of" in whole.out
    assert [half.code for half in halves] == [3, 3]
    assert all(half.out.startswith("non-ascii / resource-version: UNKNOWN, no violation in") for half in halves)

    def count(out: str, marker: str) -> int:
        return int(out.split(marker)[1].split()[0])

    shards = sum(count(half.out, "no violation in ") for half in halves)
    assert shards == count(whole.out, "HOLDS in every one of ")


def test_a_violation_found_in_one_shard_is_a_violation() -> None:
    codes = [
        cli("run", "completion-claim", "--variant", "unconditional", "--exhaustive", "-q", "--shard", f"{k}/3").code
        for k in (1, 2, 3)
    ]
    assert 1 in codes and set(codes) <= {1, 3}


OWN_SCENARIO = """
from scenarios import exactly_once, scenario
from tests.scenarios.test_engine import CRD, claim_tick, job

def build(variant):
    tick = claim_tick("job-1", guard={"fixed": "resourceVersion", "buggy": "none"}[variant])
    return scenario(name="own-claim", variant=variant, objects=[CRD, job("job-1", owner="ada")],
                    actors={"a": tick, "b": tick}, ticks=2, checks=exactly_once("claim", "default/job-1"))

FIXED = build("fixed")
"""


def test_a_scenario_of_ones_own_runs_and_replays_from_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "own_claims.py").write_text(OWN_SCENARIO)
    fixed = cli("run", "own_claims:FIXED", "--exhaustive", cwd=tmp_path)
    assert fixed.code == 0, fixed.out + fixed.err
    assert fixed.out.startswith("own-claim / fixed: HOLDS in every one of")
    buggy = cli(
        "run", "own_claims:build", "--variant", "buggy", "--exhaustive", "--report", tmp_path / "a.md", cwd=tmp_path
    )
    assert buggy.code == 1
    replay = buggy.out.split("## Replay\n")[1].splitlines()[0]
    assert replay.startswith("python -m scenarios run own_claims:build --variant buggy --replay s")
    again = cli(*replay.split()[3:], "--report", tmp_path / "b.md", cwd=tmp_path)
    assert again.code == 1
    assert (tmp_path / "a.md").read_bytes() == (tmp_path / "b.md").read_bytes()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("own_claims:NOTHING", "own_claims has no attribute 'NOTHING'"),
        ("no_such_module:X", "cannot import 'no_such_module'"),
        ("own_claims:OWN", "is not a Scenario"),
    ],
)
def test_a_scenario_of_ones_own_that_is_not_there_is_bad_usage(tmp_path: Path, name: str, message: str) -> None:
    (tmp_path / "own_claims.py").write_text(OWN_SCENARIO + "\nOWN = 3\n")
    result = cli("run", name, cwd=tmp_path)
    assert result.code == 2 and message in result.err


def test_a_search_cut_short_exits_3_and_says_why() -> None:
    result = cli("run", "completion-claim", "--variant", "resource-version", "--exhaustive", "--max-runs", "3")
    assert result.code == 3, result.out + result.err
    assert result.out.startswith("completion-claim / resource-version: UNKNOWN, no violation in 3 schedules")
    assert "- the search stopped at its budget of 3 runs before it was complete" in result.out


def test_quiet_prints_the_verdict_line_and_nothing_on_stderr() -> None:
    result = cli("run", "completion-claim", "--variant", "unconditional", "--exhaustive", "-q", "--no-progress")
    assert result.code == 1
    assert result.err == ""
    assert len(result.out.splitlines()) == 1 and "VIOLATED (" in result.out


def test_interchangeable_actors_are_named_on_the_command_line() -> None:
    """The built-in scenarios take their two replicas as interchangeable; ``none`` searches both
    orders, and a name that is no actor is refused before anything runs."""
    args = ("run", "completion-claim", "--variant", "resource-version", "--exhaustive", "-q")
    mirrored, both = cli(*args), cli(*args, "--interchangeable", "none")
    assert mirrored.code == both.code == 0
    assert "HOLDS in every one of 90 schedules" in mirrored.out
    assert "HOLDS in every one of 114 schedules" in both.out
    named = cli(*args, "--interchangeable", "replica-a,replica-b")
    assert named.code == 0 and "90 schedules" in named.out
    unknown = cli(*args, "--interchangeable", "replica-a,nobody")
    assert unknown.code == 2 and "do not exist: nobody" in unknown.err
