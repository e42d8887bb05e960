"""Record the openapi-gen markers of the built-in API at one Kubernetes version, as fakeapi's data file.

openapi-gen (kube-openapi ``pkg/generators``) reads two comment markers of ``k8s.io/api`` into the
published schemas, and the schemas fakeapi reads (kubernetes-validate) have dropped both:

- ``+enum`` on a named string type (``enum.go``): a field of that type gets ``enum`` (its
  constants' values) and "Possible enum values" lines after its description, a list or map of it
  gets ``enum`` on its items. Recorded: every ``+enum`` type of a GA ``<group>/<version>`` package
  and every constant of it with its doc comment, which openapi-gen joins with spaces.
- ``+default=<value>`` on a struct field (``openapi.go``, ``generateDefault``): the field's
  ``default``; ``ref(Name)`` names a constant.

Run it over a local clone of kubernetes/api:

    python tools/gostructs/markers.py --api ~/src/api --tag v0.32.0 \\
        --out fakeapi/_state/typed/data/markers-1.32.json

The file maps ``<group>/<version>.<Type>`` to its enum's ``[value, comment]`` pairs, sorted by
value (``enums``), and ``<group>/<version>.<Struct>`` to its fields' defaults by JSON name
(``defaults``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

_GA_PACKAGE = re.compile(r"^[a-z0-9]+/v\d+$")
_ENUM_TYPE = re.compile(r"((?:^//[^\n]*\n)+)type (\w+) string\s*$", re.M)
_CONST = re.compile(r'^\s*(\w+)\s+(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"', re.M)
# ``Name = Type("value")`` and ``Name = Type(pkg.Other)``: the conversions openapi-gen evaluates.
_CONVERTED = re.compile(r'^\s*(\w+)\s*=\s*(\w+)\((?:"((?:[^"\\]|\\.)*)"|(\w+)\.(\w+))\)\s*$')
_IMPORT = re.compile(r'^\s*(\w+)?\s*"k8s.io/api/([a-z0-9]+/v\d+)"', re.M)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _comment_lines(block: list[str]) -> list[str]:
    """go/ast ``CommentGroup.Text``: markers and the first space gone, blank edge lines dropped."""
    lines = [line.strip()[2:].removeprefix(" ") for line in block]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _constants(source: str, values: dict[tuple[str, str], str]) -> list[tuple[str, str, str, str]]:
    """(name, type, value, comment) of every typed string constant, with its doc comment.

    ``values`` holds the constants already read, by (package, name), for ``Type(pkg.Other)``.
    """
    imports = {alias or path.rsplit("/", 1)[0]: path for alias, path in _IMPORT.findall(source)}
    found = []
    lines = source.splitlines()
    for index, line in enumerate(lines):
        if not line.startswith("\t"):
            continue
        match = _CONST.match(line)
        if match is not None:
            name, type_name, literal = match.groups()
            value: str | None = json.loads(f'"{literal}"')
        else:
            converted = _CONVERTED.match(line)
            if converted is None:
                continue
            name, type_name, literal, alias, other = converted.groups()
            value = json.loads(f'"{literal}"') if literal is not None else values.get((imports.get(alias, ""), other))
            if value is None:
                continue
        block: list[str] = []
        above = index - 1
        while above >= 0 and lines[above].strip().startswith("//"):
            block.insert(0, lines[above])
            above -= 1
        found.append((name, type_name, value, " ".join(_comment_lines(block))))
    return found


def _single_constants(source: str) -> str:
    # ``const X T = "v"`` on one line is a spec of its own: read it as if it sat in a block.
    return re.sub(r"^const (\w+ \w+ = )", r"\t\1", source, flags=re.M)


_DEFAULT = re.compile(r"^\s*// \+default=(.*)$")
_STRUCT = re.compile(r"^type (\w+) struct \{")
_JSON_NAME = re.compile(r'json:"([^",]*)')


def _defaults(package: str, source: str, known: dict[tuple[str, str], str], out: dict[str, dict[str, object]]) -> None:
    lines = source.splitlines()
    struct = ""
    for index, line in enumerate(lines):
        opened = _STRUCT.match(line)
        if opened is not None:
            struct = opened.group(1)
        marker = _DEFAULT.match(line)
        if marker is None:
            continue
        raw = marker.group(1).strip()
        value: object = known[(package, raw[4:-1])] if raw.startswith("ref(") else json.loads(raw)
        field = next(text for text in lines[index + 1 :] if not text.strip().startswith("//"))
        name = _JSON_NAME.search(field)
        if name is not None and struct:
            out.setdefault(f"{package}.{struct}", {})[name.group(1)] = value


def record(repo: Path, tag: str) -> dict[str, object]:
    files = [path for path in _git(repo, "ls-tree", "-r", "--name-only", tag).split() if path.endswith(".go")]
    enums: dict[str, dict[str, str]] = {}
    sources: dict[str, list[str]] = {}
    for path in files:
        package = path.rsplit("/", 1)[0]
        if not _GA_PACKAGE.match(package) or path.endswith("_test.go") or "/zz_generated" in path:
            continue
        if path.endswith("generated.pb.go"):
            continue
        source = _git(repo, "show", f"{tag}:{path}")
        sources.setdefault(package, []).append(source)
        for comments, name in _ENUM_TYPE.findall(source):
            if any(line.strip() == "// +enum" for line in comments.splitlines()):
                enums[f"{package}.{name}"] = {}
    known: dict[tuple[str, str], str] = {}
    for package, package_sources in sources.items():
        for source in package_sources:
            for name, _, value, _ in _constants(_single_constants(source), {}):
                known[(package, name)] = value
    for package, package_sources in sources.items():
        for source in package_sources:
            for name, type_name, value, comment in _constants(_single_constants(source), known):
                values = enums.get(f"{package}.{type_name}")
                if values is None:
                    continue
                # As openapi-gen's addIfNotPresent: of two constants with one value, the longer comment wins.
                kept = values.get(value)
                description = re.sub(r"\s+", " ", comment.strip().removeprefix(name).strip())
                if (
                    kept is None
                    or len(kept) < len(description)
                    or (len(kept) == len(description) and kept > description)
                ):
                    values[value] = description
    defaults: dict[str, dict[str, object]] = {}
    for package, package_sources in sources.items():
        for source in package_sources:
            _defaults(package, source, known, defaults)
    return {
        "defaults": dict(sorted(defaults.items())),
        "enums": {name: sorted(values.items()) for name, values in sorted(enums.items())},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", type=Path, required=True, help="a clone of kubernetes/api")
    parser.add_argument("--tag", required=True, help="the k8s.io/api tag, e.g. v0.32.0")
    parser.add_argument("--out", type=Path, required=True)
    options = parser.parse_args()
    data = {"source": f"k8s.io/api {options.tag}", **record(options.api, options.tag)}
    options.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
