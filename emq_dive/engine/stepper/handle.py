"""The handle (jobs.extend_locks) run against a stand-in wire: what it would send, and how it reads a reply."""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import redis

from ..echo_mq import jobs, scripts
from ..echo_mq.scripts import marker_lines
from .model import Step
from .tracing import lines_of

MARKED = frozenset(marker_lines(inspect.getsource(jobs)).values())
"""The handle's lines that carry an ``@marker``."""


class _Captured(Exception):
    """Raised by the capturing connector once the handle reaches the wire."""


class _HandleConnector:
    """Stands in for the wire while the handle runs: records the call, or answers with a stepped reply."""

    def __init__(self, wire: int, reply: Any = None) -> None:
        self.wire = wire
        self.reply = reply
        self.call: tuple[scripts.Script, list[str], list[str]] | None = None

    def eval(self, script: scripts.Script, keys: Sequence[str], argv: Sequence[str]) -> Any:
        self.call = (script, list(keys), list(argv))
        if self.reply is None:
            raise _Captured
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


@dataclass(frozen=True)
class Sent:
    """What the handle hands the wire, and the handle lines that ran to get there."""

    script: scripts.Script
    keys: tuple[bytes, ...]
    argv: tuple[bytes, ...]
    lines: tuple[int, ...]


def _b(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode()


def capture(wire: int, queue: str, held: Sequence[tuple[str, int]], lease_ms: int) -> Sent:
    """Run the handle up to the wire; nothing reaches the store."""
    handle = _HandleConnector(wire)
    with lines_of(jobs.__file__) as seen:
        try:
            jobs.extend_locks(handle, queue, list(held), lease_ms)
        except _Captured:
            pass
    if handle.call is None:
        raise RuntimeError("the handle returned without sending the batch")
    script, keys, argv = handle.call
    return Sent(script, tuple(_b(k) for k in keys), tuple(_b(a) for a in argv), tuple(seen))


def answer(wire: int, queue: str, held: Sequence[tuple[str, int]], lease_ms: int, reply: Any,
           error: str | None) -> tuple[tuple[int, ...], Any]:
    """Run the handle again with a run's reply (or error): the lines it runs and what it returns or raises."""
    connector = _HandleConnector(wire, redis.ResponseError(error) if error is not None else reply)
    with lines_of(jobs.__file__) as seen:
        try:
            result: Any = jobs.extend_locks(connector, queue, list(held), lease_ms)
        except redis.ResponseError as err:
            result = err
    return tuple(seen), result


def capture_single(wire: int, queue: str, job_id: str, token: int, lease_ms: int, traced: bool = False) -> Sent:
    """Run the single verb (jobs.extend_lock) up to the wire for one member; nothing reaches the store."""
    handle = _HandleConnector(wire)
    seen: list[int] = []
    with lines_of(jobs.__file__) if traced else _nothing() as lines:
        try:
            jobs.extend_lock(handle, queue, job_id, token, lease_ms)
        except _Captured:
            pass
        seen = list(lines)
    if handle.call is None:
        raise RuntimeError("the single verb returned without sending its call")
    script, keys, argv = handle.call
    return Sent(script, tuple(_b(k) for k in keys), tuple(_b(a) for a in argv), tuple(seen))


def answer_single(wire: int, queue: str, job_id: str, token: int, lease_ms: int, reply: Any,
                  error: str | None) -> BaseException | None:
    """What jobs.extend_lock raises for one call's reply or error (Gone, Stale, NotActive, ResponseError), or None."""
    connector = _HandleConnector(wire, redis.ResponseError(error) if error is not None else reply)
    try:
        jobs.extend_lock(connector, queue, job_id, token, lease_ms)
    except (jobs.LeaseRefused, redis.ResponseError) as err:
        return err
    return None


@contextmanager
def _nothing() -> Iterator[list[int]]:
    yield []


class BatchHandle:
    """The handle of a batch: extend_locks gates and flattens the whole held list and sends it as one command."""

    title = "the handle: gate, flatten, argv, keys, send"

    @staticmethod
    def opening(sent: Sent, wire: int, queue: str, held: Sequence[tuple[str, int]], lease_ms: int) -> tuple[int, ...]:
        """The handle lines the first step shows: those ``sent`` (the batch's capture) ran."""
        return sent.lines

    @staticmethod
    def answer(wire: int, queue: str, held: Sequence[tuple[str, int]], lease_ms: int,
               end: Step) -> tuple[tuple[int, ...], Any]:
        """What extend_locks returns or raises for the run's reply, and the lines it runs to get there."""
        return answer(wire, queue, held, lease_ms, end.reply, end.error)


class SinglesHandle:
    """The handle of N singles: extend_lock runs once per member, each call its own command."""

    title = "the single verb's handle, once per member: gate, argv, keys, send"

    @staticmethod
    def opening(sent: Sent, wire: int, queue: str, held: Sequence[tuple[str, int]], lease_ms: int) -> tuple[int, ...]:
        """The lines of the first member's call through the handle (each call runs the same lines); with no member,
        those ``sent`` (the batch's capture) ran."""
        if not held:
            return sent.lines
        job_id, token = held[0]
        return capture_single(wire, queue, job_id, token, lease_ms, traced=True).lines

    @staticmethod
    def answer(wire: int, queue: str, held: Sequence[tuple[str, int]], lease_ms: int,
               end: Step) -> tuple[tuple[int, ...], Any]:
        """What each call of extend_lock returns or raises, in member order."""
        return (), [answer_single(wire, queue, m.id, int(m.token), lease_ms, 1 if m.error is None else None,
                                  m.error) for m in end.members]
