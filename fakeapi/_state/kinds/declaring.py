"""How a group module declares a built-in kind: one call that states everything about it."""

from __future__ import annotations

from fakeapi._state.resources import ALL_VERBS, Defaulter, ResourceType, Subresource
from fakeapi._state.strategy import Strategy
from fakeapi._state.tables.columns import Printer

__all__ = ["DEFAULT_STRATEGY", "body_type", "builtin"]

DEFAULT_STRATEGY = Strategy()


def builtin(
    group: str,
    version: str,
    plural: str,
    kind: str,
    namespaced: bool = True,
    *,
    verbs: tuple[str, ...] = ALL_VERBS,
    short_names: tuple[str, ...] = (),
    categories: tuple[str, ...] = (),
    subresources: tuple[Subresource, ...] = (),
    strategy: Strategy = DEFAULT_STRATEGY,
    defaulter: Defaulter | None = None,
    printer: Printer | None = None,
    stored_as: tuple[str, str, str] | None = None,
    struct_order: bool = True,
    since: str = "",
    deprecated_in: str = "",
    replacement: str = "",
    conversion: object = None,
) -> ResourceType:
    return ResourceType(
        group=group,
        version=version,
        plural=plural,
        singular=kind.lower(),
        kind=kind,
        namespaced=namespaced,
        verbs=verbs,
        short_names=short_names,
        categories=categories,
        subresource_table=subresources,
        strategy=strategy,
        defaulter=defaulter,
        printer=printer,
        stored_as=stored_as,
        struct_order=struct_order,
        since=since,
        deprecated_in=deprecated_in,
        replacement=replacement,
        conversion=conversion,
    )


def body_type(group: str, version: str, kind: str) -> ResourceType:
    """A kind that travels only as a request body of a subresource (TokenRequest, Eviction): never served."""
    return builtin(group, version, "", kind, verbs=())
