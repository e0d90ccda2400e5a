"""The run's timeline: each member's states, the failed ids, and the undo log that takes the store back a step."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from ..echo_mq.connector import raw, raw_transaction
from ..stores import snapshot
from .model import Member
from .outcome import Verdict
from .views import Grown, Handed, MembersAt, Prefix

READS = frozenset({b"TIME", b"HGET", b"ZSCORE", b"ACL", b"INFO"})
"""Commands the stepped code sends that write nothing."""


def is_write(args: Sequence[bytes]) -> bool:
    """Whether a command the stepped code sends may change a key."""
    return args[0].upper() not in READS and len(args) > 1


@dataclass(frozen=True, slots=True)
class Undo:
    """What one write replaced: a zset score or a hash field (None when it was absent), or a whole key."""

    kind: str
    """``zset``, ``hash`` or ``key``."""
    key: bytes
    part: bytes = b""
    """The zset member or the hash field."""
    old: bytes | None = None
    entry: snapshot.Entry | None = None
    """The whole key as it was, for the ``key`` kind (None when it did not exist)."""


@dataclass(frozen=True)
class UndoRead:
    """The read that notes what one write replaces, and what logs its reply (an error reply raises there)."""

    read: tuple[bytes, ...]
    log: Callable[[bytes | None], None]

    def noted(self, old: Any) -> None:
        """Log the read's reply ``old``; an error reply means the write would fail alike, so it is raised."""
        if isinstance(old, Exception):
            raise old
        self.log(old)


class Timeline:
    """Shared by every step of one run through views; steps are numbered from 1, the handle is 0."""

    def __init__(self, client: redis.Redis, held: Sequence[tuple[str, int]]) -> None:
        self._client = client
        self._history: list[list[tuple[int, Member]]] = [
            [(0, Member(i, job_id, str(token)))] for i, (job_id, token) in enumerate(held)]
        self._touched: list[int] = []
        """The members each step changed, step after step (mostly one a step: no list of its own for each)."""
        self._touched_from = array("l", [0])
        """Where each step's members start in ``_touched``, from step 0 (which changed none)."""
        self._failed: Grown[str] = Grown()
        self._clocks: Grown[int] = Grown()
        self._raised: Grown[int] = Grown()
        self._undo: list[list[Undo]] = [[]]
        self._handed: Handed[MembersAt] = Handed()

    def members_at(self, step: int, handed: bool = True) -> MembersAt:
        """The members as they stood after ``step``; ``handed=False`` for a look that is dropped before the
        timeline next changes (a rewind would else have it copy what it shows)."""
        view = MembersAt(self._history, step)
        return self._handed.add(view, step) if handed else view

    def failed_at(self, step: int, handed: bool = True) -> Prefix[str]:
        """The failed ids as they stood after ``step``; ``handed=False`` as for ``members_at``."""
        return self._failed.at(step) if handed else self._failed.peek(step)

    def clocks_at(self, step: int) -> Prefix[int]:
        """The single calls' own clock reads as they stood after ``step``."""
        return self._clocks.at(step)

    def raised_at(self, step: int) -> Prefix[int]:
        """The indices of the members whose own call had raised by ``step``."""
        return self._raised.at(step)

    def open(self) -> None:
        """Start recording the next step."""
        self._undo.append([])
        self._touched_from.append(len(self._touched))

    def commit(self, step: int, members: Iterable[Member], failed: Iterable[str]) -> None:
        """Record the member states and failed ids of ``step``, the one just opened."""
        clocks, raised = [], []
        for member in members:
            self._history[member.index].append((step, member))
            self._touched.append(member.index)
            if member.now is not None:
                clocks.append(member.now)
            if member.verdict is Verdict.RAISED:
                raised.append(member.index)
        self._failed.grow(failed)
        self._clocks.grow(clocks)
        self._raised.grow(raised)

    def before_write(self, args: Sequence[bytes]) -> None:
        """Log what a write is about to replace, read with plain commands, so ``back`` can put exactly that back."""
        paired = self.paired(args)
        if paired is not None:
            paired.noted(raw(self._client, *paired.read))
            return
        key = args[1]
        self._undo[-1].append(Undo("key", key, entry=snapshot.take_keys(self._client, [key]).get(key)))

    def paired(self, args: Sequence[bytes]) -> UndoRead | None:
        """For a write of one zset member or hash field, the one read that says what it replaces (to send just
        before it, in the same round trip) and where its reply is logged; None for a write of a whole key."""
        command, key = args[0].upper(), args[1]
        if command == b"ZADD" and len(args) == 4:
            kind, part, read = "zset", args[3], (b"ZSCORE", key, args[3])
        elif command == b"HSET" and len(args) == 4:
            kind, part, read = "hash", args[2], (b"HGET", key, args[2])
        else:
            return None
        log = self._undo[-1]
        return UndoRead(read, lambda old: log.append(Undo(kind, key, part, old)))

    def before_reap(self, active: bytes, pending: bytes, job_id: bytes) -> None:
        """Log what the reaper's move may replace (the member's score in active, the whole pending list)."""
        self._undo[-1].append(Undo("zset", active, job_id, raw(self._client, "ZSCORE", active, job_id)))
        self._undo[-1].append(Undo("key", pending, entry=snapshot.take_keys(self._client, [pending]).get(pending)))

    def undo(self, step: int) -> None:
        """Put back what ``step`` wrote; the timeline keeps its record until ``rewind``."""
        self.apply(self._undo[step])

    def undo_all(self) -> None:
        """Put back everything every step wrote, newest first: the store as the handle left it."""
        self.apply([undo for step in self._undo[1:] for undo in step])

    def apply(self, log: Sequence[Undo]) -> None:
        """Undo ``log`` newest first in one transaction, with commands a user without ``@dangerous`` may run."""
        if not log:
            return
        commands: list[tuple[Any, ...]] = []
        for undo in reversed(log):
            if undo.kind == "zset":
                commands.append((b"ZREM", undo.key, undo.part) if undo.old is None else
                                (b"ZADD", undo.key, undo.old, undo.part))
            elif undo.kind == "hash":
                commands.append((b"HDEL", undo.key, undo.part) if undo.old is None else
                                (b"HSET", undo.key, undo.part, undo.old))
            else:
                commands += snapshot.put_commands(undo.key, undo.entry)
        raw_transaction(self._client, commands)

    def rewind(self, step: int) -> None:
        """Forget what the timeline recorded at ``step``, the last one it holds."""
        self._handed.keep(step)  # a view of this step would show there what a later run records
        start = self._touched_from[step]
        for index in reversed(self._touched[start:]):
            self._history[index].pop()
        del self._touched[start:], self._touched_from[step:]
        self._undo.pop(step)
        for grown in (self._failed, self._clocks, self._raised):
            grown.rewind(step)
