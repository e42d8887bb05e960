"""The phase and conditions the kubelet reports for a pod from its containers' statuses.

``getPhase`` (``pkg/kubelet/kubelet_pods.go``) gives the phase; ``pkg/kubelet/status/generate.go``
the four conditions the kubelet owns (PodReadyToStartContainers, Initialized, Ready,
ContainersReady), which are followed by the conditions others own, PodScheduled among them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["pod_conditions", "pod_phase"]

KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady")


def pod_phase(spec: dict[str, Any], init: list[dict[str, Any]], containers: list[dict[str, Any]]) -> str:
    """``getPhase`` (``pkg/kubelet/kubelet_pods.go``) for regular containers and finished init containers."""
    if any("terminated" not in (s.get("state") or {}) for s in init):
        return "Pending"
    waiting = running = stopped = succeeded = 0
    for entry in containers:
        state = entry.get("state") or {}
        if "running" in state:
            running += 1
        elif "terminated" in state:
            stopped += 1
            succeeded += state["terminated"].get("exitCode") == 0
        elif (entry.get("lastState") or {}).get("terminated") is not None:
            stopped += 1
        else:
            waiting += 1
    if waiting:
        return "Pending"
    if running:
        return "Running"
    policy = spec.get("restartPolicy", "Always")
    if policy == "Always":
        return "Running"
    if stopped == succeeded:
        return "Succeeded"
    return "Failed" if policy == "Never" else "Running"


def pod_conditions(
    pod: dict[str, Any],
    status: dict[str, Any],
    init: list[dict[str, Any]],
    containers: list[dict[str, Any]],
    first: bool,
    stamp: str,
) -> list[dict[str, Any]]:
    """The kubelet's conditions (``pkg/kubelet/status/generate.go``), each keeping its
    ``lastTransitionTime`` while its status stays the same, then the conditions others own."""
    phase = status["phase"]
    terminal_reason = {"Succeeded": "PodCompleted", "Failed": "PodFailed"}.get(phase)
    sandbox = not first and terminal_reason is None
    generated: list[dict[str, Any]] = [{"type": "PodReadyToStartContainers", "status": _bool(sandbox)}]
    incomplete = [s["name"] for s in init if not s.get("ready")]
    if phase == "Succeeded":
        generated.append({"type": "Initialized", "status": "True", "reason": "PodCompleted"})
    elif incomplete and not any(s.get("started") for s in containers):
        message = f"containers with incomplete status: [{' '.join(incomplete)}]"
        generated.append(
            {"type": "Initialized", "status": "False", "reason": "ContainersNotInitialized", "message": message}
        )
    else:
        generated.append({"type": "Initialized", "status": "True"})
    if terminal_reason is not None:
        ready: dict[str, Any] = {"status": "False", "reason": terminal_reason}
    else:
        unready = [s["name"] for s in containers if not s.get("ready")]
        if unready:
            message = f"containers with unready status: [{' '.join(unready)}]"
            ready = {"status": "False", "reason": "ContainersNotReady", "message": message}
        else:
            ready = {"status": "True"}
    generated.append({"type": "Ready", **ready})
    generated.append({"type": "ContainersReady", **ready})
    previous = {c.get("type"): c for c in (pod.get("status") or {}).get("conditions") or []}
    merged = []
    for condition in generated:
        before = previous.get(condition["type"])
        changed = before is None or before.get("status") != condition["status"]
        transition = stamp if changed else before.get("lastTransitionTime") if before else stamp
        merged.append({"type": condition["type"], "status": condition["status"], "lastProbeTime": None,
                       "lastTransitionTime": transition,
                       **{k: v for k, v in condition.items() if k in ("reason", "message")}})  # fmt: skip
    merged.extend(
        c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") not in KUBELET_CONDITIONS
    )
    return merged


def _bool(value: bool) -> str:
    return "True" if value else "False"
