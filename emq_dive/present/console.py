"""The dive's console: send one policy-checked line to the dive's store, show the reply raw, and let back undo it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis

from ..engine.echo_mq import scripts
from ..engine.echo_mq.cli_reply import cli_lines, clipped, resp2
from ..engine.echo_mq.connector import raw, raw_block
from ..engine.echo_mq.console import Kind, Line, Place, Refusal, parse
from ..engine.echo_mq.console_block import Word, block_word
from ..engine.stores import snapshot
from .console_block import Blocked, Executed, Stand, clock_note, touched
from .session import Frame, Session


@dataclass(frozen=True)
class Replied:
    """A line the store answered (a value or an error reply): what was sent and the reply as redis-cli prints it."""

    line: Line
    reply: Any
    """The parsed reply, or the ResponseError the store answered with."""
    lines: tuple[str, ...]
    undoable: bool = False
    """True when the line could write and back puts back what it replaced."""
    note: str = ""

    @property
    def errored(self) -> bool:
        """True when the store answered with an error reply."""
        return isinstance(self.reply, redis.ResponseError)


@dataclass(frozen=True)
class Failed:
    """A line the store did not answer (the connection went, the store closed): why, in one line."""

    typed: str
    reason: str


Outcome = Replied | Refusal | Failed | Blocked | Executed
"""What one console line came to."""


@dataclass(frozen=True)
class _Undo:
    """What a console write replaced, and the run it was made in (back undoes it only there)."""

    held: tuple[tuple[str, int], ...]
    stepper: object
    position: int
    keys: tuple[bytes, ...]
    before: snapshot.Snapshot


class History:
    """The lines sent, oldest first, and a cursor that ↑ and ↓ move."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._at = 0

    def add(self, typed: str) -> None:
        """Keep ``typed`` (not a blank, nor the line just before it again) and put the cursor after the newest."""
        if typed.strip() and (not self.lines or self.lines[-1] != typed):
            self.lines.append(typed)
        self._at = len(self.lines)

    def older(self) -> str | None:
        """The line before the cursor, or None at the oldest."""
        if self._at == 0:
            return None
        self._at -= 1
        return self.lines[self._at]

    def newer(self) -> str:
        """The line after the cursor, or an empty line past the newest."""
        self._at = min(self._at + 1, len(self.lines))
        return self.lines[self._at] if self._at < len(self.lines) else ""


class Console:
    """One dive's console: its history, and what its writes replaced in the run on screen."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.history = History()
        self._undo: list[_Undo] = []
        self._wrote_in: tuple[tuple[str, int], ...] | None = None
        self.block: tuple[Line, ...] | None = None
        """The lines queued since ``MULTI``, or None when no block is open."""

    def place(self) -> Place:
        """Where the lines run: the session's queue, lease and store."""
        store = self.session.store
        return Place(store.queue, self.session.lesson.lease_ms, store.native, store.native_reason)

    def check(self, typed: str) -> Line | Refusal:
        """The line ``typed`` as the policy lets it through, or its refusal; nothing is sent."""
        return parse(typed, self.place())

    def local(self, typed: str) -> Outcome | None:
        """What ``typed`` comes to without the store (a refusal, a block word, a queued line, kept in the history),
        or None when it must be sent."""
        outcome = self._local(typed)
        if outcome is not None:
            self.history.add(typed)
        return outcome

    def _local(self, typed: str) -> Outcome | None:
        word = block_word(typed, self.block is not None)
        if isinstance(word, Refusal):
            return word
        if word is Word.MULTI:
            self.block = ()
            return Blocked(typed, Stand.OPENED, ())
        if word is Word.DISCARD:
            dropped, self.block = self.block or (), None
            return Blocked(typed, Stand.DISCARDED, dropped)
        if word is Word.EXEC:
            return None
        checked = self.check(typed)
        if isinstance(checked, Refusal) or self.block is None:
            return checked if isinstance(checked, Refusal) else None
        self.block = (*self.block, checked)
        return Blocked(typed, Stand.QUEUED, self.block)

    def run(self, typed: str) -> tuple[Outcome, Frame | None]:
        """Check ``typed`` and, when allowed, send it (EXEC sends the block); the frame after it (None when nothing
        was sent).

        Call it inside ``store.io()``.
        """
        said = self.local(typed)
        if said is not None:
            return said, None
        self.history.add(typed)
        try:
            if self.block is not None:
                queued, self.block = self.block, None
                return self.execute(typed, queued), self.session.frame()
            checked = self.check(typed)
            if isinstance(checked, Refusal):  # local() has said it already; kept for the type
                return checked, None
            replied = self.send(checked)
        except (redis.RedisError, OSError) as err:
            return Failed(typed, f"{type(err).__name__}: {err}"), None
        return replied, self.session.frame()

    def _keep(self, keys: tuple[bytes, ...]) -> _Undo:
        """What ``keys`` hold now, in the run on screen, so back can put them back."""
        stepper = self.session.stepper
        return _Undo(self.session.held, stepper, stepper.position if stepper else 0, keys,
                     snapshot.take_keys(self.session.store.client, keys))

    def _wrote(self, undo: _Undo) -> None:
        self._undo.append(undo)
        self._wrote_in = self.session.held

    def execute(self, typed: str, queued: tuple[Line, ...]) -> Executed:
        """Send ``queued`` in one MULTI/EXEC; before it, load a course script the store lacks and keep the union of
        the keys the block may change, so back puts the whole block back."""
        client = self.session.store.client
        notes = [clock_note(self.session.store, queued)]
        for source in (scripts.extend_locks(), scripts.extend_lock()):
            if any(line.kind is Kind.SCRIPT and line.args[1].decode().lower() == source.sha for line in queued) \
                    and raw(client, "SCRIPT", "EXISTS", source.sha) == [0]:
                raw(client, "SCRIPT", "LOAD", source.source)
                notes.append(f"the store had not loaded {source.name} yet: SCRIPT LOAD sent before MULTI")
        keys = touched(queued)
        undo = self._keep(keys) if keys else None
        _, reply = raw_block(client, [line.args for line in queued])
        if isinstance(reply, list):
            reply = [resp2(item, b"WITHSCORES" in (arg.upper() for arg in line.args))
                     for item, line in zip(reply, queued, strict=False)]
        if undo is not None:
            self._wrote(undo)
        shown = cli_lines(reply, statuses=tuple(line.status for line in queued))
        return Executed(typed, queued, reply, clipped(shown), undo is not None, "; ".join(n for n in notes if n))

    def send(self, line: Line) -> Replied:
        """Send ``line`` to the store; before a write, keep what its keys hold, so back can put them back."""
        client = self.session.store.client
        undo = self._keep(line.touched) if line.kind.writes else None
        note = ""
        try:
            reply: Any = raw(client, *line.args)
        except redis.exceptions.NoScriptError:
            source = scripts.extend_locks() if line.args[1].decode().lower() == scripts.extend_locks().sha \
                else scripts.extend_lock()
            raw(client, "SCRIPT", "LOAD", source.source)
            note = f"the store had not loaded {source.name} yet: SCRIPT LOAD sent first"
            reply = self._reply(client, line)
        except redis.ResponseError as err:
            reply = err
        reply = resp2(reply, b"WITHSCORES" in (arg.upper() for arg in line.args))
        if undo is not None:
            self._wrote(undo)
        return Replied(line, reply, clipped(cli_lines(reply, line.status)), undo is not None, note)

    @staticmethod
    def _reply(client: redis.Redis, line: Line) -> Any:
        try:
            return raw(client, *line.args)
        except redis.ResponseError as err:
            return err

    def _live(self) -> list[_Undo]:
        """The undo entries still standing in the run on screen (a set-up or a new run drops the rest)."""
        stepper = self.session.stepper
        position = stepper.position if stepper else 0
        self._undo = [u for u in self._undo if u.held is self.session.held and u.stepper is stepper
                      and u.position <= position]
        return self._undo

    def undoable(self) -> bool:
        """True when back should undo a console write rather than a step: one was made at the step on screen."""
        live = self._live()
        stepper = self.session.stepper
        return bool(live) and live[-1].position == (stepper.position if stepper else 0)

    def undo(self) -> Frame:
        """Put back what the newest console write replaced; the frame after it. Call it inside ``store.io()``."""
        entry = self._live().pop()
        snapshot.restore_keys(self.session.store.client, entry.before, entry.keys)
        return self.session.frame()

    @property
    def dirty(self) -> bool:
        """True when a console write was made since the batch was last set up."""
        return self._wrote_in is not None and self._wrote_in is self.session.held
