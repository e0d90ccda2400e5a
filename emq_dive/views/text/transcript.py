"""A run as Markdown: every frame the learner saw, with the wire switches and fates between, for a course page."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from ...engine.echo_mq.render import deadline, reply_text, wire_text
from ...engine.fates import FateRun, WireCompare, what_differs
from ...present.console import Replied
from ...present.console_block import Executed
from ...present.session import Frame
from . import words

__all__ = ["Entry", "Said", "default_name", "markdown", "write"]

Said = Replied | Executed
"""A console line (or block) the store answered."""
Entry = Frame | WireCompare | FateRun | Said
"""One thing the learner saw: a step's frame, a wire comparison, a fate's four verbs, or a console line's reply."""

WIRE_NAMES = {4: "wire 4 (EVALSHA the script)", 6: "wire 6 (the native EMQ.EXTENDS)"}


def write(entries: Sequence[Entry], path: str | os.PathLike[str], title: str = "", backend: str = "") -> Path:
    """Write ``entries`` as Markdown to ``path``; return the path."""
    target = Path(path)
    target.write_text(markdown(entries, title, backend), encoding="utf-8")
    return target


def markdown(entries: Iterable[Entry], title: str = "", backend: str = "") -> str:
    """The Markdown of ``entries``: a section per run, a subsection per step."""
    out = [f"# {title or 'emq-dive'} · transcript", ""]
    if backend:
        out += [f"Run against {backend}. Every value below is what that store answered.", ""]
    last: Frame | None = None
    for entry in entries:
        if isinstance(entry, Frame):
            if last is None or last.run_key != entry.run_key:
                out += _run_heading(entry)
            elif entry.step.index <= last.step.index and entry.step.index:
                out += [f"*Back to step {entry.step.index}: the store is put back as that step left it.*", ""]
            out += _step(entry)
            last = entry
        elif isinstance(entry, (Replied, Executed)):
            out += _console(entry)  # the store pane follows, but the step on screen stays the same
        else:
            out += _compared(entry) if isinstance(entry, WireCompare) else _fate(entry)
            last = None  # the batch is set up again after either, so the next frame starts a new section
    return "\n".join(out).rstrip() + "\n"


def _code(text: str) -> str:
    """``text`` as inline code, fenced with enough backticks that none inside ends it."""
    fence = "`" * (max((len(run) for run in text.split("`")[1::2]), default=0) + 1) if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|") or " "


def _console(said: Said) -> list[str]:
    """A console line and its reply as redis-cli shows them, and the arguments it sent with the $names filled in."""
    lines = (said.line,) if isinstance(said, Replied) else said.queued
    typed = [said.line.typed] if isinstance(said, Replied) else ["MULTI", *(line.typed for line in lines), said.typed]
    body = [*(f"> {text}" for text in typed), *said.lines]
    fence = "`" * max([3, *(len(run) + 1 for text in body for run in re.findall("`+", text))])
    out = ["#### Console" + ("" if isinstance(said, Replied) else f": a MULTI block of {len(lines)}"), "",
           fence, *body, fence, ""]
    out += [f"- sent {_code(wire_text(line.args))}" for line in lines]
    out += [f"- note: {said.note}"] if said.note else []
    return [*out, ""]


def _run_heading(frame: Frame) -> list[str]:
    return [f"## The batch on {WIRE_NAMES.get(frame.wire, f'wire {frame.wire}')}", "",
            f"Members: {words.members_text(frame)}.", "",
            f"The command: {_code(wire_text(frame.step.command))}", ""]


def _step(frame: Frame) -> list[str]:
    step = frame.step
    out = [f"### Step {step.index} of {step.count} · {step.title}", ""]
    if step.index == 0:
        out += ["The handle built the command; nothing is sent yet.", ""]
    elif not step.shown_calls:
        out += ["This step sent nothing to the store.", ""]
    else:
        out += [f"Calls, from {step.code or words.SOURCES.get(step.source, step.source)}:", ""]
        out += [f"- line {call.line}: {_code(wire_text(call.sent))} → {_code(reply_text(call.reply))}"
                for call in step.shown_calls]
        out.append("")
    member = words.current_member(step)
    if member is not None:
        row, token, active, verdict = words.checks(member, step.now)
        out += [f"Checks of member {member.index + 1}, {member.id} (token {member.token}): "
                f"{words.checks_heading(step)}:", "",
                f"1. row? `HGET … attempts`: {row}", f"2. token?: {token}", f"3. in active? `ZSCORE`: {active}",
                "", f"Verdict: {verdict or 'none yet'}.", ""]
    written = words.writes(step)
    if step.index:
        out += ["Writes:" if written else "Writes: none.", ""]
        out += [f"- {_code(wire_text(call.sent))} → {_code(reply_text(call.reply))}: "
                f"{words.write_text(call, step.now)}" for call in written]
        if written:
            out.append("")
    if step.locals:
        out += ["Locals at each call line, as the server's debugger prints them (numbers in full):", ""]
        out += [f"- at line {frame.line}: " + ", ".join(_code(f"{one.name} = {one.value}") + " (changed)" * one.changed
                                              for one in frame.shown) for frame in step.locals]
        out.append("")
    out += [f"- {words.now_text(step)}", f"- {words.failed_text(step)}"]
    out += [f"- note: {note}" for note in step.notes]
    out.append("")
    if step.done:
        out += _end(frame)
    return out


def _end(frame: Frame) -> list[str]:
    step = frame.step
    out = ["#### The end of the run", "", "| # | id | token | row? HGET | token? | in active? | verdict |",
           "|---|---|---|---|---|---|---|"]
    for member in step.members:
        cells = words.checks(member, words.member_now(step, member))
        out.append("| " + " | ".join(_cell(c) for c in (str(member.index + 1), member.id, member.token, *cells))
                   + " |")
    out += ["", f"- {words.reply_words(step)}"]
    if frame.answer:
        out.append(f"- {words.answer_words(frame)}")
    if frame.agreement is not None:
        agreement = frame.agreement
        out.append(f"- agreement check ({_code(wire_text(agreement.command, 4))} …, run atomically from the "
                   f"same start): {'✓' if agreement.agree else '✗'} {words.agreement_text(agreement)}")
        if agreement.atomic_now is not None:
            out.append(f"- the atomic run's now: {agreement.atomic_now}")
    view = frame.view
    active = ", ".join(f"{entry.id} {'absent' if entry.score is None else deadline(entry.score, step.now)}"
                       for entry in view.active)
    out += [f"- active after the run ({view.active_count} members in all): {active or 'none shown'}",
            f"- pending ({view.pending_count}): {words.listed(view.pending)}", ""]
    return out + _played(frame)


def _played(frame: Frame) -> list[str]:
    """The learner's own moves in the run: the reaper's race, in order, and the guesses beside what decided."""
    played = frame.played
    if played is None:
        return []
    out = []
    if any(event.actor == "reaper" for event in played.race):
        out += ["#### The race with the reaper", ""]
        out += [f"{n}. step {event.step}, {event.actor}: {event.text}" for n, event in enumerate(played.race, 1)]
        out.append("")
    if played.judged:
        right, judged = played.score
        out += [f"#### Predictions: {right} of {judged} right", ""]
        for one in played.judged:
            guess = one.prediction
            actual = "not decided yet" if one.actual is None else f"decided by {one.actual.value}"
            mark = "" if one.right is None else " ✓" if one.right else " ✗"
            out.append(f"- {guess.job_id}: guessed {guess.guess.value} at step {guess.step}; {actual}{mark}")
        out.append("")
    return out


def _compared(compared: WireCompare) -> list[str]:
    out = ["## Both wires from the same start", ""]
    for answer in (compared.scripted, compared.native):
        label = f"{answer.verb} (wire {answer.wire})"
        if answer.unavailable:
            out.append(f"- {label}: {answer.unavailable}")
            continue
        out.append(f"- {label}: {answer.summary(8)}")
        out += [f"  - {_code(wire_text(exchange.sent, 8))} → "
                f"{_code(reply_text(exchange.reply, 8))}" for exchange in answer.exchanges]
        out += [f"  - wrote {_code(change)}" for change in answer.writes]
    out += ["", *(f"- {note}" for note in compared.differences), ""]
    return out


def _fate(run: FateRun) -> list[str]:
    out = [f"## Fate: {run.fate.key} ({run.fate.title})", ""]
    if run.held:
        out += ["Held: " + ", ".join(f"{job} token {token}" if token is not None else f"{job} (no token)"
                                     for job, token in run.held) + ".", ""]
    for answer in (*run.answers, *run.raw_answers):
        label = f"{answer.verb} (wire {answer.wire})"
        if answer.unavailable:
            out.append(f"- {label}: {answer.unavailable}")
            continue
        out.append(f"- {label}: {answer.summary(8)}")
        out += [f"  - wrote {_code(change)}" for change in answer.writes]
    if run.note:
        out += ["", f"Note: {run.note}."]
    differs = what_differs(run)
    out += ["", f"{differs[:1].upper()}{differs[1:]}.", ""]
    return out


def default_name(lesson_id: str, queue: str) -> str:
    """The file name ``x`` writes to when the learner names none: ``emq-dive-batches-03-dive-1a2b3c4d.md``."""
    return f"emq-dive-{lesson_id}-{queue}.md"
