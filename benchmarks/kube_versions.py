"""What a Kubernetes release's data costs a server: loading its Go structs and building its protobuf messages.

A server reads ``structs-<release>.json`` on the first request that needs a built-in kind's struct
(typed decoding, struct order, strategic merge patch metadata) and builds the protobuf messages on
the first protobuf body; importing fakeapi pays neither, and a second server of the same release in
the process pays nothing again. Each figure here is measured in a fresh interpreter, once per
release and round, rounds alternating between releases so that load changes hit every release
alike, and printed as the median over ``--rounds`` with its ratio to 1.32's (the floor, measured in
the same run): what ``--kube-version`` adds over the default.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from _common import print_footer, print_header

_RELEASES = ("1.32", "1.33", "1.34")
_PROBE = """
import json, sys, time
from fakeapi._state.typed import go_structs
from fakeapi._http.protobuf.schema import protobuf_schema
version = sys.argv[1]
started = time.perf_counter()
structs = go_structs(version)
loaded = time.perf_counter()
schema = protobuf_schema(version)
built = time.perf_counter()
print(json.dumps({"structs": loaded - started, "protobuf": built - loaded, "count": len(structs.structs),
                  "messages": len(schema.messages)}))
"""


def _probe(version: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", _PROBE, version], capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds over the releases (default: 7)")
    args = parser.parse_args()
    print_header("a Kubernetes release's data: Go structs and protobuf messages, first use", args)
    samples: dict[str, list[dict[str, float]]] = {version: [] for version in _RELEASES}
    for _ in range(args.rounds):
        for version in _RELEASES:
            samples[version].append(_probe(version))
    medians = {
        version: {key: statistics.median(sample[key] for sample in runs) for key in runs[0]}
        for version, runs in samples.items()
    }
    floor = medians["1.32"]
    print(
        f"{'release':<10}{'structs':>9}{'messages':>10}{'load structs':>15}{'ratio':>7}{'build protobuf':>17}{'ratio':>7}"
    )
    for version, figures in medians.items():
        print(
            f"{version:<10}{figures['count']:>9.0f}{figures['messages']:>10.0f}"
            f"{figures['structs'] * 1e3:>12.1f} ms{figures['structs'] / floor['structs']:>7.2f}"
            f"{figures['protobuf'] * 1e3:>14.1f} ms{figures['protobuf'] / floor['protobuf']:>7.2f}"
        )
    print_footer()


if __name__ == "__main__":
    main()
