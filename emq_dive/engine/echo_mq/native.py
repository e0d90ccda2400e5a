"""The native twin: the handlers behind ``EMQ.EXTEND`` and ``EMQ.EXTENDS``.

Each handler is a generator over a :class:`Host`; it yields a :class:`Probe`
after each line worth seeing and returns the reply. A store drives it to the
end inside one command; the stepper drives it probe by probe.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Protocol

INT64_MAX = 2**63 - 1
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
_POSITIVE = re.compile(rb"[1-9][0-9]*")


class NativeError(Exception):
    """An error reply of a native command; ``str(err)`` is its exact wire text."""

    @property
    def error_class(self) -> str:
        """The first word of the reply, such as ``ERR`` or ``EMQSTALE``."""
        return str(self).split(" ", 1)[0]


class Host(Protocol):
    """What a handler may ask of the server it runs in."""

    def now_ms(self) -> int:
        """The server's cached command time, in milliseconds."""

    def run_id(self) -> bytes:
        """The server's run_id, stamped on every extended row."""

    def may(self, key: bytes, write: bool) -> bool:
        """Whether the calling user may read (or write) ``key``."""

    def hget(self, key: bytes, field: bytes) -> bytes | None:
        """HGET, raising NativeError(WRONGTYPE) on a non-hash."""

    def zscore(self, key: bytes, member: bytes) -> bytes | None:
        """ZSCORE, raising NativeError(WRONGTYPE) on a non-zset."""

    def zadd(self, key: bytes, score: bytes, member: bytes) -> None:
        """ZADD one member."""

    def hset(self, key: bytes, field: bytes, value: bytes) -> None:
        """HSET one field."""


@dataclass(frozen=True)
class Probe:
    """A point the handler reached: the ``@marker`` of its source line and the values in play."""

    marker: str
    values: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """The three checks on one member, in order; a check not reached is ``None``."""

    attempts: bytes | None
    token_ok: bool | None
    score: bytes | None
    in_active: bool | None

    @property
    def live(self) -> bool:
        """True when all three checks passed."""
        return bool(self.in_active)

    @property
    def reason(self) -> str:
        """``live``, ``gone``, ``stale`` or ``not-active``."""
        if self.attempts is None:
            return "gone"
        if not self.token_ok:
            return "stale"
        return "live" if self.in_active else "not-active"


Handler = Generator[Probe, None, object]


def _shape(verb: str, args: list[bytes], single: bool) -> tuple[bytes, bytes, int, list[bytes]]:
    """Check numkeys, the argument count and the lease; return keys, lease and the pairs."""
    if not args or args[0] != b"2":
        raise NativeError(f"ERR {verb} numkeys must be 2")
    if len(args) < 4 or (len(args) - 4) % 2 or (single and len(args) != 6):
        raise NativeError(f"ERR {verb} wrong number of arguments")
    first, second, lease_arg, pairs = args[1], args[2], args[3], args[4:]
    if single:
        fits = first.endswith(b"active") and second == first[: -len(b"active")] + b"job:" + pairs[0]
    else:
        fits = first == second + b"active"
    if not fits:
        raise NativeError(f"ERR {verb} keys do not match the queue layout")
    if not _POSITIVE.fullmatch(lease_arg) or int(lease_arg) > INT64_MAX:
        raise NativeError(f"ERR {verb} lease_ms must be a positive integer")
    return first, second, int(lease_arg), pairs


def _deadline(verb: str, now: int, lease: int) -> int:
    if now + lease > INT64_MAX:
        raise NativeError(f"ERR {verb} lease_ms is out of range")
    return now + lease


def _check(host: Host, verb: str, row: bytes, write: bool) -> None:
    if not host.may(row, write):
        raise NativeError(f"NOPERM {verb} may not {'write' if write else 'read'} a job row")


def verdict(host: Host, active: bytes, row: bytes, job_id: bytes, token: bytes) -> Verdict:
    """The script's three checks, in the script's order, stopping at the first that fails."""
    att = host.hget(row, b"attempts")  # @check-row
    if att is None:
        return Verdict(None, None, None, None)
    if att != token:  # @check-token
        return Verdict(att, False, None, None)
    score = host.zscore(active, job_id)  # @check-active
    return Verdict(att, True, score, score is not None)


def extends(host: Host, args: list[bytes]) -> Handler:
    """``EMQ.EXTENDS 2 active base lease_ms [id token]...``: reply the ids not extended."""
    verb = "EMQ.EXTENDS"
    active, base, lease, pairs = _shape(verb, args, single=False)  # @shape
    now = host.now_ms()  # @clock
    at = _deadline(verb, now, lease)
    yield Probe("clock", {"now": now, "deadline": at})
    live: list[tuple[bytes, bytes]] = []
    failed: list[bytes] = []
    for index in range(0, len(pairs), 2):  # @read-pass
        job_id, token = pairs[index], pairs[index + 1]
        row = base + b"job:" + job_id
        _check(host, verb, row, write=False)  # @read-acl
        seen = verdict(host, active, row, job_id, token)  # @read-verdict
        if seen.live:
            live.append((job_id, row))  # @read-live
        else:
            failed.append(job_id)  # @read-fail
        yield Probe("read-verdict", {"index": index // 2, "id": job_id, "token": token, "verdict": seen})
    if live:
        for _, row in live:  # @write-pass
            _check(host, verb, row, write=True)  # @write-acl
        run_id = host.run_id()  # @epoch
        score = str(at).encode()
        for job_id, row in live:
            host.zadd(active, score, job_id)  # @write-rescore
            host.hset(row, b"lease_epoch", run_id)  # @write-epoch
        yield Probe("write-epoch", {"rescored": [job_id for job_id, _ in live], "score": at,
                                    "run_id": run_id})
    return failed  # @reply


def extend(host: Host, args: list[bytes]) -> Handler:
    """``EMQ.EXTEND 2 active row lease_ms id token``: reply 1, or the refusing check's error."""
    verb = "EMQ.EXTEND"
    active, row, lease, (job_id, token) = _shape(verb, args, single=True)  # @one-shape
    now = host.now_ms()  # @one-clock
    at = _deadline(verb, now, lease)
    yield Probe("one-clock", {"now": now, "deadline": at})
    _check(host, verb, row, write=False)  # @one-read-acl
    seen = verdict(host, active, row, job_id, token)  # @one-verdict
    yield Probe("one-verdict", {"id": job_id, "token": token, "verdict": seen})
    if seen.reason == "gone":
        raise NativeError("EMQGONE job row does not exist")
    if seen.reason == "stale":
        raise NativeError("EMQSTALE token does not match attempts")
    if seen.reason == "not-active":
        raise NativeError("EMQNOTACTIVE job is not in active")
    _check(host, verb, row, write=True)  # @one-write-acl
    host.zadd(active, str(at).encode(), job_id)  # @one-rescore
    host.hset(row, b"lease_epoch", host.run_id())  # @one-epoch
    yield Probe("one-epoch", {"id": job_id, "score": at})
    return 1  # @one-reply


HANDLERS = {"EMQ.EXTENDS": extends, "EMQ.EXTEND": extend}


def serve(host: Host, verb: str, args: list[bytes]) -> object:
    """Run a handler to its reply, as the server does inside one command."""
    handler = HANDLERS[verb](host, args)
    while True:
        try:
            next(handler)
        except StopIteration as done:
            return done.value
