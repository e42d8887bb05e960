"""What kubectl shows of a CRD's non-storage version converted by a webhook (docs/conversion.md)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import aiohttp
import pytest

from fakeapi.server import FakeAPIServer
from tests.conftest import RawClient
from tests.conversion.crds import CRDS, V1, job, webhook_crd
from tests.conversion.webhook_server import ConversionWebhook, answering

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed"),
]


async def _kubectl(kubeconfig: Path, home: Path, *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        "kubectl",
        f"--kubeconfig={kubeconfig}",
        f"--cache-dir={home / 'cache'}",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, out.decode(), err.decode()


async def test_kubectl_reads_the_other_version_converted_and_sees_the_failure(tmp_path: Path) -> None:
    async with ConversionWebhook() as hook, FakeAPIServer() as server, aiohttp.ClientSession() as session:
        client = RawClient(session, server.url)
        assert (await client.post(CRDS, webhook_crd({"url": hook.url, "caBundle": hook.ca_bundle}))).status == 201
        assert (await client.post(V1, job("v1", a=1))).status == 201
        kubeconfig = tmp_path / "kubeconfig"
        server.kubeconfig(kubeconfig)
        code, out, err = await _kubectl(kubeconfig, tmp_path, "get", "jobs.v2.example.com", "job-1", "-o", "json")
        assert code == 0, err
        shown = json.loads(out)
        assert (shown["apiVersion"], shown["spec"]) == ("example.com/v2", {"b": 1})
        hook.answer = answering(b"garbage")
        code, out, err = await _kubectl(kubeconfig, tmp_path, "get", "jobs.v2.example.com", "job-1")
        assert code == 1
        assert err.strip().endswith(
            "conversion webhook for example.com/v1, Kind=Job failed: couldn't get version/kind; json parse error: "
            "invalid character 'g' looking for beginning of value"
        )
