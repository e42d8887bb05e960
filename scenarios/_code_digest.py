"""A digest of the code an exploration ran, so that shards of different code never merge.

A scenario's fingerprint (``Scenario.fingerprint``) says which options a run offers: its objects,
actors, faults and operator command. It does not see code: two shards of one scenario whose tick
functions, checks or operator changed between the jobs (a push landing while a CI matrix runs)
explored different programs, and together prove nothing. The digest covers the source files of
every module that defines a function the scenario holds (ticks, writers, checks, hooks,
webhooks), the operator's files (with the modules beside them, which it imports as kopf puts
their folder on ``sys.path``), and the ``scenarios`` and ``fakeapi`` packages themselves, by
content: the same code installed twice gives the same digest, one changed byte another.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.util
import inspect
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["code_digest"]

_DEPTH = 4
_PACKAGES = ("scenarios", "fakeapi")


def code_digest(scenario: Any) -> str:
    """Twelve hex digits of a hash of the code ``scenario`` runs (see the module docstring)."""
    files: set[Path] = set()
    _collect(scenario, files, _DEPTH, set())
    operator = getattr(scenario, "operator", None)
    if operator is not None:
        for path in getattr(operator, "paths", ()):
            # kopf puts a path's folder on sys.path: the modules beside it are the operator's too.
            files.update(Path(path).parent.glob("*.py"))
        files.update(_module_files(getattr(operator, "modules", ())))
    for package in _PACKAGES:
        module = sys.modules.get(package)
        if module is not None and module.__file__:
            files.update(Path(module.__file__).parent.rglob("*.py"))
    entries = sorted((_label(path), hashlib.sha256(_content(path)).digest()) for path in files)
    digest = hashlib.sha256()
    for label, content in entries:
        digest.update(label.encode() + b"\0" + content)
    return digest.hexdigest()[:12]


def _content(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b"(unreadable)"


def _label(path: Path) -> str:
    """A file's name relative to its package root, so that two checkouts of one tree agree."""
    for package in _PACKAGES:
        if package in path.parts:
            index = len(path.parts) - 1 - path.parts[::-1].index(package)
            return "/".join(path.parts[index:])
    return path.name


def _collect(value: Any, files: set[Path], depth: int, seen: set[int]) -> None:
    if depth < 0 or id(value) in seen or isinstance(value, (str, bytes, int, float, bool, type(None))):
        return
    seen.add(id(value))
    if isinstance(value, functools.partial):
        _collect(value.func, files, depth, seen)
        _collect(value.args, files, depth - 1, seen)
        return
    if inspect.isfunction(value) or inspect.ismethod(value) or inspect.isclass(value):
        source = _source_file(value)
        if source is not None:
            files.add(source)
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        source = _source_file(type(value))
        if source is not None:
            files.add(source)
        for item in dataclasses.fields(value):
            _collect(getattr(value, item.name, None), files, depth - 1, seen)
        return
    if isinstance(value, Mapping):
        _collect_all(value.values(), files, depth - 1, seen)
    elif isinstance(value, (list, tuple, set, frozenset)):
        _collect_all(value, files, depth - 1, seen)
    elif callable(value):
        _collect(type(value), files, depth, seen)


def _collect_all(values: Iterable[Any], files: set[Path], depth: int, seen: set[int]) -> None:
    for item in values:
        _collect(item, files, depth, seen)


def _source_file(value: Any) -> Path | None:
    try:
        source = inspect.getsourcefile(value)
    except TypeError:  # a builtin
        return None
    return Path(source).resolve() if source else None


def _module_files(modules: Iterable[str]) -> set[Path]:
    """The files of ``-m`` modules, found without importing them (their parents may be imported)."""
    found = set()
    for name in modules:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.origin and Path(spec.origin).is_file():
            found.add(Path(spec.origin).resolve())
    return found
