"""What admission is told about one write: ``admission.Attributes`` (k8s.io/apiserver ``pkg/admission/attributes.go``).

The handlers build one per write the way ``pkg/endpoints/handlers`` does (``create.go``, ``update.go``,
``patch.go``, ``delete.go``): a create is CREATE with CreateOptions and no old object, an update or
patch of an existing object is UPDATE with UpdateOptions (a patch's options are turned into
UpdateOptions, ``patchToUpdateOptions``), an apply or update that creates is CREATE with
CreateOptions, and a delete is DELETE with DeleteOptions; mutating admission of a delete sees no
object at all, validating admission sees the stored one as the old object.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from fakeapi._state.resources import ResourceType

__all__ = ["CREATE", "DELETE", "UPDATE", "Attributes", "RequestUser", "operation_options"]

CREATE = "CREATE"
UPDATE = "UPDATE"
DELETE = "DELETE"


@dataclass(frozen=True)
class RequestUser:
    """``user.Info`` of the requester, as the AdmissionReview's ``userInfo`` carries it."""

    username: str = ""
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Attributes:
    """One write as the admission plugins see it; ``object`` is replaced as mutation goes on."""

    operation: str
    rtype: ResourceType
    subresource: str
    namespace: str
    name: str
    object: dict[str, Any] | None
    old_object: dict[str, Any] | None
    dry_run: bool
    options: dict[str, Any] | None
    user: RequestUser
    # The kind the request addresses when it is not the resource's own (a ``/scale`` write is a Scale).
    kind: tuple[str, str, str] | None = None

    @property
    def group_version_kind(self) -> tuple[str, str, str]:
        if self.kind is not None:
            return self.kind
        return (self.rtype.group, self.rtype.version, self.rtype.kind)

    @property
    def group_version_resource(self) -> tuple[str, str, str]:
        return (self.rtype.group, self.rtype.version, self.rtype.plural)

    def with_object(self, obj: dict[str, Any] | None) -> Attributes:
        return replace(self, object=obj)


def operation_options(
    kind: str, *, dry_run: bool, field_manager: str | None = None, field_validation: str = ""
) -> dict[str, Any]:
    """Create/UpdateOptions as the handler leaves them (``meta.k8s.io/v1``, the struct's field order)."""
    options: dict[str, Any] = {"kind": kind, "apiVersion": "meta.k8s.io/v1"}
    if dry_run:
        options["dryRun"] = ["All"]
    if field_manager:
        options["fieldManager"] = field_manager
    if field_validation:
        options["fieldValidation"] = field_validation
    return options
