"""The typed meaning of one member's step: each check as a value, its verdict, why, and the course's names for them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True)
class Passed:
    """A check that passed, with the value it read (the row's attempts, or the member's score in active)."""

    value: bytes


@dataclass(frozen=True)
class Failed:
    """A check that failed, with the value it read (nil is None; a token check holds the attempts it compared)."""

    value: bytes | None


@dataclass(frozen=True)
class NotReached:
    """A check the code never made, because an earlier one failed or the call stopped first."""


@dataclass(frozen=True)
class Removed:
    """The check the guard-off what-if removed from the script (its ZSCORE guard): nothing checked it."""


@dataclass(frozen=True)
class Errored:
    """A check whose command got an error reply (WRONGTYPE, NOPERM), as the store worded it."""

    reply: str


Checked = Passed | Failed | NotReached | Removed | Errored
"""What one of a member's three checks found."""
NOT_REACHED = NotReached()
REMOVED = Removed()


class Reason(Enum):
    """Why a member failed its checks, with the names the course, the wire and the Python port give it."""

    GONE = "gone"
    STALE = "stale"
    NOT_ACTIVE = "not-active"

    @property
    def course(self) -> str:
        """What the course's ``extend_lock/5`` answers: ``{:error, :gone}``."""
        return f"{{:error, :{self.name.lower()}}}"

    @property
    def atom(self) -> str:
        """The course's atom: ``:gone``, ``:stale`` or ``:not_active``."""
        return f":{self.name.lower()}"

    @property
    def wire_class(self) -> str:
        """The single verb's error class on the wire: ``EMQGONE``, ``EMQSTALE`` or ``EMQNOTACTIVE``."""
        return "EMQ" + self.name.replace("_", "")

    @property
    def raised(self) -> Raised:
        """What the Python port's ``extend_lock`` raises for it."""
        return Raised[self.name]

    @classmethod
    def of_wire_class(cls, error: str | None) -> Reason | None:
        """The reason an error reply such as ``EMQSTALE …`` names, or None for any other reply."""
        first = error.split(" ", 1)[0] if error else ""
        return next((reason for reason in cls if reason.wire_class == first), None)


class Raised(Enum):
    """What the Python port's single verb raised for one call, by its exception class name."""

    GONE = "Gone"
    STALE = "Stale"
    NOT_ACTIVE = "NotActive"
    RESPONSE_ERROR = "ResponseError"

    @property
    def reason(self) -> Reason | None:
        """The refusal this exception stands for, or None for an error reply such as WRONGTYPE."""
        return Reason[self.name] if self.name in Reason.__members__ else None


class Verdict(Enum):
    """What a member's step came to."""

    RESCORED = "re-scored"
    """All three checks passed and the code wrote its new deadline."""
    FAILED = "failed"
    """A check failed: the id joins the batch's failed list (see the member's reason)."""
    LIVE = "live"
    """It passed the native read pass; the write pass re-scores it."""
    NOT_WRITTEN = "not-written"
    """It passed the read pass, but the command was refused, so nothing was written."""
    RAISED = "raised"
    """Its own single call raised (see the member's raised class and error)."""
    STOPPED = "stopped"
    """Its check hit an error reply, such as WRONGTYPE, that stops the whole batch."""
