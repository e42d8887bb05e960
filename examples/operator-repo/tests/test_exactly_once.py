"""The operator itself, as `kopf run -m widget_operator.handlers` starts it, explored by the
scenarios engine: every order in which its requests, its watch events and its own tasks can
interleave, with kopf's own machinery (watches, workers, finalizer, progress annotations) running
unmodified in a replica process. The claim: each Widget's ``Completed`` Event is posted exactly once.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from scenarios import Operator, WriteEffect, exactly_once

CRD = yaml.safe_load((Path(__file__).parent.parent / "deploy" / "crds" / "widgets.yaml").read_text())
WIDGET = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1", "namespace": "default"}}
COMPLETED = WriteEffect(
    "completed", "events", pointer="/reason", value="Completed", verb="create", key="{object[involvedObject][name]}"
)


def test_each_widget_completes_exactly_once(explore):
    operator = Operator(("-m", "widget_operator.handlers", "--standalone", "-A"), replicas=1, effects=(COMPLETED,))
    exploration = explore(
        objects=[CRD, WIDGET],
        operator=operator,
        checks=exactly_once("completed", "w1"),
        horizon=0.0,  # no timer needed: the claim never fails with one replica
        default_checks=False,
    )
    exploration.assert_holds()
    assert exploration.runs > 100  # kopf's own tasks race each other: hundreds of interleavings
