"""Save and restore a queue's keys with DUMP and RESTORE; they share one hashtag, so one slot."""

from __future__ import annotations

from typing import Any, Iterable

import redis

from ..echo_mq import keyspace

Snapshot = dict[bytes, tuple[int, bytes]]


def take(client: redis.Redis, queue: str) -> Snapshot:
    """Every key under ``emq:{<queue>}:`` with its PTTL and DUMP payload."""
    keys = sorted(client.scan_iter(match=keyspace.queue_pattern(queue), count=1000))
    if not keys:
        return {}
    with client.pipeline(transaction=False) as pipe:
        for key in keys:
            pipe.pttl(key)
            pipe.dump(key)
        values = pipe.execute()
    return {key: (max(values[2 * i], 0), values[2 * i + 1])
            for i, key in enumerate(keys) if values[2 * i + 1] is not None}


def restore(client: redis.Redis, queue: str, snap: Snapshot) -> None:
    """Put the queue's keys back exactly as ``snap`` holds them, deleting any key it lacks."""
    current = set(client.scan_iter(match=keyspace.queue_pattern(queue), count=1000))
    with client.pipeline(transaction=True) as tx:
        stale = current - snap.keys()
        if stale:
            tx.delete(*stale)
        for key, (ttl, payload) in snap.items():
            tx.restore(key, ttl, payload, replace=True)
        tx.execute()


def restore_keys(client: redis.Redis, snap: Snapshot, keys: Iterable[bytes]) -> None:
    """Put just ``keys`` back as ``snap`` holds them (deleting those it lacks)."""
    with client.pipeline(transaction=True) as tx:
        for key in keys:
            if key in snap:
                ttl, payload = snap[key]
                tx.restore(key, ttl, payload, replace=True)
            else:
                tx.delete(key)
        tx.execute()


def read(client: redis.Redis, queue: str) -> dict[bytes, Any]:
    """The queue's keys as plain values: a zset as {member: score}, a hash as a dict, a list, a string."""
    keys = sorted(client.scan_iter(match=keyspace.queue_pattern(queue), count=1000))
    with client.pipeline(transaction=False) as pipe:
        for key in keys:
            pipe.type(key)
        kinds = pipe.execute()
    readers = {b"zset": lambda p, k: p.zrange(k, 0, -1, withscores=True), b"hash": lambda p, k: p.hgetall(k),
               b"list": lambda p, k: p.lrange(k, 0, -1), b"string": lambda p, k: p.get(k)}
    with client.pipeline(transaction=False) as pipe:
        for key, kind in zip(keys, kinds):
            readers.get(kind, lambda p, k: p.type(k))(pipe, key)
        values = pipe.execute()
    return {key: dict(value) if kind == b"zset" else value for key, kind, value in zip(keys, kinds, values)}
