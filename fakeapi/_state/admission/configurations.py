"""The webhooks in force: ``pkg/admission/configuration/{mutating,validating}_webhook_manager.go``.

Configurations are taken in name order (``sort.SliceStable`` by name) and their webhooks in the
order they list them; each webhook's identity, used to remember which ones asked to be reinvoked,
is ``<configuration>/<webhook>/<n>``, ``n`` counting earlier webhooks of the same name in that
configuration. The store is read at each write, as the apiserver's informer would have caught up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakeapi._state.objects import metadata_of
from fakeapi._state.storeview import StoreView

__all__ = ["MUTATING", "VALIDATING", "Webhook", "webhooks_of"]

MUTATING = "mutatingwebhookconfigurations"
VALIDATING = "validatingwebhookconfigurations"


@dataclass(frozen=True)
class Webhook:
    uid: str
    configuration: str
    spec: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.spec.get("name") or "")


def webhooks_of(store: StoreView, plural: str) -> list[Webhook]:
    rtype = store.registry.resolve("admissionregistration.k8s.io", "v1", plural)
    if rtype is None:
        return []
    configurations = sorted(store.bucket(rtype).values(), key=lambda obj: str(metadata_of(obj).get("name") or ""))
    hooks: list[Webhook] = []
    for configuration in configurations:
        name = str(metadata_of(configuration).get("name") or "")
        seen: dict[str, int] = {}
        for spec in configuration.get("webhooks") or []:
            if not isinstance(spec, dict):
                continue
            hook_name = str(spec.get("name") or "")
            hooks.append(Webhook(f"{name}/{hook_name}/{seen.get(hook_name, 0)}", name, spec))
            seen[hook_name] = seen.get(hook_name, 0) + 1
    return hooks
