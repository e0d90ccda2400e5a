"""The plain mode's paragraphs: a step, a wire comparison, a fate, and what the learner's moves add, from frames."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ....engine.fates import FateRun, WireCompare, what_differs
from ....engine.stepper import MODES, REMOVED_TEXT
from ....present.session import Frame
from ....tools.cost import WAYS, Costs, figure
from .. import words

if TYPE_CHECKING:
    from ....engine.stepper import Check

WAY_NAMES = {"batch script": "one batch (script)", "single script ×N": "N singles (script)",
             "EMQ.EXTENDS": "one batch (native)", "EMQ.EXTEND ×N": "N singles (native)"}
"""Each of cost.WAYS as the cost view names it."""


class _Head(Protocol):
    def head(self, text: str) -> str: ...


def capital(text: str) -> str:
    """``text`` with its first letter in upper case."""
    return text[:1].upper() + text[1:]


def paragraph(frame: Frame, style: _Head) -> str:
    """One step in sentences: the member, each check and its verdict, now, failed so far, and the end."""
    step = frame.step
    played = frame.played
    mode = f" ({mode_label(frame)})" if played is not None and played.mode != "batch" else ""
    head = style.head(f"Step {step.index} of {step.count} on wire {frame.wire}{mode}:")
    member = words.current_member(step)
    if step.index == 0:
        said = [f"the handle built the command for {words.members_text(frame)}.", "Nothing is sent yet."]
    elif member is not None:
        row, token, active, verdict = words.checks(member, step.now)
        said = [f"member {member.index + 1} of {len(step.members)}, {member.id}, token {member.token}; checks "
                f"{words.checks_heading(step)}.",
                f"Row check, HGET attempts: {row}.", f"Token check: {token}.", f"Active check, ZSCORE: {active}.",
                f"Verdict: {verdict or 'none'}."]
    else:
        said = [f"{step.title}."]
    written = words.writes(step)
    if step.index and (written or member is None):
        said.append("Writes: " + ("; ".join(words.write_text(call, step.now) for call in written) or "none") + ".")
    # a batch's one clock read is shared by every member; a single call's is its own (now_text says which)
    said += [f"{capital(words.now_text(step))}.", f"{capital(words.failed_text(step))}."]
    said += [f"Note: {note}." for note in step.notes]
    if step.done:
        said.append("Verdicts: " + "; ".join(f"{member.id} {words.checks(member, words.member_now(step, member))[3]}"
                                             for member in step.members) + "." if step.members else "No members.")
        said.append(f"{capital(words.reply_words(step))}.")
        if frame.answer:
            said.append(f"{words.answer_words(frame)}.")
        if frame.agreement is not None:
            said.append(f"{capital(words.agreement_text(frame.agreement))}.")
    return " ".join([head, *said])


def compared_text(compared: WireCompare) -> str:
    """A wire switch's comparison of both twins in one paragraph."""
    said = []
    for answer in (compared.scripted, compared.native):
        said.append(f"{answer.verb} on wire {answer.wire} " + (answer.unavailable or answer.summary(8)) + ".")
    said += [f"{capital(note)}." for note in compared.differences if note != compared.native.unavailable]
    return " ".join(["Both wires ran the batch from the same start.", *said])


def fate_text(run: FateRun, description: str = "") -> str:
    """A fate's verbs in one paragraph: the lesson's words on it, the held list, each verb's answer, raw ones too."""
    said = [f"Fate {run.fate.key}, {run.fate.title}:"]
    if description:
        said.append(description)
    if run.held:
        said.append("Held: " + ", ".join(f"{job} token {token}" if token is not None else f"{job} (no token)"
                                         for job, token in run.held) + ".")
    said += [f"{answer.verb} {answer.unavailable or answer.summary(8)}." for answer in run.answers]
    if run.raw_answers:
        said.append("As raw wire commands:")
        said += [f"{answer.verb} on wire {answer.wire} {answer.unavailable or answer.summary(8)}."
                 for answer in run.raw_answers]
    if run.note:
        said.append(f"Note: {run.note}.")
    differs = what_differs(run)
    said.append(f"{differs[:1].upper()}{differs[1:]}.")
    return " ".join(said)


# -- what the learner's moves add to a step: the run mode's notes, the race, the predictions -------------------


def played_text(frame: Frame) -> list[str]:
    """The paragraphs after a step: singles' clock reads and raised calls, guard off, the race, the guesses."""
    return [*mode_text(frame), *race_text(frame), *predict_text(frame)]


def mode_text(frame: Frame) -> list[str]:
    """What the run mode shows beside the step: each single call's clock and the calls raised, or the what-if."""
    step, played = frame.step, frame.played
    if played is None or played.mode == "batch":
        return []
    if played.mode == "guard-off":
        return [] if step.notes else [f"Guard off (what-if): this run steps {step.code}, the batch script without "
                                      f"its line {REMOVED_TEXT}, so no ZSCORE check guards a reaped member."]
    if not step.members:
        return []
    reads = ", ".join(map(str, step.clocks)) or "none yet: each call reads TIME when it runs"
    calls = min(step.index, len(step.members))
    raised = ", ".join(step.members[index].id for index in step.raised)
    return [f"Clock reads, one per call: {len(step.clocks)} so far ({reads}), spread {step.spread} ms; a batch "
            f"reads TIME once. Raised: {len(step.raised)} of {calls} calls, each its own error"
            + (f": {raised}." if raised else ".")]


def race_text(frame: Frame) -> list[str]:
    """The race's events at this step, in the store's order, once the learner has asked the reaper in this run."""
    played = frame.played
    if played is None or not any(event.actor == "reaper" for event in played.race):
        return []
    here = [event for event in played.race if event.step == frame.step.index]
    if not here:
        return []
    return ["The race at this step: " + "; ".join(f"{event.actor}: {event.text}" for event in here) + "."]


def predict_text(frame: Frame) -> list[str]:
    """The guess this step judged, the score once the run is over with each miss explained, and the next question."""
    played = frame.played
    if played is None or not played.predicting:
        return []
    right, judged = played.score
    said = []
    shown = [j for j in played.judged if j.right is not None]
    if frame.step.done:
        said.append(f"Score: {right} of {judged} predictions right.")
        said += [f"Missed {j.prediction.job_id}: you said {j.prediction.guess}, but {j.actual}: {j.actual.explains}."
                 for j in shown if not j.right and j.actual is not None]
    else:
        decided = [j for j in shown if j.prediction.index == frame.step.index - 1]
        said += [f"{j.prediction.job_id}: you said {j.prediction.guess}, {'right' if j.right else 'wrong'}: "
                 f"{j.actual} decided it. Predicted {right} of {judged} so far." for j in decided]
    ask = question(frame)
    if ask:
        said.append(ask)
    return said


def question(frame: Frame) -> str:
    """Predict mode's question for the member the next step decides, each choice by its number, or ``""``."""
    played = frame.played
    if played is None or played.asks is None:
        return ""
    return (f"Predict: what will the next step decide for {frame.step.members[played.asks].id}? "
            f"{choices_text(played.choices)}. Type its number.")


def choices_text(choices: tuple[Check, ...]) -> str:
    """``1 re-scored; 2 no row; …``."""
    return "; ".join(f"{n} {check}" for n, check in enumerate(choices, 1))


def mode_label(frame: Frame) -> str:
    """The run mode as the header names it."""
    played = frame.played
    return played.label if played is not None and played.mode != "guard-off" else MODES["guard-off"].header


def cost_text(costs: Costs) -> list[str]:
    """The cost view's figures in words: for each lease count, each way's µs per lease and how the batch compares."""
    out = []
    for size, row in costs.rows.items():
        said = [f"{WAY_NAMES[way]} {figure(row[way])} µs" if row.get(way) is not None
                else f"{WAY_NAMES[way]}: not on this backend" for way in WAYS]
        text = f"{size:,} lease{'s' * (size != 1)}: " + "; ".join(said) + "."
        single, batch = row.get("single script ×N"), row.get("batch script")
        if single and batch:
            text += f" One batch costs {batch / single:.2f}× what N singles cost " \
                    f"({'cheaper' if batch < single else 'dearer'})."
        shares = [f"{name.split(': ')[1]} {figure(row[name])} µs" for name in ("server: script", "server: native")
                  if row.get(name) is not None]
        if shares:
            text += f" The server's own share of one batch, per lease: {', '.join(shares)}."
        out.append(text)
    return out
