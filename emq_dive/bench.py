"""``emq-dive bench``: what one lease extension costs, batched, one by one, and natively."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

import redis

from .echo_mq import jobs, keyspace
from .echo_mq.connector import Connector
from .stores import Store, StoreError, open_store


def _seed(store: Store, count: int) -> list[tuple[str, int]]:
    """Put ``count`` live leases in place with pipelined writes (the setup is not measured)."""
    client, queue = store.client, store.queue
    active = keyspace.queue_key(queue, "active")
    held = [(f"B{i:05d}", 1) for i in range(count)]
    with client.pipeline(transaction=False) as pipe:
        for job_id, token in held:
            pipe.hset(keyspace.job_key(queue, job_id), "attempts", token)
            pipe.zadd(active, {job_id: 1})
        pipe.execute()
    return held


def _time(run: Callable[[], Any], repeats: int) -> float:
    """The best of ``repeats`` wall-clock runs, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def server_usec(client: redis.Redis, command: str) -> float | None:
    """The server's total microseconds spent in ``command`` so far (INFO commandstats), or None."""
    try:
        stats = client.info("commandstats")
    except Exception:  # the embedded store keeps no command statistics
        return None
    wanted = f"cmdstat_{command}".lower()
    entry = next((value for name, value in stats.items() if name.lower() == wanted), None)
    return float(entry["usec"]) if entry else 0.0


def _server_cost(client: redis.Redis, command: str, run: Callable[[], Any], count: int) -> float | None:
    """Microseconds per lease the server itself spent in ``command`` while ``run`` ran."""
    before = server_usec(client, command)
    run()
    after = server_usec(client, command)
    return None if before is None or after is None else (after - before) / count


def _one_by_one(conn: Connector, queue: str, held: Sequence[tuple[str, int]], lease_ms: int) -> None:
    """Extend each of ``held`` with its own single call."""
    for job_id, token in held:
        jobs.extend_lock(conn, queue, job_id, token, lease_ms)


def measure(store: Store, count: int, lease_ms: int = 30_000, repeats: int = 3) -> dict[str, float | None]:
    """Microseconds per lease for each way of extending ``count`` leases on ``store``."""
    held = _seed(store, count)
    queue = store.queue
    scripted, native = Connector(store.client, 4), Connector(store.client, 6)
    jobs.extend_locks(scripted, queue, held[:1], lease_ms)  # loads the script once, outside the timing
    single_repeats = 1 if count > 1000 else repeats
    out: dict[str, float | None] = {
        "batch script": _time(lambda: jobs.extend_locks(scripted, queue, held, lease_ms), repeats),
        "single script ×N": _time(lambda: _one_by_one(scripted, queue, held, lease_ms), single_repeats),
        "EMQ.EXTENDS": None,
        "EMQ.EXTEND ×N": None,
    }
    out["server: script"] = _server_cost(
        store.client, "evalsha", lambda: jobs.extend_locks(scripted, queue, held, lease_ms), count)
    out["server: native"] = None
    if store.native:
        out["EMQ.EXTENDS"] = _time(lambda: jobs.extend_locks(native, queue, held, lease_ms), repeats)
        out["EMQ.EXTEND ×N"] = _time(lambda: _one_by_one(native, queue, held, lease_ms), single_repeats)
        out["server: native"] = _server_cost(
            store.client, "emq.extends", lambda: jobs.extend_locks(native, queue, held, lease_ms), count)
    store.forget()
    per_lease = {name: None if secs is None else secs * 1e6 / count
                 for name, secs in out.items() if not name.startswith("server")}
    return {**per_lease, "server: script": out["server: script"], "server: native": out["server: native"]}


def versus(batch: float | None, single: float | None) -> str:
    """The batch's cost as a share of the singles' (``0.12× (cheaper)``); ``—`` when either is missing."""
    if not batch or not single:
        return "—"
    share = batch / single
    return f"{share:.2f}× ({'cheaper' if share < 1 else 'dearer' if share > 1 else 'the same'})"


def main(argv: Sequence[str] = ()) -> int:
    """Print the per-lease cost table for each backend and batch size."""
    parser = argparse.ArgumentParser(prog="emq-dive bench", description=__doc__)
    parser.add_argument("--backend", action="append",
                        help="fakeredis, server or a URL (repeatable; default: fakeredis and server)")
    parser.add_argument("--sizes", default="1,100,10000", help="comma-separated batch sizes")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure; the best is kept")
    args = parser.parse_args(list(argv))
    sizes = [int(size) for size in args.sizes.split(",")]
    backends = args.backend or ["fakeredis", "server"]
    print("µs per lease, client round trip included (best of runs), then the server's own share of the batch "
          "(INFO commandstats); lower is better. batch/singles cost: the batch script's cost as a share of the "
          "single script's, called once per lease")
    for spec in backends:
        try:
            store = open_store(spec)
        except StoreError as err:
            print(f"\n{spec}: skipped: {err}")
            continue
        try:
            print(f"\n{store.description}" + ("" if store.native else f"  (no native twin: {store.native_reason})"))
            header = ["leases", "batch script", "single ×N", "EMQ.EXTENDS", "EMQ.EXTEND ×N",
                      "server: script", "server: native", "batch/singles cost"]
            print("  ".join(f"{h:>15}" for h in header))
            for size in sizes:
                row = measure(store, size, repeats=args.repeats)
                cells = [f"{size:>15}"] + [f"{'—' if v is None else f'{v:.2f}':>15}" for v in row.values()]
                print("  ".join([*cells, f"{versus(row['batch script'], row['single script ×N']):>15}"]))
            from .bench_bullmq import report as bullmq_report
            bullmq_report(store, sizes, args.repeats)
        finally:
            store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
