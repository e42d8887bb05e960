"""``pods/exec``, ``attach`` and ``portforward`` over WebSocket for pods the simulated kubelet runs,
frame by frame (docs/kubelet-endpoints.md)."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import aiohttp
import pytest

from fakeapi import FakeAPIServer, OutcomeRule
from tests.conftest import RawClient
from tests.controllers.workloads import started

pytestmark = pytest.mark.asyncio

RULES = [OutcomeRule("succeed after 5s", image="job")]
PODS = "/api/v1/namespaces/default/pods"
SUCCESS = {"metadata": {}, "status": "Success"}


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"outcomes": RULES, "seed": 5}


async def frames(socket: aiohttp.ClientWebSocketResponse) -> list[bytes]:
    """Every message until the server closes the connection."""
    received = []
    async for message in socket:
        if message.type == aiohttp.WSMsgType.BINARY:
            received.append(message.data)
        elif message.type == aiohttp.WSMsgType.TEXT:
            received.append(message.data.encode())
    return received


async def exec_frames(client: RawClient, query: str, protocols: tuple[str, ...]) -> tuple[str | None, list[bytes]]:
    url = f"{client.base}{PODS}/p/exec?{query}"
    async with client.session.ws_connect(url, protocols=protocols) as socket:
        return socket.protocol, await frames(socket)


async def test_v5_exec_writes_the_script_output_and_a_success_status(server: FakeAPIServer, client: RawClient) -> None:
    await started(server, client, "p")
    server.script_exec("p", ["cat", "/etc/motd"], stdout="hello\n", stderr="warning\n")
    protocol, received = await exec_frames(
        client, "command=cat&command=/etc/motd&stdout=true&stderr=true", ("v5.channel.k8s.io", "v4.channel.k8s.io")
    )
    assert protocol == "v5.channel.k8s.io"
    assert received == [
        b"\x01",
        b"\x01hello\n",
        b"\x02warning\n",
        b"\x03" + json.dumps(SUCCESS).replace(" ", "").encode(),
    ]


async def test_a_non_zero_exit_is_a_non_zero_exit_code_status_whose_text_depends_on_the_path(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "p")
    server.script_exec("p", ["sh", "-c", "exit 3"], exit_code=3)
    query = "command=sh&command=-c&command=exit%203&stdout=1"
    causes = {"causes": [{"reason": "ExitCode", "message": "3"}]}
    _, translated = await exec_frames(client, query, ("v5.channel.k8s.io",))
    assert json.loads(translated[-1][1:]) == {
        "metadata": {},
        "status": "Failure",
        "message": "command terminated with non-zero exit code: command terminated with exit code 3",
        "reason": "NonZeroExitCode",
        "details": causes,
    }
    protocol, kubelet = await exec_frames(client, query, ("v4.channel.k8s.io",))
    assert protocol == "v4.channel.k8s.io"
    assert json.loads(kubelet[-1][1:])["message"] == (
        "command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3"
    )
    _, oldest = await exec_frames(client, query, ("channel.k8s.io",))
    assert (
        oldest[-1]
        == b"\x03command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3"
    )


async def test_an_unscripted_command_exits_127_naming_itself(server: FakeAPIServer, client: RawClient) -> None:
    await started(server, client, "p")
    _, received = await exec_frames(client, "command=ls&stdout=1&stderr=1", ("v5.channel.k8s.io",))
    assert received[1] == b"\x02fakeapi: no exec script for 'ls' in container main of pod default/p\n"
    assert json.loads(received[2][1:])["details"]["causes"] == [{"reason": "ExitCode", "message": "127"}]


async def test_base64_protocols_frame_channels_as_digits(server: FakeAPIServer, client: RawClient) -> None:
    await started(server, client, "p")
    server.script_exec("p", ["date"], stdout=b"\x00\xff", container="main")
    protocol, received = await exec_frames(client, "command=date&stdout=1", ("v4.base64.channel.k8s.io",))
    assert protocol == "v4.base64.channel.k8s.io"
    assert received[:2] == [b"1", b"1" + base64.b64encode(b"\x00\xff")]
    assert received[2][:1] == b"3"
    assert json.loads(base64.b64decode(received[2][1:])) == SUCCESS


async def test_refusals_before_the_upgrade(server: FakeAPIServer, client: RawClient) -> None:
    await started(server, client, "p")
    plain = await client.get(f"{PODS}/p/exec?command=ls&stdout=1")
    assert (plain.status, plain.json()["message"]) == (400, "Upgrade request required")
    headers = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol": "v9.channel.k8s.io"}  # fmt: skip
    unknown = await client.get(f"{PODS}/p/exec?command=ls&stdout=1", headers=headers)
    assert (unknown.status, unknown.body) == (403, b"")
    wrong = await client.get(f"{PODS}/p/exec?command=ls&container=db", headers=headers)
    assert (wrong.status, wrong.json()["message"]) == (400, "container db is not valid for pod p")


async def test_exec_in_a_container_that_does_not_run(server: FakeAPIServer, client: RawClient) -> None:
    await started(server, client, "p", "job")
    server.advance(5)
    _, translated = await exec_frames(client, "command=ls&stdout=1", ("v5.channel.k8s.io",))
    cause = 'unable to upgrade connection: container not found ("main")'
    assert json.loads(translated[-1][1:]) == {
        "metadata": {},
        "status": "Failure",
        "message": f"Internal error occurred: {cause}",
        "reason": "InternalError",
        "details": {"causes": [{"message": cause}]},
        "code": 500,
    }
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await exec_frames(client, "command=ls&stdout=1", ("v4.channel.k8s.io",))
    assert refused.value.status == 500


async def test_attach_streams_what_the_container_writes_until_it_terminates(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "p", "job")
    url = f"{client.base}{PODS}/p/attach?stdout=1&stderr=1"
    async with client.session.ws_connect(url, protocols=("v5.channel.k8s.io",)) as socket:
        assert await socket.receive_bytes() == b"\x01"
        server.append_log("p", "attached line")
        assert await socket.receive_bytes() == b"\x01attached line\n"
        server.advance(5)
        assert json.loads((await socket.receive_bytes())[1:]) == SUCCESS
        assert (await socket.receive()).type == aiohttp.WSMsgType.CLOSE


async def test_port_forward_connects_a_named_port_and_refuses_the_others(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "p")
    received: list[bytes] = []

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(2):
            data = await reader.readexactly(4)
            received.append(data)
            writer.write(b"echo " + data)
            await writer.drain()
        writer.close()

    listener = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    server.forward_port("p", 8080, f"127.0.0.1:{port}")
    url = f"{client.base}{PODS}/p/portforward?ports=8080,9090"
    async with listener, client.session.ws_connect(url, protocols=("v5.channel.k8s.io", "v4.channel.k8s.io")) as socket:
        assert socket.protocol == "v4.channel.k8s.io"
        announced = [await socket.receive_bytes() for _ in range(4)]
        assert announced == [b"\x00\x90\x1f", b"\x01\x90\x1f", b"\x02\x82\x23", b"\x03\x82\x23"]
        await socket.send_bytes(b"\x00ping")
        seen = [await socket.receive_bytes()]
        while seen[-1][:1] != b"\x00":  # the refusal of 9090 may come before the echo
            seen.append(await socket.receive_bytes())
        assert seen[-1] == b"\x00echo ping"
        await socket.send_bytes(b"\x00pong")
        rest = seen + await frames(socket)
    assert received == [b"ping", b"pong"]
    assert b"\x00echo pong" in rest
    refusal = next(frame for frame in rest if frame[:1] == b"\x03")
    assert refusal.startswith(b"\x03error forwarding port 9090 to pod ")
    assert refusal.endswith(b", uid : dial tcp4 127.0.0.1:9090: connect: connection refused")


async def test_pods_off_the_simulated_nodes_keep_the_unreachable_kubelet(
    server: FakeAPIServer, client: RawClient
) -> None:
    spec: dict[str, Any] = {"nodeName": "elsewhere", "containers": [{"name": "main", "image": "web"}]}
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "away"}, "spec": spec}
    assert (await client.post(PODS, body)).status == 201
    server.advance(0)
    for path in ("log", "exec?command=ls", "portforward?ports=80"):
        reply = await client.get(f"{PODS}/away/{path}")
        assert (reply.status, reply.json()["message"]) == (404, 'nodes "elsewhere" not found'), path


async def test_client_frames_are_never_read_as_request_headers(server: FakeAPIServer, client: RawClient) -> None:
    """A masked frame whose bytes hold a newline reaches the WebSocket, not the HTTP header checks."""
    await started(server, client, "p")
    host, port = client.base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(
        f"GET {PODS}/p/attach?stdin=1&stdout=1 HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade\r\n"
        "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101 ")

    async def frame(opcode: int = 0x82) -> bytes:
        first, length = await reader.readexactly(2)
        assert (first, length < 126) == (opcode, True)
        return await reader.readexactly(length)

    assert await frame() == b"\x01"
    payload = b"\x00typed\n"  # stdin, masked with a zero key: the bytes travel as they are
    writer.write(bytes([0x82, 0x80 | len(payload)]) + b"\x00\x00\x00\x00" + payload)
    writer.write(bytes([0x89, 0x80 | 4]) + b"\x00\x00\x00\x00" + b"ping")  # its pong: the frame was read
    assert await frame(0x8A) == b"ping"
    server.append_log("p", "still a websocket")
    assert await frame() == b"\x01still a websocket\n"
    writer.close()
