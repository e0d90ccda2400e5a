"""BullMQ's own batch lock extension on the same server, where the optional ``bullmq`` package is installed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine.stores import Store


async def _per_lease(store: Store, sizes: Sequence[int], repeats: int) -> dict[int, float]:
    from bullmq.redis_connection import RedisConnection
    from bullmq.scripts import Scripts

    kwargs = store.client.connection_pool.connection_kwargs
    options = {key: kwargs[key] for key in ("host", "port", "db", "username", "password") if key in kwargs}
    connection = RedisConnection(redisOpts=options)
    # BullMQ's keys go under this run's own namespace, so closing the store deletes them with the rest
    scripts = Scripts(prefix=f"emq:{{{store.queue}}}", queueName="bull", redisConnection=connection)
    out: dict[int, float] = {}
    try:
        for size in sizes:
            ids = [f"B{i:05d}" for i in range(size)]
            tokens = [f"token-{i}" for i in range(size)]
            with store.client.pipeline(transaction=False) as pipe:
                for job_id, token in zip(ids, tokens, strict=True):
                    pipe.set(f"emq:{{{store.queue}}}:bull:{job_id}:lock", token, px=30_000)
                pipe.execute()
            best = float("inf")
            for _ in range(repeats):
                start = time.perf_counter()
                failed = await scripts.extendJobLocks(ids, tokens, 30_000)
                best = min(best, time.perf_counter() - start)
                if failed:
                    raise RuntimeError(f"BullMQ could not extend {len(failed)} of its own locks")
            out[size] = best * 1e6 / size
    finally:
        await connection.close()
    return out


def report(store: Store, sizes: Sequence[int], repeats: int = 3) -> None:
    """Print BullMQ's per-lease cost beside ours, or say why it was not measured."""
    if store.kind == "fakeredis":
        print("  BullMQ extendJobLocks: not measured on the fakeredis store (it needs a real server)")
        return
    try:
        import bullmq  # noqa: F401
    except ImportError:
        print("  BullMQ extendJobLocks: not measured: install the bench extra (pip install 'emq-dive[bench]')")
        return
    figures = asyncio.run(_per_lease(store, sizes, repeats))
    cells = "  ".join(f"{size}: {cost:.2f}" for size, cost in figures.items())
    print(f"  BullMQ extendJobLocks (GET + SET PX + SREM per job), µs per lease — {cells}")
