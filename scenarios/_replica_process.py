"""The replica launcher: imports kopf and the operator once, then forks one process per replica start.

Run as ``python -m scenarios._replica_process SPEC`` by the engine (:mod:`scenarios._replicas`). It
loads the operator exactly as ``kopf run`` does (kopf's own preloader, so handlers register in
kopf's default registry), wraps the functions declared as effects, and then waits on its standard
input for ``{"fork": ...}`` lines, answering each with the child's pid. Forking from a process that
has done all the imports makes a start cost a fork, not an interpreter and an operator import.

Each child is a replica: a process of its own (nothing leaks between replicas but what the
apiserver carries), with its own kubeconfig (whose token names it), ``POD_ID`` set to its name as a
Deployment's downward API would, stdout and stderr to its own log file, and the virtual clock of
:mod:`scenarios._replica_clock`. It then runs kopf's own command line, ``kopf run`` with the
operator's options (minus the paths and modules, already loaded), on that loop.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import importlib
import inspect
import json
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from scenarios import _deferred_trust as deferred_trust
from scenarios import _replica_threads as replica_threads

__all__ = ["main"]

_CLIENT_MODULES = ("kubernetes.config.kube_config", "kubernetes_asyncio.config.kube_config")


class _Effects:
    """Where wrapped functions report their calls: the running replica's control channel."""

    channel: Any = None


def _wrap(function: Callable[..., Any], name: str, key: str) -> Callable[..., Any]:
    signature = inspect.signature(function)

    def report(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        bound = signature.bind_partial(*args, **kwargs)
        bound.apply_defaults()
        value = key.format(*args, **bound.arguments) if key else ""
        if _Effects.channel is not None:
            _Effects.channel.send({"effect": name, "key": value})

    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def wrapped_async(*args: Any, **kwargs: Any) -> Any:
            report(args, kwargs)
            return await function(*args, **kwargs)

        return wrapped_async

    @functools.wraps(function)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        report(args, kwargs)
        return function(*args, **kwargs)

    return wrapped


def _install_call_effects(effects: list[dict[str, str]]) -> None:
    for effect in effects:
        module_name, _, attribute = effect["function"].rpartition(".")
        module = importlib.import_module(module_name)
        original = getattr(module, attribute)
        setattr(module, attribute, _wrap(original, effect["name"], effect.get("key", "")))


def _child(spec: dict[str, Any], order: dict[str, Any]) -> None:
    """The replica's life: never returns (the process exits when kopf does)."""
    from kopf import cli

    from scenarios._replica_activity import label_requests
    from scenarios._replica_clock import ControlChannel, VirtualClockLoop, install_wall_clock

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    stdin = os.open(os.devnull, os.O_RDONLY)
    os.dup2(stdin, 0)
    os.close(stdin)
    log = os.open(order["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.environ["KUBECONFIG"] = order["kubeconfig"]
    os.environ["POD_ID"] = order["name"]
    for module_name in _CLIENT_MODULES:
        module = sys.modules.get(module_name)
        if module is not None:
            module.KUBE_CONFIG_DEFAULT_LOCATION = order["kubeconfig"]  # type: ignore[attr-defined]
    channel = ControlChannel(spec["control"], {"hello": order["order"], "pid": os.getpid()})
    _Effects.channel = channel
    install_wall_clock(spec["epoch"], spec["origin"])
    label_requests()
    loop = VirtualClockLoop(channel, start=spec["origin"] + float(order["elapsed"]))
    replica_threads.install(loop, spec["server"])
    asyncio.set_event_loop(loop)
    code = 0
    try:
        cli.main(args=["run", *spec["options"]], obj=cli.CLIControls(loop=loop), standalone_mode=False)
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def _preload(names: list[str]) -> None:
    """Import what earlier replicas imported lazily (scenarios._replica_clock.LazyImports), so
    the next forks start with it, and keep the new objects out of the collector's sight too."""
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # a replica imported it; if the launcher cannot, the replicas still can
            continue
    gc.collect()
    gc.freeze()


def main(argv: list[str]) -> None:
    spec = json.loads(argv[0])
    from kopf._cogs.helpers import loaders

    for path in spec["paths"]:
        sys.path.insert(0, os.path.dirname(path))  # as kopf's preloader does, before effects import from there
    _install_call_effects(spec["effects"])
    replica_threads.install_sleep()  # before the operator's modules bind time.sleep
    loaders.preload(paths=spec["paths"], modules=spec["modules"])
    deferred_trust.install()  # kopf's login and each client a handler opens build a default TLS context
    # Every object so far is the launcher's and lives as long as it: out of the collector's sight,
    # a replica's collections walk only its own objects, and do not write to (and so copy) every
    # page of the launcher's heap that the fork shares.
    gc.collect()
    gc.freeze()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    print(json.dumps({"ready": os.getpid()}), flush=True)
    for line in sys.stdin:
        order = json.loads(line)
        if order.get("preload"):
            _preload(order["preload"])
        pid = os.fork()
        if pid == 0:
            _child(spec, order)
        print(json.dumps({"pid": pid}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
