"""Defaults of API priority and fairness: FlowSchemas and PriorityLevelConfigurations.

Reproduced from kube-apiserver 1.32 ``pkg/apis/flowcontrol/v1/defaults.go``: a matching precedence
of 1000 (``SetDefaults_FlowSchemaSpec``), an exempt level's shares and lendable percent 0, a limited
level's 30 nominal shares and 0 lendable percent, and queuing with 64 queues, a hand of 8 and 50
requests per queue.
"""

from __future__ import annotations

from fakeapi._state.defaults.fields import Obj, default, default_if_absent, sub

__all__ = ["flow_schema_defaults", "priority_level_defaults"]


def flow_schema_defaults(flow_schema: Obj, creating: bool | None) -> None:
    if (spec := sub(flow_schema, "spec")) is not None:
        default(spec, "matchingPrecedence", 1000)


def priority_level_defaults(priority_level: Obj, creating: bool | None) -> None:
    spec = sub(priority_level, "spec")
    if spec is None:
        return
    if isinstance(exempt := spec.get("exempt"), dict):
        default_if_absent(exempt, "nominalConcurrencyShares", 0)
        default_if_absent(exempt, "lendablePercent", 0)
    if isinstance(limited := spec.get("limited"), dict):
        default_if_absent(limited, "nominalConcurrencyShares", 30)
        default_if_absent(limited, "lendablePercent", 0)
        response = limited.get("limitResponse")
        queuing = response.get("queuing") if isinstance(response, dict) else None
        if isinstance(queuing, dict):
            default(queuing, "handSize", 8)
            default(queuing, "queues", 64)
            default(queuing, "queueLengthLimit", 50)
