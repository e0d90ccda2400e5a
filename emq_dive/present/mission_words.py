"""A mission's goal drawn as the store pane and the replies would show it once met, for every view alike."""

from __future__ import annotations

from ..course.mission_goals import AnswerGoal, MemberGoal, Mission, SentGoal, Stage

_ERRORS = {"none": "answers (no error)"}


def _member(goal: MemberGoal) -> list[str]:
    lines = []
    if goal.in_active is not None:
        lines.append(f"  active    {'X  a score (a lease)' if goal.in_active else 'X  absent'}")
    if goal.in_pending is not None:
        lines.append(f"  pending   {'[… X …]' if goal.in_pending else 'X absent'}")
    if goal.row is not None or goal.field or goal.without:
        parts = ["a hash" if goal.row != "none" else "no row"]
        if goal.field:
            parts.append(f"{goal.field} set")
        if goal.without:
            parts.append(f"no {goal.without}")
        lines.append(f"  job:X     {' · '.join(parts)}")
    verdict = []
    if goal.verdict is not None:
        verdict.append(goal.verdict.value)
    if goal.reason is not None:
        verdict.append(f"at the {'row' if goal.reason.value == 'gone' else goal.reason.value} check "
                       f"({goal.reason.value})")
    if goal.raised is not None:
        verdict.append(f"its call raises {goal.raised.value}")
    if goal.reaped:
        verdict.append("after the reaper's landing moved it")
    if goal.token_above:
        verdict.append("its token is above the attempts")
    if verdict:
        lines.append(f"  step      X {', '.join(verdict)}")
    return lines


def _answer(goal: AnswerGoal) -> str:
    parts = []
    if goal.raises is not None:
        parts.append(f"raises {goal.raises.value}")
    if goal.error is not None:
        parts.append(_ERRORS.get(goal.error, f"raises {goal.error}"))
    if goal.wrote is not None:
        parts.append("writes" if goal.wrote else "writes nothing")
    if goal.unpaired:
        parts.append("sent with a trailing id and no token")
    if goal.failed_in:
        parts.append(f"for the id {goal.failed_in} returns in failed")
    return f"  {goal.verb:<13}→ {', '.join(parts)}"


def _sent(goal: SentGoal) -> str:
    how = "" if goal.multi is None else " in one MULTI … EXEC" if goal.multi else " apart, one after the other"
    line = f"  {goal.count} × {goal.verb or 'EVALSHA or EMQ.EXTENDS'}{how}"
    if goal.deadlines:
        line += f" → deadlines in active: {goal.deadlines}"
    if goal.token_string:
        line += " → the reply fails X, sent with token 01 where job:X attempts is 1"
    return line


def _stage(stage: Stage) -> list[str]:
    lines = []
    run = [f"mode {stage.mode}" if stage.mode else "", f"wire {stage.wire}" if stage.wire else "",
           "run to the end" if stage.done else "", "your own script" if stage.script == "yours" else ""]
    if any(run):
        lines.append("the run: " + ", ".join(r for r in run if r))
    if stage.deadlines_differ:
        lines.append(f"  active    {stage.deadlines_differ} members, each its own deadline (now₁+lease, now₂+lease, …)")
    if stage.one_deadline:
        lines.append("  active    every re-scored member at one deadline, now+lease")
    if stage.unread:
        lines.append(f"  wire      no HGET … {stage.unread} in the whole run")
    if stage.predicted_all:
        lines.append("  predicted N/N")
    for index, member in enumerate(stage.members):
        lines.append(f"the store, member X{'' if len(stage.members) == 1 else index + 1}:")
        lines.extend(_member(member))
    if stage.answers:
        lines.append("the replies:")
        lines.extend(_answer(a) for a in stage.answers)
    if stage.sent is not None:
        lines.append("the console:")
        lines.append(_sent(stage.sent))
    return lines


def goal_lines(mission: Mission) -> tuple[str, ...]:
    """The goal, then each stage as the store pane or the replies would show it once it holds."""
    lines = [mission.goal]
    for index, stage in enumerate(mission.stages, 1):
        if len(mission.stages) > 1:
            lines.append(f"part {index}:")
        lines.extend(_stage(stage))
    return tuple(lines)


def list_line(number: int, mission: Mission, done: bool, skipped: str) -> str:
    """One line of the missions list: its number, tick, title and the key that gets there (or why it is skipped)."""
    tick = "✓" if done else "·"
    tail = f"skipped here: {skipped}" if skipped else f"route {mission.route.value}"
    return f"{number:>2} {tick} {mission.title} — {mission.goal} ({tail})"
