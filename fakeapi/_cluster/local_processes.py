"""The program a test runs in place of a container's image (docs/process-containers.md).

An outcome may name a local process: the simulated kubelet starts it as the container starts and
the container lives as long as it does. What is run is always the test's word, never the pod's:
the pod's ``command``, ``args``, ``image`` and ``workingDir`` are not read, so nothing a client
writes to the API can run a program on the machine.

``command`` is the argv (no shell), ``working_dir`` where it runs and where ``exec`` runs
(the server's current directory when None), ``env`` variables set over the pod's, and ``ports``
which local port stands for a container port when the program cannot listen on the pod's own
(a port-forward to a port not in the map connects to the same port number on 127.0.0.1).

The text form (``--outcome``, a rules file, :class:`~fakeapi.OutcomeRule` text) is ``process``
followed by JSON: the argv as a list, or an object with ``command`` and any of ``workingDir``,
``env`` (a map of strings) and ``ports`` (a map of container port to local port).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike, fspath
from typing import Any

__all__ = ["LocalProcess", "local_process_from", "local_process_of_map"]

_KEYS = ("command", "workingDir", "env", "ports")


@dataclass(frozen=True)
class LocalProcess:
    """A program the kubelet runs for a container: argv, working directory, extra env, port map."""

    command: tuple[str, ...]
    working_dir: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    ports: Mapping[int, int] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        command: Sequence[str],
        working_dir: str | PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        ports: Mapping[int, int] | None = None,
    ) -> LocalProcess:
        """A checked process: ``ValueError`` for an empty argv, a non-string, or a port out of range."""
        if isinstance(command, str) or not command or not all(isinstance(part, str) for part in command):
            raise ValueError(f"a process's command is a non-empty list of strings (an argv), not {command!r}")
        environment = dict(env or {})
        if not all(isinstance(key, str) and key and isinstance(value, str) for key, value in environment.items()):
            raise ValueError(f"a process's env maps names to strings, not {env!r}")
        mapped = {}
        for container_port, local_port in (ports or {}).items():
            numbers = (_port(container_port), _port(local_port))
            mapped[numbers[0]] = numbers[1]
        where = fspath(working_dir) if working_dir is not None else None
        return cls(tuple(command), where, environment, mapped)

    def local_port(self, port: int) -> int:
        """The local port a port-forward to the container's ``port`` connects to."""
        return self.ports.get(port, port)


def _port(value: Any) -> int:
    number = int(value) if isinstance(value, str) and value.isdigit() else value
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 65535:
        raise ValueError(f"a port is a number from 1 to 65535, not {value!r}")
    return number


def local_process_from(text: str) -> LocalProcess:
    """The process of the text form's JSON (an argv list, or an object); ``ValueError`` otherwise."""
    try:
        value = json.loads(text)
    except ValueError:
        raise ValueError(f"a process is JSON: an argv list or an object with command, not {text!r}") from None
    if isinstance(value, list):
        return LocalProcess.of(value)
    if not isinstance(value, dict):
        raise ValueError(f"a process is an argv list or an object with command, not {text!r}")
    return local_process_of_map(value)


def local_process_of_map(value: Mapping[str, Any]) -> LocalProcess:
    """The process of a map with ``command`` and any of ``workingDir``, ``env``, ``ports``."""
    unknown = sorted(set(map(str, value)) - set(_KEYS))
    if unknown:
        raise ValueError(f"unknown process keys {', '.join(unknown)} (known: {', '.join(_KEYS)})")
    working_dir = value.get("workingDir")
    if working_dir is not None and not isinstance(working_dir, str):
        raise ValueError(f"a process's workingDir is a string, not {working_dir!r}")
    env, ports = value.get("env") or {}, value.get("ports") or {}
    if not isinstance(env, dict) or not isinstance(ports, dict):
        raise ValueError("a process's env and ports are maps")
    return LocalProcess.of(value.get("command") or [], working_dir, env, ports)
