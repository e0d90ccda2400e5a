"""A step's meaning in words: every view (TUI, plain, transcript) says a member's checks, verdict and the
agreement from here, so no two views word the same fact apart."""

from __future__ import annotations

from typing import Literal

from ..engine.echo_mq.render import MAX_ITEMS, clock_note, deadline, text
from ..engine.stepper.model import Agreement, Member, Step
from ..engine.stepper.outcome import Errored, NotReached, Passed, Removed, Verdict

Role = Literal["ok", "bad", "note", "dim", ""]
"""A text's style role, as the views name them: ``ok``, ``bad``, ``note``, ``dim`` or empty."""

VERDICT_WORDS: dict[Verdict, tuple[str, ...]] = {
    Verdict.RESCORED: ("re-scored to {deadline}", "re-scored {deadline}"),
    Verdict.FAILED: ("joins failed ({reason})", "failed: {reason}"),
    Verdict.LIVE: ("live: re-scored in the write pass", "live: write pass re-scores", "live: re-scored later",
                    "live: write pass"),
    Verdict.NOT_WRITTEN: ("not written: the command was refused", "not written: command refused",
                          "not written: refused"),
    Verdict.RAISED: ("raises {raised} ({error_class})", "raises {raised}"),
    Verdict.STOPPED: ("the run stops here",),
}
"""Each verdict's words, longest first: a narrow cell shows the longest that fits."""
VERDICT_ROLES: dict[Verdict, Role] = {Verdict.RESCORED: "ok", Verdict.FAILED: "bad", Verdict.LIVE: "note",
                                      Verdict.NOT_WRITTEN: "dim", Verdict.RAISED: "bad", Verdict.STOPPED: "bad"}
WAITING = "waiting"
REMOVED_WORDS = "removed (what-if)"
NOT_REACHED_WORDS = "not evaluated"


def verdict_text(member: Member, now: int | None, width: int | None = None, tier: int = 0) -> tuple[str, Role]:
    """A member's verdict in the words every view says, and its role; within ``width`` cells where it can, in
    the ``tier``-th wording or a shorter one (a table gives every member of a verdict the same wording)."""
    if not member.ran:
        return WAITING, "dim"
    if member.verdict is None:
        return "", ""
    phrasings = _phrasings(member, member.verdict, now)
    if width is None:
        return phrasings[0], VERDICT_ROLES[member.verdict]
    return phrasings[_fit(phrasings, width, tier)], VERDICT_ROLES[member.verdict]


def verdict_tier(member: Member, now: int | None, width: int, tier: int = 0) -> int:
    """The index of the longest wording of the member's verdict, from ``tier`` on, that fits ``width`` cells (the
    last wording when none fits)."""
    return 0 if member.verdict is None else _fit(_phrasings(member, member.verdict, now), width, tier)


def _fit(phrasings: list[str], width: int, tier: int) -> int:
    last = len(phrasings) - 1
    return next((i for i in range(min(tier, last), last) if len(phrasings[i]) <= width), last)


def _phrasings(member: Member, verdict: Verdict, now: int | None) -> list[str]:
    values = {"deadline": deadline(member.new_score, now), "reason": member.reason.value if member.reason else "",
              "raised": member.raised.value if member.raised else "", "error_class": member.error_class or ""}
    return [p.format(**values) for p in VERDICT_WORDS[verdict]]


def check_text(member: Member, which: int, now: int | None, brief: bool = False) -> tuple[str, Role]:
    """Check ``which`` (0 row, 1 token, 2 active) as read: ``"3" ✓`` when ``brief`` (a table cell), else in
    words (``"3", passes``); the same facts either way."""
    check = member.checks[which]
    if isinstance(check, NotReached):
        return NOT_REACHED_WORDS, "dim"
    if isinstance(check, Removed):
        return ("removed" if brief else REMOVED_WORDS), "note"
    if isinstance(check, Errored):
        return (f"{check.reply.split(' ', 1)[0]} ✗" if brief else f"error: {check.reply}"), "bad"
    ok = isinstance(check, Passed)
    mark = (" ✓" if ok else " ✗") if brief else (", passes" if ok else ", fails")
    if check.value is None:
        return f"nil{mark}", "bad"
    read = text(check.value)
    if which == 1:
        said = (f'"{read}"{"=" if ok else "≠"}"{member.token}"' if brief else
                f'"{read}" {"is" if ok else "is not"} the token "{member.token}"')
    elif which == 2:
        said = deadline(check.value, now)
    else:
        said = f'"{read}"'
    return said + mark, "ok" if ok else "bad"


CHECKING = "checking this run: the same batch runs atomically from the same start…"
"""What a finished run says while its agreement check runs."""
BEFORE_CHECK = "after the last member: the same batch runs atomically, to check this run"
"""What a run says before its last member."""


def agreement_text(agreement: Agreement, width: int | None = None) -> str:
    """What the agreement check found, in the words every view says (the views add ✓ or ✗ before it); where the
    whole sentence is wider than ``width``, a shorter one that says the same (and a shortest, for 80 columns), so
    a bar keeps it on one row."""
    if not agreement.agree:
        return "the stepped and atomic runs differ: " + "; ".join(agreement.differences)
    stepped, atomic = agreement.stepped_now, agreement.atomic_now
    whole = f"the atomic run agrees: the same store, the same reply{clock_note(stepped, atomic)}"
    if width is None or len(whole) <= width or stepped is None or atomic is None:
        return whole
    clock = "same now" if atomic == stepped else f"its own now ({atomic - stepped:+d} ms)"
    short = f"the atomic run agrees: same store, same reply, {clock}"
    if len(short) <= width or atomic == stepped:
        return short
    return f"the atomic run agrees: same store, same reply, now {atomic - stepped:+d} ms"


def now_text(step: Step) -> str:
    """The clock read as every view says it: not read yet, the batch's one read, or a single call's own."""
    if step.now is None:
        return "now: not read yet (the first step reads TIME once for the whole batch)"
    once = "this call's own read; its re-score is" if step.mode == "singles" else "read once; every re-score is"
    return f"now = {step.now}, {once} now+{step.lease_ms}"


def failed_text(step: Step, width: int | None = None) -> str:
    """``failed after member k: [JOB02, JOB04]`` as the run has built it so far; singles build no failed list, so
    they name the raised calls instead. A long list shows its count and as much of its tail as fits ``width``
    cells (at most MAX_ITEMS ids), so the line never wraps as the list grows."""
    if step.index == 0:
        return "failed: [] · nothing sent yet"
    ran = min(step.index, len(step.members))
    if step.mode == "singles":
        head = "raised calls" if step.done else f"raised calls after call {ran}"
        ids = [f"{step.members[i].id} {raised_name(step.members[i])}" for i in step.raised]
    else:
        head = "failed" if step.done else f"failed after member {ran}"
        ids = list(step.failed)
    whole = f"{head}: [{', '.join(ids)}]" if len(ids) <= MAX_ITEMS else ""
    if whole and (width is None or len(whole) <= width):
        return whole
    tail = ids[-MAX_ITEMS:]
    while True:
        said = f"{head} ({len(ids)} ids): […, {', '.join(tail)}]"
        if width is None or len(said) <= width or len(tail) <= 1:
            return said
        tail.pop(0)


def raised_name(member: Member) -> str:
    """What a single call raised: ``Stale``, or ``ResponseError (WRONGTYPE)`` for an error reply."""
    if member.raised is None:
        return ""
    return member.raised.value if member.reason is not None else f"{member.raised.value} ({member.error_class})"
