"""Whether a mission's stage holds: its goal checked against the step model, the store's read and verbs' answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..course.mission_goals import AnswerGoal, MemberGoal, SentGoal, Stage
from ..engine.echo_mq.scripts import yours_by_file
from ..engine.fates import Answer
from ..engine.fates.wire_compare import error_class
from ..engine.stepper.model import Call, Member
from ..engine.stepper.outcome import Failed, Verdict
from .session import Frame

_READS = (b"HGET", b"HMGET")
_RAW = (b"EVALSHA", b"EMQ.EXTENDS", b"EMQ.EXTEND")


@dataclass(frozen=True)
class Sent:
    """Commands the learner sent (the console): each command, whether they went in one MULTI (or in sends one
    after another), and the deadline each wrote in active, read back from the store."""

    commands: tuple[tuple[bytes, ...], ...]
    multi: bool = False
    deadlines: tuple[int | None, ...] = ()
    """Each command's deadline, in order: the score it wrote in active, None for one that wrote none or was not
    read back."""
    replies: tuple[object, ...] = ()
    """Each command's raw reply (a list of failed ids, an int, an error), in order."""


@dataclass(frozen=True)
class Seen:
    """What one action of the learner left to check: a frame, the run's calls, verbs' answers or a console send."""

    frame: Frame | None = None
    run_calls: tuple[Call, ...] = ()
    """Every call of the frame's run up to its step, in order."""
    answers: tuple[Answer, ...] = ()
    """A fate run's four verbs (and raw rows), or a wire compare's two."""
    sent: Sent | None = None


def holds(stage: Stage, seen: Seen) -> bool:
    """True when every condition of ``stage`` holds in ``seen``."""
    if stage.asks_answers:
        return bool(seen.answers) and all(_answer_holds(goal, seen.answers) for goal in stage.answers)
    if stage.sent is not None:
        return seen.sent is not None and _sent_holds(stage.sent, seen.sent, seen.frame)
    frame = seen.frame
    if frame is None:
        return False
    step = frame.step
    if stage.mode is not None and step.mode != stage.mode:
        return False
    if stage.wire is not None and frame.wire != stage.wire:
        return False
    if stage.done is not None and step.done != stage.done:
        return False
    if stage.script == "yours" and not _yours(step.code):
        return False
    scores = [m.new_score for m in step.members if m.verdict is Verdict.RESCORED and m.new_score is not None]
    if stage.deadlines_differ is not None and len(set(scores)) < stage.deadlines_differ:
        return False
    if stage.one_deadline is not None and (len(scores) < 2 or (len(set(scores)) == 1) != stage.one_deadline):
        return False
    if stage.predicted_all is not None and _all_right(frame) != stage.predicted_all:
        return False
    if stage.unread is not None and (not step.done or _reads(seen.run_calls, stage.unread.encode())):
        return False
    return all(any(_member_holds(goal, member, frame) for member in step.members) for goal in stage.members)


def _yours(code: str) -> bool:
    """True when ``code`` names a script the learner edited (the engine's own record of it), not a course file."""
    script = yours_by_file(code)
    return script is not None and script.yours


def _reads(calls: Sequence[Call], field: bytes) -> bool:
    """True when a call reads ``field`` of a row (HGET or HMGET naming it, or HGETALL)."""
    for call in calls:
        verb = call.sent[0].upper() if call.sent else b""
        if verb == b"HGETALL" or (verb in _READS and field in call.sent[2:]):
            return True
    return False


def _row_fields(frame: Frame, job: str) -> tuple[str | None, dict[str, str | None]]:
    row = next((r for r in frame.view.rows if r.id == job), None)
    if row is None:
        return None, {}
    return row.kind, {name: value for name, value in row.fields if value is not None}


def _member_holds(goal: MemberGoal, member: Member, frame: Frame) -> bool:
    if not member.ran:
        return False
    checks = (
        goal.verdict is None or member.verdict is goal.verdict,
        goal.reason is None or member.reason is goal.reason,
        goal.raised is None or member.raised is goal.raised,
        goal.token_above is None or _token_above(member) == goal.token_above,
    )
    if not all(checks):
        return False
    view = frame.view
    if goal.in_active is not None:
        entry = next((a for a in view.active if a.id == member.id), None)
        if entry is None or (entry.score is not None) != goal.in_active:
            return False
    if goal.in_pending is not None and (member.id in view.pending) != goal.in_pending:
        return False
    kind, fields = _row_fields(frame, member.id)
    if goal.row is not None and kind != goal.row:
        return False
    if goal.field is not None and goal.field not in fields:
        return False
    if goal.without is not None and (kind is None or goal.without in fields):
        return False
    if goal.reaped is not None:
        reaped = any(e.actor == "reaper" and e.kind == "lands" and e.moved and e.job_id == member.id
                     for e in (frame.played.race if frame.played else ()))
        if reaped != goal.reaped:
            return False
    return True


def _token_above(member: Member) -> bool:
    """True when the token check failed on a token larger than the attempts it compared."""
    if not isinstance(member.match, Failed) or member.match.value is None:
        return False
    try:
        return int(member.token) > int(member.match.value)
    except ValueError:
        return False


def _all_right(frame: Frame) -> bool:
    """True when the run is over and every member's verdict was guessed, and guessed right."""
    played = frame.played
    if played is None or not frame.step.done:
        return False
    right, judged = played.score
    return judged == len(frame.step.members) and right == judged > 0


def _batch_argv(answer: Answer) -> tuple[bytes, ...] | None:
    """The arguments after the keys of the answer's batch command, or None when it sent none."""
    for exchange in reversed(answer.exchanges):
        sent = tuple(bytes(part) if not isinstance(part, bytes) else part for part in exchange.sent)
        verb = sent[0].upper() if sent else b""
        at = 2 if verb in (b"EVALSHA", b"EVAL") else 1 if verb == b"EMQ.EXTENDS" else None
        if at is None or len(sent) <= at:
            continue
        try:
            numkeys = int(sent[at])
        except ValueError:
            return None
        return sent[at + 1 + numkeys:]
    return None


def _answer_holds(goal: AnswerGoal, answers: Sequence[Answer]) -> bool:
    return any(_one_answer(goal, answer, answers) for answer in answers if answer.verb == goal.verb)


def _one_answer(goal: AnswerGoal, answer: Answer, answers: Sequence[Answer]) -> bool:
    if answer.unavailable:
        return False
    if goal.error is not None:
        got = error_class(answer) if answer.refused else None
        if (got or "none") != goal.error:
            return False
    if goal.raises is not None and (not answer.refused or type(answer.value).__name__ != goal.raises.value):
        return False
    if goal.wrote is not None and bool(answer.writes) != goal.wrote:
        return False
    if goal.unpaired is not None:
        argv = _batch_argv(answer)
        if argv is None or (len(argv) % 2 == 0) != goal.unpaired:
            return False
    if goal.failed_in is not None:
        job = answer.job
        if not job:
            return False
        failed = [a.value for a in answers if a.verb == goal.failed_in and isinstance(a.value, list)]
        if not any(job in [x.decode() if isinstance(x, bytes) else str(x) for x in ids] for ids in failed):
            return False
    return True


def _sent_holds(goal: SentGoal, sent: Sent, frame: Frame | None) -> bool:
    wanted = _RAW if goal.verb is None else (goal.verb.encode(),)
    picked = [i for i, command in enumerate(sent.commands) if command and command[0].upper() in wanted]
    if len(picked) < goal.count or (goal.multi is not None and sent.multi != goal.multi):
        return False
    if goal.deadlines is not None:
        deadlines = [sent.deadlines[i] if i < len(sent.deadlines) else None for i in picked[-goal.count:]]
        if None in deadlines:
            return False
        same = len(set(deadlines)) == 1
        if same != (goal.deadlines == "same"):
            return False
    if goal.token_string is not None:
        found = frame is not None and any(_sent_token_string(sent.commands[i], sent.replies[i], frame)
                                          for i in picked if i < len(sent.replies))
        if found != goal.token_string:
            return False
    return True


def _sent_token_string(command: tuple[bytes, ...], reply: object, frame: Frame) -> bool:
    """True when ``reply`` fails an id that ``command`` sent with a token equal to the row's attempts (as the store
    pane read them) as a number but not as a string."""
    verb = command[0].upper()
    at = 2 if verb == b"EVALSHA" else 1
    try:
        argv = command[at + 1 + int(command[at]):]
    except (IndexError, ValueError):
        return False
    failed = {x.decode() if isinstance(x, bytes) else str(x) for x in reply} if isinstance(reply, list) else set()
    pairs = zip(argv[1::2], argv[2::2], strict=False)
    attempts = {row.id: dict(row.fields).get("attempts") for row in frame.view.rows}
    for job, token in pairs:
        name, sent_token = job.decode(errors="replace"), token.decode(errors="replace")
        held = attempts.get(name)
        if name in failed and held is not None and held != sent_token:
            try:
                if int(held) == int(sent_token):
                    return True
            except ValueError:
                continue
    return False
