"""The Kubernetes releases fakeapi can be, and what each one says about itself.

A server is one release for its whole life (``--kube-version``, ``FakeAPIServer(kube_version=...)``):
the release picks the Go structs of typed decoding, struct order and protobuf
(``typed/data/structs-<version>.json``), the resources discovery serves (a kind's ``since``), the
field errors' spelling, and ``/version``. What ``/version`` states is kube-apiserver's
``version.Info`` at the release's ``.0`` tag: ``gitVersion`` ``v1.33.0``, ``major`` and ``minor``, and
as ``goVersion`` the Go language version of that tag's ``go.mod`` (docs/discovery.md). The JSON patch
engine is evanphx/json-patch v4.12 for every release here (docs/json-patch.md).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_KUBE_VERSION", "KUBE_VERSIONS", "Release", "kube_release", "parse_kube_version"]


@dataclass(frozen=True)
class Release:
    """One Kubernetes minor release as a server built from it reports it."""

    version: str
    go_version: str

    @property
    def minor(self) -> int:
        return int(self.version.split(".")[1])

    @property
    def git_version(self) -> str:
        return f"v{self.version}.0"


_RELEASES = {
    release.version: release
    for release in (Release("1.32", "go1.23.0"), Release("1.33", "go1.24.0"), Release("1.34", "go1.24.0"))
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
