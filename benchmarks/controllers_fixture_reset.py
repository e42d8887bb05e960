"""What the ``fakeapi`` fixture's reset costs a test with simulated controllers, in one process.

The fixture takes a pristine snapshot of a new cluster once; before every test marked
``controllers="all"`` it switches the server to those controllers (only when it does not run them
already, where the server can tell) and restores the snapshot, which the controllers then settle at
the start of their fake clock (docs/control-plane-pods.md). The script does the same calls on a
server on its own thread: the CPU time of the process (both threads) for the first such test,
which boots the control plane's pods, and the median and minimum over ``--tests`` further ones.
Compare code by alternating fresh runs of this script on each side.
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import print_footer, print_header

from fakeapi.server import FakeAPIServer, StoreSnapshot

START = 1_700_000_000.0


def switch_and_restore(server: FakeAPIServer, pristine: StoreSnapshot) -> float:
    """CPU seconds of one fixture reset with ``controllers="all"``."""
    started = time.process_time()
    runs = getattr(server, "runs_controllers", None)
    if runs is None or not runs("all"):
        server.set_controllers("all")
    server.restore(pristine)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=200, help="further tests timed (default: %(default)s)")
    args = parser.parse_args()
    print_header("the fixture's reset with controllers=all: the first test and each further one", args)
    server = FakeAPIServer(clock=lambda: START).start_in_thread()
    try:
        server.reset()
        pristine = server.snapshot()
        first = switch_and_restore(server, pristine)
        further = [switch_and_restore(server, pristine) for _ in range(args.tests)]
    finally:
        server.stop_thread()
    print(f"first test:   {first * 1e3:.2f} ms CPU")
    print(f"further test: median {statistics.median(further) * 1e3:.2f} ms CPU, min {min(further) * 1e3:.2f} ms\n")
    print_footer()


if __name__ == "__main__":
    main()
