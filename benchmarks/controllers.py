"""What the simulated controllers cost (docs/controllers.md): the fixture's reset with them, and a Job's run.

Two measurements in one process, each against a floor taken in the same run, in ``--rounds``
alternating rounds:

* reset: the fixture's restore of a new cluster, on a server without controllers (the floor) and
  on one with them (which also registers the fake node at every restore, as the fixture's snapshot,
  taken without controllers, has none);
* a Job's run: a Job of ``--pods`` completions and as much parallelism, advanced on the fake clock
  until it is Complete (every pod created, bound, started, finished and counted: about ten store
  writes and five Events per pod), per pod; the floor is two plain store writes per pod (creating
  twice that many pods).

It prints the medians (process CPU time) and the ratios to the floors.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from _common import print_footer, print_header

from fakeapi.server import FakeAPIServer, OutcomeRule, StoreSnapshot


def _cpu(action: Callable[[], None], count: int) -> float:
    start = time.process_time()
    for _ in range(count):
        action()
    return (time.process_time() - start) / count


def _job(pods: int) -> dict[str, object]:
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
    spec = {"completions": pods, "parallelism": pods, "template": template}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "bench"}, "spec": spec}


def _pod(index: int) -> dict[str, object]:
    spec = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"bench-{index}"}, "spec": spec}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (default: %(default)s)")
    parser.add_argument("--restores", type=int, default=300, help="measured restores a round (default: %(default)s)")
    parser.add_argument("--pods", type=int, default=50, help="the Job's completions (default: %(default)s)")
    parser.add_argument("--runs", type=int, default=5, help="Job runs a round (default: %(default)s)")
    args = parser.parse_args()
    print_header("Simulated controllers: fixture reset and a Job's run", args)
    plain, simulated = FakeAPIServer(), FakeAPIServer()
    # Taken before the controllers are on, as the fixture's is: every restore registers the node again.
    pristine: dict[str, StoreSnapshot] = {"plain": plain.snapshot(), "simulated": simulated.snapshot()}
    simulated.set_controllers("all", outcomes=[OutcomeRule("succeed after 5s", image="busybox")])

    def run_job() -> None:
        simulated.restore(pristine["simulated"])
        simulated.load(_job(args.pods))
        simulated.advance(10)
        conditions = simulated.get("batch/v1", "Job", "bench")["status"]["conditions"]
        assert conditions[-1]["type"] == "Complete"

    def write_pods() -> None:
        plain.restore(pristine["plain"])
        plain.load(*(_pod(index) for index in range(2 * args.pods)))

    samples: dict[str, list[float]] = {"reset floor": [], "reset": [], "job floor": [], "job": []}
    for _ in range(args.rounds):
        samples["reset floor"].append(_cpu(lambda: plain.restore(pristine["plain"]), args.restores))
        samples["reset"].append(_cpu(lambda: simulated.restore(pristine["simulated"]), args.restores))
        samples["job floor"].append(_cpu(write_pods, args.runs) / args.pods)
        samples["job"].append(_cpu(run_job, args.runs) / args.pods)
    medians = {name: statistics.median(values) for name, values in samples.items()}
    print(f"{'measure':<48}{'CPU':>14}")
    print(f"{'reset, no controllers (floor)':<48}{medians['reset floor'] * 1e6:>11.1f} µs")
    print(f"{'reset, controllers on':<48}{medians['reset'] * 1e6:>11.1f} µs")
    print(f"{'per pod: two plain writes (floor)':<48}{medians['job floor'] * 1e6:>11.1f} µs")
    print(f"{'per pod: a Job run to Complete':<48}{medians['job'] * 1e6:>11.1f} µs")
    print(f"\nratio to the floor: reset {medians['reset'] / medians['reset floor']:.2f}, "
          f"Job run per pod {medians['job'] / medians['job floor']:.2f}")  # fmt: skip
    print_footer()


if __name__ == "__main__":
    main()
