"""Record the Go structs of the built-in API at one Kubernetes version, as fakeapi's data file.

Reads the Go sources of ``k8s.io/api`` (every GA ``<group>/<version>`` package) and of
``k8s.io/apimachinery`` (``meta/v1``, ``resource``, ``intstr``, ``runtime``, ``types``) at a git tag,
and writes one JSON file holding, for every struct, its fields in declaration order (the order Go's
``encoding/json`` writes them) with their JSON name, Go type, ``omitempty``, ``inline``, protobuf
field number and the strategic merge patch tags; every named non-struct type with its underlying
type; and every kind (a struct embedding ``TypeMeta``) with its group and version.

Nothing here is compiled or imported: struct declarations and their tags are regular enough to be
read as text. Run it over local clones of kubernetes/api and kubernetes/apimachinery:

    python tools/gostructs/generate.py --api ~/src/api --apimachinery ~/src/apimachinery \\
        --tag v0.32.0 --out fakeapi/_state/typed/data/structs-1.32.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path
from typing import Any

_MACHINERY_PACKAGES = {
    "pkg/apis/meta/v1": "meta/v1",
    "pkg/api/resource": "resource",
    "pkg/util/intstr": "intstr",
    "pkg/runtime": "runtime",
    "pkg/types": "types",
}
_GA_VERSION = re.compile(r"^v\d+$")
_IMPORT = re.compile(r'^\s*(?:(\w+)\s+)?"([^"]+)"', re.M)
_TYPE_START = re.compile(r"^type (\w+) struct \{\s*$", re.M)
_NAMED = re.compile(r"^type (\w+) ([^\s{=][^\n{]*?)\s*$", re.M)
_FIELD = re.compile(r"^\s*(?:(\w+)\s+)?([\w.*\[\]]+(?:\[[\w.]+\][\w.*\[\]]+)?)\s+`([^`]*)`")
_TAG = re.compile(r'(\w+):"([^"]*)"')
_GROUP_NAME = re.compile(r'^const GroupName = "([^"]*)"', re.M)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _go_files(repo: Path, tag: str, directory: str) -> dict[str, str]:
    names = _git(repo, "ls-tree", "--name-only", f"{tag}:{directory}").split()
    return {
        name: _git(repo, "show", f"{tag}:{directory}/{name}")
        for name in names
        if name.endswith(".go")
        and not name.endswith("_test.go")
        and not name.startswith("zz_generated")
        and name not in ("generated.pb.go",)
    }


def _imports(source: str, packages: dict[str, str]) -> dict[str, str]:
    """Import name -> package id, for the packages this table records."""
    block = re.search(r"^import \((.*?)^\)", source, re.M | re.S)
    single = re.findall(r'^import (?:(\w+) )?"([^"]+)"', source, re.M)
    found = _IMPORT.findall(block.group(1)) if block else []
    names: dict[str, str] = {}
    for alias, path in [*found, *single]:
        package = packages.get(path)
        if package is not None:
            names[alias or path.rsplit("/", 1)[-1]] = package
    return names


def _qualify(go_type: str, package: str, imports: dict[str, str]) -> str:
    """A Go type with every named type as ``<package id>.<Name>``; builtins stay as they are."""

    def name(match: re.Match[str]) -> str:
        word = match.group(0)
        if "." in word:
            alias, _, rest = word.partition(".")
            return f"{imports.get(alias, alias)}.{rest}"
        if word in _BUILTINS:
            return word
        return f"{package}.{word}"

    return re.sub(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?", name, go_type)


_BUILTINS = {
    "string", "bool", "byte", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32",
    "uint64", "float32", "float64", "map", "interface",
}  # fmt: skip


def _struct_bodies(source: str) -> list[tuple[str, str]]:
    bodies = []
    for match in _TYPE_START.finditer(source):
        end = source.index("\n}\n", match.end())
        bodies.append((match.group(1), source[match.end() : end]))
    return bodies


def _fields(body: str, package: str, imports: dict[str, str]) -> list[dict[str, Any]]:
    fields = []
    for line in body.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        match = _FIELD.match(line)
        if match is None:
            continue
        go_name, go_type, tags_text = match.groups()
        tags = dict(_TAG.findall(tags_text))
        json_tag = tags.get("json", "")
        if json_tag == "-":
            continue
        json_name, *options = json_tag.split(",")
        protobuf = tags.get("protobuf", "").split(",")
        field: dict[str, Any] = {
            "go": go_name or go_type.lstrip("*").rsplit(".", 1)[-1],
            "json": json_name,
            "type": _qualify(go_type, package, imports),
        }
        if "omitempty" in options:
            field["omitempty"] = True
        if "inline" in options or (go_name is None and not json_name):
            field["inline"] = True
        if len(protobuf) > 1 and protobuf[1].isdigit():
            field["proto"] = int(protobuf[1])
            field["wire"] = protobuf[0]
        if "patchStrategy" in tags:
            field["patchStrategy"] = tags["patchStrategy"]
        if "patchMergeKey" in tags:
            field["patchMergeKey"] = tags["patchMergeKey"]
        fields.append(field)
    return fields


def _packages(api: Path, machinery: Path, tag: str) -> list[tuple[Path, str, str, str]]:
    """(repo, directory, package id, import path) of every package the table records."""
    found = [
        (machinery, directory, package, f"k8s.io/apimachinery/{directory}")
        for directory, package in _MACHINERY_PACKAGES.items()
    ]
    for group in _git(api, "ls-tree", "--name-only", "-d", tag).split():
        for version in _git(api, "ls-tree", "--name-only", "-d", f"{tag}:{group}").split():
            if _GA_VERSION.match(version):
                found.append((api, f"{group}/{version}", f"{group}/{version}", f"k8s.io/api/{group}/{version}"))
    return found


def generate(api: Path, machinery: Path, tag: str) -> dict[str, Any]:
    packages = _packages(api, machinery, tag)
    by_path = {path: package for _, _, package, path in packages}
    structs: dict[str, list[dict[str, Any]]] = {}
    named: dict[str, str] = {}
    kinds: dict[str, str] = {}
    for repo, directory, package, _ in packages:
        files = _go_files(repo, tag, directory)
        group = None
        for source in files.values():
            found = _GROUP_NAME.search(source)
            if found:
                group = found.group(1)
        for source in files.values():
            imports = _imports(source, by_path)
            for name, body in _struct_bodies(source):
                fields = _fields(body, package, imports)
                structs[f"{package}.{name}"] = fields
                if group is not None and any(f["type"] == "meta/v1.TypeMeta" for f in fields):
                    version = package.rsplit("/", 1)[-1]
                    api_version = f"{group}/{version}" if group else version
                    kinds[f"{api_version} {name}"] = f"{package}.{name}"
            for match in _NAMED.finditer(source):
                name, underlying = match.groups()
                if underlying.startswith(("struct", "interface", "func", "=")) or "(" in underlying:
                    continue
                named[f"{package}.{name}"] = _qualify(underlying.split("//")[0].strip(), package, imports)
    return {
        "source": f"k8s.io/api and k8s.io/apimachinery {tag}",
        "kinds": dict(sorted(kinds.items())),
        "named": dict(sorted(named.items())),
        "structs": dict(sorted(structs.items())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", type=Path, required=True, help="a clone of kubernetes/api")
    parser.add_argument("--apimachinery", type=Path, required=True, help="a clone of kubernetes/apimachinery")
    parser.add_argument("--tag", required=True, help="the tag of both, e.g. v0.32.0")
    parser.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    args = parser.parse_args()
    table = generate(args.api, args.apimachinery, args.tag)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(table, separators=(",", ":"), sort_keys=False) + "\n", encoding="utf-8")
    print(
        f"{args.out}: {len(table['kinds'])} kinds, {len(table['structs'])} structs, {len(table['named'])} named types"
    )


if __name__ == "__main__":
    main()
