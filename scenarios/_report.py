"""The violation report: a numbered step table, a Mermaid sequence diagram, each request and response,
why each JSON patch ``test`` failed (with the server's spelling diagnosis), and the replay line.

Everything in a run's report comes from the run itself (no times, ports or paths), so replaying its
schedule id prints the same bytes. The exploration header (how many schedules, pruned, shrunk) is
rendered with the exploration (:mod:`scenarios._exploring`) because a replay explores one schedule.
"""

from __future__ import annotations

import json
import re
from typing import Any

from scenarios._faults import FAULTS
from scenarios._model import CONTROLLER_WRITE, STEPPED, TICK_END, WATCH_EVENT, RunRecord, Scenario, Step
from scenarios._operators import json_pointer_get

__all__ = ["plural", "render_flags", "render_run"]

_BODY_LIMIT = 1500
_MERMAID_SAFE = re.compile(r"[^A-Za-z0-9 ./_()=+-]")
_TICK_END_CRASH = (
    "the actor crashed after its last side effect, before the tick was done; it restarts and runs the tick again"
)


def _mermaid_text(text: str) -> str:
    """Text Mermaid shows as written: every other character as an entity code (``;`` is ``#59;``)."""
    return _MERMAID_SAFE.sub(lambda match: f"#{ord(match.group())};", text)


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def render_run(scenario: Scenario, run: RunRecord, replay_lines: list[str], mutation: str | None = None) -> str:
    kinds = ", ".join(sorted({violation.kind for violation in run.violations})) or "none"
    data = f" [{mutation}]" if mutation else ""
    if run.outcome == "live":
        return _render_live(scenario, run, kinds, data)
    parts = [
        f"# {scenario.title}{data}: {kinds.upper()} VIOLATION in schedule {run.schedule_id}",
        "",
        scenario.description.strip() or "(no description)",
        "",
        "Actors: "
        + ", ".join(
            [
                f"{actor.name} ({'writer, ' if actor.writer else ''}{actor.ticks} tick{'s' if actor.ticks != 1 else ''})"
                for actor in scenario.actors
            ]
            + _replicas(scenario)
        ),
        "Faults: "
        + (", ".join(scenario.faults) + f" (at most {scenario.max_faults} per run)" if scenario.faults else "none"),
        "",
        "## Violations",
        *(f"- {violation.kind}: {violation.message}" for violation in run.violations),
        "",
        "## Steps",
        _table(run),
        "",
        "## Sequence diagram",
        "```mermaid",
        _mermaid(scenario, run),
        "```",
        "",
        "## Why test ops failed",
        *(_why_tests_failed(run) or ["(no JSON patch test failed)"]),
        "",
        render_flags(run.flags, "Fragile preconditions"),
        "",
        "## Actor errors",
        *(
            [
                f"- {error.actor} (incarnation {error.incarnation}, tick {error.tick}) after step {error.step}: {error.text}"
                for error in run.errors
            ]
            or ["(none)"]
        ),
        "",
        "## Requests and responses",
        *(_exchange(step) for step in run.steps),
        "## Replay",
        *(replay_lines or [f"schedule {run.schedule_id}"]),
        "",
    ]
    return "\n".join(parts)


def _render_live(scenario: Scenario, run: RunRecord, kinds: str, data: str) -> str:
    """A run on a real cluster: no journal, so no steps; what the checks saw, and the final objects."""
    return "\n".join(
        [
            f"# {scenario.title}{data}: {kinds.upper()} VIOLATION in a live run (a real cluster: no schedule to replay)",
            "",
            "## Violations",
            *(f"- {violation.kind}: {violation.message}" for violation in run.violations),
            "",
            "## Effects",
            *([f"- {e.actor} tick {e.tick}: {e.name}({e.key})" for e in run.effects] or ["(none)"]),
            "",
            "## Actor errors",
            *([f"- {error.actor} tick {error.tick}: {error.text}" for error in run.errors] or ["(none)"]),
            "",
            "## Final objects",
            *(f"- {'/'.join(key)}: {json.dumps(obj, sort_keys=True)[:_BODY_LIMIT]}" for key, obj in run.final.items()),
            "",
        ]
    )


def render_flags(flags: list[Any], title: str) -> str:
    grouped: dict[tuple[str, str, bool], list[Any]] = {}
    for flag in flags:
        grouped.setdefault((flag.path, flag.reason, flag.passed), []).append(flag)
    lines = [f"## {title}"]
    for (path, reason, passed), same in grouped.items():
        where = ", ".join(f"{flag.step} ({flag.actor})" for flag in same)
        outcome = "passed this time" if passed else "failed"
        lines.append(f"- test of {path} {reason} ({outcome}); step{'s' if len(same) > 1 else ''} {where}")
    if len(lines) == 1:
        lines.append("(none)")
    return "\n".join(lines)


def _what(step: Step) -> str:
    if step.option.verb in STEPPED:
        return step.event.removeprefix(f"{step.actor}: ")
    if step.option.verb == TICK_END:
        return "end of tick"
    if step.option.verb == WATCH_EVENT:
        return f"watch of {step.option.target[1]} sees {step.event}"
    _, resource, _, name = step.option.target
    created = step.created
    what = f"{resource}/{name}" if name else f"{resource} (created {created[2]})" if created else resource
    entry = step.entry
    if entry is not None and entry.subresource:
        what += f"/{entry.subresource}"
    if step.option.verb == "watch":
        what += " (watch)"
    if entry is not None and entry.content_type and step.option.method in ("PATCH", "PUT", "POST"):
        kind = entry.content_type.split(";")[0].removeprefix("application/").removesuffix("+json")
        what += f" ({kind})"
    if step.option.webhook:
        return f"webhook {step.option.webhook} of {step.option.method} {what}"
    return f"{step.option.method} {what}"


def _status(step: Step) -> str:
    entry = step.entry
    if step.fault == "crash":
        return "crashed"
    if entry is None:
        return "-"
    if step.fault == "lost-response":
        return f"{entry.status} (lost)"
    if step.fault == "crash-after":
        return f"{entry.status} (crashed)"
    if entry.status == 0:
        return "cut"
    return str(entry.status)


def _response_version(step: Step) -> str:
    entry = step.entry
    if step.option.verb in STEPPED and step.committed and step.state_after is not None:
        return f"{step.revision_before} → {(step.state_after.get('metadata') or {}).get('resourceVersion', '')}"
    if entry is None:
        return ""
    if step.committed:
        return f"{entry.revision_before} → {entry.revision_after}"
    try:
        body = json.loads(entry.response_body) if entry.response_body else None
    except ValueError:
        return ""
    if isinstance(body, dict) and isinstance(body.get("metadata"), dict):
        return str(body["metadata"].get("resourceVersion", ""))
    return ""


def _client_view(step: Step) -> list[str]:
    if step.fault is None:
        return []
    if not step.option.is_request:
        return [_TICK_END_CRASH]
    view = FAULTS[step.fault].client_view
    return [view] if view else []


def _events(run: RunRecord, number: int) -> list[str]:
    step = run.steps[number - 1]
    events = _client_view(step)
    if step.waits_on:
        events.append(f"the write waits at admission on webhook {step.waits_on}")
    if step.resend_of:
        events.append(
            f"sent again after step {step.resend_of}'s connection was cut (client libraries resend by themselves)"
        )
    if step.resends_cut:
        events.append(f"the client library resent it {plural(step.resends_cut, 'time')}; the timeout cut each")
    events += [f"effect {effect.name}({effect.key})" for effect in run.effects if effect.step == number]
    events += [f"{error.actor}: {error.text}" for error in run.errors if error.step == number]
    return events


def _table(run: RunRecord) -> str:
    rows = [
        "| # | actor | request | fault | status | resourceVersion | then |",
        "|---|-------|---------|-------|--------|-----------------|------|",
    ]
    for step in run.steps:
        then = "; ".join(_events(run, step.number)).replace("|", "\\|")
        rows.append(
            f"| {step.number} | {step.actor} | {_what(step)}{_activity(step)} | {step.fault or ''} | {_status(step)} "
            f"| {_response_version(step)} | {then} |"
        )
    return "\n".join(rows)


def _activity(step: Step) -> str:
    """What the actor was doing when it sent the request, when it said (a replica's kopf handler)."""
    return f" ({step.activity})".replace("|", "\\|") if step.activity else ""


def _replicas(scenario: Scenario) -> list[str]:
    """The operator's replicas, and the command each runs."""
    operator = scenario.operator
    if operator is None:
        return []
    return [f"{', '.join(operator.replica_names)} (replicas of {operator.describe_command()})"]


def _mermaid(scenario: Scenario, run: RunRecord) -> str:
    names = [actor.name for actor in scenario.actors]
    names += scenario.operator.replica_names if scenario.operator is not None else ()
    names += sorted({step.actor for step in run.steps if step.option.verb in STEPPED})
    ids = {name: f"A{index}" for index, name in enumerate(names, 1)}
    lines = ["sequenceDiagram"]
    lines += [f"    participant {ids[name]} as {name}" for name in names]
    lines.append("    participant S as apiserver")
    for step in run.steps:
        actor = ids[step.actor]
        label = f"{step.number}. {_what(step)}" + (f" [{step.fault}]" if step.fault else "")
        if step.option.verb == CONTROLLER_WRITE and step.committed:
            lines.append(f"    {actor}->>S: {_mermaid_text(label)}")
        elif step.option.verb in STEPPED:
            lines.append(f"    Note over {actor}: {_mermaid_text(label)}")
        elif step.option.verb == WATCH_EVENT:
            lines.append(f"    S-){actor}: {_mermaid_text(label)}")
        elif not step.option.is_request:
            lines.append(f"    Note over {actor}: {_mermaid_text(label)}")
        elif step.option.webhook:
            lines.append(f"    S->>S: {_mermaid_text(label)}")
        else:
            lines.append(f"    {actor}->>S: {_mermaid_text(label)}")
        if step.option.is_request and step.fault != "crash" and not step.waits_on:
            version = _response_version(step)
            answer = f"{_status(step)} rv {version}" if version else _status(step)
            arrow = "--x" if step.fault in ("lost-response", "timeout", "watch-drop", "crash-after") else "-->>"
            lines.append(f"    S{arrow}{actor}: {_mermaid_text(answer)}")
        for event in _events(run, step.number):
            lines.append(f"    Note over {actor}: {_mermaid_text(event)}")
    return "\n".join(lines)


def _text(body: bytes) -> str:
    if not body:
        return "(no body)"
    text = _elide_managed_fields(body).decode("utf-8", "replace")
    if len(text) > _BODY_LIMIT:
        text = text[:_BODY_LIMIT] + f"... ({len(text) - _BODY_LIMIT} more characters)"
    return text


def _elide_managed_fields(body: bytes) -> bytes:
    """managedFields are long and say nothing about a race: cut them, keeping every other byte as sent."""
    marker = b'"managedFields":'
    start = body.find(marker)
    if start < 0:
        return body
    position = start + len(marker)
    depth, in_string, escaped = 0, False, False
    for index in range(position, len(body)):
        char = body[index : index + 1]
        if in_string:
            if escaped:
                escaped = False
            elif char == b"\\":
                escaped = True
            elif char == b'"':
                in_string = False
        elif char == b'"':
            in_string = True
        elif char in (b"[", b"{"):
            depth += 1
        elif char in (b"]", b"}"):
            depth -= 1
            if depth == 0:
                return body[:position] + b"[...]" + _elide_managed_fields(body[index + 1 :])
    return body


def _exchange(step: Step) -> str:
    entry = step.entry
    if step.option.verb == WATCH_EVENT:
        return f"### {step.number}. {step.actor}: {_what(step)}\n(the event as the watch stream sent it)\n"
    if step.option.verb in STEPPED:
        return f"### {step.number}. {step.actor}: {_what(step)}\n(a simulated controller, in-process: no request)\n"
    if not step.option.is_request:
        lines = [f"### {step.number}. {step.actor}: end of tick"]
        if step.fault:
            lines.append(f"fault: {step.fault}: {_TICK_END_CRASH}")
        return "\n".join([*lines, ""])
    path = entry.path + (f"?{entry.query}" if entry.query else "") if entry is not None else step.option.path
    call = f": webhook {step.option.webhook} of" if step.option.webhook else ""
    lines = [f"### {step.number}. {step.actor}{call} {step.option.method} {path.partition('#')[0]}"]
    if step.fault:
        lines.append(f"fault: {step.fault}: {FAULTS[step.fault].summary}")
    if step.waits_on:
        lines.append(f"(the write waits at admission on webhook {step.waits_on}: its answer comes at a later step)")
    if entry is not None:
        if entry.body:
            lines.append(f"request ({entry.content_type}): {_text(entry.body)}")
        lines.append(f"response {_status(step)}: {_text(entry.response_body)}")
        lines += [f"warning: {warning}" for warning in entry.warnings]
    lines.append("")
    return "\n".join(lines)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def _changed_by(run: RunRecord, step: Step, pointer: str) -> str:
    for other in reversed(run.steps[: step.number - 1]):
        if other.committed and other.option.target == step.option.target:
            before = json_pointer_get(run.state_before(other.number, other.option.target) or {}, pointer)
            after = json_pointer_get(other.state_after or {}, pointer)
            if before != after:
                return f" (last changed by step {other.number}, {other.actor})"
    return ""


def _why_tests_failed(run: RunRecord) -> list[str]:
    lines = []
    for step in run.steps:
        entry = step.entry
        if entry is None or entry.status != 422 or "json-patch" not in entry.content_type:
            continue
        try:
            operations = json.loads(entry.body)
        except ValueError:
            continue
        stored = run.state_before(step.number, step.option.target) or {}
        head = f"- step {step.number} ({step.actor} {_what(step)}, 422):"
        for operation in operations if isinstance(operations, list) else []:
            if not isinstance(operation, dict) or operation.get("op") != "test":
                continue
            pointer = str(operation.get("path", ""))
            found, value = json_pointer_get(stored, pointer)
            sent = operation.get("value")
            shown = pointer or '""'
            diagnosis = [line for line in entry.diagnoses if f"test of {shown} " in line]
            if not found:
                lines.append(f"{head} test {pointer}: the stored object has no such path")
            elif diagnosis:
                lines.append(f"{head} test {pointer}: equal once decoded, but the apiserver compares bytes")
                lines += [f"  server diagnosis: {line}" for line in diagnosis]
            elif value != sent:
                lines.append(
                    f"{head} test {pointer}: sent {_short(sent)}, stored {_short(value)}{_changed_by(run, step, pointer)}"
                )
            else:
                continue
            break
        else:
            lines.append(f"{head} every test op matched; {_other_failure(operations, stored, entry.response_body)}")
    return lines


def _other_failure(operations: Any, stored: dict[str, Any], response: bytes) -> str:
    """Why a JSON patch whose tests all matched still failed: a path that is not there, or what the server said."""
    for operation in operations if isinstance(operations, list) else []:
        if not isinstance(operation, dict) or operation.get("op") in ("test", None):
            continue
        pointer = str(operation.get("path", ""))
        parent = pointer.rsplit("/", 1)[0]
        if operation["op"] == "add" and not json_pointer_get(stored, parent)[0]:
            return f"{operation['op']} {pointer}: its parent {parent} does not exist"
        if operation["op"] in ("remove", "replace") and not json_pointer_get(stored, pointer)[0]:
            return f"{operation['op']} {pointer}: the path does not exist"
    try:
        message = json.loads(response).get("message", "")
    except (ValueError, AttributeError):
        message = ""
    return f"the server said: {message}" if message else "the server gave no reason"
