"""The Kubernetes releases fakeapi can be, and what each one says about itself.

A server is one release for its whole life (``--kube-version``, ``FakeAPIServer(kube_version=...)``):
the release picks the Go structs of typed decoding, struct order and protobuf
(``typed/data/structs-<version>.json``), the resources discovery serves (a kind's ``since``), the
field errors' spelling, and ``/version``. What ``/version`` states is what the release's published
kube-apiserver binary states: its ``.0`` tag, commit, build date and the Go toolchain it was built
with, and from 1.33 on the emulation and compatibility versions (docs/discovery.md). The JSON patch
engine is evanphx/json-patch v4.12 for every release here (docs/json-patch.md).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_KUBE_VERSION", "KUBE_VERSIONS", "Release", "kube_release", "parse_kube_version"]


@dataclass(frozen=True)
class Release:
    """One Kubernetes minor release as a server built from it reports it."""

    version: str
    git_commit: str
    build_date: str
    go_version: str

    @property
    def minor(self) -> int:
        return int(self.version.split(".")[1])

    @property
    def git_version(self) -> str:
        return f"v{self.version}.0"


_RELEASES = {
    release.version: release
    for release in (
        Release("1.32", "70d3cc986aa8221cd1dfb1121852688902d3bf53", "2024-12-11T17:59:15Z", "go1.23.3"),
        Release("1.33", "60a317eadfcb839692a68eab88b2096f4d708f4f", "2025-04-23T13:00:14Z", "go1.24.2"),
        Release("1.34", "f28b4c9efbca5c5c0af716d9f2d5702667ee8a45", "2025-08-27T10:09:04Z", "go1.24.6"),
    )
}
KUBE_VERSIONS: tuple[str, ...] = tuple(_RELEASES)
DEFAULT_KUBE_VERSION = "1.32"


def parse_kube_version(text: str) -> str:
    """``1.33`` (also spelled ``v1.33``) as the release it names; ``ValueError`` for one fakeapi is not."""
    version = text.strip().removeprefix("v")
    if version not in _RELEASES:
        raise ValueError(f"unknown Kubernetes version {text!r}: fakeapi serves {', '.join(KUBE_VERSIONS)}")
    return version


def kube_release(version: str) -> Release:
    """The release of a version :func:`parse_kube_version` accepted."""
    return _RELEASES[version]
