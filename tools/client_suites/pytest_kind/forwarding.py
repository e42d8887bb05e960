"""``kubectl port-forward TYPE/NAME LOCAL:REMOTE -n NS`` as a small program, over WebSocket.

pytest-kind's ``KindCluster.port_forward`` runs ``kubectl port-forward`` in a subprocess. kubectl
speaks SPDY (or SPDY tunnelled in a WebSocket) to ``pods/NAME/portforward``; this program speaks
the ``v4.channel.k8s.io`` WebSocket protocol to the same subresource, through kr8s, and otherwise
does what kubectl 1.32 does (``staging/src/k8s.io/kubectl/pkg/cmd/portforward/portforward.go``,
``Complete`` and ``RunPortForwardContext``):

- a Service, Deployment and the like name a pod through their selector: kubectl waits up to a
  minute (``--pod-running-timeout``) for one to exist and takes the most active one (assigned,
  then Running, then Ready, then fewest restarts, then oldest: ``podutils.ActivePods`` reversed);
- a Service's port is translated to the ``targetPort`` in that pod, a named one through the
  pod's container ports (``translateServicePortToTargetPort``);
- a pod that is not Running is refused: ``error: unable to forward port because pod is not
  running. Current status=Pending``, exit code 1;
- it prints ``Forwarding from 127.0.0.1:LOCAL -> PORT`` when it listens, and every accepted
  connection opens its own stream to the pod.

    python3 -m pytest_kind.forwarding service/NAME LOCAL:REMOTE [-n NAMESPACE]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

import kr8s.asyncio
from kr8s.asyncio.objects import Pod

POD_RUNNING_TIMEOUT = 60.0
PHASE_RANK = {"Pending": 0, "Unknown": 1, "Running": 2}


def _selector_of(obj: Any) -> dict[str, str]:
    spec = obj.raw.get("spec", {})
    if obj.kind == "Service":
        return dict(spec.get("selector") or {})
    return dict((spec.get("selector") or {}).get("matchLabels") or {})


def _activity_rank(pod: Any) -> tuple[bool, int, bool, int, str]:
    """A key under which the most active pod sorts first."""
    status = pod.raw.get("status", {})
    ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions", []))
    restarts = sum(c.get("restartCount", 0) for c in status.get("containerStatuses", []))
    phase = PHASE_RANK.get(status.get("phase", ""), -1)
    return not pod.raw["spec"].get("nodeName"), -phase, not ready, restarts, pod.raw["metadata"]["creationTimestamp"]


async def _forwardable_pod(kind: str, name: str, namespace: str) -> tuple[Any, Any]:
    """The pod to forward to, and the object it was named through."""
    api = await kr8s.asyncio.api()
    if kind in ("pod", "pods", "po"):
        try:
            pod = await Pod.get(name, namespace=namespace, api=api)
        except kr8s.NotFoundError:
            raise SystemExit(f'Error from server (NotFound): pods "{name}" not found') from None
        return pod, pod
    try:
        [named] = [obj async for obj in api.async_get(kind, name, namespace=namespace)]
    except (kr8s.NotFoundError, ValueError):
        raise SystemExit(f'Error from server (NotFound): {kind} "{name}" not found') from None
    deadline = time.monotonic() + POD_RUNNING_TIMEOUT
    while True:
        selector = _selector_of(named)
        pods = [pod async for pod in api.async_get("pods", namespace=namespace, label_selector=selector)]
        if pods:
            return min(pods, key=_activity_rank), named
        if time.monotonic() > deadline:
            raise SystemExit("error: timed out waiting for the condition")
        await asyncio.sleep(0.5)


def _container_port(named: Any, pod: Any, remote: int) -> int:
    if named.kind != "Service":
        return remote
    for port in named.raw["spec"].get("ports", []):
        if port.get("port") != remote:
            continue
        target = port.get("targetPort", remote)
        if isinstance(target, int):
            return target
        for container in pod.raw["spec"]["containers"]:
            for container_port in container.get("ports", []):
                if container_port.get("name") == target:
                    return int(container_port["containerPort"])
        raise SystemExit(f"error: Pod '{pod.name}' does not have a named port '{target}'")
    raise SystemExit(f"error: Service {named.name} does not have a service port {remote}")


async def _forward(resource: str, ports: str, namespace: str) -> None:
    kind, _, name = resource.partition("/")
    if not name:
        kind, name = "pod", kind
    local, _, remote = ports.partition(":")
    pod, named = await _forwardable_pod(kind, name, namespace)
    target = _container_port(named, pod, int(remote or local))
    await pod.refresh()
    phase = pod.raw.get("status", {}).get("phase", "")
    if phase != "Running":
        raise SystemExit(f"error: unable to forward port because pod is not running. Current status={phase}")
    async with pod.portforward(target, int(local) if local else None) as bound:
        print(f"Forwarding from 127.0.0.1:{bound} -> {target}", flush=True)
        await asyncio.Event().wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="pytest_kind.forwarding")
    parser.add_argument("resource")
    parser.add_argument("ports")
    parser.add_argument("-n", "--namespace", default="default")
    args = parser.parse_args(argv)
    try:
        asyncio.run(_forward(args.resource, args.ports, args.namespace))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
