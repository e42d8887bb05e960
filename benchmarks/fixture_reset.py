"""What the ``fakeapi`` fixture's reset costs: restoring the new cluster's snapshot, in one process.

The fixture restores the snapshot the session took of a new cluster before every test; what a new
cluster holds (docs/bootstrap.md) is in that snapshot, so its size is what the reset pays for. The
script starts a server in its own thread as the plugin does and takes that snapshot; as a floor
measured in the same run, it also snapshots a cluster of its namespaces alone (a server without
namespace controllers, never started, its two PriorityClasses and its bootstrap RBAC policy
deleted). In
``--rounds`` alternating rounds it restores each snapshot ``--warmup`` times unmeasured, then
``--restores`` times, and prints the medians of the CPU time of the process (both threads) and of
the wall time per restore, with the number of objects each snapshot holds: the ratio says what
the bootstrap objects add. Compare code by alternating fresh runs of this script on each side.
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import print_footer, print_header

from fakeapi.server import FakeAPIServer, StoreSnapshot


def _objects(snapshot: StoreSnapshot) -> int:
    return sum(len(bucket) for bucket in snapshot.objects.values())


_POLICY_KINDS = (
    ("RoleBinding", "rolebindings"),
    ("Role", "roles"),
    ("ClusterRoleBinding", "clusterrolebindings"),
    ("ClusterRole", "clusterroles"),
)


def _namespaces_only() -> StoreSnapshot:
    server = FakeAPIServer(namespace_controllers=False)
    for name in ("system-node-critical", "system-cluster-critical"):
        server.delete("scheduling.k8s.io/v1", "PriorityClass", name)
    objects = server.snapshot().objects
    for kind, plural in _POLICY_KINDS:
        for namespace, name in list(objects[("rbac.authorization.k8s.io", plural)]):
            server.delete("rbac.authorization.k8s.io/v1", kind, name, namespace)
    return server.snapshot()


def _time_restores(server: FakeAPIServer, snapshot: StoreSnapshot, warmup: int, count: int) -> tuple[float, float]:
    for _ in range(warmup):
        server.restore(snapshot)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(count):
        server.restore(snapshot)
    return (time.process_time() - cpu) / count, (time.perf_counter() - wall) / count


def _medians(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(cpu for cpu, _ in samples), statistics.median(wall for _, wall in samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="alternating rounds of each snapshot (default: 9)")
    parser.add_argument("--restores", type=int, default=1000, help="measured restores a round (default: 1000)")
    parser.add_argument("--warmup", type=int, default=100, help="unmeasured restores a round first (default: 100)")
    args = parser.parse_args()
    print_header("fixture reset: restoring the new cluster's snapshot", args)
    server = FakeAPIServer().start_in_thread()
    try:
        server.reset()
        pristine = server.snapshot()
        pristine_objects = _objects(pristine)
        floor = _namespaces_only()
        floor_objects = _objects(floor)
        rounds: dict[str, list[tuple[float, float]]] = {"floor": [], "pristine": []}
        for _ in range(args.rounds):
            rounds["floor"].append(_time_restores(server, floor, args.warmup, args.restores))
            rounds["pristine"].append(_time_restores(server, pristine, args.warmup, args.restores))
        (floor_cpu, floor_wall), (cpu, wall) = (_medians(rounds[arm]) for arm in ("floor", "pristine"))
    finally:
        server.stop_thread()
    print(f"{'snapshot':<32}{'objects':>8}{'CPU per restore':>18}{'wall per restore':>18}")
    print(f"{'namespaces only (floor)':<32}{floor_objects:>8}{floor_cpu * 1e6:>15.1f} µs{floor_wall * 1e6:>15.1f} µs")
    print(f"{'a new cluster (the fixture)':<32}{pristine_objects:>8}{cpu * 1e6:>15.1f} µs{wall * 1e6:>15.1f} µs")
    print(f"\nratio to the floor: {cpu / floor_cpu:.2f} (CPU), {wall / floor_wall:.2f} (wall)")
    print_footer()


if __name__ == "__main__":
    main()
