"""Run-ahead for a long move: the next members' reads come back in one round trip, the stepped code is fed them, and
its commands go to the store in pipelines, each reply then checked against the one the code was fed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

from ..echo_mq import keyspace
from ..echo_mq.connector import raw_many
from .timeline import UndoRead, is_write

READ_AHEAD = 512
"""Members whose reads one round trip brings in."""
LIMIT = 2048
"""Commands queued before they go to the store."""


@dataclass(frozen=True)
class Fed:
    """The reply the stepped code is fed for a command that waits in the queue."""

    reply: Any


@dataclass(frozen=True)
class Queued:
    """A command the stepped code sent, not yet on the wire: its step, the reply it was fed, its undo read."""

    step: int
    sent: tuple[bytes, ...]
    fed: Any
    undo: UndoRead | None


@dataclass
class Lane:
    """Where a run's commands go: straight to the store, or through the run-ahead while a long move has one."""

    ahead: Ahead | None = None


class Ahead:
    """Feeds the stepped code its reads from a read-ahead and queues what it sends; ``wrong`` is the first step whose
    queued command got another reply from the store than the one fed (that step and those after it are run again)."""

    def __init__(self, client: redis.Redis, queue: str, held: Sequence[tuple[str, int]]) -> None:
        self._client = client
        self._ids = [job_id.encode() for job_id, _ in held]
        self._keys = [key.encode() for key in keyspace.job_keys(queue, [job_id for job_id, _ in held])]
        self._by_key = {key: i for i, key in reversed(list(enumerate(self._keys)))}
        self._by_id = {job: i for i, job in reversed(list(enumerate(self._ids)))}
        self._fields: set[bytes] = set()
        """The hash fields the code reads of a member's job row (``attempts``)."""
        self._sets: set[bytes] = set()
        """The sorted sets the code reads a member's score in (the queue's active set)."""
        self._known: dict[tuple[bytes, ...], Any] = {}
        self._queued: list[Queued] = []
        self.step = 0
        """The step the code runs now: its commands are queued under it."""
        self.wrong: int | None = None

    @property
    def full(self) -> bool:
        """True when enough commands wait that they should go to the store."""
        return len(self._queued) >= LIMIT

    def feed(self, args: Sequence[bytes], undo: UndoRead | None) -> Fed | None:
        """The reply for ``args`` if the run-ahead knows it (the command then waits in the queue, behind its undo
        read), else None once every queued command has gone: the caller sends ``args`` itself, in order."""
        if self.wrong is None:
            fed = self._predict(args, undo)
            if fed is None and self._learn(args):
                fed = self._predict(args, undo)
            if fed is not None:
                self._queued.append(Queued(self.step, tuple(args), fed.reply, undo))
                return fed
        self.flush()
        if is_write(args):  # a write the read-ahead cannot follow may change anything it read
            self._known.clear()
        return None

    def flush(self) -> None:
        """Send every queued command, undo reads first, in one round trip, and note the first step answered
        otherwise than it was fed."""
        queued, self._queued = self._queued, []
        if not queued:
            return
        commands = [command for q in queued for command in ((q.undo.read, q.sent) if q.undo else (q.sent,))]
        replies = iter(raw_many(self._client, commands))
        for q in queued:
            if q.undo is not None:
                old = next(replies)
                if isinstance(old, Exception):  # the write fails alike and writes nothing: nothing to log
                    self._wrong(q.step)
                else:
                    q.undo.noted(old)
            reply = next(replies)
            if isinstance(reply, Exception) or reply != q.fed:
                self._wrong(q.step)

    def _wrong(self, step: int) -> None:
        self.wrong = step if self.wrong is None else min(self.wrong, step)

    def _predict(self, args: Sequence[bytes], undo: UndoRead | None) -> Fed | None:
        """The store's reply to ``args`` as the read-ahead and the queued writes leave it, or None if unknown."""
        command = args[0].upper()
        if command in (b"HGET", b"ZSCORE") and len(args) == 3:
            read = (command, args[1], args[2])
            return Fed(self._known[read]) if read in self._known else None
        if not is_write(args) or undo is None or len(args) != 4 or command not in (b"ZADD", b"HSET"):
            return None
        read = (b"ZSCORE", args[1], args[3]) if command == b"ZADD" else (b"HGET", args[1], args[2])
        if read not in self._known:
            return None
        value = _score(args[2]) if command == b"ZADD" else args[3]
        added = int(self._known[read] is None)
        if value is None:
            del self._known[read]
        else:
            self._known[read] = value
        return Fed(added)

    def _learn(self, args: Sequence[bytes]) -> bool:
        """After a miss on one member's read: learn its shape and read the next members' reads in one round trip."""
        command = args[0].upper()
        if command == b"HGET" and len(args) == 3 and args[1] in self._by_key:
            self._fields.add(args[2])
            start = self._by_key[args[1]]
        elif command in (b"ZSCORE", b"ZADD") and len(args) == 3 + (command == b"ZADD") and args[-1] in self._by_id:
            self._sets.add(args[1])  # a ZADD's reply says whether the member was there: its ZSCORE tells
            start = self._by_id[args[-1]]
        else:
            return False
        self.flush()
        if self.wrong is not None:
            return False
        window = slice(start, start + READ_AHEAD)
        reads = [(b"HGET", key, name) for key in self._keys[window] for name in sorted(self._fields)]
        reads += [(b"ZSCORE", key, job) for key in sorted(self._sets) for job in self._ids[window]]
        self._known = {read: reply for read, reply in zip(reads, raw_many(self._client, reads), strict=True)
                       if not isinstance(reply, Exception)}
        return True


def _score(sent: bytes) -> bytes | None:
    """What ZSCORE answers after ``ZADD key sent member``: an integral score in decimal; None where that is unsure."""
    try:
        score = float(sent)
    except ValueError:
        return None
    return str(int(score)).encode() if score.is_integer() and abs(score) < 2 ** 53 else None
