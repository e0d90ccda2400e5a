"""The protocol moves a lesson uses to put jobs into their fates, each a real transaction."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

import redis

from . import keyspace
from .connector import raw

if TYPE_CHECKING:
    from redis.client import Pipeline
    from redis.typing import EncodableT, FieldT

T = TypeVar("T")


def server_now_ms(client: redis.Redis) -> int:
    """The server's clock, read with TIME, in milliseconds."""
    seconds, micros = raw(client, "TIME")
    return int(seconds) * 1000 + int(micros) // 1000


def _fields(group: str | None) -> dict[FieldT, EncodableT]:
    """A new job row: ``attempts`` 0, and the lane's ``group`` when it has one."""
    fields: dict[FieldT, EncodableT] = {"attempts": 0}
    if group is not None:
        fields["group"] = keyspace.gate(group)
    return fields


def enqueue(client: redis.Redis, queue: str, job_id: str, group: str | None = None) -> None:
    """Write a job's row with ``attempts`` 0 (and its lane ``group``) and push it to pending."""
    row = keyspace.job_key(queue, job_id)
    with client.pipeline(transaction=True) as tx:
        tx.hset(row, mapping=_fields(group))
        tx.rpush(keyspace.queue_key(queue, "pending"), job_id)
        tx.execute()


def claim(client: redis.Redis, queue: str, job_id: str, lease_ms: int) -> int:
    """Take a job from pending into active at now + lease; return the new attempts, the holder's token."""
    now = server_now_ms(client)
    with client.pipeline(transaction=True) as tx:
        queue_claim(tx, queue, job_id, now + lease_ms)
        _, attempts, _ = tx.execute()
    return int(attempts)


CHUNK = 1000
"""Members per pipelined transaction when a whole batch is set up: one round trip a chunk, not one a member."""


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    """``items`` in slices of at most ``size``, in order."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


def enqueue_many(client: redis.Redis, queue: str, jobs: Sequence[tuple[str, str | None]]) -> None:
    """Enqueue many ``(id, group)`` jobs, in order, a pipelined transaction a chunk."""
    pending = keyspace.queue_key(queue, "pending")
    for part in chunks(jobs):
        with client.pipeline(transaction=True) as tx:
            for job_id, group in part:
                tx.hset(keyspace.job_key(queue, job_id), mapping=_fields(group))
            tx.rpush(pending, *[job_id for job_id, _ in part])
            tx.execute()


def claim_many(client: redis.Redis, queue: str, count: int, lease_ms: int) -> list[tuple[str, int]]:
    """Claim the next ``count`` jobs of pending at one now + lease; return each id with its token."""
    now = server_now_ms(client)
    claimed: list[tuple[str, int]] = []
    while len(claimed) < count:
        size = min(CHUNK, count - len(claimed))
        taken = [job_id.decode() for job_id in raw(client, "LPOP", keyspace.queue_key(queue, "pending"), size) or []]
        if not taken:
            break
        with client.pipeline(transaction=True) as tx:
            for job_id in taken:
                tx.hincrby(keyspace.job_key(queue, job_id), "attempts", 1)
            tx.zadd(keyspace.queue_key(queue, "active"), {job_id: now + lease_ms for job_id in taken})
            attempts = tx.execute()[: len(taken)]  # the HINCRBYs' replies; the ZADD's comes after them
        claimed += [(job_id, int(n)) for job_id, n in zip(taken, attempts, strict=True)]
    return claimed


def queue_reap(tx: Pipeline, queue: str, jobs: Sequence[str]) -> None:
    """Queue on ``tx`` the reap of ``jobs``, each known to hold a lapsed lease: out of active, onto pending's tail."""
    if jobs:
        tx.zrem(keyspace.queue_key(queue, "active"), *jobs)
        tx.rpush(keyspace.queue_key(queue, "pending"), *jobs)


def queue_claim(tx: Pipeline, queue: str, job_id: str, deadline_ms: int) -> None:
    """Queue on ``tx`` the claim of ``job_id`` from pending into active until ``deadline_ms``."""
    tx.lrem(keyspace.queue_key(queue, "pending"), 0, job_id)
    tx.hincrby(keyspace.job_key(queue, job_id), "attempts", 1)
    tx.zadd(keyspace.queue_key(queue, "active"), {job_id: deadline_ms})


def queue_remove(tx: Pipeline, queue: str, job_id: str) -> None:
    """Queue on ``tx`` the deletion of a job: its row, its place in active and in pending."""
    tx.delete(keyspace.job_key(queue, job_id))
    tx.zrem(keyspace.queue_key(queue, "active"), job_id)
    tx.lrem(keyspace.queue_key(queue, "pending"), 0, job_id)


def reap(client: redis.Redis, queue: str, at_ms: int, only: Sequence[str] | None = None) -> list[str]:
    """Move every lease (of ``only``, when given) due at or before ``at_ms`` back to pending, keeping attempts."""
    active = keyspace.queue_key(queue, "active")
    if only is None:
        lapsed = [m.decode() for m in raw(client, "ZRANGEBYSCORE", active, "-inf", at_ms)]
    else:
        lapsed = [job_id for job_id in only
                  if (score := client.zscore(active, job_id)) is not None and score <= at_ms]
    for job_id in lapsed:
        with client.pipeline(transaction=True) as tx:
            tx.zrem(active, job_id)
            tx.rpush(keyspace.queue_key(queue, "pending"), job_id)
            tx.execute()
    return lapsed


def remove(client: redis.Redis, queue: str, job_id: str) -> None:
    """Delete a job: its row, its place in active and in pending."""
    with client.pipeline(transaction=True) as tx:
        queue_remove(tx, queue, job_id)
        tx.execute()


def deadline(client: redis.Redis, queue: str, job_id: str) -> int | None:
    """The lease deadline of ``job_id`` in active, or None when it is not there."""
    score = raw(client, "ZSCORE", keyspace.queue_key(queue, "active"), job_id)
    return None if score is None else int(float(score))
