"""``pods/portforward`` over SPDY/3.1, plain and tunnelled in a WebSocket, frame by frame, for pods
the simulated kubelet runs (docs/kubelet-endpoints.md)."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

from fakeapi import FakeAPIServer, OutcomeRule
from fakeapi._http.spdy_framing import (
    Data,
    Frame,
    FrameReader,
    FrameWriter,
    GoAway,
    Ping,
    RstStream,
    SynReply,
    SynStream,
)
from tests.conftest import RawClient
from tests.controllers.workloads import started

pytestmark = pytest.mark.asyncio

RULES = [OutcomeRule("succeed after 5s", image="job")]
PODS = "/api/v1/namespaces/default/pods"
CANCEL, PROTOCOL_ERROR, FIN = 5, 1, 1


@pytest.fixture
def server_options() -> dict[str, Any]:
    return {"outcomes": RULES, "seed": 5}


def opening(stream_id: int, kind: str, port: int, request_id: str = "0") -> SynStream:
    return SynStream(stream_id, {"port": [str(port)], "requestid": [request_id], "streamtype": [kind]})


class SpdyClient:
    """kubectl's side of the SPDY connection, over any byte transport."""

    def __init__(self, read: Any, write: Any) -> None:
        self._read, self._write = read, write
        self._encoder, self._decoder = FrameWriter(), FrameReader()
        self._received: list[Frame] = []

    async def send(self, *frames: Frame) -> None:
        for frame in frames:
            await self._write(self._encoder.encode(frame))

    async def receive(self) -> Frame | None:
        """The server's next frame; None once it has closed the connection."""
        while not self._received:
            data = await self._read()
            if not data:
                return None
            self._received += self._decoder.feed(data)
        return self._received.pop(0)

    async def rest(self) -> list[Frame]:
        frames = []
        while (frame := await self.receive()) is not None:
            frames.append(frame)
        return frames


async def upgrade(
    client: RawClient, pod: str, headers: str
) -> tuple[bytes, asyncio.StreamReader, asyncio.StreamWriter]:
    host, port = client.base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"POST {PODS}/{pod}/portforward HTTP/1.1\r\nHost: {host}\r\n{headers}\r\n".encode())
    return await reader.readuntil(b"\r\n\r\n"), reader, writer


async def spdy(client: RawClient, pod: str) -> tuple[SpdyClient, asyncio.StreamWriter]:
    head, reader, writer = await upgrade(
        client, pod, "Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\n"
    )
    lines = head.decode().split("\r\n")
    assert lines[0] == "HTTP/1.1 101 Switching Protocols"
    assert {"Upgrade: SPDY/3.1", "X-Stream-Protocol-Version: portforward.k8s.io"} <= set(lines)

    async def write(data: bytes) -> None:
        writer.write(data)
        await writer.drain()

    return SpdyClient(lambda: reader.read(65536), write), writer


async def echo_server(server: FakeAPIServer, pod: str, port: int) -> tuple[asyncio.Server, asyncio.Event]:
    """Answers ``echo <4 bytes>``, then waits for the end of what it is sent and closes."""
    done = asyncio.Event()

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"echo " + await reader.readexactly(4))
        await writer.drain()
        await reader.read()
        writer.close()
        done.set()

    listener = await asyncio.start_server(echo, "127.0.0.1", 0)
    server.forward_port(pod, port, f"127.0.0.1:{listener.sockets[0].getsockname()[1]}")
    return listener, done


async def test_a_pair_of_streams_forwards_bytes_then_closes_the_error_stream_first(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "p")
    listener, done = await echo_server(server, "p", 8080)
    async with listener:
        peer, writer = await spdy(client, "p")
        await peer.send(Ping(1))
        assert await peer.receive() == Ping(1)  # the client's ping comes back
        await peer.send(opening(1, "error", 8080))
        assert await peer.receive() == SynReply(1)
        await peer.send(Data(1, b"", FIN), opening(3, "data", 8080))
        assert await peer.receive() == SynReply(3)
        await peer.send(Data(3, b"ping"))
        assert await peer.receive() == Data(3, b"echo ping")
        await peer.send(Data(3, b"", FIN))  # the port's connection is half-closed: the echo ends
        assert [await peer.receive(), await peer.receive()] == [Data(1, b"", FIN), Data(3, b"", FIN)]
        await done.wait()
        await peer.send(RstStream(3, CANCEL), GoAway(0))
        assert await peer.rest() == [GoAway(3)]
        writer.close()


async def test_a_port_nothing_listens_on_is_refused_on_the_error_stream(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "p")
    peer, writer = await spdy(client, "p")
    await peer.send(opening(1, "error", 9090, "7"), opening(3, "data", 9090, "7"))
    assert [await peer.receive() for _ in range(2)] == [SynReply(1), SynReply(3)]
    refusal = await peer.receive()
    assert isinstance(refusal, Data) and refusal.stream_id == 1
    assert refusal.data.startswith(b"error forwarding port 9090 to pod ")
    assert refusal.data.endswith(b", uid : dial tcp4 127.0.0.1:9090: connect: connection refused")
    assert [await peer.receive(), await peer.receive()] == [Data(1, b"", FIN), Data(3, b"", FIN)]
    writer.close()


async def test_streams_without_a_valid_port_or_type_are_reset_and_pairs_take_one_of_each(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "p")
    peer, writer = await spdy(client, "p")
    await peer.send(
        SynStream(1, {"streamtype": ["data"]}),
        opening(3, "data", 0),
        opening(5, "data", 65536),
        opening(7, "other", 80),
        SynStream(9, {"port": ["80"]}),
    )
    assert [await peer.receive() for _ in range(5)] == [RstStream(n, CANCEL) for n in (1, 3, 5, 7, 9)]
    await peer.send(opening(3, "error", 80))  # a stream id already used
    assert await peer.receive() == RstStream(3, PROTOCOL_ERROR)
    await peer.send(opening(11, "error", 80, "x"), opening(13, "error", 80, "x"))
    assert [await peer.receive() for _ in range(3)] == [
        SynReply(11),
        SynReply(13),
        Data(11, b"error processing stream for request x: error stream already assigned"),
    ]
    writer.close()
    await writer.wait_closed()


async def test_the_handshake_refusals(server: FakeAPIServer, client: RawClient) -> None:
    await started(server, client, "done", image="job")
    server.advance(5)
    await started(server, client, "p")
    spdy_upgrade = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1"}
    url = f"{PODS}/p/portforward"
    reply = await client.post(url, None, headers=spdy_upgrade)
    assert (reply.status, reply.body) == (200, b"")  # the kubelet's handshake fails without an answer
    reply = await client.post(url, None, headers={**spdy_upgrade, "X-Stream-Protocol-Version": "v9, v8"})
    assert (reply.status, reply.headers["X-Accepted-Stream-Protocol-Versions"]) == (403, "portforward.k8s.io")
    assert reply.body == (
        b"unable to upgrade: unable to negotiate protocol: client supports [v9 v8], server accepts [portforward.k8s.io]\n"
    )
    reply = await client.post(url, None, headers={"X-Stream-Protocol-Version": "portforward.k8s.io"})
    assert (reply.status, reply.json()["message"]) == (400, "Upgrade request required")
    protocol = {"X-Stream-Protocol-Version": "portforward.k8s.io"}
    reply = await client.post(url, None, headers={"Connection": "Upgrade", "Upgrade": "h2c", **protocol})
    assert reply.status == 400
    assert reply.body.startswith(b'unable to upgrade: missing upgrade headers in request: http.Header{"Accept":')
    assert b', "Upgrade":[]string{"h2c"}, ' in reply.body and b'"Host"' not in reply.body
    reply = await client.post(f"{PODS}/done/portforward", None, headers={**spdy_upgrade, **protocol})
    assert (reply.status, reply.body) == (500, b'pod not found ("done_default")')

    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await client.session.ws_connect(f"{client.base}{url}", protocols=("SPDY/3.1+v9.k8s.io",))
    assert refused.value.status == 403


async def test_the_websocket_tunnel_carries_the_same_frames_in_binary_messages(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "p")
    listener, done = await echo_server(server, "p", 8080)
    url = f"{client.base}{PODS}/p/portforward"
    offered = ("v4.channel.k8s.io", "SPDY/3.1+portforward.k8s.io")
    async with listener, client.session.ws_connect(url, protocols=offered) as socket:
        assert socket.protocol == "SPDY/3.1+portforward.k8s.io"

        async def read() -> bytes:
            message = await socket.receive()
            return message.data if message.type == aiohttp.WSMsgType.BINARY else b""

        async def write(data: bytes) -> None:
            for at in range(0, len(data), 5):  # frames cut across messages, as spdystream's writes are
                await socket.send_bytes(data[at : at + 5])

        peer = SpdyClient(read, write)
        await peer.send(opening(1, "error", 8080), opening(3, "data", 8080))
        assert [await peer.receive(), await peer.receive()] == [SynReply(1), SynReply(3)]
        await peer.send(Data(3, b"pong"))
        assert await peer.receive() == Data(3, b"echo pong")
        await socket.send_str("text")  # the tunnel reads binary messages only: the connection ends
        assert await peer.rest() == [GoAway(3)]
        await done.wait()  # and the port's connection with it


async def test_a_client_that_goes_away_mid_forward_ends_it_quietly(server: FakeAPIServer, client: RawClient) -> None:
    await started(server, client, "p")
    listener, done = await echo_server(server, "p", 8080)
    async with listener:
        peer, writer = await spdy(client, "p")
        await peer.send(opening(1, "error", 8080), opening(3, "data", 8080), Data(3, b"ping"))
        assert [await peer.receive() for _ in range(3)] == [SynReply(1), SynReply(3), Data(3, b"echo ping")]
        writer.transport.abort()
        await done.wait()  # the port's connection is closed; the fixture sees no server error


async def test_bytes_sent_before_the_pair_is_complete_wait_for_the_port(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "p")
    listener, done = await echo_server(server, "p", 8080)
    async with listener:
        peer, writer = await spdy(client, "p")
        await peer.send(opening(1, "data", 8080, "a"), Data(1, b"early", FIN))
        assert await peer.receive() == SynReply(1)
        await peer.send(opening(3, "error", 8080, "a"))
        assert await peer.receive() == SynReply(3)
        # "earl" is echoed; the FIN reached the port after the rest, and it closed.
        assert [await peer.receive() for _ in range(3)] == [Data(1, b"echo earl"), Data(3, b"", FIN), Data(1, b"", FIN)]
        await done.wait()
        # Without request ids the streams pair by id: an error stream's own, a data stream's minus 2.
        await peer.send(SynStream(5, {"port": ["9"], "streamtype": ["error"]}))
        await peer.send(SynStream(7, {"port": ["9"], "streamtype": ["data"]}))
        assert [await peer.receive() for _ in range(2)] == [SynReply(5), SynReply(7)]
        refusal = await peer.receive()
        assert isinstance(refusal, Data) and refusal.stream_id == 5 and b"error forwarding port 9 " in refusal.data
        writer.close()


async def test_a_frame_spdystream_cannot_read_ends_the_connection(server: FakeAPIServer, client: RawClient) -> None:
    await started(server, client, "p")
    peer, writer = await spdy(client, "p")
    await peer.send(opening(1, "error", 80))
    assert await peer.receive() == SynReply(1)
    writer.write(bytes.fromhex("8003000a00000000"))  # a CREDENTIAL frame
    assert await peer.rest() == [RstStream(1, CANCEL), GoAway(1)]
    writer.close()


async def test_a_lone_data_stream_holds_no_more_than_its_initial_window(
    server: FakeAPIServer, client: RawClient
) -> None:
    await started(server, client, "p")
    peer, writer = await spdy(client, "p")
    await peer.send(opening(1, "data", 8080, "a"), Data(1, b"x" * 65536))
    assert await peer.receive() == SynReply(1)
    await peer.send(Data(1, b"y"), Ping(3))
    assert [await peer.receive(), await peer.receive()] == [RstStream(1, 7), Ping(3)]  # FLOW_CONTROL_ERROR
    writer.close()
