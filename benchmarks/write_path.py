"""CPU time of the custom-resource write path in one process, without HTTP: the figure to compare code by.

One ServerState, the benchmark CRD and one ~4 KB custom resource; then ``--writes`` JSON patches
(test of the uid, replace of ``/spec/counter`` with a new value, so every write is effective), each
built and applied as the PATCH handler does it (``compute_patch`` inside ``Store.update``), after
``--warmup`` unmeasured ones. Prints the process CPU time per write in microseconds. To compare two
versions of the code, run it alternately with each version's Python (fresh processes, several
pairs) and read the paired differences: one run of either says little on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import time

from _common import GROUP, NAMESPACE, PLURAL, VERSION, crd_manifest, custom_resource
from multidict import MultiDict

from fakeapi._http.answers import served
from fakeapi._http.context import ServerState
from fakeapi._http.options import parse_write_options
from fakeapi._http.patching import PatchContext, compute_patch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=4000, help="measured writes (default: %(default)s)")
    parser.add_argument("--warmup", type=int, default=500, help="unmeasured writes first (default: %(default)s)")
    args = parser.parse_args()
    store = ServerState().store
    registry = store.registry
    crds = registry.resolve("apiextensions.k8s.io", "v1", "customresourcedefinitions")
    namespaces = registry.resolve("", "v1", "namespaces")
    assert crds is not None and namespaces is not None
    store.create(crds, "", crd_manifest(), manager="bench")
    if store.find(namespaces, "", NAMESPACE) is None:
        store.create(namespaces, "", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    rtype = registry.resolve(GROUP, VERSION, PLURAL)
    assert rtype is not None
    created = store.create(rtype, NAMESPACE, custom_resource(0, stored=False), manager="bench").object
    uid, name = created["metadata"]["uid"], created["metadata"]["name"]
    options = parse_write_options("PatchOptions", MultiDict(), "")

    def write(counter: int) -> None:
        patch = [
            {"op": "test", "path": "/metadata/uid", "value": uid},
            {"op": "replace", "path": "/spec/counter", "value": counter},
        ]
        context = PatchContext(store.registry.structs, lambda document: store.encoding_of(rtype, document))
        compute_new = compute_patch(rtype, "application/json-patch+json", json.dumps(patch).encode(), options, context)
        store.update(rtype, NAMESPACE, name, lambda current: compute_new(served(rtype, current)), manager="bench")

    for counter in range(args.warmup):
        write(counter)
    started = time.process_time()
    for counter in range(args.warmup, args.warmup + args.writes):
        write(counter)
    print(f"{(time.process_time() - started) / args.writes * 1e6:.1f} µs of CPU per write")


if __name__ == "__main__":
    main()
