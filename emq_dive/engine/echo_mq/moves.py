"""The protocol moves a lesson uses to put jobs into their fates, each a real transaction."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

import redis

from . import keyspace
from .connector import raw, raw_transaction

T = TypeVar("T")


def server_now_ms(client: redis.Redis) -> int:
    """The server's clock, read with TIME, in milliseconds."""
    seconds, micros = raw(client, "TIME")
    return int(seconds) * 1000 + int(micros) // 1000


Command = tuple[str | bytes | int, ...]


def _fields(group: str | None) -> tuple[str | int, ...]:
    """A new job row's fields and values: ``attempts`` 0, and the lane's ``group`` when it has one."""
    return ("attempts", 0) if group is None else ("attempts", 0, "group", keyspace.gate(group))


def enqueue(client: redis.Redis, queue: str, job_id: str, group: str | None = None) -> None:
    """Write a job's row with ``attempts`` 0 (and its lane ``group``) and push it to pending."""
    raw_transaction(client, [("HSET", keyspace.job_key(queue, job_id), *_fields(group)),
                             ("RPUSH", keyspace.queue_key(queue, "pending"), job_id)])


def claim(client: redis.Redis, queue: str, job_id: str, lease_ms: int) -> int:
    """Take a job from pending into active at now + lease; return the new attempts, the holder's token."""
    now = server_now_ms(client)
    _, attempts, _ = raw_transaction(client, claim_commands(queue, job_id, now + lease_ms))
    return int(attempts)


CHUNK = 1000
"""Members per pipelined transaction when a whole batch is set up: one round trip a chunk, not one a member."""


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    """``items`` in slices of at most ``size``, in order."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


def enqueue_many(client: redis.Redis, queue: str, jobs: Sequence[tuple[str, str | None]]) -> None:
    """Enqueue many ``(id, group)`` jobs, in order, a transaction sent in one round trip a chunk."""
    pending = keyspace.queue_key(queue, "pending")
    for part in chunks(jobs):
        rows = keyspace.job_keys(queue, [job_id for job_id, _ in part])
        raw_transaction(client, [*(("HSET", row, *_fields(group)) for row, (_, group) in zip(rows, part, strict=True)),
                                 ("RPUSH", pending, *(job_id for job_id, _ in part))])


def claim_many(client: redis.Redis, queue: str, count: int, lease_ms: int) -> list[tuple[str, int]]:
    """Claim the next ``count`` jobs of pending at one now + lease; return each id with its token."""
    now = server_now_ms(client)
    active = keyspace.queue_key(queue, "active")
    claimed: list[tuple[str, int]] = []
    while len(claimed) < count:
        size = min(CHUNK, count - len(claimed))
        taken = [job_id.decode() for job_id in raw(client, "LPOP", keyspace.queue_key(queue, "pending"), size) or []]
        if not taken:
            break
        attempts = raw_transaction(client, [
            *(("HINCRBY", row, "attempts", 1) for row in keyspace.job_keys(queue, taken)),
            ("ZADD", active, *(part for job_id in taken for part in (now + lease_ms, job_id)))])[:len(taken)]
        claimed += [(job_id, int(n)) for job_id, n in zip(taken, attempts, strict=True)]
    return claimed


def reap_commands(queue: str, jobs: Sequence[str]) -> list[Command]:
    """The reap of ``jobs``, each known to hold a lapsed lease: out of active, onto pending's tail."""
    if not jobs:
        return []
    return [("ZREM", keyspace.queue_key(queue, "active"), *jobs),
            ("RPUSH", keyspace.queue_key(queue, "pending"), *jobs)]


def claim_commands(queue: str, job_id: str, deadline_ms: int) -> list[Command]:
    """The claim of ``job_id`` from pending into active until ``deadline_ms``."""
    return [("LREM", keyspace.queue_key(queue, "pending"), 0, job_id),
            ("HINCRBY", keyspace.job_key(queue, job_id), "attempts", 1),
            ("ZADD", keyspace.queue_key(queue, "active"), deadline_ms, job_id)]


def remove_commands(queue: str, job_id: str) -> list[Command]:
    """The deletion of a job: its row, its place in active and in pending."""
    return [("DEL", keyspace.job_key(queue, job_id)), ("ZREM", keyspace.queue_key(queue, "active"), job_id),
            ("LREM", keyspace.queue_key(queue, "pending"), 0, job_id)]


def reap(client: redis.Redis, queue: str, at_ms: int, only: Sequence[str] | None = None) -> list[str]:
    """Move every lease (of ``only``, when given) due at or before ``at_ms`` back to pending, keeping attempts."""
    active = keyspace.queue_key(queue, "active")
    if only is None:
        lapsed = [m.decode() for m in raw(client, "ZRANGEBYSCORE", active, "-inf", at_ms)]
    else:
        lapsed = [job_id for job_id in only
                  if (score := client.zscore(active, job_id)) is not None and score <= at_ms]
    for job_id in lapsed:
        raw_transaction(client, reap_commands(queue, [job_id]))
    return lapsed


def remove(client: redis.Redis, queue: str, job_id: str) -> None:
    """Delete a job: its row, its place in active and in pending."""
    raw_transaction(client, remove_commands(queue, job_id))


def deadline(client: redis.Redis, queue: str, job_id: str) -> int | None:
    """The lease deadline of ``job_id`` in active, or None when it is not there."""
    score = raw(client, "ZSCORE", keyspace.queue_key(queue, "active"), job_id)
    return None if score is None else int(float(score))
