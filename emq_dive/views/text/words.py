"""The words both text modes say about a frame: each check and its verdict, the shared now, failed, the check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...engine.echo_mq.render import deadline, reply_text, text, wire_text
from ...engine.stepper import Call, Member, Step
from ...engine.stepper.timeline import is_write
from ...present import step_words
from ...present.session import Frame

SOURCES = {"handle": "jobs.py", "lua": "extend_locks.lua", "native": "native.py"}
"""The file each step's ``source`` names."""


def checks(member: Member, now: int | None) -> tuple[str, str, str, str]:
    """The row, token and active checks as read, in the order the code makes them, and the member's verdict."""
    if not member.ran:
        return ("", "", "", step_words.WAITING)
    row, token, active = (step_words.check_text(member, which, now)[0] for which in range(3))
    return (row, token, active, step_words.verdict_text(member, now)[0])


def checks_heading(step: Step) -> str:
    """How the checks are introduced: in order, or, for the what-if, without the check it removed."""
    if step.mode == "guard-off":
        return "row? then token? (the what-if removed the in active? check)"
    return "row?, token?, in active?, in order"


def member_now(step: Step, member: Member) -> int | None:
    """The clock a member's deadlines read against: its own call's (singles), else the batch's one read."""
    return step.now if member.now is None else member.now


def current_member(step: Step) -> Member | None:
    """The member whose checks this step ran, or None for the handle and wire 6's write pass."""
    if step.index == 0 or step.index > len(step.members):
        return None
    return step.members[step.index - 1]


now_text = step_words.now_text
failed_text = step_words.failed_text


def writes(step: Step) -> list[Call]:
    """The calls of this step that wrote to the store."""
    return [call for call in step.calls if is_write(call.sent)]


def write_text(call: Call, now: int | None) -> str:
    """One write in words: ``JOB01 re-scored to … in active``, ``JOB01 lease_epoch set to …``, else the command."""
    sent = [text(part) for part in call.sent]
    verb = sent[0].upper()
    if verb == "ZADD" and len(sent) == 4:
        return f"{sent[3]} re-scored to {deadline(sent[2], now)} in {sent[1].rsplit(':', 1)[-1]}"
    if verb == "HSET" and len(sent) == 4:
        return f"{sent[1].rsplit(':', 1)[-1]} {sent[2]} set to {sent[3]}"
    return wire_text(call.sent)


def reply_words(step: Step) -> str:
    """The batch's reply once the code has returned, or the error it stopped with."""
    if step.error is not None:
        return f"the run stops with an error: {step.error}"
    return f"the reply: {reply_text(step.reply)}"


agreement_text = step_words.agreement_text


def answer_words(frame: Frame) -> str:
    """What the handle returned or raised for the run: the batch verb's one answer, or each single call's."""
    verb = "extend_lock, call by call," if frame.step.mode == "singles" else "extend_locks"
    return f"{verb} {frame.answer}"


def members_text(frame: Frame) -> str:
    """The batch's members, their tokens and their fates: ``JOB01 token 1 (live), …``."""
    return ", ".join(f"{job} token {token} ({fate})" for (job, token), fate in
                     zip(frame.held, frame.fates, strict=True)) \
        or "no members"


def listed(items: Sequence[Any]) -> str:
    """Items joined with commas, or ``none``."""
    return ", ".join(map(str, items)) or "none"
