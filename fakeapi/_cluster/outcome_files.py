"""Outcome rules from a file: what each container does, written down once for a whole test suite
or a ``fakeapi serve`` session (docs/controllers.md, "Outcomes").

The file is YAML (or JSON): a list of rules, each with ``outcome`` (the text form: ``run``,
``never-ready``, ``image-pull-failure``, ``succeed after 5s``, ``exit 3 after 2s``, ``oom-killed
after 1s``, any of them followed by ``starts after 3s``) and any of ``image`` (a glob), ``labels`` (a map the pod's labels must hold) and
``container`` (a name), and optionally ``logs`` (a list of the lines the container writes to its
log as it starts). Instead of ``outcome``, a rule may give ``process``: a map with ``command`` (an
argv) and any of ``workingDir``, ``env`` and ``ports``, the program run in place of the image
(docs/process-containers.md). The first rule whose criteria all match a container decides, after the
pod's own ``fakeapi.dev/outcome`` annotations and before the cluster's defaults
(docs/cluster-defaults.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from fakeapi._cluster.local_processes import local_process_of_map
from fakeapi._cluster.outcomes import Outcome, OutcomeRule, parse_outcome

__all__ = ["load_outcome_rules"]

_KEYS = {"outcome", "process", "image", "labels", "container", "logs"}


def load_outcome_rules(path: str | Path) -> list[OutcomeRule]:
    """The rules in ``path``, in order; ``ValueError`` naming the rule and what is wrong with it."""
    try:
        document = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise ValueError(f"{path}: not YAML: {error}") from None
    if document is None:
        return []
    if not isinstance(document, list):
        raise ValueError(f"{path}: a list of outcome rules is expected, not {type(document).__name__}")
    return [_rule(path, number, entry) for number, entry in enumerate(document, 1)]


def _rule(path: str | Path, number: int, entry: Any) -> OutcomeRule:
    where = f"{path}: rule {number}"
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: a map with outcome, image, labels, container, logs is expected")
    unknown = sorted(set(map(str, entry)) - _KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown keys {', '.join(unknown)} (known: {', '.join(sorted(_KEYS))})")
    if "process" in entry:
        return _process_rule(where, entry)
    if not isinstance(entry.get("outcome"), str):
        raise ValueError(f"{where}: outcome is required, as text such as 'succeed after 5s'")
    labels = _labels(where, entry)
    _criteria(where, entry)
    logs = entry.get("logs") or []
    if not isinstance(logs, list) or not all(isinstance(line, str) for line in logs):
        raise ValueError(f"{where}: logs must be a list of strings")
    try:
        outcome = parse_outcome(entry["outcome"])
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
    if logs:
        outcome = outcome.printing(*logs)
    return OutcomeRule(outcome, image=entry.get("image"), labels=labels, container=entry.get("container"))


def _process_rule(where: str, entry: dict[str, Any]) -> OutcomeRule:
    for key in ("outcome", "logs"):
        if key in entry:
            raise ValueError(f"{where}: a process rule has no {key}: what the process does and writes is its own")
    if not isinstance(entry["process"], dict):
        raise ValueError(f"{where}: process is a map with command and any of workingDir, env, ports")
    try:
        process = local_process_of_map(entry["process"])
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
    labels = _labels(where, entry)
    _criteria(where, entry)
    outcome = Outcome(local_process=process)
    return OutcomeRule(outcome, image=entry.get("image"), labels=labels, container=entry.get("container"))


def _labels(where: str, entry: dict[str, Any]) -> dict[str, str]:
    labels = entry.get("labels") or {}
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        raise ValueError(f"{where}: labels must map names to strings")
    return {str(key): value for key, value in labels.items()}


def _criteria(where: str, entry: dict[str, Any]) -> None:
    for key in ("image", "container"):
        if key in entry and not isinstance(entry[key], str):
            raise ValueError(f"{where}: {key} must be a string")
