"""The plain mode's reading of the TUI's panes: the batch (a), the store (s), the wire's calls (v), the code (o)."""

from __future__ import annotations

from functools import cache

from ....engine.echo_mq.render import relative, reply_text, wire_text
from ....engine.echo_mq.sources import text_of
from ....present.session import Frame
from .. import words
from .state import Dive

SHOWN = 20
"""Members ``a`` says at a time."""


def batch_text(frame: Frame, start: int = 0) -> str:
    """What the batch table shows: each member's three checks as read so far, in the code's order, and its verdict."""
    step = frame.step
    members = step.members
    start = max(0, min(start, len(members) - 1))
    said = []
    for member in members[start:start + SHOWN]:
        row, token, active, verdict = words.checks(member, step.now)
        checks = f"row {row}; token {token}; in active {active}; " if any((row, token, active)) else ""
        said.append(f"{member.index + 1} {member.id}, token {member.token}: {checks}verdict {verdict or 'none'}")
    more = f" a {start + SHOWN + 1} says on." if start + SHOWN < len(members) else ""
    return f"The batch at step {step.index}, {len(members):,} members: " + ". ".join(said) + f".{more}"


def store_text(frame: Frame) -> str:
    """What the store pane shows: active with each shown member's deadline, pending, and each shown member's row."""
    view, now = frame.view, frame.step.now
    both = {entry.id for entry in view.active if entry.score is not None} & set(view.pending)
    shown = f"members {view.first + 1} to {view.first + len(view.rows)} of {view.total}"
    active = "; ".join(f"{entry.id} " + ("not a member" if entry.score is None else relative(entry.score, now))
                       + (", in pending too" if entry.id in both else ", just re-scored" if entry.changed else "")
                       for entry in view.active)
    rows = []
    for row in view.rows:
        if row.kind == "hash":
            said = ", ".join(f"{name} {value}" for name, value in row.fields if value is not None) or "no fields"
        else:
            said = "no row" if row.kind == "none" else f"a {row.kind}: {row.text!r}"
        rows.append(f"{row.id} {said}{', just written' if row.changed else ''}")
    out = [f"The store, {shown}:"]
    if view.placement is not None:
        out.append(view.placement.text().replace("\n", "; ") + ".")
    out += [f"Active holds {view.active_count}: {active or 'none shown'}.",
            f"Pending holds {view.pending_count}: {words.listed(view.pending)}.", f"Rows: {'; '.join(rows)}."]
    return " ".join(out)


def calls_text(frame: Frame) -> str:
    """What the wire pane shows for this step: each command the code sent, from which line, and the store's reply."""
    step = frame.step
    if not step.calls:
        return f"Step {step.index} sent nothing to the store. The command the handle sends: " \
               f"{wire_text(step.command, 12)}."
    said = [f"line {call.line} of {step.code}: {wire_text(call.sent, 12)} → {reply_text(call.reply, 12)}"
            for call in step.calls]
    return f"Step {step.index} sent {len(step.calls)} command{'s' * (len(step.calls) != 1)}: " + "; ".join(said) + "."


@cache
def _source(code: str) -> tuple[str, ...]:
    text = text_of(code)  # the learner's script as it runs, or the package's file
    return tuple(text.splitlines()) if text is not None else ()


def code_text(frame: Frame) -> str:
    """What the code pane shows: the file this step ran, the lines it ran, and its highlighted line's text."""
    step = frame.step
    lines, focus = _source(step.code), step.focus
    if not lines:
        return f"This step ran {step.code or step.source}; its source is not in this package."
    ran = ", ".join(map(str, dict.fromkeys(step.lines))) or "none"
    said = f"This step ran {step.code}, lines {ran}."
    if focus is not None and 1 <= focus <= len(lines):
        said += f" Its line {focus}: {lines[focus - 1].strip()}"
    return said


def batch(dive: Dive, _key: str, argument: str) -> None:
    """Say the batch table, 20 members at a time (``t N`` from member N)."""
    dive.say(batch_text(dive.current(), int(argument) - 1 if argument.isdigit() else 0))


def store(dive: Dive, _key: str, _argument: str) -> None:
    """Say the store as the store pane shows it."""
    dive.say(store_text(dive.current()))


def calls(dive: Dive, _key: str, _argument: str) -> None:
    """Say this step's calls as the wire pane shows them."""
    dive.say(calls_text(dive.current()))


def code(dive: Dive, _key: str, _argument: str) -> None:
    """Say the code this step ran, as the code pane shows it."""
    dive.say(code_text(dive.current()))
