"""The three checks as typed values, made once from what the stepped code read, for every driver alike."""

from __future__ import annotations

from ..echo_mq.connector import error_text
from .model import Member
from .outcome import NOT_REACHED, REMOVED, Checked, Errored, Failed, Passed, Reason


def _value(reply: object) -> bytes | None:
    return reply if isinstance(reply, bytes) else None if reply is None else str(reply).encode()


def checked(attempts: object, token_ok: bool | None, score: object, score_read: bool,
            removed: bool = False) -> tuple[Checked, Checked, Checked]:
    """Row, token and active checks from the replies read: ``attempts`` (HGET), whether they are the token (None
    when not compared), ``score`` (ZSCORE) if ``score_read``; ``removed`` for the what-if that has no ZSCORE."""
    gone_active: Checked = REMOVED if removed else NOT_REACHED
    if isinstance(attempts, Exception):
        return Errored(error_text(attempts)), NOT_REACHED, gone_active
    if attempts is None:
        return Failed(None), NOT_REACHED, gone_active
    read = _value(attempts) or b""
    if token_ok is None:
        return Passed(read), NOT_REACHED, gone_active
    if not token_ok:
        return Passed(read), Failed(read), gone_active
    match: Checked = Passed(read)
    if removed:
        return Passed(read), match, REMOVED
    if not score_read:
        return Passed(read), match, NOT_REACHED
    if isinstance(score, Exception):
        return Passed(read), match, Errored(error_text(score))
    return Passed(read), match, Failed(None) if score is None else Passed(_value(score) or b"")


def failed_reason(member: Member) -> Reason | None:
    """Which check refused the member: the first that failed, as a Reason (None when none failed)."""
    return refusal(member.checks)


_REASONS = tuple(Reason)
"""The reasons in the order of the checks that give them (iterating the Enum itself is slow, and this runs once
a member)."""


def refusal(checks: tuple[Checked, Checked, Checked]) -> Reason | None:
    """The first of the row, token and active checks that failed, as a Reason (None when none failed)."""
    for check, reason in zip(checks, _REASONS, strict=True):
        if isinstance(check, Failed):
            return reason
    return None
