"""Predict before you see: a learner's guess per member, and the check that really decided the member."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from .model import Member
from .outcome import Reason, Verdict


class Check(StrEnum):
    """What decided a member, as the predict keys offer it."""

    RESCORED = "re-scored"
    NO_ROW = "no row"
    STALE = "stale token"
    NOT_ACTIVE = "not in active"
    WRONGTYPE = "WRONGTYPE"
    REFUSED = "refused"

    @property
    def explains(self) -> str:
        """One line on why this check decides a member the way it does."""
        return _EXPLAINS[self]


_EXPLAINS = {
    Check.RESCORED: "all three checks passed (the row exists, attempts equals the token, the id is in active), so "
                    "it was re-scored to now + lease",
    Check.NO_ROW: "HGET of the row's attempts is nil: the job's row does not exist",
    Check.STALE: "the row's attempts differ from the caller's token: the job was claimed again since",
    Check.NOT_ACTIVE: "ZSCORE finds no score in active: the reaper moved the job back to pending, though attempts "
                      "still match",
    Check.WRONGTYPE: "the row is not a hash, so HGET answers WRONGTYPE and the whole call stops there",
    Check.REFUSED: "the command was refused (WRONGTYPE or NOPERM on some row): EMQ.EXTENDS writes nothing at all",
}
_BY_REASON = {Reason.GONE: Check.NO_ROW, Reason.STALE: Check.STALE, Reason.NOT_ACTIVE: Check.NOT_ACTIVE}


def choices(wire: int) -> tuple[Check, ...]:
    """The guesses offered, in key order (``1`` first): on both wires a WRONGTYPE row stops the batch; only wire 6
    refuses the whole command, leaving even the members that passed unwritten."""
    base = (Check.RESCORED, Check.NO_ROW, Check.STALE, Check.NOT_ACTIVE, Check.WRONGTYPE)
    return (*base, Check.REFUSED) if wire == 6 else base


def decided_by(member: Member) -> Check | None:
    """The check that decided ``member``, or None while its verdict is not known yet."""
    verdict = member.verdict
    if verdict in (Verdict.RESCORED, Verdict.LIVE):
        return Check.RESCORED
    if verdict is Verdict.NOT_WRITTEN:
        return Check.REFUSED
    if verdict in (Verdict.FAILED, Verdict.RAISED) and member.reason is not None:
        return _BY_REASON[member.reason]
    if verdict in (Verdict.STOPPED, Verdict.RAISED):
        return Check.WRONGTYPE if (member.error or "").startswith("WRONGTYPE") else Check.REFUSED
    return None


@dataclass(frozen=True)
class Prediction:
    """One guess: which run, which member, what the learner said, at which step."""

    run: str
    index: int
    job_id: str
    guess: Check
    step: int


@dataclass(frozen=True)
class Judged:
    """A guess beside what the store decided; ``right`` is None while the member has no verdict."""

    prediction: Prediction
    actual: Check | None

    @property
    def right(self) -> bool | None:
        return None if self.actual is None else self.actual is self.prediction.guess


class Predictions:
    """Every guess, by run and member; stepping back in a run keeps them (a guess is made once per member)."""

    def __init__(self) -> None:
        self._runs: dict[str, dict[int, Prediction]] = {}

    def guess(self, run: str, member: Member, guess: Check, step: int) -> Prediction:
        """Record ``guess`` for ``member`` in ``run``, unless it has one already (that one stands)."""
        made = self._runs.setdefault(run, {})
        if member.index not in made:
            made[member.index] = Prediction(run, member.index, member.id, guess, step)
        return made[member.index]

    def of(self, run: str, index: int) -> Prediction | None:
        """The guess for member ``index`` in ``run``, if one was made."""
        return self._runs.get(run, {}).get(index)

    def judge(self, run: str, members: Sequence[Member]) -> tuple[Judged, ...]:
        """Each guess of ``run`` beside the check that decided its member, as ``members`` stand now."""
        return tuple(Judged(p, decided_by(members[p.index])) for _, p in sorted(self._runs.get(run, {}).items()))

    def score(self, run: str, members: Sequence[Member]) -> tuple[int, int]:
        """(right, judged so far) for ``run``: the header's ``predicted K/N``."""
        judged = [j for j in self.judge(run, members) if j.right is not None]
        return sum(1 for j in judged if j.right), len(judged)
