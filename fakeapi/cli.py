"""``fakeapi serve``: the standalone server for kubectl and any other client.

Starts a :class:`~fakeapi.server.FakeAPIServer` in memory, optionally writes a kubeconfig for it,
loads CRDs and objects, prints one line with its URL when it is ready, logs requests when asked,
and stops cleanly on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from pathlib import Path

from fakeapi import __version__
from fakeapi.server import FakeAPIServer

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fakeapi",
        description="A fake Kubernetes apiserver that behaves like kube-apiserver down to the bytes.",
    )
    parser.add_argument("--version", action="version", version=f"fakeapi {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="run the fake apiserver until interrupted",
        description="Run the fake apiserver in memory until Ctrl-C or SIGTERM. Prints one line with its URL when ready.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    serve.add_argument(
        "--port", type=int, default=8001, help="port to listen on; 0 picks a free one (default: %(default)s)"
    )
    serve.add_argument(
        "--kubeconfig",
        metavar="PATH",
        type=Path,
        help="write a kubeconfig for this server to PATH (usable by kubectl, kubernetes_asyncio, the kubernetes client, kopf)",
    )
    serve.add_argument(
        "--crd",
        metavar="PATH",
        action="append",
        default=[],
        type=Path,
        help="CRD manifests to install at start: a YAML/JSON file or a folder of them (repeatable)",
    )
    serve.add_argument(
        "--load",
        metavar="PATH",
        action="append",
        default=[],
        type=Path,
        help="objects to create at start, YAML or JSON, multi-document, file or folder (repeatable)",
    )
    serve.add_argument(
        "--log-requests",
        action="store_true",
        help="print one line per request: method, path, status, milliseconds, and the spelling diagnosis if any",
    )
    serve.add_argument(
        "--bookmark-interval",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how often watches that allow bookmarks get one (default: %(default)s)",
    )
    return parser


async def _serve(args: argparse.Namespace) -> int:
    server = FakeAPIServer(args.host, args.port, bookmark_interval=args.bookmark_interval)
    try:
        for path in args.crd:
            server.load(path)
        for path in args.load:
            server.load(path)
    except (OSError, LookupError, ValueError) as error:
        print(f"fakeapi: cannot load: {error}", file=sys.stderr)
        return 2
    if args.log_requests:
        server.state.request_log = lambda line: print(line, flush=True)
    try:
        await server.start()
    except OSError as error:
        print(f"fakeapi: cannot listen on {args.host}:{args.port}: {error.strerror or error}", file=sys.stderr)
        return 2
    if args.kubeconfig:
        server.kubeconfig(args.kubeconfig)
    print(f"fakeapi serving on {server.url}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await server.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command != "serve":
        parser.print_help()
        return 2
    try:
        return asyncio.run(_serve(args))
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
