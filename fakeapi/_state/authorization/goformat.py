"""The Go renderings RBAC's messages are made of, so every text reads as the apiserver's (docs/rbac.md).

- ``%q`` of a string is ``strconv.Quote``; of a ``[]string`` it is ``["a" "b"]`` (``[]`` when empty),
  as ``ConfirmNoEscalation`` prints the creator's groups and ``CompactString`` a rule's fields;
- an ``utilerrors.Aggregate`` prints one error as itself and several as ``[e1, e2]``, each distinct
  text once (k8s.io/apimachinery ``pkg/util/errors/errors.go``, ``aggregate.Error``), as the RBAC
  authorizer's reason and a rules review's evaluationError print the roles it could not find;
- ``%v`` of a ``[]error`` is ``[e1 e2]``, as the escalation check appends its resolution errors.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fakeapi._patching.gostrconv import quote

__all__ = ["aggregate_text", "error_slice_text", "quote", "quote_list"]


def quote_list(values: Iterable[str]) -> str:
    """``fmt.Sprintf("%q", []string{...})``."""
    return "[" + " ".join(quote(value) for value in values) + "]"


def aggregate_text(messages: Sequence[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: "" for none, a lone error as is, else ``[a, b]`` deduplicated."""
    if len(messages) <= 1:
        return messages[0] if messages else ""
    distinct = list(dict.fromkeys(messages))
    return distinct[0] if len(distinct) == 1 else "[" + ", ".join(distinct) + "]"


def error_slice_text(messages: Sequence[str]) -> str:
    """``fmt.Sprintf("%v", []error{...})``."""
    return "[" + " ".join(messages) + "]"
