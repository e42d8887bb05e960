"""The kubelet's port forwarding over one SPDY/3.1 connection (docs/kubelet-endpoints.md).

``handleHTTPStreams`` of the kubelet's CRI streaming server
(``pkg/kubelet/cri/streaming/portforward/httpstream.go``) on the server side of a spdystream
connection (``k8s.io/apimachinery/pkg/util/httpstream/spdy/connection.go``): for each forwarded
connection the client opens an error stream and a data stream, both with the headers ``port``,
``streamtype`` and ``requestid``. A stream whose ``port`` or ``streamtype`` is missing or invalid is
reset (RST_STREAM CANCEL, no reply); any other is accepted with an empty SYN_REPLY and paired by
its request id (from its id when the header is missing, as for clients older than the header).
Once a pair is complete the port is dialled: a refusal is written on the error stream; otherwise
the data stream's bytes go to the port and back. When the port's connection ends both streams are
closed, the error stream first. A client's FIN on the data stream half-closes the port's
connection; a reset closes it. Bytes sent before the pair is complete wait for the port, within a
stream's initial window (docs/kubelet-endpoints.md says why a reset beyond it).

The connection answers the client's pings, ignores SETTINGS and WINDOW_UPDATE (spdystream keeps
no flow-control windows), and ends on GOAWAY, on a frame it cannot read, or when the client goes:
then every forward stops, the streams of pairs still waiting for their partner are reset and a
GOAWAY naming the last stream received is sent, as ``connection.Close`` does.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from fakeapi._http.spdy_framing import (
    CANCEL,
    FLAG_FIN,
    FLAG_UNIDIRECTIONAL,
    PROTOCOL_ERROR,
    Data,
    Frame,
    FrameReader,
    FrameWriter,
    GoAway,
    HeaderBlock,
    Ping,
    RstStream,
    SpdyError,
    SynReply,
    SynStream,
)

__all__ = ["Dial", "SpdyPortForwarding"]

READ_SIZE = 32 * 1024
INITIAL_WINDOW = 64 * 1024  # SPDY/3.1's initial flow-control window of a stream
FLOW_CONTROL_ERROR = 7

Dial = Callable[[int], Awaitable[tuple[asyncio.StreamReader, asyncio.StreamWriter] | str]]
"""Connects to a port of the pod, or gives the text the kubelet writes on the error stream."""


@dataclass(eq=False)
class _Stream:
    stream_id: int
    kind: str
    port: int
    finished: bool = False  # nothing more is sent on it: FIN or RST sent, or RST received
    remote_done: bool = False  # the client sends nothing more: FIN or RST received


@dataclass(eq=False)
class _Pair:
    request_id: str
    data: _Stream | None = None
    error: _Stream | None = None
    pending: list[bytes] = field(default_factory=list)
    dialled: asyncio.Event = field(default_factory=asyncio.Event)
    connection: asyncio.StreamWriter | None = None


def _header(headers: HeaderBlock, name: str) -> str:
    return (headers.get(name) or [""])[0]


def _refusal(headers: HeaderBlock) -> str | None:
    """``httpStreamReceived``: why a new stream is rejected, if it is."""
    port = _header(headers, "port")
    if not port:
        return '"port" header is required'
    if not (port.isascii() and port.isdigit()) or int(port) > 65535:
        return f'unable to parse "{port}" as a port'
    if int(port) < 1:
        return f'port "{port}" must be > 0'
    kind = _header(headers, "streamtype")
    if not kind:
        return '"streamType" header is required'
    if kind not in ("error", "data"):
        return f'invalid stream type "{kind}"'
    return None


class SpdyPortForwarding:
    """One upgraded connection: the frames in, the frames out, and a task per forwarded connection."""

    def __init__(self, send: Callable[[bytes], Awaitable[None]], dial: Dial) -> None:
        self._send_bytes = send
        self._dial = dial
        self._reader = FrameReader()
        self._writer = FrameWriter()
        # Frames are encoded and sent under one lock: the header compression context must see
        # the blocks in the order the client receives them.
        self._sending = asyncio.Lock()
        self._gone = False
        self._ending = False
        self._next_stream_id = 1
        self._streams: dict[int, tuple[_Stream, _Pair]] = {}
        self._waiting: dict[str, _Pair] = {}
        self._forwards: set[asyncio.Task[None]] = set()

    async def serve(self, incoming: AsyncIterator[bytes]) -> None:
        """Handle the client's frames until the connection ends, then tear it down."""
        try:
            async for chunk in incoming:
                for frame in self._reader.feed(chunk):
                    if isinstance(frame, GoAway):
                        return
                    await self._handle(frame)
        except SpdyError:
            return
        finally:
            await self._close()

    async def _send(self, frame: Frame) -> None:
        async with self._sending:
            if self._gone:
                return
            try:
                await self._send_bytes(self._writer.encode(frame))
            except ConnectionError:
                self._gone = True

    async def _handle(self, frame: Frame) -> None:
        if isinstance(frame, SynStream):
            await self._new_stream(frame)
        elif isinstance(frame, Data):
            await self._data(frame)
        elif isinstance(frame, RstStream):
            self._reset(frame.stream_id)
        elif isinstance(frame, Ping) and frame.ping_id % 2:
            await self._send(frame)  # the client's ping (odd ids); even ones would answer ours

    async def _new_stream(self, frame: SynStream) -> None:
        if frame.stream_id < self._next_stream_id:
            await self._send(RstStream(frame.stream_id, PROTOCOL_ERROR))
            return
        self._next_stream_id = frame.stream_id + 2
        if _refusal(frame.headers) is not None:
            await self._send(RstStream(frame.stream_id, CANCEL))
            return
        await self._send(SynReply(frame.stream_id))
        kind = _header(frame.headers, "streamtype")
        stream = _Stream(frame.stream_id, kind, int(_header(frame.headers, "port")))
        stream.finished = bool(frame.flags & FLAG_UNIDIRECTIONAL)
        stream.remote_done = bool(frame.flags & FLAG_FIN)
        request_id = _header(frame.headers, "requestid") or str(
            frame.stream_id if kind == "error" else frame.stream_id - 2
        )
        pair = self._waiting.setdefault(request_id, _Pair(request_id))
        self._streams[stream.stream_id] = (stream, pair)
        if getattr(pair, kind) is not None:
            if pair.error is not None:
                message = f"error processing stream for request {request_id}: {kind} stream already assigned"
                await self._send_data(pair.error, message.encode())
            return
        setattr(pair, kind, stream)
        if pair.data is not None and pair.error is not None:
            del self._waiting[request_id]
            task = asyncio.get_running_loop().create_task(self._forward(pair, pair.data, pair.error))
            self._forwards.add(task)
            task.add_done_callback(self._forwards.discard)

    async def _data(self, frame: Data) -> None:
        found = self._streams.get(frame.stream_id)
        if found is None or found[0].remote_done:
            return
        stream, pair = found
        fin = bool(frame.flags & FLAG_FIN)
        if stream.kind != "data" or pair.data is not stream:
            stream.remote_done = fin  # the kubelet never reads the error stream
            return
        if pair.error is not None and not pair.dialled.is_set():
            await pair.dialled.wait()  # the port is being dialled: its bytes follow what waits
        connection = pair.connection
        if connection is None and not pair.dialled.is_set():
            # The partner stream has not come yet: the bytes wait, within the draft's initial
            # window of a stream (spdystream would stop reading the connection instead).
            if sum(map(len, pair.pending)) + len(frame.data) > INITIAL_WINDOW:
                self._reset(stream.stream_id)
                await self._send(RstStream(stream.stream_id, FLOW_CONTROL_ERROR))
                return
            pair.pending.append(frame.data)
            stream.remote_done = fin
            return
        stream.remote_done = fin
        if connection is None:
            return  # the port refused: nothing reads these bytes
        with contextlib.suppress(ConnectionError):
            connection.write(frame.data)
            if fin and connection.can_write_eof():
                connection.write_eof()
            await connection.drain()

    def _reset(self, stream_id: int) -> None:
        found = self._streams.pop(stream_id, None)
        if found is None:
            return
        stream, pair = found
        stream.finished = stream.remote_done = True
        if pair.data is stream and pair.connection is not None:
            pair.connection.close()

    async def _send_data(self, stream: _Stream, data: bytes, flags: int = 0) -> None:
        if stream.finished or self._ending:
            return
        if flags & FLAG_FIN:
            stream.finished = True
        await self._send(Data(stream.stream_id, data, flags))

    async def _forward(self, pair: _Pair, data: _Stream, error: _Stream) -> None:
        """``portForward``: dial the data stream's port, copy both ways, then close both streams."""
        try:
            try:
                dialled = await self._dial(data.port)
            finally:
                pair.dialled.set()
            if isinstance(dialled, str):
                pair.pending.clear()
                await self._send_data(error, dialled.encode())
                return
            reader, connection = dialled
            pair.connection = connection
            try:
                with contextlib.suppress(ConnectionError):
                    connection.write(b"".join(pair.pending))
                    pair.pending.clear()
                    if data.remote_done and connection.can_write_eof():
                        connection.write_eof()
                    while chunk := await reader.read(READ_SIZE):
                        await self._send_data(data, chunk)
            finally:
                connection.close()
        finally:
            await self._send_data(error, b"", FLAG_FIN)
            await self._send_data(data, b"", FLAG_FIN)
            # What the client still sends on them is dropped, as it would be by a closed port.
            self._streams.pop(error.stream_id, None)
            self._streams.pop(data.stream_id, None)

    async def _close(self) -> None:
        # The forwards stop without closing their streams: once the connection ends spdystream
        # writes nothing more for them.
        self._ending = True
        for task in self._forwards:
            task.cancel()
        await asyncio.gather(*self._forwards, return_exceptions=True)
        for pair in self._waiting.values():
            for stream in (pair.error, pair.data):
                if stream is not None and not stream.finished:
                    stream.finished = True
                    await self._send(RstStream(stream.stream_id, CANCEL))
        last = self._next_stream_id - 2 if self._next_stream_id > 2 else 0
        await self._send(GoAway(last))
