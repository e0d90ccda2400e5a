"""The lease verbs: ``extend_locks`` (the batch) and ``extend_lock`` (the single)."""

from __future__ import annotations

from collections.abc import Sequence

import redis

from . import keyspace, scripts
from .connector import Wire, error_text


class LeaseRefused(Exception):
    """The single verb's refusal; ``reply`` is the server's error text."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        super().__init__(reply)


class Gone(LeaseRefused):
    """The job's row does not exist (EMQGONE)."""


class Stale(LeaseRefused):
    """The row's attempts differ from the caller's token (EMQSTALE)."""


class NotActive(LeaseRefused):
    """The id is not a member of active (EMQNOTACTIVE)."""


class BadLease(ValueError):
    """A lease that is not a positive integer number of milliseconds."""


class BadToken(ValueError):
    """A fencing token that is not an integer."""


_REFUSALS = {"EMQGONE": Gone, "EMQSTALE": Stale, "EMQNOTACTIVE": NotActive}
MAX_LEASE_MS = 2**52
"""The longest lease the verbs send: now + lease must stay an exact integer score (a double holds 2**53)."""


def check_lease(lease_ms: object) -> int:
    """Return ``lease_ms`` when it is a positive int no larger than MAX_LEASE_MS, else raise BadLease."""
    if isinstance(lease_ms, bool) or not isinstance(lease_ms, int) or lease_ms <= 0:
        raise BadLease(f"lease_ms must be a positive integer, not {lease_ms!r}")
    if lease_ms > MAX_LEASE_MS:
        raise BadLease(f"lease_ms must be at most {MAX_LEASE_MS} (2**52), so the deadline stays an exact "
                       f"integer score; not {lease_ms}")
    return lease_ms


MIN_TOKEN, MAX_TOKEN = -(2**63), 2**63 - 1
"""The tokens the verbs send: the range of the row's attempts counter (HINCRBY's 64-bit integer)."""


def check_token(job_id: str, token: object) -> int:
    """Return ``token`` when it is an integer the attempts counter can hold, else raise BadToken."""
    if isinstance(token, bool) or not isinstance(token, int):
        raise BadToken(f"the token of {job_id!r} must be an integer, not {token!r}")
    if not MIN_TOKEN <= token <= MAX_TOKEN:
        raise BadToken(f"the token of {job_id!r} must be from -2**63 to 2**63-1 (the attempts counter's range), "
                       f"not a {'positive' if token > 0 else 'negative'} number of {token.bit_length()} bits")
    return token


def _token(job_id: str, token: object) -> str:
    return str(check_token(job_id, token))


def _decode(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


def extend_locks(conn: Wire, queue: str, held: Sequence[tuple[str, int]], lease_ms: int) -> list[str]:
    """Re-score every held lease under one clock read; return the ids not extended, in order."""
    check_lease(lease_ms)
    # every id is gated before the wire, so an ill-formed one never becomes a key
    for job_id, _ in held:
        keyspace.job_key(queue, job_id)  # @gate
    pairs = [part for job_id, token in held for part in (job_id, _token(job_id, token))]  # @flatten
    argv = [str(lease_ms), *pairs]  # @argv
    keys = [keyspace.queue_key(queue, "active"), keyspace.queue_key(queue, "")]  # @keys
    failed = conn.eval(scripts.extend_locks(), keys, argv)  # @send
    return [_decode(job_id) for job_id in failed]  # @failed


def extend_lock(conn: Wire, queue: str, job_id: str, token: int, lease_ms: int) -> None:
    """Re-score one lease, or raise Gone, Stale or NotActive naming the check that refused."""
    check_lease(lease_ms)
    row = keyspace.job_key(queue, job_id)
    keys = [keyspace.queue_key(queue, "active"), row]
    argv = [str(lease_ms), job_id, _token(job_id, token)]
    try:
        conn.eval(scripts.extend_lock(), keys, argv)
    except redis.ResponseError as err:
        refusal = _REFUSALS.get(error_text(err).split(" ", 1)[0])
        if refusal is None:
            raise
        raise refusal(error_text(err)) from None
