"""The outcome that names a local process: its text form, its rules-file form, and what is refused
(docs/process-containers.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fakeapi._cluster import parse_outcome
from fakeapi._cluster.local_processes import LocalProcess
from fakeapi._cluster.outcome_files import load_outcome_rules


def test_the_text_form_and_the_rules_file_name_a_process(tmp_path: Path) -> None:
    listed = parse_outcome('process ["python3", "-m", "http.server"]')
    assert listed.local_process == LocalProcess(("python3", "-m", "http.server"))
    full = parse_outcome(
        'process {"command": ["srv"], "workingDir": "/srv", "env": {"A": "1"}, "ports": {"8786": 18786}}'
    )
    assert full.local_process == LocalProcess(("srv",), "/srv", {"A": "1"}, {8786: 18786})
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "- image: 'daskdev/*'\n  process: {command: [dask, scheduler], workingDir: /tmp, ports: {8786: 18786}}\n"
    )
    [rule] = load_outcome_rules(rules)
    assert rule.image == "daskdev/*"
    assert rule.resolved().local_process == LocalProcess(("dask", "scheduler"), "/tmp", {}, {8786: 18786})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("process []", "a process's command is a non-empty list of strings"),
        ('process "sh -c x"', "a process is an argv list or an object with command"),
        ("process [1]", "a process's command is a non-empty list of strings"),
        ('process {"command": ["x"], "shell": true}', "unknown process keys shell"),
        ('process {"command": ["x"], "ports": {"80": 70000}}', "a port is a number from 1 to 65535, not 70000"),
        ('process ["x"] logs ["a"]', "a process is JSON"),
    ],
)
def test_a_process_that_does_not_parse_says_why(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_outcome(text)


def test_a_rules_file_process_has_no_outcome_text(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("- {image: x, outcome: run, process: {command: [x]}}\n")
    with pytest.raises(ValueError, match=re.escape(f"{rules}: rule 1: a process rule has no outcome")):
        load_outcome_rules(rules)
