"""Image references as the kubelet parses them and containerd reports them in a container status.

Parsing: before it pulls, the kubelet's image manager applies the default tag
(``applyDefaultImageTag`` in ``pkg/kubelet/images/image_manager.go``), which parses the reference
with ``parsers.ParseImageName`` (``pkg/util/parsers/parsers.go``) and so with
``github.com/distribution/reference`` ``ParseNormalizedNamed`` (``normalize.go``, ``reference.go``,
``regexp.go``). A reference that does not parse never reaches the runtime: the container waits in
``InvalidImageName`` with the message ``Failed to apply default image tag "<image>": couldn't parse
image name "<image>": <reason>``. The grammar below is that package's regular expressions.

Reporting: containerd normalizes a short reference the same way (``busybox`` is
``docker.io/library/busybox:latest``, ``org/app:1`` is ``docker.io/org/app:1``) and gives as
``imageID`` the repository with the digest it resolved. There is no registry here, so the digest is
the SHA-256 of the normalized reference: stable for an image, different between images, and not
the digest a registry would serve.

Pulling: every image is taken to be there, but for a registry that cannot exist
(:func:`unreachable_registry`, docs/cluster-defaults.md): a host in the reserved top-level
domains ``.invalid`` and ``.example`` (RFC 2606), which no resolver answers, or port 1 of the
loopback address, where nothing listens. Its pull fails as containerd's does
(:func:`pull_error`): its resolver's HEAD of the manifest fails to connect.
"""

from __future__ import annotations

import hashlib
import re

from fakeapi._patching.gostrconv import quote

__all__ = [
    "image_id",
    "invalid_image_message",
    "never_pull_message",
    "normalized_image",
    "pull_error",
    "unreachable_registry",
]

_ALPHANUMERIC = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_NAME = _DOMAIN_COMPONENT + r"(?:\." + _DOMAIN_COMPONENT + r")*"
_HOST = r"(?:" + _DOMAIN_NAME + r"|\[(?:[a-fA-F0-9:]+)\])"
_DOMAIN_AND_PORT = _HOST + r"(?::[0-9]+)?"
_TAG = r"[0-9A-Za-z_][0-9A-Za-z_.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}"
_PATH_COMPONENT = _ALPHANUMERIC + r"(?:" + _SEPARATOR + _ALPHANUMERIC + r")*"
_REMOTE_NAME = _PATH_COMPONENT + r"(?:/" + _PATH_COMPONENT + r")*"
_NAME = r"(?:" + _DOMAIN_AND_PORT + r"/)?" + _REMOTE_NAME
_REFERENCE = re.compile(r"\A(" + _NAME + r")(?::(" + _TAG + r"))?(?:@(" + _DIGEST + r"))?\Z")
_ANCHORED_NAME = re.compile(r"\A(?:(" + _DOMAIN_AND_PORT + r")/)?(" + _REMOTE_NAME + r")\Z")
_IDENTIFIER = re.compile(r"\A[a-f0-9]{64}\Z")
_NAME_MAX = 255
_RESERVED_TOP_LEVEL_DOMAINS = ("invalid", "example")
_LOOPBACK_ADDRESSES = {"localhost": "127.0.0.1", "127.0.0.1": "127.0.0.1", "[::1]": "[::1]"}
_UNUSED_PORT = "1"
# What a resolver that does not know a name says on a kind node, whose resolv.conf names the
# gateway of kind's docker network (172.18.0.1 when it is the first network docker made).
_NODE_RESOLVER = "172.18.0.1:53"
# The digest algorithms the kubelet links in (crypto/sha256 and crypto/sha512), by hex length.
_DIGEST_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}


def _split_docker_domain(name: str) -> tuple[str, str]:
    """``splitDockerDomain``: the domain, or ``docker.io`` (and ``library/`` for one-element names)."""
    maybe_domain, slash, maybe_remote = name.partition("/")
    if not slash:
        return "docker.io", "library/" + name
    if maybe_domain == "localhost" or any(c in maybe_domain for c in ".:") or maybe_domain.lower() != maybe_domain:
        domain, remote = maybe_domain, maybe_remote
    elif maybe_domain == "index.docker.io":
        domain, remote = "docker.io", maybe_remote
    else:
        domain, remote = "docker.io", name
    if domain == "index.docker.io":
        domain = "docker.io"
    if domain == "docker.io" and "/" not in remote:
        remote = "library/" + remote
    return domain, remote


def _parse_problem(image: str) -> str | None:
    """Why ``ParseNormalizedNamed`` refuses ``image`` (its error text), or None when it parses."""
    if _IDENTIFIER.match(image):
        return f"invalid repository name ({image}), cannot specify 64-byte hexadecimal strings"
    domain, remainder = _split_docker_domain(image)
    remote = remainder.split(":", 1)[0]
    if remote.lower() != remote:
        return f"invalid reference format: repository name ({remote}) must be lowercase"
    candidate = f"{domain}/{remainder}"
    match = _REFERENCE.match(candidate)
    if match is None:
        lowered = candidate.lower()
        if lowered != candidate and _REFERENCE.match(lowered):
            return "repository name must be lowercase"
        return "invalid reference format"
    name = _ANCHORED_NAME.match(match.group(1))
    path = name.group(2) if name else match.group(1)
    if len(path) > _NAME_MAX:
        return f"repository name must not be more than {_NAME_MAX} characters"
    digest = match.group(3)
    if digest:
        algorithm, _, encoded = digest.partition(":")
        if algorithm not in _DIGEST_LENGTHS:
            return "unsupported digest algorithm"
        if len(encoded) != _DIGEST_LENGTHS[algorithm] or not re.fullmatch(r"[a-f0-9]+", encoded):
            wrong_length = len(encoded) != _DIGEST_LENGTHS[algorithm]
            return "invalid checksum digest length" if wrong_length else "invalid checksum digest format"
    return None


def invalid_image_message(image: str) -> str | None:
    """The kubelet's ``InvalidImageName`` message for an image it cannot parse, None for one it can."""
    problem = _parse_problem(image)
    if problem is None:
        return None
    return f"Failed to apply default image tag {quote(image)}: couldn't parse image name {quote(image)}: {problem}"


def normalized_image(image: str) -> str:
    name, digest = image.split("@", 1) if "@" in image else (image, "")
    first, _, rest = name.partition("/")
    if not rest or ("." not in first and ":" not in first and first != "localhost"):
        name = f"docker.io/{name if rest else 'library/' + name}"
    last = name.rsplit("/", 1)[-1]
    if digest:
        return f"{name}@{digest}"
    return name if ":" in last else f"{name}:latest"


def image_id(image: str) -> str:
    reference = normalized_image(image)
    if "@" in reference:
        return reference
    repository = reference.rsplit(":", 1)[0]
    return f"{repository}@sha256:{hashlib.sha256(reference.encode()).hexdigest()}"


def _registry(image: str) -> tuple[str, str]:
    """The registry host of ``image`` and its port (``""`` when none is written)."""
    name = image.split("@", 1)[0]
    domain, _ = _split_docker_domain(name)
    if domain.startswith("["):
        host, _, port = domain[1:].partition("]")
        return f"[{host}]", port.removeprefix(":")
    host, _, port = domain.partition(":")
    return host, port


def unreachable_registry(image: str) -> bool:
    """Whether ``image`` names a registry that cannot exist: a reserved top-level domain no resolver
    answers for, or the loopback address's port 1."""
    if invalid_image_message(image) is not None:
        return False
    host, port = _registry(image)
    if host.rsplit(".", 1)[-1].lower() in _RESERVED_TOP_LEVEL_DOMAINS:
        return True
    return host.lower() in _LOOPBACK_ADDRESSES and port == _UNUSED_PORT


def pull_error(image: str) -> str:
    """containerd's error for a pull that fails (through CRI, the text the kubelet shows): a HEAD of
    the manifest that cannot connect for an unreachable registry (plain HTTP for a loopback host,
    as the CRI plugin's ``defaultScheme`` picks), ``not found`` for any other image."""
    reference = normalized_image(image)
    prefix = f"failed to pull and unpack image {quote(reference)}: failed to resolve reference {quote(reference)}: "
    if not unreachable_registry(image):
        return f"rpc error: code = NotFound desc = {prefix}{reference}: not found"
    host, port = _registry(image)
    domain, _, rest = reference.partition("/")
    repository, separator, target = rest.partition("@")
    if not separator:
        repository, _, target = rest.rpartition(":")
    loopback = _LOOPBACK_ADDRESSES.get(host.lower())
    scheme = "http" if loopback else "https"
    url = f"{scheme}://{domain}/v2/{repository}/manifests/{target}"
    if loopback:
        cause = f"dial tcp {loopback}:{port}: connect: connection refused"
    else:
        cause = f"dial tcp: lookup {host} on {_NODE_RESOLVER}: no such host"
    return f"rpc error: code = Unknown desc = {prefix}failed to do request: Head {quote(url)}: {cause}"


def never_pull_message(image: str) -> str:
    """The kubelet's message for an image that is not on the node under ``imagePullPolicy: Never``
    (``EnsureImageExists``): it never pulls, so an image it cannot pull is simply absent."""
    return f"Container image {quote(image)} is not present with pull policy of Never"
