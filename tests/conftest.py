"""Fixtures shared by the layers that need a running server: one fresh server per test.

Kept small on purpose: a server, and a raw HTTP client that returns status, headers and the exact
body bytes, because that is what the tests assert on.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest_asyncio
from multidict import CIMultiDictProxy

from fakeapi.server import FakeAPIServer

CRD_GROUP = "example.com"


def crd(
    plural: str = "jobs",
    kind: str = "Job",
    *,
    scope: str = "Namespaced",
    status: bool = True,
    schema: dict[str, Any] | None = None,
    versions: list[str] | None = None,
    short_names: list[str] | None = None,
    printer_columns: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A CustomResourceDefinition in example.com (preserving unknown fields unless a schema is given)."""
    schema = schema or {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    names = versions or ["v1"]
    version_list = []
    for index, name in enumerate(names):
        version: dict[str, Any] = {
            "name": name,
            "served": True,
            "storage": index == 0,
            "schema": {"openAPIV3Schema": schema},
        }
        if status:
            version["subresources"] = {"status": {}}
        if printer_columns:
            version["additionalPrinterColumns"] = printer_columns
        version_list.append(version)
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{CRD_GROUP}"},
        "spec": {
            "group": CRD_GROUP,
            "scope": scope,
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "shortNames": short_names or []},
            "versions": version_list,
        },
    }


@dataclass
class Reply:
    status: int
    headers: CIMultiDictProxy[str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def warnings(self) -> list[str]:
        return self.headers.getall("Warning", [])


class RawClient:
    """Sends exact bytes and returns exact bytes."""

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session = session
        self.base = base

    async def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        content_type: str | None = "application/json",
        headers: dict[str, str] | None = None,
    ) -> Reply:
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        all_headers = dict(headers or {})
        if content_type is not None and data is not None:
            all_headers["Content-Type"] = content_type
        async with self.session.request(method, self.base + path, data=data, headers=all_headers) as response:
            return Reply(response.status, response.headers, await response.read())

    async def get(self, path: str, **kwargs: Any) -> Reply:
        return await self.request("GET", path, **kwargs)

    async def post(self, path: str, body: Any, **kwargs: Any) -> Reply:
        return await self.request("POST", path, body, **kwargs)

    async def put(self, path: str, body: Any, **kwargs: Any) -> Reply:
        return await self.request("PUT", path, body, **kwargs)

    async def patch(
        self, path: str, body: Any, content_type: str = "application/json-patch+json", **kwargs: Any
    ) -> Reply:
        return await self.request("PATCH", path, body, content_type=content_type, **kwargs)

    async def delete(self, path: str, body: Any = None, **kwargs: Any) -> Reply:
        return await self.request("DELETE", path, body, **kwargs)


@pytest_asyncio.fixture
async def server() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer() as running:
        yield running
        assert running.errors == [], "\n".join(running.errors)


@pytest_asyncio.fixture
async def client(server: FakeAPIServer) -> AsyncIterator[RawClient]:
    # aiohttp would ask for gzip by itself, and the server gzips an answer over 128 KiB
    # (docs/http-limits.md): a raw client asks for exactly what its test asks for.
    async with aiohttp.ClientSession(auto_decompress=False, skip_auto_headers=("Accept-Encoding",)) as session:
        yield RawClient(session, server.url)
