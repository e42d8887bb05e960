"""Fixtures the controller tests share: a server that runs the simulated controllers on a clock
standing still at ``START``, and a raw client of it (status, headers and the exact body bytes).

A module whose server differs (its outcome rules, its nodes, its seed, which controllers run)
overrides ``server_options`` with what differs, and nothing else.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from fakeapi import FakeAPIServer
from tests.conftest import RawClient

START = 1_700_000_000.0  # 2023-11-14T22:13:20Z


@pytest.fixture
def server_options() -> dict[str, Any]:
    """The module's FakeAPIServer arguments besides every controller, seed 7 and the still clock."""
    return {}


@pytest_asyncio.fixture
async def server(server_options: dict[str, Any]) -> AsyncIterator[FakeAPIServer]:
    options: dict[str, Any] = {"controllers": "all", "clock": lambda: START, "seed": 7, **server_options}
    async with FakeAPIServer(**options) as running:
        yield running
        assert running.errors == [], "\n".join(running.errors)


@pytest_asyncio.fixture
async def client(server: FakeAPIServer) -> AsyncIterator[RawClient]:
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        yield RawClient(session, server.url)
