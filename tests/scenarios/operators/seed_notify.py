"""The seed operator's non-idempotent step: telling the outside world a job is complete."""

from __future__ import annotations


def send_completion(namespace: str, name: str) -> None:
    """Stands for an e-mail, a billing call, a message on a queue."""
