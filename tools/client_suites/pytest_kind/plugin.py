"""pytest-kind's command-line options, which suites read (``--keep-cluster``)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kind")
    group.addoption("--keep-cluster", action="store_true", default=False, help="kept for compatibility; ignored")
    group.addoption("--cluster-name", default="pytest-kind", help="kept for compatibility; ignored")
