"""Save and restore a queue's keys with DUMP and RESTORE; they share one hashtag, so one slot."""

from __future__ import annotations

import redis

Snapshot = dict[bytes, tuple[int, bytes]]


def take(client: redis.Redis, queue: str) -> Snapshot:
    """Every key under ``emq:{<queue>}:`` with its PTTL and DUMP payload."""
    keys = sorted(client.scan_iter(match=f"emq:{{{queue}}}:*", count=1000))
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
    current = set(client.scan_iter(match=f"emq:{{{queue}}}:*", count=1000))
    with client.pipeline(transaction=True) as tx:
        stale = current - snap.keys()
        if stale:
            tx.delete(*stale)
        for key, (ttl, payload) in snap.items():
            tx.restore(key, ttl, payload, replace=True)
        tx.execute()
