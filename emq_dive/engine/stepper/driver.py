"""The seam between the stepper and one way a batch runs: a driver per mode and wire, chosen from a registry."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis

from ..echo_mq import scripts
from ..echo_mq.connector import Connector, raw, raw_pair
from ..stores.protocol import StoreLike
from .ahead import Lane
from .handle import Sent
from .lua_locals import Locals
from .lua_run import LuaRun, Pending
from .model import Before, Call, Member, Step
from .shared import Shared
from .timeline import UndoRead, is_write

WriteHook = Callable[[Sequence[bytes]], None]
"""Called with a write's arguments just before it is sent, so the undo log can note what it replaces."""
PairedRead = Callable[[Sequence[bytes]], UndoRead | None]
"""The read that notes what a write replaces, to send in the same round trip just before it (None: log it alone)."""
Interlude = Callable[[int], None]
"""Called by an atomic run with how many client commands it has sent so far, so a racing move can land there."""


class ReplayMismatch(RuntimeError):
    """Replaying recorded replies led the code to a different command than it sent before."""


@dataclass(frozen=True)
class Batch:
    """One batch as the handle sends it, and what a driver needs to run it against the store."""

    store: StoreLike
    script: scripts.Script
    keys: tuple[bytes, ...]
    argv: tuple[bytes, ...]
    held: tuple[tuple[str, int], ...]
    lease_ms: int
    before_write: WriteHook
    yours: Mapping[str, scripts.Script] = field(default_factory=dict)
    """The learner's edits, by the name of the course script each stands in for (``extend_locks``)."""
    screen: Callable[[Sequence[bytes]], None] | None = None
    """Raises for a command the stepped code may not send here (a key outside the dive's), before it is sent."""
    shared: Shared = field(default_factory=Shared, compare=False)
    """The run's one copy of each repeated argument and reply, so a big batch's calls stay small."""
    paired: PairedRead | None = None
    """The undo log's read for a write, sent with the write in one round trip (see Timeline.paired)."""
    lane: Lane = field(default_factory=Lane, compare=False)
    """Where the stepped code's commands go: a long move runs them ahead in pipelines (see ahead.Ahead)."""


@dataclass(frozen=True)
class Outcome:
    """What one step of a driver did: the code it ran, what it sent, and what the run now knows."""

    lines: tuple[int, ...]
    calls: tuple[Call, ...]
    now: int | None
    reply: Any = None
    error: str | None = None
    done: bool = False
    members: tuple[Member, ...] = ()
    """Members whose state this step changed, in the order it changed them."""
    failed: tuple[str, ...] = ()
    """Ids that joined the failed list in this step."""
    notes: tuple[str, ...] = ()
    round_trips: int = 0
    """Client commands this step stands for: 1 for a batch's first step and for each single call."""
    locals: tuple[Locals, ...] = ()
    """The script's locals at each call this step sent (and at its return), for Lua code."""


class Handle(Protocol):
    """How the handle shows a way of running: its first step's title and lines, and its answer to the run."""

    title: str

    def opening(self, sent: Sent, wire: int, queue: str, held: Sequence[tuple[str, int]],
                lease_ms: int) -> tuple[int, ...]:
        """The handle lines the first step shows, given the batch's capture ``sent`` (run once, traced: at 100,000
        members a capture costs about a second)."""
        ...

    def answer(self, wire: int, queue: str, held: Sequence[tuple[str, int]], lease_ms: int,
               end: Step) -> tuple[tuple[int, ...], Any]:
        """What the handle returns or raises for the finished run, and the lines it runs to get there."""
        ...


class Driver(Protocol):
    """Runs one batch a step at a time against the live store; every reply it reports came from the store."""

    wire: int
    source: str
    """Which code it steps, as the code pane names it: ``lua`` or ``native``."""
    code: str
    """The file of that code: ``extend_locks.lua``, ``extend_lock.lua``, ``extend_locks_no_guard.lua`` or
    ``native.py``."""
    command: tuple[bytes, ...]
    """The batch command as the handle sends it."""
    count: int
    """How many steps the batch takes after the handle."""
    one_command: bool
    """True when the whole held list is one command the server runs atomically (a racing move waits for it)."""
    handle: Handle
    """The handle's part: the batch verb once, or the single verb once per member."""

    def title(self, index: int, done: bool, error: str | None) -> str:
        """The heading of step ``index``."""
        ...

    def marked(self) -> Collection[int]:
        """The lines of the stepped code that carry an ``@marker``."""
        ...

    def start(self, recorded: Sequence[Call], position: int) -> None:
        """Begin a fresh run and bring it to step ``position`` by feeding it the replies ``recorded`` on the way."""
        ...

    def step(self, before: Before) -> Outcome:
        """Run the step after ``before`` against the store."""
        ...

    def atomic(self, between: Interlude) -> tuple[tuple[bytes, ...], Any]:
        """Run the held list unstepped (one command, or one per single call), calling ``between`` after each
        command (and with 0 before the first): what was sent first, and the reply or the error."""
        ...


DriverFactory = Callable[[Batch], Driver]
DRIVERS: dict[tuple[str, int], DriverFactory] = {}
"""Each driver by the mode and the wire it runs: ``("batch", 4)``, ``("singles", 6)``, …"""


class ModeRefused(ValueError):
    """A mode that does not run on the asked wire (or with the asked other mode); the message is for the learner."""


def register(wire: int, mode: str = "batch") -> Callable[[DriverFactory], DriverFactory]:
    """Make a driver class the one that runs ``mode`` on ``wire``."""
    def add(factory: DriverFactory) -> DriverFactory:
        DRIVERS[(mode, wire)] = factory
        return factory
    return add


def send_to(store: StoreLike, before_write: WriteHook | None, source: str, line: int, args: Sequence[bytes],
            shared: Shared | None = None, paired: PairedRead | None = None) -> Call:
    """Send one command the stepped code asked for to the live store, recording first what a write replaces: the
    one way every driver and the twin's host send (an error reply comes back as the reply)."""
    undo = _undo_read(before_write, paired, args)
    if undo is not None:
        old, reply = raw_pair(store.client, undo.read, args)  # the read runs first, on the same connection
        undo.noted(old)
    else:
        if is_write(args) and before_write is not None:
            before_write(args)
        try:
            reply = raw(store.client, *args)
        except redis.ResponseError as err:
            reply = err
    return _call(source, line, args, reply, shared)


def _undo_read(before_write: WriteHook | None, paired: PairedRead | None, args: Sequence[bytes]) -> UndoRead | None:
    """The read that notes what ``args`` replaces, to send just before it, where the run keeps an undo log."""
    return paired(args) if paired is not None and before_write is not None and is_write(args) else None


def _call(source: str, line: int, args: Sequence[bytes], reply: Any, shared: Shared | None) -> Call:
    if shared is None:
        return Call(source, line, tuple(args), reply)
    # the command's name and the run's own keys repeat in every call; a job's key or id is new each time
    sent = (shared.one(args[0]), *(shared.known(arg) for arg in args[1:]))
    return Call(source, line, sent, shared.one(reply) if isinstance(reply, bytes) else reply)


def send(batch: Batch, source: str, line: int, args: Sequence[bytes]) -> Call:
    """Send one command of ``batch``'s stepped code (see send_to), once ``batch.screen`` lets it through."""
    if batch.screen is not None:
        batch.screen(args)
    ahead = batch.lane.ahead
    if ahead is not None:
        fed = ahead.feed(args, _undo_read(batch.before_write, batch.paired, args))
        if fed is not None:
            return _call(source, line, args, fed.reply, batch.shared)
    return send_to(batch.store, batch.before_write, source, line, args, batch.shared, batch.paired)


def drive_lua(run: LuaRun, pending: Pending, batch: Batch, source: str,
              stop: Callable[[Sequence[bytes]], bool] = lambda args: False) -> tuple[Pending, list[Call], list[int]]:
    """Send each command the stepped script asks for and feed it the reply, until it returns or raises, or until
    ``stop`` says the next command belongs to the next step: where it stands, the calls, the lines it ran."""
    calls: list[Call] = []
    while pending[0] == "call" and not stop(pending[2]):
        call = send(batch, source, pending[1], pending[2])
        calls.append(call)
        pending = run.advance(call.reply)
    return pending, calls, run.lines()  # the run keeps the lines until taken: once a step, not once a call


def focus(lines: Sequence[int], marked: Collection[int]) -> int | None:
    """The line to highlight: the last one run that carries a marker, else the last one run."""
    return next((n for n in reversed(lines) if n in marked), lines[-1] if lines else None)


def run_atomic(batch: Batch, wire: int, between: Interlude | None = None) -> tuple[tuple[bytes, ...], Any]:
    """Send the batch through the project's connector on ``wire``, in one command."""
    connector = Connector(batch.store.client, wire)
    if between is not None:
        between(0)
    try:
        reply: Any = connector.eval(batch.script, batch.keys, batch.argv)
    except redis.ResponseError as err:
        reply = err
    if between is not None:
        between(1)
    return tuple(connector.log[-1].sent), reply
