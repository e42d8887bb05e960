"""kopf's own examples, unmodified, from the sdist of the installed kopf, raced as two replicas.

``01-minimal`` prints once per created object (its one side effect). Two standalone replicas both
print: the engine finds it. ``02-children`` creates a child pod from a synchronous handler with
pykube (in kopf's executor thread); two standalone replicas create two children of one parent. With kopf's peering enabled (``--peering``, its own ``peering.yaml``)
and the same priority, as every replica of one Deployment has, kopf pauses every replica once
they see each other, so the object may never be handled, and a replica that handles it before it
has seen its peer does so whatever the other does, so both may print (docs/scenarios-operators.md,
"kopf's peering").
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tarfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import yaml

from scenarios import CallEffect, Operator, WriteEffect, exactly_once, explore, scenario
from scenarios._engine import Engine
from scenarios._model import RunRecord, Scenario
from scenarios._schedules import RandomChooser


@pytest.fixture(scope="module")
def kopf_sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The unpacked sdist of the installed kopf (its examples are not in the wheel)."""
    release = version("kopf")
    where = tmp_path_factory.mktemp("kopf-sdist")
    command = [sys.executable, "-m", "pip", "download", f"kopf=={release}", "--no-binary", ":all:", "--no-deps"]
    done = subprocess.run([*command, "-d", str(where), "-q"], capture_output=True, text=True, timeout=300)
    archives = list(where.glob("kopf-*.tar.gz"))
    if done.returncode != 0 or not archives:
        message = f"cannot download kopf {release}'s sdist: {done.stderr.strip()[-300:]}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{message}, and CI=true requires these tests to run")
        pytest.skip(f"{message} (these tests run, and fail without it, when CI=true)")
    with tarfile.open(archives[0]) as archive:
        archive.extractall(where, filter="data")
    return where / f"kopf-{release}"


def documents(path: Path) -> list[dict[str, Any]]:
    return [document for document in yaml.safe_load_all(path.read_text()) if document]


def minimal(sdist: Path, *options: str, peering: bool = False) -> Scenario:
    examples = sdist / "examples"
    objects = [*documents(examples / "crd.yaml"), *documents(examples / "obj.yaml")]
    if peering:
        objects += [
            *documents(sdist / "peering.yaml"),
            {"apiVersion": "kopf.dev/v1", "kind": "ClusterKopfPeering", "metadata": {"name": "example"}},
        ]
    created = next(obj for obj in objects if obj.get("kind") == "KopfExample")
    message = f"And here we are! Creating: {created['spec']}"
    operator = Operator(
        (str(examples / "01-minimal" / "example.py"), "-A", *options),
        replicas=2,
        effects=(CallEffect("printed", "builtins.print", "{0}"),),
    )
    return scenario(
        name="kopf-01-minimal",
        variant="peering" if peering else "standalone",
        objects=objects,
        operator=operator,
        checks=exactly_once("printed", message),
        horizon=0.0,
        default_checks=False,
    )


def test_two_standalone_replicas_both_handle_the_creation(kopf_sdist: Path) -> None:
    exploration = explore(minimal(kopf_sdist, "--standalone"), exhaustive=True)
    assert exploration.verdict == "violated: safety", exploration.report()
    run = exploration.counterexample
    assert run is not None
    assert sorted(effect.actor for effect in run.effects) == ["replica-1", "replica-2"]
    assert "replica-2" in exploration.report()


def test_two_standalone_replicas_of_the_children_example_create_two_children(kopf_sdist: Path) -> None:
    """The example's handler is synchronous and creates the pod with pykube (requests, in kopf's
    executor thread); the pod's ``generateName`` (from ``kopf.adopt``) lets both creations succeed.
    kopf's CRD scanning makes the space large: seeded random schedules find the race."""
    examples = kopf_sdist / "examples"
    operator = Operator(
        (str(examples / "02-children" / "example.py"), "-A", "--standalone"),
        replicas=2,
        effects=(
            WriteEffect("child-created", "pods", verb="create", key="{object[metadata][ownerReferences][0][name]}"),
        ),
    )
    target = scenario(
        name="kopf-02-children",
        variant="standalone",
        objects=[*documents(examples / "crd.yaml"), *documents(examples / "obj.yaml")],
        operator=operator,
        checks=exactly_once("child-created", "kopf-example-1"),
        horizon=0.0,
        default_checks=False,
    )
    exploration = explore(target, exhaustive=False, schedules=20, seed=1, shrink=False)
    assert exploration.verdict == "violated: safety", exploration.report()
    run = exploration.counterexample
    assert run is not None
    assert sorted(effect.actor for effect in run.effects) == ["replica-1", "replica-2"]
    report = exploration.report()
    assert "POST pods (created kopf-example-1-" in report
    assert "(kopf handler create_fn for default/kopf-example-1)" in report


def test_peering_with_one_priority_pauses_both_or_lets_both_handle(kopf_sdist: Path) -> None:
    """kopf's peering between replicas of one priority, as a Deployment's replicas have: once each
    sees the other in the peering object, kopf pauses every operator, itself included, so nobody
    handles the object; before that, a replica that has not yet seen its peer handles it, and if
    both are in that window, both do. Seeded random schedules show both outcomes."""
    target = minimal(kopf_sdist, "--peering", "example", peering=True)

    async def runs() -> list[RunRecord]:
        engine = Engine(target)
        await engine.start()
        try:
            return [await engine.run(RandomChooser(1, number, fault_rate=0.0)) for number in range(12)]
        finally:
            await engine.stop()

    records = asyncio.run(runs())
    printed = [sorted(effect.actor for effect in record.effects) for record in records]
    assert ["replica-1", "replica-2"] in printed, printed
    assert [] in printed, printed
    for record in records:
        patched = {step.option.target[1] for step in record.steps if step.option.method == "PATCH"}
        assert "clusterkopfpeerings" in patched, [step.option.describe() for step in record.steps]
