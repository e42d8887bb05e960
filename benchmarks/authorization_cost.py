"""What RBAC authorization costs a request: the server's CPU per write in three modes, side by side.

``fakeapi serve`` runs in a child process; this process reads the child's CPU time from /proc before
and after ``--writes`` JSON patches (replace of ``/spec/counter`` on the 4 KB benchmark custom
resource, one keep-alive client, one request at a time) and divides. The modes:

- ``always-allow``: the default, nothing is checked (the floor: what a request costs without
  authorization; authorization off must cost nothing beyond it);
- ``rbac, admin``: ``--authorization rbac``, the kubeconfig's admin (``system:masters``, allowed
  before any RBAC object is read);
- ``rbac, account``: ``--authorization rbac`` and a ServiceAccount token whose permission comes
  from a RoleBinding, with ``--filler`` further ClusterRoles, ClusterRoleBindings and RoleBindings
  for other subjects in the store (the 1.32 bootstrap policy has about 70 ClusterRoles and 50
  ClusterRoleBindings), which the authorizer walks as the apiserver's does.

Every round starts one fresh server per mode, in an order that rotates from round to round, so a
change of the machine's load falls on all modes alike. Printed: each mode's median CPU per write and
its ratio to ``always-allow`` in the same run.
Run: ``python benchmarks/authorization_cost.py [--rounds 5 --writes 2000 --filler 60]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

import aiohttp
import yaml
from _common import (
    JSON_PATCH,
    NAMESPACE,
    ServerProcess,
    collection_path,
    cpu_seconds,
    crd_manifest,
    custom_resource,
    fakeapi_command,
    print_footer,
    print_header,
    print_table,
)

RBAC = "rbac.authorization.k8s.io/v1"
ROLE_REF = {"apiGroup": "rbac.authorization.k8s.io"}
MODES = ("always-allow", "rbac, admin", "rbac, account")


def rbac_objects(filler: int) -> list[dict[str, Any]]:
    """The account's Role and binding, then ``filler`` ClusterRoles each bound to another group and
    ``filler`` RoleBindings of other users, none of which grants the account anything."""
    account = {"kind": "ServiceAccount", "name": "operator", "namespace": NAMESPACE}
    objects: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "operator", "namespace": NAMESPACE}},
        {
            "apiVersion": RBAC,
            "kind": "Role",
            "metadata": {"name": "operator", "namespace": NAMESPACE},
            "rules": [{"apiGroups": [crd_manifest()["spec"]["group"]], "resources": ["*"], "verbs": ["*"]}],
        },
    ]
    for index in range(filler):
        name = f"filler-{index:03d}"
        rules = [{"apiGroups": ["apps"], "resources": ["deployments", "statefulsets"], "verbs": ["get", "list"]}]
        objects.append({"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": name}, "rules": rules})
        objects.append(
            {
                "apiVersion": RBAC,
                "kind": "ClusterRoleBinding",
                "metadata": {"name": name},
                "roleRef": {**ROLE_REF, "kind": "ClusterRole", "name": name},
                "subjects": [{**ROLE_REF, "kind": "Group", "name": f"group-{index}"}],
            }
        )
        objects.append(
            {
                "apiVersion": RBAC,
                "kind": "RoleBinding",
                "metadata": {"name": name, "namespace": NAMESPACE},
                "roleRef": {**ROLE_REF, "kind": "ClusterRole", "name": name},
                "subjects": [{**ROLE_REF, "kind": "User", "name": f"user-{index}"}],
            }
        )
    objects.append(
        {
            "apiVersion": RBAC,
            "kind": "RoleBinding",
            "metadata": {"name": "operator", "namespace": NAMESPACE},
            "roleRef": {**ROLE_REF, "kind": "Role", "name": "operator"},
            "subjects": [account],
        }
    )
    return objects


def server_for(mode: str, workdir: Path) -> tuple[ServerProcess, Path]:
    kubeconfig = workdir / f"{mode.replace(', ', '-')}.kubeconfig"
    extra = ["--kubeconfig", str(kubeconfig), "--load", str(workdir / "rbac.yaml")]
    if mode != "always-allow":
        extra += ["--authorization", "rbac", "--service-account", f"{NAMESPACE}/operator"]
    return ServerProcess(fakeapi_command(*extra), r"fakeapi serving on (http://\S+)"), kubeconfig


async def measure(server: ServerProcess, admin: str, writer: str, writes: int) -> float:
    """CPU seconds of the server per write by ``writer``, after 10 % unmeasured warm-up writes."""
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {admin}"}) as session:
        async with session.post(
            server.url + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd_manifest()
        ) as response:
            assert response.status == 201, await response.text()
        async with session.post(server.url + collection_path(), json=custom_resource(0, stored=False)) as response:
            assert response.status == 201, await response.text()
            name = (await response.json())["metadata"]["name"]
    path = f"{server.url}{collection_path()}/{name}"
    headers = {"Authorization": f"Bearer {writer}", "Content-Type": JSON_PATCH}
    async with aiohttp.ClientSession(headers=headers) as session:

        async def write(counter: int) -> None:
            body = json.dumps([{"op": "replace", "path": "/spec/counter", "value": counter}])
            async with session.patch(path, data=body) as response:
                assert response.status == 200, await response.text()
                await response.read()

        warmup = max(1, writes // 10)
        for counter in range(warmup):
            await write(counter)
        before = cpu_seconds(server.pid)
        for counter in range(warmup, warmup + writes):
            await write(counter)
        return (cpu_seconds(server.pid) - before) / writes


def one(mode: str, workdir: Path, writes: int) -> float:
    server, kubeconfig = server_for(mode, workdir)
    with server:
        admin = yaml.safe_load(kubeconfig.read_text())["users"][0]["user"]["token"]
        writer = admin
        if mode == "rbac, account":
            (announced,) = [line for line in server.output if line.startswith("fakeapi token for ")]
            writer = announced.rpartition(": ")[2]
        return asyncio.run(measure(server, admin, writer, writes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="fresh servers per mode (default: %(default)s)")
    parser.add_argument("--writes", type=int, default=2000, help="measured writes per server (default: %(default)s)")
    parser.add_argument("--filler", type=int, default=60, help="unrelated roles and bindings (default: %(default)s)")
    args = parser.parse_args()
    print_header("RBAC authorization: server CPU per write", args)
    samples: dict[str, list[float]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory(prefix="fakeapi-authz-") as directory:
        workdir = Path(directory)
        (workdir / "rbac.yaml").write_text(yaml.safe_dump_all(rbac_objects(args.filler)))
        for round_number in range(args.rounds):
            shift = round_number % len(MODES)
            for mode in MODES[shift:] + MODES[:shift]:
                samples[mode].append(one(mode, workdir, args.writes))
            figures = ", ".join(f"{mode} {samples[mode][-1] * 1e6:.0f} µs" for mode in MODES)
            print(f"round {round_number + 1}/{args.rounds}: {figures}", flush=True)
    floor = statistics.median(samples["always-allow"])
    rows = []
    for mode in MODES:
        median = statistics.median(samples[mode])
        values = " / ".join(f"{value * 1e6:.0f}" for value in samples[mode])
        rows.append([mode, f"{median * 1e6:.1f}", f"{median / floor:.3f}", values])
    print()
    print_table(["mode", "median µs CPU/write", "ratio to always-allow", "rounds (µs)"], rows, right=(1, 2))
    print_footer()


if __name__ == "__main__":
    main()
