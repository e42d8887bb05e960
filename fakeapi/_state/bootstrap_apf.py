"""The API Priority and Fairness configuration kube-apiserver writes at boot (docs/priority-and-fairness.md).

kube-apiserver's ``priority-and-fairness-config-producer`` post-start hook (kubernetes
``pkg/registry/flowcontrol/rest/storage_flowcontrol.go``, ``ensure``) creates the objects of
k8s.io/apiserver ``pkg/apis/flowcontrol/bootstrap/default.go`` that do not exist yet, through its
loopback client as ``api-priority-and-fairness-config-producer-v1``: first the suggested
PriorityLevelConfigurations and FlowSchemas, then the mandatory ones, each list in its own order.
Every one carries the annotation ``apf.kubernetes.io/autoupdate-spec: "true"``. The config
controller then sets each FlowSchema's ``Dangling`` condition (:mod:`fakeapi._state.flowcontrol_status`,
run by the kinds' strategies as the objects are written).

The objects are kept as data in ``bootstrap_flowcontrol/``, one file per list of ``default.go``,
so a later release's configuration replaces them file by file. They are read and checked once;
every boot decodes fresh copies.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import TYPE_CHECKING, Any

import orjson
import yaml

from fakeapi._state.kinds import builtin_type

if TYPE_CHECKING:
    from fakeapi._state.store import Store

__all__ = ["CONFIGURATION_FILES", "PRODUCER", "bootstrap_apf", "configuration_objects"]

PRODUCER = "api-priority-and-fairness-config-producer-v1"
_GROUP = "flowcontrol.apiserver.k8s.io"
_AUTO_UPDATE = "apf.kubernetes.io/autoupdate-spec"
# In the order ``ensure`` creates them.
CONFIGURATION_FILES = (
    ("PriorityLevelConfiguration", "suggested-priority-level-configurations.yaml"),
    ("FlowSchema", "suggested-flow-schemas.yaml"),
    ("PriorityLevelConfiguration", "mandatory-priority-level-configurations.yaml"),
    ("FlowSchema", "mandatory-flow-schemas.yaml"),
)


def _checked(item: dict[str, Any], kind: str, file_name: str) -> dict[str, Any]:
    if item.get("kind") != kind or item.get("apiVersion") != f"{_GROUP}/v1":
        raise ValueError(f"{file_name}: {item.get('apiVersion')} {item.get('kind')} where {kind} was expected")
    if (item.get("metadata") or {}).get("annotations", {}).get(_AUTO_UPDATE) != "true":
        raise ValueError(f"{file_name}: {item.get('metadata')} lacks {_AUTO_UPDATE}")
    return item


@functools.cache
def _load() -> bytes:
    """The configuration as one JSON array: read and checked once, decoded into fresh objects on every boot."""
    objects: list[dict[str, Any]] = []
    for kind, file_name in CONFIGURATION_FILES:
        text = (
            resources.files("fakeapi._state").joinpath("bootstrap_flowcontrol", file_name).read_text(encoding="utf-8")
        )
        objects.extend(_checked(item, kind, file_name) for item in yaml.safe_load(text)["items"])
    return orjson.dumps(objects)


def configuration_objects() -> list[dict[str, Any]]:
    """Every object of the bootstrap configuration, in the order the hook creates them (fresh copies)."""
    objects: list[dict[str, Any]] = orjson.loads(_load())
    return objects


def bootstrap_apf(store: Store) -> None:
    """Create the configuration in ``store``, as the producer does on a new cluster."""
    for obj in configuration_objects():
        store.create(builtin_type(_GROUP, "v1", obj["kind"]), "", obj, manager=PRODUCER)
