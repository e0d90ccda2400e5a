"""What the wire pane says about a step's calls: the source line each is labelled with, which calls are the stepped
twin's stand-ins for what the module does in-process, and the notes a step carries."""

from __future__ import annotations

from ....engine.echo_mq.render import deadline, text
from ....engine.stepper import Call, Member, Step, Verdict
from .code_pane import module_line, plain_source

STAND_INS = {"acl": "permission check", "clock": "cached clock", "run-id": "run_id"}
"""What each kind of stand-in call takes the place of."""
_MODULE_MARKER = {"acl": "read-acl", "acl-write": "write-acl", "clock": "clock"}


def stand_in(call: Call) -> str | None:
    """The kind of in-process work a stepped native call stands in for, or None for a command the module makes."""
    if call.source != "native" or not call.sent:
        return None
    verb = call.sent[0].upper()
    if verb == b"ACL":
        return "acl"
    if verb == b"TIME":
        return "clock"
    if verb in (b"INFO", b"EMQ.EXTEND", b"MULTI", b"EXEC") or any(b"run-id:" in arg for arg in call.sent[1:]):
        return "run-id"
    return None


def call_label(call: Call, server: bool) -> str:
    """``lua:22``, ``native:120``, or on a server, where the code pane shows the C module, ``module:307``."""
    if call.source != "native" or not server:
        return f"{call.source}:{call.line}"
    line = module_line(call.line)
    if line is None:
        kind = stand_in(call)
        if kind == "acl" and b"HSET" in (arg.upper() for arg in call.sent):
            kind = "acl-write"
        marker = _MODULE_MARKER.get(kind or "")
        line = plain_source("module").markers.get(marker) if marker else None
    return f"module:{line}" if line is not None else f"native:{call.line}"


def legend(kinds: list[str], verb: str) -> str:
    """The line that says what the step's stand-in calls are, for the native command ``verb`` the step runs."""
    named = [STAND_INS[k] for k in dict.fromkeys(kinds)]
    return (f"≈ stand-in{'s' if len(named) > 1 else ''} for the module's in-process {' and '.join(named)}, "
            f"not sent by {verb}")


PASSED = (Verdict.RESCORED, Verdict.LIVE, Verdict.NOT_WRITTEN)
"""The verdicts of a member that passed all three checks."""


def _lapsed(member: Member, now: int | None) -> int | None:
    """How many ms ago ``member``'s lease ran out, if it had when its ZSCORE found it."""
    if now is None or member.verdict not in PASSED or member.score is None:
        return None
    try:
        score = int(float(text(member.score)))
    except ValueError:
        return None
    return now - score if score < now else None


def lapsed_notes(step: Step) -> list[str]:
    """A note for the member this step checked whose lease had already run out and still passed."""
    if step.index == 0 or step.index > len(step.members):
        return []
    member = step.members[step.index - 1]
    ago = _lapsed(member, step.now)
    if ago is None:
        return []
    return [f"{member.id}'s lease ran out {ago} ms ago (in active at {deadline(member.score, step.now)}), yet it "
            "passes: the check is membership of active, not the deadline, and no reaper has moved it back to "
            "pending yet"]


def lapsed(member: Member, now: int | None) -> bool:
    """True when ``member`` passed its membership check with a deadline already behind ``now``."""
    return _lapsed(member, now) is not None
