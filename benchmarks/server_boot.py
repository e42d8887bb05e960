"""What a new server costs to build and to reset: writing what a new cluster holds at boot.

``FakeAPIServer()`` writes the system namespaces, the PriorityClasses and the bootstrap RBAC policy
(docs/bootstrap.md, docs/rbac.md) before it serves; ``reset()`` writes them again. A test that makes
its own server pays the first, the pytest fixture's sessions pay it once (between tests it restores
a snapshot: ``fixture_reset.py``). In ``--rounds`` rounds the script builds ``--servers`` servers and
resets one ``--resets`` times, and prints the medians of the CPU and wall time of each, with the
number of objects a new cluster holds.
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import print_footer, print_header

from fakeapi.server import FakeAPIServer


def _timed(action: object, count: int) -> tuple[float, float]:
    assert callable(action)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(count):
        action()
    return (time.process_time() - cpu) / count, (time.perf_counter() - wall) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default: 5)")
    parser.add_argument("--servers", type=int, default=20, help="servers built a round (default: 20)")
    parser.add_argument("--resets", type=int, default=20, help="resets a round (default: 20)")
    args = parser.parse_args()
    print_header("server boot: building a new server and resetting one", args)
    server = FakeAPIServer()
    objects = sum(len(bucket) for bucket in server.snapshot().objects.values())
    builds, resets = [], []
    for _ in range(args.rounds):
        builds.append(_timed(FakeAPIServer, args.servers))
        resets.append(_timed(server.reset, args.resets))
    print(f"objects a new cluster holds: {objects}")
    print(f"{'':<12}{'CPU':>12}{'wall':>12}")
    for label, samples in (("build", builds), ("reset", resets)):
        cpu = statistics.median(c for c, _ in samples)
        wall = statistics.median(w for _, w in samples)
        print(f"{label:<12}{cpu * 1e3:>9.1f} ms{wall * 1e3:>9.1f} ms")
    print_footer()


if __name__ == "__main__":
    main()
