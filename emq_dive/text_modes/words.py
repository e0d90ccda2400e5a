"""The words both text modes say about a frame: each check and its verdict, the shared now, failed, the check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..render import clock_note, relative, reply_text, text, wire_text
from ..session import Frame
from ..stepper import NOT_EVALUATED, Agreement, Call, Member, Step
from ..stepper.timeline import is_write

SOURCES = {"handle": "jobs.py", "lua": "extend_locks.lua", "native": "native.py"}
"""The file each step's ``source`` names."""


def deadline(score: object, now: int | None) -> str:
    """A score with its distance from the shared ``now``: ``1700000030000 (now+30000)``."""
    try:
        number = int(float(text(score)))
    except ValueError:
        return text(score)
    return f"{number} ({relative(number, now)})" if now is not None else str(number)


def checks(member: Member, now: int | None) -> tuple[str, str, str, str]:
    """The row, token and active checks as read, in the order the code makes them, and the member's verdict."""
    if not member.ran:
        return ("", "", "", "waiting")
    att = member.attempts
    if att == NOT_EVALUATED:
        row = NOT_EVALUATED
    elif member.outcome == "error":
        row = f"error: {text(att)}"
    elif att is None:
        row = "nil, fails"
    else:
        row = f'"{text(att)}", passes'
    if member.token_ok == NOT_EVALUATED:
        token = NOT_EVALUATED
    elif member.token_ok:
        token = f'"{text(att)}" is the token "{member.token}", passes'
    else:
        token = f'"{text(att)}" is not the token "{member.token}", fails'
    if member.score == NOT_EVALUATED:
        active = NOT_EVALUATED
    elif member.score is None:
        active = "nil, fails"
    else:
        active = f"{deadline(member.score, now)}, passes"
    verdicts = {"re-scored": f"re-scored to {deadline(member.new_score, now)}",
                "failed": f"joins failed ({member.reason})", "live": "live: re-scored in the write pass",
                "error": "the run stops here"}
    return (row, token, active, verdicts.get(member.outcome, ""))


def current_member(step: Step) -> Member | None:
    """The member whose checks this step ran, or None for the handle and wire 6's write pass."""
    if step.index == 0 or step.index > len(step.members):
        return None
    return step.members[step.index - 1]


def now_text(step: Step) -> str:
    """The shared ``now`` as the step bar says it."""
    if step.now is None:
        return "now: not read yet (the first step reads TIME once for the whole batch)"
    return f"now = {step.now}, read once; every re-score is now+{step.lease_ms}"


def failed_text(step: Step) -> str:
    """``failed after member k: JOB02, JOB04`` as the run has built it so far."""
    listed = ", ".join(step.failed) or "none"
    if step.index == 0:
        return "failed: none yet, nothing sent"
    head = "failed" if step.done else f"failed after member {min(step.index, len(step.members))}"
    return f"{head}: {listed}"


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


def agreement_text(agreement: Agreement) -> str:
    """What the agreement check found, in the step bar's words."""
    if not agreement.agree:
        return "the stepped and atomic runs differ: " + "; ".join(agreement.differences)
    reply = agreement.atomic_reply
    shown = reply if isinstance(reply, str) else reply_text(reply)
    clock = clock_note(agreement.stepped_now, agreement.atomic_now)
    return f"the atomic run agrees: the same store{clock}, reply {shown}"


def members_text(frame: Frame) -> str:
    """The batch's members, their tokens and their fates: ``JOB01 token 1 (live), …``."""
    return ", ".join(f"{job} token {token} ({fate})" for (job, token), fate in
                     zip(frame.held, frame.fates, strict=True)) \
        or "no members"


def listed(items: Sequence[Any]) -> str:
    """Items joined with commas, or ``none``."""
    return ", ".join(map(str, items)) or "none"
