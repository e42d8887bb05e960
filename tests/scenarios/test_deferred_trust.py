"""Default TLS client contexts made while an engine runs: the same certificates and settings as
``ssl.create_default_context()``, loaded at first need (docs/scenarios-client-costs.md)."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from fakeapi import FakeAPIServer
from scenarios import TickContext, explore, scenario
from scenarios import _deferred_trust as deferred_trust
from tests.scenarios.conftest import CRD, job

SETTINGS = (
    "protocol",
    "verify_mode",
    "check_hostname",
    "verify_flags",
    "options",
    "minimum_version",
    "maximum_version",
    "post_handshake_auth",
    "hostname_checks_common_name",
    "keylog_filename",
)
STANDARD = ssl.create_default_context  # as imported, before any engine ran
async_test = pytest.mark.asyncio


@pytest.fixture
def deferring() -> Iterator[None]:
    deferred_trust.install()
    try:
        yield
    finally:
        deferred_trust.uninstall()


def described(context: ssl.SSLContext) -> tuple[Any, ...]:
    settings = tuple(getattr(context, name) for name in SETTINGS)
    return (*settings, context.get_ciphers(), context.cert_store_stats(), context.get_ca_certs(binary_form=True))


async def status_over_tls(server: FakeAPIServer, context: ssl.SSLContext) -> int:
    connector = aiohttp.TCPConnector(ssl=context)
    async with aiohttp.ClientSession(connector=connector) as session, session.get(f"{server.url}/version") as response:
        return response.status


def _standard() -> ssl.SSLContext:
    return STANDARD()


def test_a_default_context_has_the_settings_and_certificates_of_the_standard_one(deferring: None) -> None:
    made = ssl.create_default_context()
    assert isinstance(made, ssl.SSLContext) and type(made) is not ssl.SSLContext  # the deferring one
    assert described(made) == described(_standard())


@async_test
async def test_a_server_outside_the_system_store_is_refused_as_by_the_standard_context(deferring: None) -> None:
    async with FakeAPIServer(tls=True) as server:
        for context in (ssl.create_default_context(), _standard()):
            with pytest.raises(aiohttp.ClientConnectorCertificateError) as refused:
                await status_over_tls(server, context)
            error = refused.value.certificate_error
            assert isinstance(error, ssl.SSLCertVerificationError)
            assert error.verify_message == "self-signed certificate in certificate chain"


@async_test
async def test_a_ca_added_before_the_first_handshake_is_trusted_with_the_system_ones(deferring: None) -> None:
    async with FakeAPIServer(tls=True) as server:
        assert server.ca_certificate is not None
        made, standard = ssl.create_default_context(), _standard()
        for context in (made, standard):
            context.load_verify_locations(cadata=server.ca_certificate.decode())
        assert made.get_ca_certs(binary_form=True) == standard.get_ca_certs(binary_form=True)
        assert await status_over_tls(server, made) == 200


@async_test
async def test_the_ca_file_the_environment_named_at_creation_is_the_one_loaded(
    deferring: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeAPIServer(tls=True) as server:
        assert server.ca_certificate is not None
        ca_file = tmp_path / "ca.pem"
        ca_file.write_bytes(server.ca_certificate)
        monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
        made, standard = ssl.create_default_context(), _standard()
        monkeypatch.delenv("SSL_CERT_FILE")
        assert await status_over_tls(server, made) == 200
        assert await status_over_tls(server, standard) == 200
        assert made.get_ca_certs() == standard.get_ca_certs()


def test_an_exploration_defers_while_it_runs_and_gives_the_standard_function_back() -> None:
    seen: list[tuple[Any, ...]] = []

    async def tick(ctx: TickContext) -> None:
        context = ssl.create_default_context()
        seen.append((type(context) is ssl.SSLContext, described(context)))

    explore(scenario(objects=[CRD, job("job-1")], actors={"a": tick}))
    assert seen and all(kind is False and description == described(_standard()) for kind, description in seen)
    assert ssl.create_default_context is STANDARD
