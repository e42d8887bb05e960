"""An operator as its users run it (``kopf run handlers.py --standalone -A``), and the effects it has
that nobody declared with ``ctx.effect``: plain data the model, the engine and the reports share.

:class:`Operator` is a kopf command line and a replica count: the engine runs each replica as a
process of its own with kopf's own machinery (docs/scenarios-operators.md). Its code is not
edited, so its non-idempotent steps are declared from the outside: :class:`WriteEffect`, a
committed write that sets a value (kopf marking a job complete), or :class:`CallEffect`, every
call of a named function in the operator's code (``mypkg.notify.send``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ANY_VALUE", "CallEffect", "Operator", "WriteEffect", "json_pointer_get"]


class _AnyValue:
    def __repr__(self) -> str:
        return "ANY_VALUE"


ANY_VALUE: Any = _AnyValue()
"""A :class:`WriteEffect` value that matches whatever the write leaves at its pointer."""

# kopf run's options that take a value (kopf/cli.py), so that a value is never taken for a path.
_VALUED = frozenset({"-n", "--namespace", "-L", "--liveness", "-P", "--peering", "-p", "--priority"})
_VALUED |= {"--log-format", "--log-refkey"}
_MODULE = frozenset({"-m", "--module"})


@dataclass(frozen=True)
class WriteEffect:
    """A committed write that counts as the effect ``name``: by ``verb`` (``patch``, ``update``,
    ``create``, ``delete``; empty: any write) to ``resource`` (plural, e.g. ``jobs``), optionally
    one object ``object_name``, that leaves ``value`` at JSON pointer ``pointer`` where it was not
    before (:data:`ANY_VALUE`: any value where there was none or another; no pointer: every such
    write). The key is ``key`` formatted with the object's
    ``namespace`` and ``name`` (default ``{namespace}/{name}``) and the ``object`` written, so an
    Event's key can be ``{object[involvedObject][name]}``."""

    name: str
    resource: str
    pointer: str = ""
    value: Any = ANY_VALUE
    verb: str = ""
    object_name: str = ""
    key: str = "{namespace}/{name}"


@dataclass(frozen=True)
class CallEffect:
    """Every call of ``function`` (``module.attribute`` in the operator's process) counts as the
    effect ``name``, with the key ``key`` formatted with the call's arguments by name (``{name}``)
    or position (``{0}``). The function is wrapped before the operator is loaded, so a
    ``from module import function`` in the operator gets the wrapper too."""

    name: str
    function: str
    key: str = ""


@dataclass(frozen=True)
class Operator:
    """``kopf run`` arguments (paths or ``-m module``, and its options) and how many replicas race.

    Each replica survives ``restarts`` crashes. ``service_account`` (``namespace/name``) is whom
    the replicas' requests authenticate as (by default a user named after the replica).
    ``environment`` is added to each replica's environment, as a Deployment's ``env`` would be.

    ``agent=False``: ``command`` is the whole command line of any process (``("node",
    "controller.js")``, a Go binary), started as it is with ``KUBECONFIG`` naming its own
    kubeconfig. Without the engine's agent in it, the engine takes it as waiting once ``quiet``
    seconds of real time went by without a request, its time is real, and its runs are sampled
    (docs/scenarios-operators.md, "Any operator process"). Its effects are :class:`WriteEffect`
    only (nothing wraps its functions).
    """

    command: tuple[str, ...]
    replicas: int = 2
    restarts: int = 1
    effects: tuple[WriteEffect | CallEffect, ...] = ()
    service_account: str = ""
    name: str = "replica"
    environment: Mapping[str, str] = field(default_factory=dict)
    agent: bool = True
    quiet: float = 0.2
    paths: tuple[str, ...] = field(init=False)
    modules: tuple[str, ...] = field(init=False)
    options: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        if self.replicas < 1:
            raise ValueError(f"an operator needs at least one replica, not {self.replicas}")
        if not self.agent:
            self._foreign()
            return
        paths, modules, options = _split(self.command)
        if not paths and not modules:
            raise ValueError(f"kopf run needs a path or -m MODULE: {' '.join(self.command)!r}")
        object.__setattr__(self, "paths", tuple(os.path.abspath(path) for path in paths))
        object.__setattr__(self, "modules", modules)
        object.__setattr__(self, "options", options)

    def _foreign(self) -> None:
        if not self.command:
            raise ValueError("a foreign operator needs a command line")
        if self.call_effects:
            raise ValueError("a foreign process has no agent to wrap its functions: declare WriteEffects only")
        if self.quiet <= 0:
            raise ValueError(f"the quiet period is a positive number of seconds, not {self.quiet}")
        object.__setattr__(self, "paths", ())
        object.__setattr__(self, "modules", ())
        object.__setattr__(self, "options", tuple(self.command))

    @property
    def replica_names(self) -> tuple[str, ...]:
        return tuple(f"{self.name}-{number}" for number in range(1, self.replicas + 1))

    @property
    def write_effects(self) -> tuple[WriteEffect, ...]:
        return tuple(effect for effect in self.effects if isinstance(effect, WriteEffect))

    @property
    def call_effects(self) -> tuple[CallEffect, ...]:
        return tuple(effect for effect in self.effects if isinstance(effect, CallEffect))

    def describe(self) -> list[Any]:
        """What of it decides a run's options (for the scenario's fingerprint)."""
        environment = sorted(self.environment.items())
        described = [list(self.command), self.replicas, self.restarts, self.service_account, self.name, environment]
        return described if self.agent else [*described, "foreign", self.quiet]

    def describe_command(self) -> str:
        """How reports name what the replicas run."""
        if self.agent:
            return f"kopf run {' '.join(self.command)}"
        return f"the process {' '.join(self.command)} (no agent: taken as waiting after {self.quiet:g} s of real time without a request)"


def _split(command: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """kopf run's arguments as paths, modules and the rest (``run`` itself may lead)."""
    arguments = list(command)
    if arguments[:2] == ["kopf", "run"]:
        arguments = arguments[2:]
    elif arguments[:1] == ["run"]:
        arguments = arguments[1:]
    paths: list[str] = []
    modules: list[str] = []
    options: list[str] = []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        name, equals, value = argument.partition("=")
        if argument in _MODULE:
            if index + 1 >= len(arguments):
                raise ValueError(f"{argument} needs a module name")
            modules.append(arguments[index + 1])
            index += 2
            continue
        if equals and name == "--module":
            modules.append(value)
        elif argument in _VALUED:
            if index + 1 >= len(arguments):
                raise ValueError(f"{argument} needs a value")
            options += arguments[index : index + 2]
            index += 2
            continue
        elif argument.startswith("-"):
            options.append(argument)
        else:
            paths.append(argument)
        index += 1
    return tuple(paths), tuple(modules), tuple(options)


def json_pointer_get(document: Any, pointer: str) -> tuple[bool, Any]:
    """The value at an RFC 6901 pointer, and whether it is there at all."""
    if pointer == "":
        return True, document
    current = document
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict) and token in current:
            current = current[token]
        elif isinstance(current, list) and token.isdigit() and int(token) < len(current):
            current = current[int(token)]
        else:
            return False, None
    return True, current
