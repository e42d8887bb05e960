"""Shared pieces for the scenarios tests: a tiny Job CRD, objects, and the CLI as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "jobs.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "jobs", "singular": "job", "kind": "Job"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                "subresources": {"status": {}},
            }
        ],
    },
}


def job(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": name}, "spec": dict(spec)}


@dataclass
class Cli:
    code: int
    out: str
    err: str


def cli(*args: str | Path, cwd: Path | None = None) -> Cli:
    """``python -m scenarios ARGS`` in a subprocess, as a user runs it (the repository importable)."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-m", "scenarios", *map(str, args)],
        cwd=cwd or REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    return Cli(done.returncode, done.stdout, done.stderr)


def stamped(target: Any, choices: str) -> str:
    """The replay id of the schedule ``choices`` (``s1``) names: its stamps come from running it."""
    import asyncio

    from scenarios._engine import Engine
    from scenarios._schedules import Replay, decode_schedule

    async def run() -> str:
        engine = Engine(target)
        await engine.start()
        try:
            return (await engine.run(Replay(decode_schedule(choices)))).schedule_id
        finally:
            await engine.stop()

    return asyncio.run(run())


class Pick:
    """A chooser that takes the first option matching (actor, fault, method) once, then the defaults."""

    def __init__(self, actor: str, fault: str | None, method: str) -> None:
        self.want = (actor, fault, method)
        self.used = False

    def choose(self, options: Sequence[Any], default: int) -> int:
        if not self.used:
            for index, option in enumerate(options):
                if (option.actor, option.fault, option.method) == self.want:
                    self.used = True
                    return index
        return default
