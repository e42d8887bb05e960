"""``examples/operator-repo`` runs as its own repo would: its own config, an empty conftest, the plugin from the install."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "operator-repo"


def test_the_example_operator_repo_passes(pytester: pytest.Pytester) -> None:
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    result = pytester.runpytest_subprocess("-p", "no:hypothesispytest", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["rootdir: */test_the_example_operator_repo_passes*", "configfile: pyproject.toml"])
