"""What a built-in kind's ``Validate`` and ``ValidateUpdate`` check, as one value its descriptor holds.

Every built-in kind's validation in ``pkg/apis/<group>/validation/validation.go`` starts with the
core group's ``ValidateObjectMeta`` (its own name rule: ``NameIsDNSSubdomain`` for most kinds,
``NameIsDNS1035Label`` for Services, ``ValidateNamespaceName`` for Namespaces, a URL path segment for
RBAC kinds), which adds ``validateKubeFinalizerName`` to apimachinery's checks: a finalizer without
a ``/`` must be one of the standard ones. Then comes what the kind checks past its metadata, on
create and on update (docs/validation.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fakeapi._state.validation import field
from fakeapi._state.validation.field import FieldError
from fakeapi._state.validation.names import NameRule, name_is_dns_subdomain

__all__ = ["STANDARD_FINALIZERS", "KindRules", "validate_kube_finalizers"]

Obj = Mapping[str, Any]

STANDARD_FINALIZERS = frozenset(("kubernetes", "orphan", "foregroundDeletion"))


def _nothing(obj: Obj) -> list[FieldError]:
    return []


@dataclass(frozen=True, slots=True)
class KindRules:
    """A kind's name rule and its checks past the metadata (``create``; ``update`` sees the old object too)."""

    names: NameRule = name_is_dns_subdomain
    create: Callable[[Obj], list[FieldError]] = _nothing
    update: Callable[[Obj, Obj], list[FieldError]] | None = None

    def on_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return self.update(new, old) if self.update is not None else self.create(new)


def validate_kube_finalizers(finalizers: Any) -> list[FieldError]:
    """``validateKubeFinalizerName`` for each finalizer, at ``metadata.finalizers[i]``."""
    errors = []
    for position, finalizer in enumerate(finalizers if isinstance(finalizers, list) else []):
        if isinstance(finalizer, str) and "/" not in finalizer and finalizer not in STANDARD_FINALIZERS:
            errors.append(
                field.invalid(
                    f"metadata.finalizers[{position}]",
                    finalizer,
                    "name is neither a standard finalizer name nor is it fully qualified",
                )
            )
    return errors
