"""``exec`` in a container backed by a local process: the command run on this machine
(docs/process-containers.md).

The command runs as a process of its own in the container's working directory with the
container's environment, as the runtime runs an exec beside a container's first process: stdin
from the client's channel 0 (closed when the client half-closes it in v5, or leaves), stdout on
channel 1 and stderr on channel 2 as the client asked for them (under ``tty`` there is no
terminal here: stderr goes to stdout, as a terminal merges them). Its exit code is what the error
channel reports; one killed by a signal reports 128 plus the signal, as a shell does. A command
that cannot be started exits 127 (not found) or 126 (not runnable) with a line on stderr naming it,
a shell's codes: there is no runtime here to word it. A client that leaves kills the command.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Sequence

from fakeapi._cluster.container_processes import LaunchedProcess
from fakeapi._http.channel_sockets import STDERR, STDOUT, ChannelSocket, StreamOptions

__all__ = ["run_local_command"]

NOT_FOUND, NOT_RUNNABLE = 127, 126
READ_SIZE = 64 * 1024


async def run_local_command(
    channels: ChannelSocket, options: StreamOptions, launched: LaunchedProcess, command: Sequence[str], where: str
) -> int:
    """Run ``command`` beside the container's process, relaying it over ``channels``; its exit code."""
    try:
        child = await asyncio.create_subprocess_exec(
            *command,
            cwd=launched.working_dir,
            env=dict(launched.env),
            stdin=asyncio.subprocess.PIPE if options.stdin else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT if options.tty else asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as error:
        code = NOT_FOUND if isinstance(error, FileNotFoundError) else NOT_RUNNABLE
        text = f"fakeapi: cannot run {' '.join(command)!r} in {where}: {error.strerror or error}\n"
        if options.stderr or (options.tty and options.stdout):
            await channels.send(STDERR if options.stderr else STDOUT, text.encode())
        return code
    if child.stdin is not None:
        writer = child.stdin

        def write(data: bytes) -> None:
            if not writer.is_closing():
                writer.write(data)

        channels.take_stdin(write, writer.close)
    channels.on_gone = lambda: _kill_session(child.pid)
    relays = [asyncio.ensure_future(_relay(channels, child.stdout, STDOUT if options.stdout else None))]
    if child.stderr is not None:
        relays.append(asyncio.ensure_future(_relay(channels, child.stderr, STDERR if options.stderr else None)))
    try:
        returncode = await child.wait()
        _kill_session(child.pid)  # what the command left running in its session ends with it
        await asyncio.gather(*relays, return_exceptions=True)
    finally:
        channels.release_stdin()
        channels.on_gone = None
        if child.returncode is None:
            _kill_session(child.pid)
            await child.wait()
        for relay in relays:
            relay.cancel()
    return returncode if returncode >= 0 else 128 - returncode


async def _relay(channels: ChannelSocket, stream: asyncio.StreamReader | None, channel: int | None) -> None:
    if stream is None:
        return
    while chunk := await stream.read(READ_SIZE):
        if channel is not None and not channels.gone:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await channels.send(channel, chunk)


def _kill_session(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
