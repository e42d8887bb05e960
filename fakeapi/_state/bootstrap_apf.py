"""The API Priority and Fairness configuration kube-apiserver writes at boot (docs/priority-and-fairness.md).

kube-apiserver's ``priority-and-fairness-config-producer`` post-start hook (kubernetes
``pkg/registry/flowcontrol/rest/storage_flowcontrol.go``, ``ensure``) creates the objects of
k8s.io/apiserver ``pkg/apis/flowcontrol/bootstrap/default.go`` that do not exist yet, through its
loopback client as ``api-priority-and-fairness-config-producer-v1``: first the suggested
PriorityLevelConfigurations and FlowSchemas, then the mandatory ones, each list in its own order.
Every one carries the annotation ``apf.kubernetes.io/autoupdate-spec: "true"``. The config
controller then sets each FlowSchema's ``Dangling`` condition (:mod:`fakeapi._state.flowcontrol_status`,
run by the kinds' strategies as the objects are written).

The objects are kept as data in ``bootstrap_flowcontrol/``, one file per list of ``default.go``, as
1.32 has them; a later release whose list differs has its own file in a directory named after it
(``1.34/``, which drops two suggested FlowSchemas). They are read and checked once per release;
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
def _load(kube_version: str) -> bytes:
    """A release's configuration as one JSON array: read and checked once, decoded afresh on every boot."""
    directory = resources.files("fakeapi._state").joinpath("bootstrap_flowcontrol")
    objects: list[dict[str, Any]] = []
    for kind, file_name in CONFIGURATION_FILES:
        own = directory.joinpath(kube_version, file_name)
        text = (own if own.is_file() else directory.joinpath(file_name)).read_text(encoding="utf-8")
        objects.extend(_checked(item, kind, file_name) for item in yaml.safe_load(text)["items"])
    return orjson.dumps(objects)


def configuration_objects(kube_version: str) -> list[dict[str, Any]]:
    """Every object of a release's bootstrap configuration, in the order the hook creates them (fresh copies)."""
    objects: list[dict[str, Any]] = orjson.loads(_load(kube_version))
    return objects


def bootstrap_apf(store: Store) -> None:
    """Create the configuration of the store's release in ``store``, as the producer does on a new cluster."""
    for obj in configuration_objects(store.registry.kube_version):
        store.create(builtin_type(_GROUP, "v1", obj["kind"]), "", obj, manager=PRODUCER)
