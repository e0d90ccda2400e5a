"""What a console send leaves for the missions: each command sent, its reply, and the deadline it wrote in active."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis

from ..engine.echo_mq.console import Kind, Line
from .console import Outcome, Replied
from .console_block import Executed
from .mission_check import Seen, Sent
from .session import Frame


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _rescored(line: Line, reply: Any) -> tuple[str, ...]:
    """The ids a protocol command sent that its reply did not fail (none when it answered an error)."""
    if not line.kind.writes or isinstance(reply, redis.ResponseError):
        return ()
    at = 2 if line.name == "EVALSHA" else 1
    try:
        argv = line.args[at + 1 + int(line.args[at]):]
    except (IndexError, ValueError):
        return ()
    failed = {_text(x) for x in reply} if isinstance(reply, list) else set()
    return tuple(i for i in (_text(job) for job in argv[1::2]) if i not in failed)


def _read_in_block(lines: Sequence[Line], replies: Sequence[Any], after: int, job: str) -> int | None:
    """The score a ``ZSCORE <active> job`` of the block read after line ``after``, before another write of ``job``;
    None when there is none (or a later line wrote ``job`` first)."""
    for line, reply in zip(lines[after + 1:], replies[after + 1:], strict=False):
        if line.kind is Kind.READ and line.name == "ZSCORE" and line.args[1].endswith(b":active") \
                and _text(line.args[2]) == job:
            return None if reply is None or isinstance(reply, Exception) else int(float(_text(reply)))
        if job in _rescored(line, reply):
            return None
    return None


def _deadlines(lines: Sequence[Line], replies: Sequence[Any], frame: Frame | None) -> tuple[int | None, ...]:
    """The score each line wrote in active for the first id it re-scored: read by the block's own ZSCORE after it,
    or by the store pane after the send when no later line of the send wrote that id again; None when unknown."""
    shown = {entry.id: entry.score for entry in frame.view.active} if frame is not None else {}
    out: list[int | None] = []
    for index, (line, reply) in enumerate(zip(lines, replies, strict=False)):
        jobs = _rescored(line, reply)
        if not jobs:
            out.append(None)
            continue
        job = jobs[0]
        read = _read_in_block(lines, replies, index, job)
        later = any(job in _rescored(other, again) for other, again in
                    zip(lines[index + 1:], replies[index + 1:], strict=False))
        out.append(read if read is not None else None if later else shown.get(job))
    return tuple(out)


def seen_sent(outcome: Outcome, frame: Frame | None) -> Seen | None:
    """What the missions check after a console line the store answered (a line, or a block's EXEC); None when
    nothing was sent or the store aborted the block."""
    lines: tuple[Line, ...]
    if isinstance(outcome, Replied):
        lines, replies, multi = (outcome.line,), (outcome.reply,), False
    elif isinstance(outcome, Executed) and isinstance(outcome.reply, list):
        lines, replies, multi = outcome.queued, tuple(outcome.reply), True
    else:
        return None
    sent = Sent(tuple(line.args for line in lines), multi, _deadlines(lines, replies, frame), tuple(replies))
    return Seen(frame=frame, sent=sent)
