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

A replica that starts at time 0 (every run's first incarnation, and a restart while the clock has
not moved) is forked from its name's template instead (:mod:`scenarios._replica_template`): a
child of this launcher that ran the same start-up once and forks where it ends. A template that
cannot serve says so once, and that name's replicas are forked from here as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import importlib
import inspect
import json
import os
import signal
import sys
from collections.abc import Callable
from typing import Any, ClassVar

from scenarios import _deferred_trust as deferred_trust
from scenarios import _replica_template as replica_template
from scenarios import _replica_threads as replica_threads

__all__ = ["main"]

_CLIENT_MODULES = ("kubernetes.config.kube_config", "kubernetes_asyncio.config.kube_config")


class _Effects:
    """Where wrapped functions report their calls: the running replica's control channel (none in a
    template, which then cannot serve: its children would not report what it declared)."""

    channel: Any = None
    unreported = False


def _wrap(function: Callable[..., Any], name: str, key: str) -> Callable[..., Any]:
    signature = inspect.signature(function)

    def report(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        bound = signature.bind_partial(*args, **kwargs)
        bound.apply_defaults()
        value = key.format(*args, **bound.arguments) if key else ""
        if _Effects.channel is not None:
            _Effects.channel.send({"effect": name, "key": value})
        else:
            _Effects.unreported = True

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


def _redirect_output(log_path: str) -> None:
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)


class _ForkedFromTemplate:
    """The template's side of the launcher's orders, and what its children take for their own."""

    def __init__(self, spec: dict[str, Any], pipes: replica_template.TemplateChannel) -> None:
        self._spec = spec
        self._pipes = pipes

    def serve(self, loop: Any) -> dict[str, Any]:
        if _Effects.unreported:
            self._pipes.refuse("the operator declared an effect during its start-up")
        return self._pipes.serve(loop)

    def child(self, order: dict[str, Any]) -> Any:
        from scenarios._replica_clock import ControlChannel

        replica_template.copy_log(self._pipes.log, order["log"])
        _redirect_output(order["log"])
        channel = ControlChannel(self._spec["control"], {"hello": order["order"], "pid": os.getpid()})
        _Effects.channel = channel
        return channel


def _child(
    spec: dict[str, Any], order: dict[str, Any], template: replica_template.TemplateChannel | None = None
) -> None:
    """The replica's life (or its template's): never returns (the process exits when kopf does)."""
    from kopf import cli

    from scenarios._replica_activity import label_requests
    from scenarios._replica_clock import ControlChannel, VirtualClockLoop, install_wall_clock

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    _Templates.close_inherited(keep=template)
    stdin = os.open(os.devnull, os.O_RDONLY)
    os.dup2(stdin, 0)
    os.close(stdin)
    _redirect_output(order["log"] if template is None else template.log)
    os.environ["KUBECONFIG"] = order["kubeconfig"]
    os.environ["POD_ID"] = order["name"]
    for module_name in _CLIENT_MODULES:
        module = sys.modules.get(module_name)
        if module is not None:
            module.KUBE_CONFIG_DEFAULT_LOCATION = order["kubeconfig"]  # type: ignore[attr-defined]
    channel = None
    if template is None:
        channel = ControlChannel(spec["control"], {"hello": order["order"], "pid": os.getpid()})
    _Effects.channel = channel
    install_wall_clock(spec["epoch"], spec["origin"])
    label_requests()
    loop = VirtualClockLoop(
        channel,
        start=spec["origin"] + float(order["elapsed"]),
        template=None if template is None else _ForkedFromTemplate(spec, template),
    )
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


class _Templates:
    """The launcher's templates, one per replica name (None: it refused, fork fresh replicas)."""

    by_name: ClassVar[dict[str, tuple[int, int] | None]] = {}
    """name -> (the pipe orders go down, the pipe answers come up)."""

    @classmethod
    def close_inherited(cls, keep: replica_template.TemplateChannel | None) -> None:
        """A forked process holds no other template's pipes: a template sees its orders end (and
        exits) when the launcher goes, not when the last process that inherited them does."""
        for pipes in cls.by_name.values():
            if pipes is not None:
                for fd in pipes:
                    if keep is None or not keep.owns(fd):
                        os.close(fd)
        cls.by_name = {}

    @classmethod
    def fork(cls, spec: dict[str, Any], order: dict[str, Any]) -> int | None:
        """The pid of a replica forked from ``order``'s template (started on first use), or None."""
        name = order["name"]
        if name not in cls.by_name:
            cls.by_name[name] = cls._start(spec, order)
        pipes = cls.by_name[name]
        if pipes is None:
            return None
        orders, answers = pipes
        try:
            os.write(orders, json.dumps(order).encode() + b"\n")
            answer = replica_template.read_answer(answers)
        except OSError:  # the template is gone
            answer = {}
        if "pid" not in answer:
            cls._give_up(name, answer)
            return None
        return int(answer["pid"])

    @classmethod
    def _start(cls, spec: dict[str, Any], order: dict[str, Any]) -> tuple[int, int] | None:
        orders_read, orders_write = os.pipe()
        answers_read, answers_write = os.pipe()
        log = os.path.join(os.path.dirname(order["log"]), f"{order['name']}.template.log")
        pid = os.fork()
        if pid == 0:
            os.close(orders_write)
            os.close(answers_read)
            _child(spec, {**order, "elapsed": 0.0}, replica_template.TemplateChannel(orders_read, answers_write, log))
        os.close(orders_read)
        os.close(answers_write)
        # A start-up that never waits would hang a fresh replica too; the engine reports that one
        # as stuck, so a template that takes as long is dropped and the replica forked fresh.
        answer = replica_template.read_answer(answers_read, timeout=float(spec["start_timeout"]))
        if "ready" not in answer:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            cls.by_name[order["name"]] = (orders_write, answers_read)
            cls._give_up(
                order["name"], answer or {"refused": "it ended, or its start-up did not end within the start timeout"}
            )
            return None
        return orders_write, answers_read

    @classmethod
    def _give_up(cls, name: str, answer: dict[str, Any]) -> None:
        pipes = cls.by_name.get(name)
        if pipes is not None:
            for fd in pipes:
                os.close(fd)
        cls.by_name[name] = None
        reason = answer.get("refused", "it ended before it could serve")
        print(f"replica {name}: forked fresh from now on, its template cannot serve: {reason}", file=sys.stderr)


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
            replica_template.preload(order["preload"])
        forked = _Templates.fork(spec, order) if float(order["elapsed"]) == 0.0 else None
        if forked is None:
            forked = os.fork()
            if forked == 0:
                _child(spec, order)
        print(json.dumps({"pid": forked}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
