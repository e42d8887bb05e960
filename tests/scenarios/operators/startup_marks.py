"""A kopf operator whose start-up leaves a mark: each run of its start-up handler appends the
replica's name to the file ``STARTUP_MARKS`` names, so a test can count how often kopf's start-up
ran. With ``EFFECT_AT_STARTUP`` set, the start-up also sends a completion (a declared effect);
with ``STARTUP_NEVER_ENDS`` set, it then waits forever on something the engine does not control.
Every job it sees created is completed once."""

from __future__ import annotations

import os
import threading
from typing import Any

import kopf
from seed_notify import send_completion  # type: ignore[import-not-found]  # beside this file, as kopf runs it


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_: Any) -> None:
    settings.posting.enabled = False
    settings.scanning.disabled = True
    with open(os.environ["STARTUP_MARKS"], "a") as marks:
        marks.write(os.environ["POD_ID"] + "\n")
    if os.environ.get("EFFECT_AT_STARTUP"):
        send_completion("default", "start-up")
    if os.environ.get("STARTUP_NEVER_ENDS"):
        threading.Event().wait()


@kopf.on.create("example.com", "v1", "jobs")
def created(name: str, namespace: str | None, **_: Any) -> None:
    send_completion(namespace or "", name)
