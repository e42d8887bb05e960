"""``fakeapi serve``: the standalone server for kubectl and any other client.

Starts a :class:`~fakeapi.server.FakeAPIServer` in memory, loads CRDs and objects, writes a
kubeconfig for it when asked, prints one line with its URL when it is ready, logs requests when
asked, and stops cleanly with exit code 0 on Ctrl-C or SIGTERM. Anything that keeps it from
starting (a manifest that does not load, a port in use) is one line on stderr and exit code 2,
before the ready line, so a script waiting for that line never waits in vain.

Manifests are read here rather than by :meth:`FakeAPIServer.load` so that an error names the file
it came from, and so that JSON files are parsed as JSON: a tab-indented JSON file (Go's
``json.MarshalIndent(v, "", "\\t")``, many editors) is not valid YAML.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import errno
import gc
import ipaddress
import json
import os
import signal
import sys
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import yaml

from fakeapi import __version__
from fakeapi._cluster import OutcomeRule, parse_controllers, parse_outcome
from fakeapi._cluster.outcome_files import load_outcome_rules
from fakeapi._console import ConsoleLines
from fakeapi._state.admission.calling import parse_webhook_services
from fakeapi._state.admission.plugins import (
    ALL_ORDERED_PLUGINS,
    REPRODUCED,
    AdmissionPluginError,
    default_enabled,
    enabled_plugins,
)
from fakeapi.errors import APIError
from fakeapi.server import (
    CERTIFICATE_ADMIN,
    DEFAULT_BODY_LIMIT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_HISTORY_BYTES,
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_KUBE_VERSION,
    DEFAULT_MAX_BYTES,
    KUBE_VERSIONS,
    FakeAPIServer,
    load_rank,
    new_event_loop,
    parse_kube_version,
)

__all__ = ["main"]

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
CRD_KIND = "CustomResourceDefinition"


class LoadError(Exception):
    """A manifest that cannot be loaded; ``str()`` is the line printed on stderr."""


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number from 0 to 65535")
    return port


def _kube_version(text: str) -> str:
    try:
        return parse_kube_version(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


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
        description=(
            "Run the fake apiserver in memory until Ctrl-C or SIGTERM (exit code 0). When it is ready it prints "
            "one line, 'fakeapi serving on URL'; if it cannot start it prints the reason on stderr and exits "
            "with code 2. By default it accepts any bearer token as naming its user (in system:masters); "
            "--token-auth refuses a token it did not issue with 401, as kube-apiserver does."
        ),
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    serve.add_argument(
        "--port", type=_port, default=8001, help="port to listen on; 0 picks a free one (default: %(default)s)"
    )
    serve.add_argument(
        "--kubeconfig",
        metavar="PATH",
        type=Path,
        help=(
            "write a kubeconfig for this server to PATH before the ready line (usable by kubectl, "
            "kubernetes_asyncio, the kubernetes client, kopf)"
        ),
    )
    serve.add_argument(
        "--kubeconfig-credentials",
        choices=("token", "certificate"),
        default="token",
        help=(
            "what the --kubeconfig authenticates with: admin's bearer token (the default) or, with --tls, a "
            "client certificate signed by the server's CA for kind's kubernetes-admin, in kubeadm:cluster-admins "
            "and system:masters"
        ),
    )
    serve.add_argument(
        "--crd",
        metavar="PATH",
        action="append",
        default=[],
        type=Path,
        help=(
            "CustomResourceDefinitions to install at start: a YAML or JSON file, multi-document, or a folder of "
            "them such as an operator's deploy/crds or a Helm chart's crds/ (repeatable)"
        ),
    )
    serve.add_argument(
        "--load",
        metavar="PATH",
        action="append",
        default=[],
        type=Path,
        help=(
            "objects to create at start, after the CRDs: a YAML or JSON file, multi-document, or a folder of "
            "them (repeatable)"
        ),
    )
    serve.add_argument(
        "--tls",
        action="store_true",
        help=(
            "serve HTTPS with a CA and serving certificate generated at start; the kubeconfig written carries "
            "the CA, so kubectl and the Python clients verify the server with no flags"
        ),
    )
    serve.add_argument(
        "--token-auth",
        action="store_true",
        help=(
            "accept only bearer tokens this server issued (admin's, in the kubeconfig, and one per --actor), "
            "answering 401 Unauthorized otherwise, as kube-apiserver answers a token it does not know, and 403 "
            "to requests without a token but for /healthz, /livez, /readyz and /version. Without it (the "
            "default) any bearer token is accepted: it names a user in system:masters (the journal's actor), "
            "and TokenReview and 'kubectl auth whoami' say the same; a test that must catch a bad token needs "
            "--token-auth"
        ),
    )
    serve.add_argument(
        "--authorization",
        metavar="MODE",
        choices=("always-allow", "rbac", "AlwaysAllow", "RBAC"),
        default="always-allow",
        help=(
            "always-allow (the default: every request is allowed) or rbac: authorize every request from the "
            "Roles, ClusterRoles and bindings in the store, as kube-apiserver's RBAC authorizer does, with its "
            "403s; rbac implies --token-auth (the kubeconfig's admin token is in system:masters)"
        ),
    )
    serve.add_argument(
        "--kube-version",
        metavar="VERSION",
        type=_kube_version,
        default=DEFAULT_KUBE_VERSION,
        help=(
            f"the Kubernetes release to be: {', '.join(KUBE_VERSIONS)} (default: %(default)s). It sets the "
            "built-in kinds' fields (typed decoding, field order, protobuf), the resources discovery serves "
            "(1.33 adds networking.k8s.io/v1 IPAddress and ServiceCIDR; 1.34 resource.k8s.io/v1 and "
            "storage.k8s.io/v1 VolumeAttributesClass) and /version, which says what that release's "
            "kube-apiserver binary says (its gitVersion, gitCommit and buildDate). Nothing on the wire says "
            "fakeapi: a test that must know asks its fixture, or checks that the --tls serving certificate "
            "is issued by fakeapi-ca"
        ),
    )
    serve.add_argument(
        "--service-account",
        metavar="NAMESPACE/NAME",
        action="append",
        default=[],
        help=(
            "issue a bearer token that authenticates as that ServiceAccount (system:serviceaccount:NS:NAME, with "
            "its groups) and print it as 'fakeapi token for NAMESPACE/NAME: TOKEN' before the ready line "
            "(repeatable)"
        ),
    )
    serve.add_argument(
        "--permissions-report",
        metavar="FILE",
        type=Path,
        help=(
            "at exit, write for every identity that sent requests (but admin) which permissions its requests "
            "used, the rules that allow exactly those, the ones refused, and what its bindings grant unused"
        ),
    )
    serve.add_argument(
        "--no-namespace-controllers",
        dest="namespace_controllers",
        action="store_false",
        help=(
            "do not give every namespace the 'default' ServiceAccount and the 'kube-root-ca.crt' ConfigMap "
            "(what kube-controller-manager creates, and fakeapi emulates by default); pods then need a "
            "ServiceAccount created by hand"
        ),
    )
    serve.add_argument(
        "--controllers",
        metavar="NAMES",
        help=(
            "run simulated controllers on the wall clock: 'all', or a comma-separated list of nodes (the "
            "kubelet registering its Node), scheduler (kube-scheduler binding pods), kubelet (pods run, "
            "finish, fail), job (the Job controller), deployment, replicaset, statefulset and daemonset (their "
            "controllers), namespace (the namespace controller: a deleted namespace stays Terminating until it "
            "acts); see docs/controllers.md"
        ),
    )
    serve.add_argument(
        "--no-control-plane-pods",
        dest="control_plane_pods",
        action="store_false",
        help=(
            "with --controllers, leave kube-system without what a new kind cluster holds there (the etcd, "
            "kube-apiserver, kube-controller-manager and kube-scheduler mirror pods on the first node, the "
            "coredns Deployment and kube-dns Service, the kube-proxy and kindnet DaemonSets); see "
            "docs/control-plane-pods.md"
        ),
    )
    serve.add_argument(
        "--node",
        metavar="NAME",
        action="append",
        default=[],
        help="a fake node the controllers register and run pods on (repeatable; default: node-1)",
    )
    serve.add_argument(
        "--outcome",
        metavar="IMAGE=OUTCOME",
        action="append",
        default=[],
        help=(
            "what containers whose image matches the glob IMAGE do: run, never-ready, image-pull-failure, "
            "'succeed after Ns', 'exit CODE after Ns' or 'oom-killed after Ns', optionally followed by "
            "'starts after Ns' (it waits ContainerCreating that long), then by 'logs [\"line\", ...]', the lines "
            "the container logs as it starts; or 'process' and JSON, a program run on this machine in place of "
            "the image (docs/process-containers.md) (repeatable, first match wins; a pod's fakeapi.dev/outcome "
            "annotation wins over them; by default a pod with restartPolicy Never or OnFailure, a Job's, "
            "succeeds 1s after it starts, an image of a registry in .invalid or .example, or at localhost:1, "
            "fails to pull, and any other runs: docs/cluster-defaults.md)"
        ),
    )
    serve.add_argument(
        "--outcomes",
        metavar="FILE",
        help=(
            "a YAML file of outcome rules (a list of {outcome or process, image, labels, container, logs}), tried after "
            "the --outcome rules; see docs/controllers.md"
        ),
    )
    serve.add_argument(
        "--actor",
        metavar="NAME",
        action="append",
        default=[],
        help=(
            "issue a bearer token that authenticates as NAME (the journal's actor) and print it as "
            "'fakeapi token for NAME: TOKEN' before the ready line (repeatable; with --token-auth)"
        ),
    )
    serve.add_argument(
        "--log-requests",
        action="store_true",
        help=(
            "print one line per request on stdout, refused ones included: method, path, status, milliseconds, "
            "and why a JSON patch test failed when it failed only because of how the value was spelled; "
            "printing never holds up serving: past 4 MiB of unread lines, lines are dropped and counted"
        ),
    )
    serve.add_argument(
        "--bookmark-interval",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how often watches that allow bookmarks get one (default: %(default)s)",
    )
    _add_admission(serve)
    _add_limits(serve)
    return parser


def _add_admission(serve: argparse.ArgumentParser) -> None:
    """kube-apiserver's admission switches, and where the webhooks of Services listen on this machine."""
    admission = serve.add_argument_group("admission", "the admission chain; see docs/admission.md")
    admission.add_argument(
        "--enable-admission-plugins",
        metavar="NAMES",
        action="append",
        default=[],
        help=(
            "admission plugins to enable in addition to the default ones ("
            + ", ".join(default_enabled())
            + "); comma-separated, kube-apiserver 1.32's names: "
            + ", ".join(sorted(ALL_ORDERED_PLUGINS))
            + ". fakeapi runs "
            + ", ".join(sorted(REPRODUCED))
            + "; the others are accepted and do nothing"
        ),
    )
    admission.add_argument(
        "--disable-admission-plugins",
        metavar="NAMES",
        action="append",
        default=[],
        help="admission plugins to disable although they are on by default (comma-separated)",
    )
    admission.add_argument(
        "--webhook-service",
        metavar="NAMESPACE/NAME[:PORT]=HOST:PORT",
        action="append",
        default=[],
        help=(
            "call the webhooks an admission configuration or a CRD's conversion names by this Service (port "
            "443 unless given) at HOST:PORT, where a cluster would have routed to the Service; the webhook's "
            "certificate must name NAME.NAMESPACE.svc, as in a cluster, and an admission webhook's Service "
            "must exist (repeatable)"
        ),
    )


def _add_limits(serve: argparse.ArgumentParser) -> None:
    """The bounds that keep a long-running server's memory and connections in check."""
    limits = serve.add_argument_group(
        "limits", "what the server keeps and how long it waits (see docs/limits.md and docs/http-limits.md)"
    )
    limits.add_argument(
        "--journal-entries",
        type=_positive_int,
        default=10000,
        metavar="N",
        help="requests the journal remembers, newest kept (default: %(default)s)",
    )
    limits.add_argument(
        "--journal-body-bytes",
        type=_positive_int,
        default=DEFAULT_BODY_LIMIT,
        metavar="BYTES",
        help=(
            "bytes kept of each request and response body in the journal; a longer body is cut there and "
            "its full length recorded (default: %(default)s)"
        ),
    )
    limits.add_argument(
        "--journal-max-bytes",
        type=_positive_int,
        default=DEFAULT_MAX_BYTES,
        metavar="BYTES",
        help="bytes of bodies the journal keeps in all; past it the oldest entries are forgotten (default: %(default)s)",
    )
    limits.add_argument(
        "--watch-queue-events",
        type=_positive_int,
        default=10000,
        metavar="N",
        help=(
            "events a watch may fall behind its client (or --history-bytes of them); past that the watch ends, "
            "as the apiserver ends a watcher that cannot keep up, and the client watches or lists again "
            "(default: %(default)s)"
        ),
    )
    limits.add_argument(
        "--history-bytes",
        type=_positive_int,
        default=DEFAULT_HISTORY_BYTES,
        metavar="BYTES",
        help=(
            "bytes of objects (as encoded) the change history keeps for watches that resume from an older "
            "resourceVersion (at most 10,000 changes either way); a watch resuming from before it gets 410 "
            "Expired and lists again (default: %(default)s)"
        ),
    )
    limits.add_argument(
        "--header-timeout",
        type=_seconds,
        default=DEFAULT_HEADER_TIMEOUT,
        metavar="SECONDS",
        help=(
            "close a connection whose request line and headers have not arrived within this time, as the "
            "apiserver's ReadHeaderTimeout does; 0 waits forever (default: %(default)s)"
        ),
    )
    limits.add_argument(
        "--idle-timeout",
        type=_seconds,
        default=DEFAULT_IDLE_TIMEOUT,
        metavar="SECONDS",
        help=(
            "close a kept-alive connection that sends no next request within this time, as the apiserver's "
            "IdleTimeout does; 0 keeps it open (default: %(default)s)"
        ),
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds (0 or more)")
    return value


def _manifest_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in MANIFEST_SUFFIXES)
    if not path.exists():
        raise LoadError(f"{path}: no such file or directory")
    return [path]


def _json_documents(text: str) -> Iterator[Any]:
    """One JSON value, or several one after another (``kubectl get -o json`` output concatenated)."""
    decoder = json.JSONDecoder()
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position == len(text):
            return
        document, position = decoder.raw_decode(text, position)
        yield document


def _describe(obj: dict[str, Any]) -> str:
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
    name = metadata.get("name") or metadata.get("generateName") or "?"
    return f"{obj.get('kind') or 'object without a kind'} {name!r}"


def _expand(file: Path, document: Any) -> Iterator[dict[str, Any]]:
    """A manifest document as objects: a ``List`` gives its items; an empty document nothing."""
    if document is None:
        return
    if not isinstance(document, dict):
        raise LoadError(f"{file}: a document is a {type(document).__name__}, not an object")
    items = document.get("items")
    if str(document.get("kind", "")).endswith("List") and isinstance(items, list):
        for item in items:
            yield from _expand(file, item)
        return
    if not document.get("apiVersion") or not document.get("kind"):
        raise LoadError(f"{file}: {_describe(document)} has no apiVersion or no kind")
    yield document


def _read_manifests(path: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for file in _manifest_files(path):
        try:
            text = file.read_text(encoding="utf-8")
            documents = list(_json_documents(text) if file.suffix == ".json" else yaml.safe_load_all(text))
        except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as error:
            reason = str(error).replace("\n", " ")
            raise LoadError(f"{file}: {reason}") from error
        for document in documents:
            for obj in _expand(file, document):
                yield file, obj


def _preload(server: FakeAPIServer, crd_paths: list[Path], load_paths: list[Path]) -> None:
    """The CRDs of --crd, then what --load holds in :func:`~fakeapi.server.load_rank` order.

    A file both options reach (``--crd deploy/crds --load deploy``) is read once.
    """
    crds: list[tuple[Path, dict[str, Any]]] = []
    others: list[tuple[Path, dict[str, Any]]] = []
    seen: set[Path] = set()
    for path in crd_paths:
        for file, obj in _read_manifests(path):
            if obj.get("kind") != CRD_KIND:
                raise LoadError(
                    f"{file}: {_describe(obj)} is not a {CRD_KIND} (--crd takes CRD manifests; use --load for objects)"
                )
            seen.add(file.resolve())
            crds.append((file, obj))
    for path in load_paths:
        others.extend((file, obj) for file, obj in _read_manifests(path) if file.resolve() not in seen)
    others.sort(key=lambda entry: load_rank(entry[1]))
    for file, obj in crds + others:
        try:
            server.load(obj)
        except (APIError, LookupError, ValueError) as error:
            raise LoadError(f"{file}: cannot create {_describe(obj)}: {error}") from error


def _listen_error(host: str, port: int, error: OSError) -> str:
    if error.errno == errno.EADDRINUSE:
        reason = "address already in use (pick another --port, or --port 0 for a free one)"
    elif error.errno:
        reason = os.strerror(error.errno)
    else:
        reason = str(error)
    return f"fakeapi: cannot listen on {host}:{port}: {reason}"


def _exposure_warning(host: str, token_auth: bool, tls: bool) -> str:
    """What listening beyond loopback exposes, or "" when nothing is exposed that way."""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if loopback:
        return ""
    if not token_auth:
        return (
            f"fakeapi: warning: listening on {host} without authentication: anyone who can reach this address "
            "can read and change every object, Secrets included, and delete namespaces (add --token-auth, and "
            "--tls so that tokens do not travel in clear)"
        )
    if not tls:
        return (
            f"fakeapi: warning: listening on {host} over plain HTTP: bearer tokens and every object, Secrets "
            "included, travel unencrypted (add --tls)"
        )
    return ""


def _return_large_blocks_to_the_system() -> None:
    """Large blocks (request bodies, big objects) come from mmap, and go back to the system when freed.

    glibc raises its mmap threshold each time such a block is freed, so that later ones come from
    the heap, which a long-running server then cannot shrink: after a thousand 1 MiB updates it
    kept some 40 MB more than it used (BENCHMARKS.md). A fixed threshold keeps the heap small. Only
    glibc has ``mallopt``; elsewhere this does nothing.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_MMAP_THRESHOLD, 128 * 1024)


_FLUSH_AT_EXIT = 2.0  # seconds to let queued lines out when stopping; a reader that reads nothing gets none
_M_MMAP_THRESHOLD = -3  # glibc's malloc.h


def _tune_garbage_collection() -> None:
    """The store keeps many small immutable objects alive: full collections would walk them all.

    Freezing what was loaded at start and collecting the young generation less often keeps the
    pauses out of request latency; reference cycles are rare in what the server allocates.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


async def _serve(args: argparse.Namespace) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stop.set)
    server = FakeAPIServer(
        args.host,
        args.port,
        bookmark_interval=args.bookmark_interval,
        journal_limit=args.journal_entries,
        journal_body_limit=args.journal_body_bytes,
        journal_max_bytes=args.journal_max_bytes,
        watch_queue_limit=args.watch_queue_events,
        history_max_bytes=args.history_bytes,
        header_timeout=args.header_timeout,
        idle_timeout=args.idle_timeout,
        tls=args.tls,
        token_auth=args.token_auth,
        authorization=args.authorization,
        namespace_controllers=args.namespace_controllers,
        kube_version=args.kube_version,
        controllers=args.controllers,
        nodes=args.node,
        outcomes=args.outcome_rules,
        control_plane_pods=args.control_plane_pods,
        real_time=True,
        enable_admission_plugins=args.enable_admission_plugins,
        disable_admission_plugins=args.disable_admission_plugins,
        webhook_services=args.webhook_services,
    )
    token_auth = server.token_auth
    exposure = _exposure_warning(args.host, token_auth, args.tls)
    if exposure:
        print(exposure, file=sys.stderr)
    elif token_auth and not args.tls:
        print(
            "fakeapi: note: kubectl and other client-go programs send a bearer token only over HTTPS, so with "
            "token checks (--token-auth, or --authorization rbac) and no --tls their requests are anonymous "
            "(403); add --tls",
            file=sys.stderr,
        )
    try:
        _preload(server, args.crd, args.load)
    except LoadError as error:
        print(f"fakeapi: cannot load {error}", file=sys.stderr)
        return 2
    console = ConsoleLines()
    if args.log_requests:
        server.set_request_log(console)
    try:
        await server.start()
    except OSError as error:
        print(_listen_error(args.host, args.port, error), file=sys.stderr)
        return 2
    _tune_garbage_collection()
    _return_large_blocks_to_the_system()
    try:
        if args.kubeconfig:
            try:
                server.kubeconfig(args.kubeconfig, certificate=args.kubeconfig_credentials == "certificate")
            except OSError as error:
                reason = error.strerror or error
                print(f"fakeapi: cannot write the kubeconfig {args.kubeconfig}: {reason}", file=sys.stderr)
                return 2
        for name in args.actor:
            console(f"fakeapi token for {name}: {server.token_for(name)}")
        for account in args.service_account:
            console(f"fakeapi token for {account}: {server.token_for(account, service_account=account)}")
        if not stop.is_set():
            console(f"fakeapi serving on {server.url}")
            await stop.wait()
    finally:
        if args.permissions_report is not None:
            _write_permissions(server, args.permissions_report)
        await server.stop()
        console.flush(_FLUSH_AT_EXIT)
    return 0


def _write_permissions(server: FakeAPIServer, path: Path) -> None:
    """Every identity's permissions report, the kubeconfig's admin (token or certificate) and the
    anonymous requests left out."""
    left_out = {"admin", CERTIFICATE_ADMIN[0], "system:anonymous"}
    users = sorted({entry.user for entry in server.journal if entry.user} - left_out)
    reports = [server.permissions(user=user).text for user in users]
    try:
        path.write_text("\n".join(reports) if reports else "No identity but admin sent requests.\n", encoding="utf-8")
    except OSError as error:
        print(f"fakeapi: cannot write the permissions report {path}: {error.strerror or error}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command != "serve":
        parser.print_help(sys.stderr)
        return 2
    if args.kubeconfig_credentials == "certificate" and not args.tls:
        parser.error("--kubeconfig-credentials certificate needs --tls (client certificates are checked in TLS)")
    try:
        parse_controllers(args.controllers)
        args.outcome_rules = [_outcome_rule(text) for text in args.outcome]
        if args.outcomes:
            args.outcome_rules += load_outcome_rules(args.outcomes)
    except ValueError as error:
        parser.error(str(error))
    try:
        args.webhook_services = _webhook_services(args.webhook_service)
    except ValueError as error:
        parser.error(str(error))
    try:
        enabled_plugins(args.enable_admission_plugins, args.disable_admission_plugins)
    except AdmissionPluginError as error:
        # kube-apiserver's words and exit status for a plugin name it does not know.
        print(f"Error: {error}", file=sys.stderr)
        return 1
    try:
        return _run(_serve(args))
    except KeyboardInterrupt:
        return 0


def _webhook_services(values: list[str]) -> dict[str, str]:
    services: dict[str, str] = {}
    for value in values:
        service, equals, address = value.partition("=")
        if not equals:
            raise ValueError(f"--webhook-service must be NAMESPACE/NAME[:PORT]=HOST:PORT, not {value!r}")
        services[service] = address
    parse_webhook_services(services)
    return services


def _outcome_rule(text: str) -> OutcomeRule:
    """``IMAGE=OUTCOME`` as a rule; ``ValueError`` saying what is wrong."""
    image, separator, outcome = text.partition("=")
    if not separator or not image:
        raise ValueError(f"--outcome takes IMAGE=OUTCOME, not {text!r}")
    return OutcomeRule(parse_outcome(outcome), image=image)


def _run(main: Coroutine[Any, Any, int]) -> int:
    """Run on the loop the server's thread uses too: uvloop where it is installed."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(main)


if __name__ == "__main__":
    sys.exit(main())
