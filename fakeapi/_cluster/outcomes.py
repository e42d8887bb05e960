"""What a simulated container does once the kubelet starts it, chosen per pod and container by rules.

A real kubelet runs whatever the image does; the fake has no images, so a test says what each
container does: run until deleted (the default), exit with a code after some seconds on the server's
clock (0 is success), be OOM-killed, run without ever passing readiness, or fail to have its image
pulled. The choice is deterministic: the pod's ``fakeapi.dev/outcome`` annotation (or
``fakeapi.dev/outcome.<container>``) wins, then the first :class:`OutcomeRule` that matches the
container's image (a glob), the pod's labels and the container's name.

When neither says, the cluster's defaults decide (:func:`default_outcome`, docs/cluster-defaults.md):
an image whose registry cannot exist fails to pull, a container of a pod that is not restarted
(``restartPolicy`` ``Never`` or ``OnFailure``, as every Job's pod) succeeds after
:data:`DEFAULT_RUN_SECONDS`, as kwok's ``pod-complete`` stage completes a Job's pods, and any other
runs until deleted.

The text form, for annotations and ``fakeapi serve --outcome``: ``run``, ``never-ready``,
``succeed after 5s``, ``exit 3 after 2s``, ``oom-killed after 4s``, ``image-pull-failure``; any of
them may be followed by how long the container takes to start (``starts after 3s``: its image
pulled and the container created, it waits ``ContainerCreating`` until then), then by what the
container does when the kubelet stops it (``ignores-sigterm``, or
``on-sigterm exit 143 after 3s``; by default it exits 0 at once), then by ``logs`` and a JSON list of strings, the lines each instance of the container
writes to its log as it starts (``succeed after 5s logs ["hello", "done"]``).

``process`` and JSON (``process ["python3", "-m", "http.server", "8000"]``) runs a program on this
machine in place of the image (:mod:`.local_processes`, docs/process-containers.md): a test's
rules may say so, a pod's annotation may not (it is what a client wrote, and would run a command
taken from the API object), so such an annotation counts as one that does not parse.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from typing import Any

from fakeapi._cluster.images import unreachable_registry
from fakeapi._cluster.local_processes import LocalProcess, local_process_from

__all__ = [
    "ANNOTATION",
    "DEFAULT_RUN_SECONDS",
    "Outcome",
    "OutcomeRule",
    "default_outcome",
    "outcome_for",
    "parse_outcome",
]

ANNOTATION = "fakeapi.dev/outcome"
OOM_EXIT_CODE = 137  # SIGKILL, what the runtime reports for a container the kernel OOM-killed
DEFAULT_RUN_SECONDS = 1.0
"""How long a container of a pod that is not restarted runs before it exits 0 when nothing says
otherwise: kwok's ``pod-complete`` stage's fixed delay, without its random jitter (docs/cluster-defaults.md)."""


@dataclass(frozen=True)
class Outcome:
    """What one container does: run forever (``exit_code`` None) or exit after ``after`` seconds.

    ``logs`` are the lines each instance of the container writes to its stdout as it starts.
    """

    exit_code: int | None = None
    after: float = 0.0
    oom_killed: bool = False
    ready: bool = True
    image_pull_failure: bool = False
    logs: tuple[str, ...] = ()
    term_exit_code: int | None = 0
    """The code the container exits with once sent SIGTERM (None: it ignores SIGTERM and is killed,
    137, when the pod's grace period ends; docs/graceful-deletion.md)."""
    term_after: float = 0.0
    """Seconds the container takes to exit after SIGTERM (past the grace period it is killed)."""
    local_process: LocalProcess | None = None
    """The program run in place of the image: the container runs while it does, exits with its code,
    and what it writes is the container's log (docs/process-containers.md)."""
    start_after: float = 0.0
    """Seconds from the kubelet first seeing the pod to the container's first start (or its pull
    failing): it waits ``ContainerCreating`` meanwhile, as a pull and a create take time on a node."""

    @classmethod
    def run(cls, logs: Sequence[str] = ()) -> Outcome:
        return cls(logs=tuple(logs))

    @classmethod
    def never_ready(cls, logs: Sequence[str] = ()) -> Outcome:
        return cls(ready=False, logs=tuple(logs))

    @classmethod
    def succeed(cls, after: float = 0.0, logs: Sequence[str] = ()) -> Outcome:
        return cls(exit_code=0, after=after, logs=tuple(logs))

    @classmethod
    def exit(cls, code: int, after: float = 0.0, logs: Sequence[str] = ()) -> Outcome:
        return cls(exit_code=code, after=after, logs=tuple(logs))

    @classmethod
    def oom(cls, after: float = 0.0, logs: Sequence[str] = ()) -> Outcome:
        return cls(exit_code=OOM_EXIT_CODE, after=after, oom_killed=True, logs=tuple(logs))

    @classmethod
    def pull_failure(cls) -> Outcome:
        return cls(image_pull_failure=True)

    @classmethod
    def process(
        cls,
        command: Sequence[str],
        *,
        working_dir: str | PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        ports: Mapping[int, int] | None = None,
    ) -> Outcome:
        """The container runs ``command`` on this machine, in ``working_dir``, with the pod's env and
        ``env`` over it; a port-forward to a port in ``ports`` reaches the local port it maps to."""
        return cls(local_process=LocalProcess.of(command, working_dir, env, ports))

    def on_sigterm(self, exit_code: int = 0, after: float = 0.0) -> Outcome:
        """This outcome, its container exiting with ``exit_code`` ``after`` seconds after SIGTERM."""
        return replace(self, term_exit_code=exit_code, term_after=after)

    def ignoring_sigterm(self) -> Outcome:
        """This outcome, its container running on after SIGTERM until the grace period kills it."""
        return replace(self, term_exit_code=None, term_after=0.0)

    def starting_after(self, seconds: float) -> Outcome:
        """This outcome, its container first started (or its pull failed) ``seconds`` after the
        kubelet saw the pod."""
        if seconds < 0:
            raise ValueError(f"a container cannot start {seconds}s before its pod is seen")
        return replace(self, start_after=seconds)

    def printing(self, *lines: str) -> Outcome:
        """This outcome, its container writing ``lines`` to its log as it starts."""
        return replace(self, logs=tuple(lines))

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


_PROCESS = re.compile(r"process\s+(.+)", re.DOTALL)
_LOGS = re.compile(r"(.*?)\s+logs\s+(\[.*\])", re.DOTALL)
_SIGTERM = re.compile(r"(.*?)\s+(?:(ignores-sigterm)|on-sigterm\s+exit\s+(\d+)" + _SECONDS + ")", re.DOTALL)
_START = re.compile(r"(.*?)\s+starts\s+after\s+(\d+(?:\.\d+)?)s?", re.DOTALL)


def parse_outcome(text: str) -> Outcome:
    """An outcome from its text form; ``ValueError`` naming the forms for anything else."""
    stripped, logs = text.strip(), None
    process = _PROCESS.fullmatch(stripped)
    if process is not None:
        return Outcome(local_process=local_process_from(process[1]))
    with_logs = _LOGS.fullmatch(stripped)
    if with_logs is not None:
        stripped, logs = with_logs[1], _log_lines(with_logs[2])
    on_sigterm = _SIGTERM.fullmatch(stripped)
    if on_sigterm is not None:
        stripped = on_sigterm[1]
    start = _START.fullmatch(stripped)
    if start is not None:
        stripped = start[1]
    for pattern, build in _FORMS:
        match = pattern.fullmatch(stripped)
        if match is not None:
            outcome: Outcome = build(match)
            if start is not None:
                outcome = outcome.starting_after(float(start[2]))
            if on_sigterm is not None and on_sigterm[2]:
                outcome = outcome.ignoring_sigterm()
            elif on_sigterm is not None:
                outcome = outcome.on_sigterm(int(on_sigterm[3]), float(on_sigterm[4] or 0))
            return outcome if logs is None else outcome.printing(*logs)
    raise ValueError(
        f"unknown outcome {text!r}: use run, never-ready, image-pull-failure, 'succeed after Ns', "
        "'exit CODE after Ns' or 'oom-killed after Ns', optionally followed by 'starts after Ns', then by "
        "'ignores-sigterm' or 'on-sigterm exit CODE after Ns', then by 'logs [\"line\", ...]'; or 'process' and "
        "JSON (a local program)"
    )


def _log_lines(text: str) -> list[str]:
    try:
        lines = json.loads(text)
    except ValueError:
        lines = None
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise ValueError(f"the logs of an outcome are a JSON list of strings, not {text!r}")
    return lines


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
    """The outcome of one container of ``pod``: its annotation, else the first matching rule, else
    the cluster's default."""
    meta = pod.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    for key in (f"{ANNOTATION}.{container.get('name')}", ANNOTATION):
        text = annotations.get(key)
        if isinstance(text, str):
            try:
                outcome = parse_outcome(text)
            except ValueError:
                return Outcome.run()  # a pod cannot be refused for it: the annotation is the user's text
            # A command named by the API object is never run: only the test's rules name programs.
            return Outcome.run() if outcome.local_process is not None else outcome
    labels = meta.get("labels") or {}
    for rule in rules:
        if rule.matches(labels, container):
            return rule.resolved()
    return default_outcome(pod, container)


def default_outcome(pod: Mapping[str, Any], container: Mapping[str, Any]) -> Outcome:
    """What a container does when no annotation or rule says (docs/cluster-defaults.md): an image
    whose registry cannot exist fails to pull; a pod that is not restarted (every Job's pod) has its
    containers exit 0 after :data:`DEFAULT_RUN_SECONDS`; anything else runs until deleted."""
    if unreachable_registry(str(container.get("image", ""))):
        return Outcome.pull_failure()
    if (pod.get("spec") or {}).get("restartPolicy", "Always") in ("Never", "OnFailure"):
        return Outcome.succeed(DEFAULT_RUN_SECONDS)
    return Outcome.run()
