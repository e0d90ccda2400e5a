"""A mission's goal as typed data: what the step model, the store or a verb's answer must show, no I/O."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..engine.stepper.outcome import Raised, Reason, Verdict


class Need(Enum):
    """What a store must be able to do for a mission to run on it."""

    NATIVE = "native"
    """It serves wire 6 (``EMQ.EXTENDS``)."""
    ACL = "acl"
    """It keeps ACL users and their key patterns (a restricted caller)."""
    REAL_SERVER = "real-server"
    """It is a Valkey or Redis server process (its cached command time, its own Lua)."""


class Route(Enum):
    """What the learner reaches a mission's goal with: the key the dive offers for it."""

    FATES = "f"
    SANDBOX = "e"
    SINGLES = "m"
    GUARD = "g"
    REAPER = "k"
    PREDICT = "p"
    WIRE = "w"
    CONSOLE = ":"
    EDITOR = "E"


@dataclass(frozen=True)
class MemberGoal:
    """Some member of the batch must show every field given (None asks nothing of it)."""

    verdict: Verdict | None = None
    reason: Reason | None = None
    raised: Raised | None = None
    row: str | None = None
    """The row's kind in the store: ``hash`` or ``none``."""
    in_active: bool | None = None
    in_pending: bool | None = None
    reaped: bool | None = None
    """True: the reaper's landing moved this member to pending during the run."""
    field: str | None = None
    """A field its row holds in the store, such as ``group`` or ``lease_epoch``."""
    without: str | None = None
    """A field its row does not hold."""
    token_above: bool | None = None
    """True: the token check failed on a token larger than the attempts it compared (equality, not order)."""


@dataclass(frozen=True)
class AnswerGoal:
    """Some answer of ``verb`` (a fate's run, a wire compare, a console send) must show every field given."""

    verb: str
    error: str | None = None
    """The error class it raised (``NOPERM``, ``ERR``, ``WRONGTYPE``), or ``none`` for an answer that returned."""
    raises: Raised | None = None
    wrote: bool | None = None
    unpaired: bool | None = None
    """True: it sent an (id) with no token after it."""
    failed_in: str | None = None
    """The verb whose failed list, in the same run, holds this answer's job."""


@dataclass(frozen=True)
class SentGoal:
    """Raw commands the learner sent (the console): how many of ``verb``, in one MULTI or apart, their deadlines, and
    what their replies show."""

    verb: str | None = None
    """A raw command name (``EVALSHA``, ``EMQ.EXTENDS``, ``EMQ.EXTEND``), or None for any of them."""
    count: int = 1
    multi: bool | None = None
    deadlines: str | None = None
    """``same`` or ``differ``: the scores they wrote in active."""
    token_string: bool | None = None
    """True: an id the reply failed was sent with a token equal to its row's attempts as a number, not as a
    string."""


@dataclass(frozen=True)
class Stage:
    """One state to reach: every condition given must hold in the same observation."""

    mode: str | None = None
    wire: int | None = None
    done: bool | None = None
    script: str | None = None
    """``yours``: the step ran the learner's edited script, not the course's."""
    deadlines_differ: int | None = None
    """At least this many re-scored members, each with its own deadline."""
    one_deadline: bool | None = None
    """True: every re-scored member shares one deadline."""
    predicted_all: bool | None = None
    """True: every member's verdict of the run was predicted right (predict mode)."""
    unread: str | None = None
    """A row field no command of the run reads (``group``)."""
    members: tuple[MemberGoal, ...] = ()
    answers: tuple[AnswerGoal, ...] = ()
    sent: SentGoal | None = None

    @property
    def asks_answers(self) -> bool:
        """True when the stage is about verbs' answers (a fate run, a wire compare), not the stepped run."""
        return bool(self.answers)


@dataclass(frozen=True)
class Start:
    """The state a mission starts from: the batch's fates, the run mode, the guard and the wire."""

    batch: tuple[str, ...] | None = None
    """None keeps the lesson's batch."""
    mode: str = "batch"
    guard_off: bool = False
    wire: int = 4


@dataclass(frozen=True)
class Mission:
    """One goal of the lesson, the learner's to reach with what the dive offers."""

    id: str
    title: str
    goal: str
    hint: str
    proves: str
    """The one sentence of the lesson the goal proves, verbatim."""
    route: Route
    stages: tuple[Stage, ...]
    start: Start = Start()
    needs: tuple[Need, ...] = ()
