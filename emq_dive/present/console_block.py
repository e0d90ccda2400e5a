"""The console's block: lines queued after ``MULTI``, each checked by the policy, sent together by ``EXEC``."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

import redis

from ..engine.echo_mq.console import Kind, Line
from ..engine.stores.kinds import Kinded, kind_of


class Stand(Enum):
    """What a line did to the block; none of these sends anything."""

    OPENED = "opened"
    QUEUED = "queued"
    DISCARDED = "discarded"


@dataclass(frozen=True)
class Blocked:
    """A block word or a queued line: where the block stands after it; nothing was sent."""

    typed: str
    stand: Stand
    queued: tuple[Line, ...]
    """The lines in the block after this one (for DISCARD, the lines dropped)."""


@dataclass(frozen=True)
class Executed:
    """A block the store ran in one MULTI/EXEC: its lines, EXEC's reply, and that reply as redis-cli prints it."""

    typed: str
    queued: tuple[Line, ...]
    reply: Any
    """EXEC's reply: one reply per line (an error reply among them as the ResponseError), or EXEC's own error."""
    lines: tuple[str, ...]
    undoable: bool = False
    """True when the block could write and back puts back the union of the keys it could change."""
    note: str = ""

    @property
    def errored(self) -> bool:
        """True when EXEC itself answered with an error (the store aborted the whole block)."""
        return isinstance(self.reply, redis.ResponseError)


def touched(lines: tuple[Line, ...]) -> tuple[bytes, ...]:
    """The union of the keys the block's writing lines may change, in order, each once."""
    return tuple(dict.fromkeys(key for line in lines if line.kind.writes for key in line.touched))


def clock_note(store: Kinded, lines: tuple[Line, ...]) -> str:
    """Why this store cannot show the native twin's cached command time, when the block runs the native verbs."""
    kind = kind_of(store)
    if kind.real_server or not any(line.kind is Kind.NATIVE for line in lines):
        return ""
    return (f"{kind.words} reads its clock afresh for each command, so it cannot show that the native twin's "
            "clock is the server's cached command time; a real server can")


def block_words(blocked: Blocked) -> str:
    """Where the block stands after ``blocked``, in one sentence every view says."""
    count = len(blocked.queued)
    lines = f"{count} line{'' if count == 1 else 's'}"
    if blocked.stand is Stand.OPENED:
        return ("a MULTI block is open: each line is checked and queued, nothing is sent until EXEC sends them "
                "in one transaction; DISCARD drops them")
    if blocked.stand is Stand.QUEUED:
        return f"queued, nothing sent yet ({lines} in the block; EXEC sends them, DISCARD drops them)"
    return f"the block is dropped ({lines}); nothing was sent"


def open_words(queued: tuple[Line, ...]) -> str:
    """What the prompt says while a block is open."""
    return f"MULTI block · {len(queued)} queued · EXEC sends them in one MULTI/EXEC · DISCARD drops them"
