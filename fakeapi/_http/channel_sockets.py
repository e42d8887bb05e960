"""The channel protocol of exec and attach over WebSocket (docs/kubelet-endpoints.md).

``k8s.io/apimachinery/pkg/util/httpstream/wsstream/conn.go``: every message starts with its
channel, 0 stdin, 1 stdout, 2 stderr, 3 the error channel, 4 terminal resizes; binary messages for
``v5.channel.k8s.io``, ``v4.channel.k8s.io`` and ``channel.k8s.io``, text messages (the channel as
an ASCII digit, the data in base64) for the ``base64`` ones. In v5 a message ``255, <channel>``
half-closes a channel (a client closing stdin). Writes are one message at a time: a command's
stdout and stderr are sent from tasks of their own, and two sends interleaving would corrupt the
frames.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import WSMsgType, web

__all__ = ["ERROR", "KUBELET_PROTOCOLS", "STDERR", "STDIN", "STDOUT", "V5", "ChannelSocket", "StreamOptions"]

V5 = "v5.channel.k8s.io"
KUBELET_PROTOCOLS = ("v4.channel.k8s.io", "v4.base64.channel.k8s.io", "channel.k8s.io", "base64.channel.k8s.io", "")
STDIN, STDOUT, STDERR, ERROR = 0, 1, 2, 3
CLOSE_SIGNAL = 255


@dataclass(frozen=True)
class StreamOptions:
    """``PodExecOptions``/``PodAttachOptions`` as the query gives them (Go's bool conversion)."""

    stdin: bool
    stdout: bool
    stderr: bool
    tty: bool

    @classmethod
    def of(cls, query: Any) -> StreamOptions:
        def flag(key: str) -> bool:
            value = query.get(key)
            return value is not None and value != "0" and value.lower() != "false"

        tty = flag("tty")
        # The kubelet bypasses stderr under a terminal (remotecommand ``NewOptions``).
        return cls(flag("stdin"), flag("stdout"), flag("stderr") and not tty, tty)


class ChannelSocket:
    """One negotiated WebSocket and its framing."""

    def __init__(self, socket: web.WebSocketResponse, protocol: str, *, keep_stdin: bool = False) -> None:
        self.socket = socket
        self.protocol = protocol
        self.binary = "base64" not in protocol
        self.gone = False
        self.on_gone: Callable[[], None] | None = None
        self.sending = asyncio.Lock()
        # stdin the client sent before a command took it (:meth:`take_stdin`), and whether it ended.
        self._keep_stdin = keep_stdin
        self._stdin: list[bytes] = []
        self._stdin_ended = False
        self._on_stdin: Callable[[bytes], None] | None = None
        self._on_stdin_ended: Callable[[], None] | None = None

    def take_stdin(self, write: Callable[[bytes], None], end: Callable[[], None]) -> None:
        """From now on stdin goes to ``write`` (what came before first) and its end to ``end``."""
        for data in self._stdin:
            write(data)
        self._stdin = []
        if self._stdin_ended:
            end()
            return
        self._on_stdin, self._on_stdin_ended = write, end

    def release_stdin(self) -> None:
        self._keep_stdin = False
        self._on_stdin = self._on_stdin_ended = None

    async def send(self, channel: int, data: bytes) -> None:
        async with self.sending:
            if self.socket.closed:
                return
            if self.binary:
                await self.socket.send_bytes(bytes([channel]) + data)
            else:
                await self.socket.send_str(chr(ord("0") + channel) + base64.b64encode(data).decode("ascii"))

    async def send_status(self, status: dict[str, Any]) -> None:
        if self.protocol in (V5, "v4.channel.k8s.io", "v4.base64.channel.k8s.io"):
            await self.send(ERROR, json.dumps(status, separators=(",", ":")).encode())
        elif status["status"] != "Success":
            await self.send(ERROR, status["message"].encode())

    async def receive(self) -> None:
        """Read until the client closes: stdin goes to the command that took it (kept until it does
        with ``keep_stdin``, dropped otherwise: no scripted command reads it), and so does v5's
        half-close of stdin; resizes are dropped."""
        async for message in self.socket:
            if message.type not in (WSMsgType.BINARY, WSMsgType.TEXT) or not message.data:
                continue
            raw = message.data if isinstance(message.data, bytes) else message.data.encode()
            channel, data = raw[0], raw[1:]
            if not self.binary:
                channel, data = channel - ord("0"), base64.b64decode(data)
            if channel == STDIN and data:
                if self._on_stdin is not None:
                    self._on_stdin(data)
                elif self._keep_stdin:
                    self._stdin.append(data)
            elif self.protocol == V5 and channel == CLOSE_SIGNAL and data[:1] == bytes([STDIN]):
                self._end_stdin()
        self.gone = True
        self._end_stdin()
        if self.on_gone is not None:
            self.on_gone()

    def _end_stdin(self) -> None:
        self._stdin_ended = True
        ended, self._on_stdin_ended = self._on_stdin_ended, None
        if ended is not None:
            ended()
