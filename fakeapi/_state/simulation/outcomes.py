"""What a simulated container does once the kubelet starts it, chosen per pod and container by rules.

A real kubelet runs whatever the image does; the fake has no images, so a test says what each
container does: run until deleted (the default), exit with a code after some seconds on the server's
clock (0 is success), be OOM-killed, run without ever passing readiness, or fail to have its image
pulled. The choice is deterministic: the pod's ``fakeapi.dev/outcome`` annotation (or
``fakeapi.dev/outcome.<container>``) wins, then the first :class:`OutcomeRule` that matches the
container's image (a glob), the pod's labels and the container's name.

The text form, for annotations and ``fakeapi serve --outcome``: ``run``, ``never-ready``,
``succeed after 5s``, ``exit 3 after 2s``, ``oom-killed after 4s``, ``image-pull-failure``.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ANNOTATION", "Outcome", "OutcomeRule", "outcome_for", "parse_outcome"]

ANNOTATION = "fakeapi.dev/outcome"
OOM_EXIT_CODE = 137  # SIGKILL, what the runtime reports for a container the kernel OOM-killed


@dataclass(frozen=True)
class Outcome:
    """What one container does: run forever (``exit_code`` None) or exit after ``after`` seconds."""

    exit_code: int | None = None
    after: float = 0.0
    oom_killed: bool = False
    ready: bool = True
    image_pull_failure: bool = False

    @classmethod
    def run(cls) -> Outcome:
        return cls()

    @classmethod
    def never_ready(cls) -> Outcome:
        return cls(ready=False)

    @classmethod
    def succeed(cls, after: float = 0.0) -> Outcome:
        return cls(exit_code=0, after=after)

    @classmethod
    def exit(cls, code: int, after: float = 0.0) -> Outcome:
        return cls(exit_code=code, after=after)

    @classmethod
    def oom(cls, after: float = 0.0) -> Outcome:
        return cls(exit_code=OOM_EXIT_CODE, after=after, oom_killed=True)

    @classmethod
    def pull_failure(cls) -> Outcome:
        return cls(image_pull_failure=True)

    @property
    def reason(self) -> str:
        """The terminated state's reason, as the container runtime reports it."""
        if self.oom_killed:
            return "OOMKilled"
        return "Completed" if self.exit_code == 0 else "Error"


_SECONDS = r"(?:\s+after\s+(\d+(?:\.\d+)?)s?)?"
_FORMS: tuple[tuple[re.Pattern[str], Any], ...] = (
    (re.compile(r"run"), lambda m: Outcome.run()),
    (re.compile(r"never-ready"), lambda m: Outcome.never_ready()),
    (re.compile(r"image-pull-failure"), lambda m: Outcome.pull_failure()),
    (re.compile(r"succeed" + _SECONDS), lambda m: Outcome.succeed(float(m[1] or 0))),
    (re.compile(r"exit\s+(\d+)" + _SECONDS), lambda m: Outcome.exit(int(m[1]), float(m[2] or 0))),
    (re.compile(r"oom-killed" + _SECONDS), lambda m: Outcome.oom(float(m[1] or 0))),
)


def parse_outcome(text: str) -> Outcome:
    """An outcome from its text form; ``ValueError`` naming the forms for anything else."""
    for pattern, build in _FORMS:
        match = pattern.fullmatch(text.strip())
        if match is not None:
            outcome: Outcome = build(match)
            return outcome
    raise ValueError(
        f"unknown outcome {text!r}: use run, never-ready, image-pull-failure, 'succeed after Ns', "
        "'exit CODE after Ns' or 'oom-killed after Ns'"
    )


@dataclass(frozen=True)
class OutcomeRule:
    """``outcome`` for the containers that match every criterion given."""

    outcome: Outcome | str
    image: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    container: str | None = None

    def resolved(self) -> Outcome:
        return parse_outcome(self.outcome) if isinstance(self.outcome, str) else self.outcome

    def matches(self, pod_labels: Mapping[str, Any], container: Mapping[str, Any]) -> bool:
        if self.image is not None and not fnmatch.fnmatchcase(str(container.get("image", "")), self.image):
            return False
        if self.container is not None and container.get("name") != self.container:
            return False
        return all(pod_labels.get(key) == value for key, value in self.labels.items())


def outcome_for(pod: Mapping[str, Any], container: Mapping[str, Any], rules: Sequence[OutcomeRule]) -> Outcome:
    """The outcome of one container of ``pod``: its annotation, else the first matching rule, else run."""
    meta = pod.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    for key in (f"{ANNOTATION}.{container.get('name')}", ANNOTATION):
        text = annotations.get(key)
        if isinstance(text, str):
            try:
                return parse_outcome(text)
            except ValueError:
                return Outcome.run()  # a pod cannot be refused for it: the annotation is the user's text
    labels = meta.get("labels") or {}
    for rule in rules:
        if rule.matches(labels, container):
            return rule.resolved()
    return Outcome.run()
