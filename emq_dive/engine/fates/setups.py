"""Putting jobs into their fates with real protocol moves: one set-up per member fate, and whole batches."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

import redis

from ..echo_mq import jobs, keyspace, moves
from ..echo_mq.connector import raw_transaction
from ..fate_table import fate
from ..stores.protocol import StoreLike

AfterClaim = Callable[[redis.Redis, str, str, int], None]
"""The moves that take a freshly claimed job on to its fate: ``(client, queue, job, claim_lease_ms)``."""


def _kept(client: redis.Redis, queue: str, job: str, claim_lease_ms: int) -> None:
    """The claim is the fate: the job stays held."""


def _removed(client: redis.Redis, queue: str, job: str, claim_lease_ms: int) -> None:
    moves.remove(client, queue, job)


def _reaped(client: redis.Redis, queue: str, job: str, claim_lease_ms: int) -> None:
    lapsed_at = moves.deadline(client, queue, job)
    if lapsed_at is None:
        raise RuntimeError(f"{job} was just claimed, yet it is not in active")
    moves.reap(client, queue, lapsed_at, only=[job])


def _reclaimed(client: redis.Redis, queue: str, job: str, claim_lease_ms: int) -> None:
    _reaped(client, queue, job, claim_lease_ms)
    moves.claim(client, queue, job, claim_lease_ms)


def _overwritten(client: redis.Redis, queue: str, job: str, claim_lease_ms: int) -> None:
    client.set(keyspace.job_key(queue, job), "not a hash")


class After(Enum):
    """What follows a member's claim when a whole batch is set up, pipelined a chunk at a time."""

    KEPT = "kept"
    REMOVED = "removed"
    OVERWRITTEN = "overwritten"
    RECLAIMED = "reclaimed"
    REAPED = "reaped"


@dataclass(frozen=True)
class MemberSetup:
    """How a job reaches one member fate: the lane it is enqueued on, and what follows its claim (one job's
    moves, and the same moves as a whole batch queues them)."""

    after_claim: AfterClaim = _kept
    group: str | None = None
    after: After = After.KEPT


MEMBER_SETUPS: dict[str, MemberSetup] = {
    "live": MemberSetup(),
    "gone": MemberSetup(_removed, after=After.REMOVED),
    "stale": MemberSetup(_reclaimed, after=After.RECLAIMED),
    "reaped": MemberSetup(_reaped, after=After.REAPED),
    "wrongtype": MemberSetup(_overwritten, after=After.OVERWRITTEN),
    "lane": MemberSetup(group="lane-a"),
}
"""Every member fate of the table, and how a job is put into it."""


def member_setup(key: str) -> MemberSetup:
    """The set-up of the member fate ``key``; a whole-call fate has none."""
    if not fate(key).member:
        raise ValueError(f"{key!r} is a fate of a whole call, not of one job")
    return MEMBER_SETUPS[key]


def job_id(index: int, width: int = 2) -> str:
    """The id of the batch's ``index``-th job (from 1), e.g. ``JOB01``."""
    return f"JOB{index:0{width}d}"


def prepare(client: redis.Redis, queue: str, job: str, key: str, claim_lease_ms: int) -> int:
    """Put ``job`` into a member fate with real protocol moves; return its holder's token."""
    setup = member_setup(key)
    moves.enqueue(client, queue, job, group=setup.group)
    token = moves.claim(client, queue, job, claim_lease_ms)
    setup.after_claim(client, queue, job, claim_lease_ms)
    return token


def reset(store: StoreLike) -> None:
    """Delete every key of the store's queue, and only those."""
    store.forget()


@dataclass(frozen=True)
class Batch:
    """The held leases of one batch, and the fates they were put in."""

    held: tuple[tuple[str, int], ...]
    fates: tuple[str, ...]
    lease_ms: int


def build_batch(store: StoreLike, fate_keys: Sequence[str], lease_ms: int, claim_lease_ms: int) -> Batch:
    """Reset the queue and set up one job per fate, in order."""
    jobs.check_lease(lease_ms)
    for key in fate_keys:
        if not fate(key).member:
            raise ValueError(f"{key!r} cannot be given to one member of a batch")
    setups = [MEMBER_SETUPS[key] for key in fate_keys]
    reset(store)
    width = max(2, len(str(len(fate_keys))))
    ids = [job_id(i, width) for i in range(1, len(fate_keys) + 1)]
    client, queue = store.client, store.queue
    moves.enqueue_many(client, queue, [(job, setup.group) for job, setup in zip(ids, setups, strict=True)])
    held = tuple(moves.claim_many(client, queue, len(ids), claim_lease_ms))
    settle_many(client, queue, [(job, key) for (job, _), key in zip(held, fate_keys, strict=True)], claim_lease_ms)
    return Batch(held=held, fates=tuple(fate_keys), lease_ms=lease_ms)


def settle_many(client: redis.Redis, queue: str, claimed: Sequence[tuple[str, str]], claim_lease_ms: int) -> None:
    """Take each just-claimed ``(job, fate key)`` on to its fate with the moves ``prepare`` makes, a pipelined
    transaction a chunk: removals and overwrites first, then the re-claims, then the reaps.

    Pending is empty once the batch is claimed, so a removal finds nothing there, the jobs a chunk re-claims are
    the ones it just reaped, and the reaps append in member order: the store ends as one member after another
    would leave it.
    """
    by: dict[After, list[str]] = {after: [] for after in After}
    for job, key in claimed:
        by[member_setup(key).after].append(job)
    for part in moves.chunks(by[After.REMOVED]):
        raw_transaction(client, [command for job in part for command in moves.remove_commands(queue, job)])
    for part in moves.chunks(by[After.OVERWRITTEN]):
        raw_transaction(client, [("SET", keyspace.job_key(queue, job), "not a hash") for job in part])
    for part in moves.chunks(by[After.RECLAIMED]):
        raw_transaction(client, moves.reap_commands(queue, part))
        again = [job for job, _ in moves.claim_many(client, queue, len(part), claim_lease_ms)]
        if again != list(part):
            raise RuntimeError(f"pending held other jobs than the ones just reaped: {again[:3]!r}…")
    for part in moves.chunks(by[After.REAPED]):
        raw_transaction(client, moves.reap_commands(queue, part))
