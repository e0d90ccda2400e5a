"""What one step of a stepped batch shows: plain frozen data, no I/O."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .lua_locals import BRIEF, NO_CALL, NO_LOCALS, Local, Locals
from .outcome import NOT_REACHED, Checked, Failed, Passed, Raised, Reason, Verdict

Reply = object
"""A raw reply as redis-py returns it (bytes, int, None, a list of replies) or the error it raised."""


@dataclass(frozen=True, slots=True)
class Call:
    """One command the running code sent to the store, from which source line, and its raw reply."""

    source: str
    line: int
    sent: tuple[bytes, ...]
    reply: Reply
    refused_stand_in: bool = False
    """True for a stand-in probe (ACL WHOAMI, ACL DRYRUN) the server would not let this user run: the step's note
    says what could not be checked and why, so no view shows it as a refusal."""


@dataclass(frozen=True, slots=True)
class Member:
    """One (id, token) pair of the batch and what its checks found, once its step has run."""

    index: int
    id: str
    token: str
    ran: bool = False
    row: Checked = NOT_REACHED
    """The row check, ``HGET <row> attempts``: passed with the attempts read, failed on nil, or an error reply."""
    match: Checked = NOT_REACHED
    """The token check: the attempts read are the caller's token (passed) or not (failed, with the attempts)."""
    active: Checked = NOT_REACHED
    """The active check, ``ZSCORE active <id>``: passed with the score, failed on nil, or removed (guard off)."""
    verdict: Verdict | None = None
    """What the step came to; None while the member waits."""
    reason: Reason | None = None
    """Why a ``failed`` or ``raised`` member was refused: gone, stale or not-active."""
    new_score: int | None = None
    """What was written: the deadline the code re-scored the member to."""
    epoch: bytes | None = None
    """What else was written: the ``lease_epoch`` the native code stamped on the row (wire 6; the scripts stamp
    none)."""
    now: int | None = None
    """The clock read of this member's own call (singles); a batch's members share ``Step.now`` and leave it None."""
    error: str | None = None
    """The error reply this member's own call or check got, as the store worded it (``EMQSTALE …``)."""
    raised: Raised | None = None
    """What the handle raised for this member's single call."""

    @property
    def error_class(self) -> str | None:
        """The first word of ``error``, such as ``EMQSTALE`` or ``WRONGTYPE``."""
        return self.error.split(" ", 1)[0] if self.error else None

    @property
    def checks(self) -> tuple[Checked, Checked, Checked]:
        """The three checks in the order the code makes them: row, token, active."""
        return (self.row, self.match, self.active)

    @property
    def attempts(self) -> bytes | None:
        """The attempts the row check read, or None (nil, an error, or not read)."""
        return self.row.value if isinstance(self.row, Passed | Failed) else None

    @property
    def score(self) -> bytes | None:
        """The score the active check read, or None (nil, not read, or removed)."""
        return self.active.value if isinstance(self.active, Passed) else None


@dataclass(frozen=True, slots=True)
class Before:
    """What a driver reads of the step before the one it runs: its index, the members and failed ids as it left
    them, and its clock read."""

    index: int
    members: Sequence[Member]
    failed: Sequence[str]
    now: int | None


@dataclass(frozen=True, slots=True)
class Step:
    """The state after a step: the code that ran, what it sent, and the values in play."""

    index: int
    count: int
    wire: int
    title: str
    source: str
    """Which code ran: ``handle`` (jobs.py), ``lua`` (a Lua script) or ``native`` (native.py)."""
    lines: tuple[int, ...]
    """Every source line this step executed, in order; the last is the highlighted one."""
    calls: tuple[Call, ...]
    members: Sequence[Member]
    """Every member as it stood after this step (a view shared along the run, not a copy)."""
    failed: Sequence[str]
    """The ids that joined failed so far, in input order."""
    now: int | None = None
    lease_ms: int = 0
    command: tuple[bytes, ...] = ()
    """The batch command as the handle sends it (EVALSHA … or EMQ.EXTENDS …)."""
    reply: Reply = None
    """The batch's reply, once the code has returned."""
    error: str | None = None
    """The error that ended the run, as the store worded it."""
    done: bool = False
    changed: frozenset[bytes] = field(default_factory=frozenset)
    """Keys this step wrote."""

    focus: int | None = None
    """The line to highlight: the last executed line that carries an ``@marker``."""
    notes: tuple[str, ...] = ()
    """What the learner should know about how this step ran, such as a check the stepped code could not make."""
    code: str = ""
    """The file that code is in: ``jobs.py``, ``extend_locks.lua``, ``extend_lock.lua``, ``extend_locks_no_guard.lua``
    or ``native.py``."""
    mode: str = "batch"
    """How the held list runs: ``batch``, ``singles`` or ``guard-off`` (see stepper.modes)."""
    round_trips: int = 0
    """Client commands sent so far: one for a batch, one per call for singles."""
    events: tuple[Event, ...] = ()
    """What the reaper did inside this step, in order with the holder's call."""
    clocks: Sequence[int] = ()
    """Each single call's own clock read so far, in call order (a batch leaves it empty and reads ``now`` once)."""
    raised: Sequence[int] = ()
    """The indices of the members whose own single call raised so far, in call order."""
    locals: tuple[Locals, ...] = ()
    """The script's locals at each call line this step sent from (and at its return), in order; Lua code only."""

    @property
    def script_locals(self) -> tuple[Local, ...]:
        """The locals at this step's last call line (or return), each marked changed when it changed at one of this
        step's call lines (since the step before's last)."""
        if not self.locals:
            return ()
        changed = set().union(*(frame.changed for frame in self.locals))
        return tuple(Local(name, value, name in changed) for name, value in self.locals[-1].pairs)

    @property
    def no_locals(self) -> str:
        """Why this step shows no Lua locals, or empty when it has them."""
        return "" if self.locals else NO_LOCALS.get(self.source, NO_CALL)

    @property
    def no_locals_brief(self) -> str:
        """``no_locals`` in fewer words, for a pane with one row."""
        return "" if self.locals else BRIEF.get(self.source, BRIEF[""])

    @property
    def shown_calls(self) -> tuple[Call, ...]:
        """The calls a view lists: every one but a refused stand-in probe (the step's note stands for it)."""
        return tuple(call for call in self.calls if not call.refused_stand_in)

    @property
    def clock_reads(self) -> Sequence[int]:
        """Every clock read so far, in call order: the batch's one ``now``, or each single call's own."""
        if self.clocks:
            return self.clocks
        return () if self.now is None else (self.now,)

    @property
    def spread(self) -> int:
        """Milliseconds between the earliest and the latest clock read (0 for a batch: it reads the clock once)."""
        reads = list(self.clock_reads)
        return max(reads) - min(reads) if reads else 0


@dataclass(frozen=True)
class Event:
    """One move on the race timeline: the holder's command or the reaper's move, and what the store said."""

    actor: str
    """``holder`` or ``reaper``."""
    kind: str
    """``sends``, ``returns`` or ``call`` (holder); ``waits`` or ``lands`` (reaper)."""
    step: int
    """The step on whose screen it happened (0 is the handle)."""
    text: str
    job_id: str | None = None
    moved: bool | None = None
    """For the reaper's landing: True when it moved the member to pending, False when it found it extended."""


@dataclass(frozen=True)
class Agreement:
    """The stepped run checked against the same batch run atomically from the same start."""

    wire: int
    command: tuple[bytes, ...]
    stepped_reply: Reply
    atomic_reply: Reply
    stepped_now: int | None
    atomic_now: int | None
    rescored: tuple[str, ...]
    agree: bool
    differences: tuple[str, ...]
