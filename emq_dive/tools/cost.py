"""What one lease extension costs, batched, one by one and natively, measured on a live store; free of widgets."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import redis

from ..engine.echo_mq import jobs, keyspace
from ..engine.echo_mq.connector import Connector
from ..engine.stores import fresh_queue
from ..engine.stores.expiry import KEY_TTL_MS

Clock = Callable[[], float]
"""Seconds from an arbitrary origin; ``time.perf_counter`` unless a test brings its own."""
Progress = Callable[[int, int, str], None]
"""Told ``(figures done, figures in all, what runs next)`` before each timed figure."""

WAYS = ("batch script", "single script ×N", "EMQ.EXTENDS", "EMQ.EXTEND ×N")
"""The four ways of extending N leases, in the order the bench prints them."""
SERVER_SHARES = ("server: script", "server: native")
"""The server's own microseconds per lease (INFO commandstats), where the store keeps them."""
SIZES = (1, 100, 1000)
"""The lease counts the cost view measures."""


class CostTarget(Protocol):
    """A store the cost is measured on: its client, whether it serves EMQ.EXTENDS, and its cleanup."""

    client: redis.Redis
    native: bool

    def on_close(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` when the store closes."""
        ...


def seed(client: redis.Redis, queue: str, count: int) -> list[tuple[str, int]]:
    """Put ``count`` live leases in place with pipelined writes (the setup is not measured); every key expires on
    its own, as the dive's do, should the app die before it deletes them."""
    active = keyspace.queue_key(queue, "active")
    held = [(f"B{i:05d}", 1) for i in range(count)]
    with client.pipeline(transaction=False) as pipe:
        for job_id, token in held:
            row = keyspace.job_key(queue, job_id)
            pipe.hset(row, "attempts", token)
            pipe.pexpire(row, KEY_TTL_MS)
            pipe.zadd(active, {job_id: 1})
        pipe.pexpire(active, KEY_TTL_MS)
        pipe.execute()
    return held


def best_of(run: Callable[[], Any], repeats: int, clock: Clock = time.perf_counter) -> float:
    """The best of ``repeats`` wall-clock runs, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        start = clock()
        run()
        best = min(best, clock() - start)
    return best


def server_usec(client: redis.Redis, command: str) -> float | None:
    """The server's total microseconds spent in ``command`` so far (INFO commandstats), or None."""
    try:
        stats = client.info("commandstats")
    except Exception:  # fakeredis keeps no command statistics
        return None
    wanted = f"cmdstat_{command}".lower()
    entry = next((value for name, value in stats.items() if name.lower() == wanted), None)
    return float(entry["usec"]) if entry else 0.0


def server_cost(client: redis.Redis, command: str, run: Callable[[], Any], count: int) -> float | None:
    """Microseconds per lease the server itself spent in ``command`` while ``run`` ran."""
    before = server_usec(client, command)
    run()
    after = server_usec(client, command)
    return None if before is None or after is None else (after - before) / count


def one_by_one(conn: Connector, queue: str, held: Sequence[tuple[str, int]], lease_ms: int) -> None:
    """Extend each of ``held`` with its own single call."""
    for job_id, token in held:
        jobs.extend_lock(conn, queue, job_id, token, lease_ms)


def measure_queue(client: redis.Redis, queue: str, native: bool, count: int, lease_ms: int = 30_000,
                  repeats: int = 3, clock: Clock = time.perf_counter,
                  progress: Progress | None = None) -> dict[str, float | None]:
    """Microseconds per lease for each way of extending ``count`` leases under ``queue`` (its keys stay)."""
    held = seed(client, queue, count)
    scripted, twin = Connector(client, 4), Connector(client, 6)
    jobs.extend_locks(scripted, queue, held[:1], lease_ms)  # loads the script once, outside the timing
    single_repeats = 1 if count > 1000 else repeats
    runs: dict[str, tuple[Callable[[], Any], int]] = {
        "batch script": (lambda: jobs.extend_locks(scripted, queue, held, lease_ms), repeats),
        "single script ×N": (lambda: one_by_one(scripted, queue, held, lease_ms), single_repeats),
    }
    if native:
        runs["EMQ.EXTENDS"] = (lambda: jobs.extend_locks(twin, queue, held, lease_ms), repeats)
        runs["EMQ.EXTEND ×N"] = (lambda: one_by_one(twin, queue, held, lease_ms), single_repeats)
    out: dict[str, float | None] = dict.fromkeys((*WAYS, *SERVER_SHARES))
    for done, (way, (run, times)) in enumerate(runs.items()):
        if progress is not None:
            progress(done, len(runs), way)
        out[way] = best_of(run, times, clock) * 1e6 / count
    out["server: script"] = server_cost(
        client, "evalsha", lambda: jobs.extend_locks(scripted, queue, held, lease_ms), count)
    if native:
        out["server: native"] = server_cost(
            client, "emq.extends", lambda: jobs.extend_locks(twin, queue, held, lease_ms), count)
    return out


def delete_queue(client: redis.Redis, queue: str) -> None:
    """Delete every key under ``queue``, and only those."""
    keys = list(client.scan_iter(match=keyspace.queue_pattern(queue), count=1000))
    if keys:
        client.delete(*keys)


@dataclass(frozen=True)
class Costs:
    """The measured figures: for each lease count, microseconds per lease for each way (None where not served)."""

    rows: dict[int, dict[str, float | None]]
    backend: str
    native: bool
    native_reason: str = ""

    def ways(self) -> tuple[str, ...]:
        """The ways that have a figure for some size."""
        return tuple(way for way in WAYS if any(row.get(way) is not None for row in self.rows.values()))

    def log_scale(self) -> bool:
        """True when the figures spread over more than a factor of 20, too wide for a linear bar."""
        values = [v for row in self.rows.values() for way, v in row.items() if way in WAYS and v]
        return bool(values) and max(values) / min(values) > 20


def repeats_for(count: int) -> int:
    """Runs per figure in the cost view: three, once past a hundred leases (the singles dominate the time)."""
    return 3 if count <= 100 else 1


def measure(store: CostTarget, sizes: Sequence[int] = SIZES, lease_ms: int = 30_000, backend: str = "",
            native_reason: str = "", clock: Clock = time.perf_counter,
            progress: Progress | None = None) -> Costs:
    """Measure each size on a fresh ``emq:{dive-<hex>}:`` queue of ``store`` that is deleted afterwards, so the
    run's own keys stay as they were."""
    queue = fresh_queue()
    store.on_close(lambda: delete_queue(store.client, queue))  # in case the app is closed mid-measure
    ways_per_size = 4 if store.native else 2
    total = ways_per_size * len(sizes)
    rows: dict[int, dict[str, float | None]] = {}
    try:
        for index, size in enumerate(sizes):
            def told(done: int, _of: int, way: str, index: int = index, size: int = size) -> None:
                if progress is not None:
                    progress(index * ways_per_size + done, total, f"{way} · {size:,} lease{'s' * (size != 1)}")

            rows[size] = measure_queue(store.client, queue, store.native, size, lease_ms, repeats_for(size),
                                       clock, told)
            delete_queue(store.client, queue)
    finally:
        delete_queue(store.client, queue)
    if progress is not None:
        progress(total, total, "done")
    return Costs(rows, backend, store.native, native_reason)


def bar_length(value: float, top: float, bottom: float, width: int, log: bool) -> int:
    """The bar, in cells, for ``value`` when ``top`` fills ``width`` (on a log scale from ``bottom`` when asked)."""
    if value <= 0 or top <= 0:
        return 0
    if not log:
        return max(1, round(width * value / top))
    low = math.log10(bottom) - 0.3  # the smallest figure keeps a visible stub
    return max(1, round(width * (math.log10(value) - low) / (math.log10(top) - low)))


def figure(value: float | None) -> str:
    """A figure as the bench prints it: two decimals, or a dash where the way is not served."""
    return "—" if value is None else f"{value:.2f}"
