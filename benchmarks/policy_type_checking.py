"""What the ValidatingAdmissionPolicy status controller's type checking adds to a policy's create.

Creates ``--policies`` policies with two validations through an in-process fakeapi, once with a rule on
``apps/v1`` deployments (each create is type-checked against Deployment's schema and its status written) and
once with ``apiVersions: ["*"]`` (no kind to check: the status write only), and prints the time per create.
The first create of the checked run also pays for Deployment's declared types (kept for the process).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import aiohttp
from _common import Stats, percentile, print_footer, print_header, print_table, seconds

from fakeapi.server import FakeAPIServer

POLICIES = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"


def _policy(index: int, version: str) -> dict[str, Any]:
    rule = {"apiGroups": ["apps"], "apiVersions": [version], "operations": ["*"], "resources": ["deployments"]}
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": f"p{index:04d}"},
        "spec": {
            "matchConstraints": {"resourceRules": [rule]},
            "validations": [
                {"expression": "object.spec.replicas <= 5", "messageExpression": "'too many: ' + object.metadata.name"},
                {"expression": "object.spec.template.spec.containers.all(c, c.image != '')"},
            ],
        },
    }


async def _run(count: int, version: str) -> list[float]:
    samples = []
    async with FakeAPIServer() as server, aiohttp.ClientSession() as session:
        for index in range(count):
            started = time.perf_counter()
            async with session.post(server.url + POLICIES, json=_policy(index, version)) as response:
                assert response.status == 201, await response.text()
            samples.append(time.perf_counter() - started)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", type=int, default=200, help="per run (default: %(default)s)")
    args = parser.parse_args()
    print_header("ValidatingAdmissionPolicy type checking: time per create", args)
    rows = []
    for label, version in (("checked (apps/v1 Deployment)", "v1"), ("not checked (apiVersions *)", "*")):
        samples = asyncio.run(_run(args.policies, version))
        stats = Stats.of(samples[1:])
        rows.append((label, seconds(samples[0]), seconds(stats.median), seconds(percentile(samples[1:], 95))))
    print_table(("policies", "first create", "median after", "p95 after"), rows, right=(1, 2, 3))
    print_footer()


if __name__ == "__main__":
    main()
