"""Image references as containerd reports them in a container status.

The kubelet reports the runtime's view of the image: containerd normalizes a short reference the
way ``github.com/distribution/reference`` ``ParseNormalizedNamed`` does (``busybox`` is
``docker.io/library/busybox:latest``, ``org/app:1`` is ``docker.io/org/app:1``) and gives as
``imageID`` the repository with the digest it resolved. There is no registry here, so the digest is
the SHA-256 of the normalized reference: stable for an image, different between images, and not
the digest a registry would serve.
"""

from __future__ import annotations

import hashlib

__all__ = ["image_id", "normalized_image"]


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
