"""``fakeapi serve --webhook-service``: a Service reference reaches a webhook on this machine."""

from __future__ import annotations

import aiohttp
import pytest

from tests.cli.serving import ServeProcess
from tests.conftest import RawClient
from tests.conversion.crds import CRDS, V1, V2, job, webhook_crd
from tests.conversion.webhook_server import ConversionWebhook


@pytest.mark.asyncio
async def test_serve_maps_a_service_to_the_local_webhook() -> None:
    async with ConversionWebhook(names=("converter.system.svc",)) as hook:
        with ServeProcess("--port", "0", f"--webhook-service=system/converter:8443=127.0.0.1:{hook.port}") as served:
            async with aiohttp.ClientSession() as session:
                client = RawClient(session, served.url)
                service = {"namespace": "system", "name": "converter", "port": 8443, "path": "/convert"}
                definition = webhook_crd({"service": service, "caBundle": hook.ca_bundle})
                assert (await client.post(CRDS, definition)).status == 201
                assert (await client.post(V1, job("v1", a=1))).status == 201
                got = await client.get(f"{V2}/job-1")
                assert got.status == 200, got.body
                assert got.json()["spec"] == {"b": 1}
                assert hook.paths == ["/convert?timeout=30s"]


def test_a_malformed_mapping_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    from fakeapi.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["serve", "--webhook-service", "converter:443"])
    assert exited.value.code == 2
    assert "--webhook-service must be NAMESPACE/NAME[:PORT]=HOST:PORT, not 'converter:443'" in capsys.readouterr().err
