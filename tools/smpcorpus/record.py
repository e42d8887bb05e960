"""Record the strategic merge patch corpus with kubectl as the oracle (tests/conformance/smp/README.md).

``kubectl patch --local -f OBJ --type=strategic -p PATCH -o json`` runs the apiserver's own
``strategicpatch.StrategicMergePatch`` with the kind's Go struct as schema; its output, fed to a
kubectl command that decodes the object into its Go type and encodes it again without defaulting
(``set env`` for kinds with a pod template, ``set selector`` for Services), gives the typed round
trip, and ``unable to decode`` marks a result the apiserver answers with 422. Usage:

    python3 tools/smpcorpus/record.py [--seed N] [--random N] [--kubectl PATH] [--jobs N]

rewrites ``tests/conformance/smp/``. The same seed and kubectl give the same files, except that a
case whose outcome depends on Go's map order may list fewer outcomes when the reruns miss one.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from objects import KINDS, POD_KINDS, base_object
from patches import random_patches, templates

OUT = Path(__file__).resolve().parents[2] / "tests" / "conformance" / "smp"
PROBE = "FAKEAPI_PROBE"
SELECTOR_PROBE = "fakeapi-probe"
REPEATS = 8


def _run(kubectl: str, args: list[str], stdin: bytes | None = None) -> tuple[int, str, str]:
    done = subprocess.run([kubectl, *args], input=stdin, capture_output=True, timeout=60, check=False)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def _error_text(stderr: str) -> str:
    """What kubectl printed of the error: ``error: <err>``, then a newline unless the error's own text
    ends in one (kubectl's ``cmdutil.fatal``), so the text is kept with the newline and the replay
    compares the engine's error printed by the same rule."""
    return stderr.removeprefix("error: ")


def _without_probe(kind: str, obj: dict[str, Any], patched: dict[str, Any]) -> dict[str, Any]:
    """The typed command's output without what the command itself added."""
    if kind == "Service":
        spec = obj.get("spec") or {}
        selector = (patched.get("spec") or {}).get("selector") if isinstance(patched.get("spec"), dict) else None
        restored = {key: value or "" for key, value in selector.items()} if isinstance(selector, dict) else {}
        if restored:
            spec["selector"] = dict(sorted(restored.items()))
        else:
            spec.pop("selector", None)
        return obj
    node: Any = obj
    for key in POD_KINDS[kind][1]:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict):
        for field in ("containers", "initContainers"):
            for container in node.get(field) or []:
                env = [entry for entry in container.get("env") or [] if entry.get("name") != PROBE]
                if env:
                    container["env"] = env
                else:
                    container.pop("env", None)
    return obj


def typed_round_trip(kubectl: str, kind: str, patched: dict[str, Any]) -> dict[str, Any]:
    """What kubectl's typed decode says of a patched object: ``typed``, ``undecodable`` or ``typed_unavailable``."""
    text = json.dumps(patched).encode()
    if kind in POD_KINDS:
        args = ["set", "env", "--local", "-f", "-", f"{PROBE}=1", "-o", "json"]
    else:
        args = ["set", "selector", "--local", "-f", "-", f"{SELECTOR_PROBE}=1", "-o", "json"]
    code, out, err = _run(kubectl, args, text)
    if code == 0 and kind in (*POD_KINDS, "Service"):
        return {"typed": _without_probe(kind, json.loads(out), patched)}
    message = _error_text(err)
    if "unable to decode" in message:
        return {"undecodable": message}
    return {"typed_unavailable": message}


def _patch(kubectl: str, originals: dict[str, Path], case: dict[str, Any]) -> tuple[int, str, str]:
    return _run(
        kubectl,
        ["patch", "--local", "-f", str(originals[case["kind"]]), "--type=strategic", "-p", case["patch"], "-o", "json"],
    )


def _panicked(stderr: str) -> bool:
    return "panic:" in stderr or "goroutine " in stderr


def _order_sensitive(patch: Any) -> bool:
    """A map of the patch holding a list and its ``$deleteFromPrimitiveList`` directive: Go's
    ``mergeMap`` visits them in map order, so adding and deleting the same item ends either way."""
    if isinstance(patch, dict):
        prefix = "$deleteFromPrimitiveList/"
        if any(key.startswith(prefix) and key.removeprefix(prefix) in patch for key in patch):
            return True
        return any(_order_sensitive(value) for value in patch.values())
    if isinstance(patch, list):
        return any(_order_sensitive(item) for item in patch)
    return False


def record_case(kubectl: str, originals: dict[str, Path], case: dict[str, Any]) -> dict[str, Any]:
    """One case. Go visits a patch's keys in random order, so a combination that fails (two failing
    fragments can fail either way) or is order-sensitive is run again: when more than one outcome
    is seen, every error text and every merged variant (with its typed round trip) is kept."""
    outcomes = [_patch(kubectl, originals, case)]
    if outcomes[0][0] != 0 and _panicked(outcomes[0][2]):
        return {**case, "panic": True}
    failed_combination = outcomes[0][0] != 0 and case["id"].startswith("smp-random-")
    if failed_combination or _order_sensitive(json.loads(case["patch"])):
        outcomes += [_patch(kubectl, originals, case) for _ in range(REPEATS)]
    errors = sorted({_error_text(err) for code, _, err in outcomes if code != 0 and not _panicked(err)})
    panics = any(code != 0 and _panicked(err) for code, _, err in outcomes)
    merged: dict[str, Any] = {}
    for code, out, _ in outcomes:
        if code == 0:
            variant = json.loads(out)
            merged.setdefault(json.dumps(variant, sort_keys=True), variant)
    if len(errors) + len(merged) + panics == 1:
        if errors:
            return {**case, "error": errors[0]}
        patched = next(iter(merged.values()))
        return {**case, "patched": patched, **typed_round_trip(kubectl, case["kind"], patched)}
    variants = [{"patched": variant, **typed_round_trip(kubectl, case["kind"], variant)} for variant in merged.values()]
    return {
        **case,
        "nondeterministic": True,
        "errors": errors,
        "variants": variants,
        **({"panics_too": True} if panics else {}),
    }


def _originals(kubectl: str, folder: Path) -> tuple[dict[str, Any], dict[str, Path]]:
    objects: dict[str, Any] = {}
    paths: dict[str, Path] = {}
    for kind in KINDS:
        obj = base_object(kind)
        if kind in POD_KINDS or kind == "Service":
            outcome = typed_round_trip(kubectl, kind, obj)
            if "typed" not in outcome:
                raise SystemExit(f"the {kind} original does not round-trip: {outcome}")
            obj = outcome["typed"]
        objects[kind] = obj
        paths[kind] = folder / f"{kind}.json"
        paths[kind].write_text(json.dumps(obj))
    return objects, paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=17, help="seed of the random combinations (default 17)")
    parser.add_argument("--random", type=int, default=2600, help="how many random combinations (default 2600)")
    parser.add_argument("--kubectl", default="/usr/bin/kubectl", help="the kubectl to record with")
    parser.add_argument("--jobs", type=int, default=4, help="kubectl processes at a time (default 4)")
    options = parser.parse_args()
    version = json.loads(_run(options.kubectl, ["version", "--client", "-o", "json"])[1])["clientVersion"]["gitVersion"]
    cases: list[dict[str, Any]] = []
    for family, source in (
        ("template", templates(options.seed)),
        ("random", random_patches(options.seed, options.random)),
    ):
        for kind, fragments, patch in source:
            cases.append(
                {
                    "id": f"smp-{family}-{len(cases):05d}",
                    "kind": kind,
                    "fragments": fragments,
                    "patch": json.dumps(patch),
                }
            )
    with tempfile.TemporaryDirectory() as folder:
        objects, paths = _originals(options.kubectl, Path(folder))
        with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
            records = list(pool.map(lambda case: record_case(options.kubectl, paths, case), cases))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "objects.json").write_text(json.dumps({"kubectl": version, "objects": objects}, indent=1) + "\n")
    for kind in KINDS:
        with (OUT / f"{kind.lower()}.jsonl").open("w") as out:
            for record in records:
                if record["kind"] == kind:
                    out.write(json.dumps(record, sort_keys=False) + "\n")
    print(f"{len(records)} cases recorded with kubectl {version} in {OUT}")


if __name__ == "__main__":
    main()
