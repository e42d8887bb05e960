"""A server-side apply of a 4 KB Deployment against a merge patch of the same change, over HTTP.

Both requests go through a running ``FakeAPIServer`` the way kubectl sends them: the apply
(``application/apply-patch+yaml``, ``fieldManager=deployer``) carries the whole Deployment with one
container's image changed, so the server merges it per element with the kind's schema, prunes,
compares and rebuilds the managedFields of two managers (the creator's Update entry and the
applier's); the merge patch sets the same image (its containers list replaced whole) and goes
through the Update tracking alone. Requests alternate one by one so machine load hits both alike,
and the figures are a ratio to the merge patch measured in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import time
from typing import Any

import aiohttp
from _common import Stats, print_footer, print_header, print_table, seconds
from strategic_patch import deployment

from fakeapi import FakeAPIServer

PATH = "/apis/apps/v1/namespaces/default/deployments"


def manifest(image: str) -> dict[str, Any]:
    """What ``kubectl apply --server-side`` sends: the Deployment without system metadata or status."""
    stored = deployment()
    stored["metadata"] = {"name": "web", "labels": stored["metadata"]["labels"]}
    stored.pop("status")
    stored["spec"]["template"]["spec"]["containers"][0]["image"] = image
    return stored


async def measure(rounds: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"server-side apply": [], "merge patch": []}
    async with FakeAPIServer() as server, aiohttp.ClientSession() as session:
        created = await session.post(
            server.url + PATH + "?fieldManager=creator", json=manifest("registry.example/app:1.0")
        )
        assert created.status == 201, await created.text()
        for index in range(rounds):
            image = f"registry.example/app:2.{index}"
            body = json.dumps(manifest(image)).encode()
            started = time.perf_counter()
            async with session.patch(
                server.url + PATH + "/web?fieldManager=deployer&force=true",
                data=body,
                headers={"Content-Type": "application/apply-patch+yaml"},
            ) as reply:
                await reply.read()
                assert reply.status == 200
            samples["server-side apply"].append(time.perf_counter() - started)
            containers = copy.deepcopy(
                manifest(f"registry.example/app:3.{index}")["spec"]["template"]["spec"]["containers"]
            )
            patch = json.dumps({"spec": {"template": {"spec": {"containers": containers}}}}).encode()
            started = time.perf_counter()
            async with session.patch(
                server.url + PATH + "/web?fieldManager=editor",
                data=patch,
                headers={"Content-Type": "application/merge-patch+json"},
            ) as reply:
                await reply.read()
                assert reply.status == 200
            samples["merge patch"].append(time.perf_counter() - started)
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args(argv)
    print_header("Server-side apply vs merge patch on a 4 KB Deployment, over HTTP", args)
    samples = asyncio.run(measure(args.rounds))
    stats = {name: Stats.of(values[10:]) for name, values in samples.items()}
    print_table(
        ["request", "n", "median", "p99", "min"],
        [[name, s.count, seconds(s.median), seconds(s.p99), seconds(s.minimum)] for name, s in stats.items()],
        right=(1, 2, 3, 4),
    )
    ratio = stats["server-side apply"].median / stats["merge patch"].median
    print(f"\nserver-side apply / merge patch (medians): {ratio:.2f}x")
    print_footer()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
