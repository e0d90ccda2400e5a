"""Measure what hiredis buys ``emq-dive bench``'s batch: one process, hiredis and pure-Python clients side by side.

Run ``python benchmarks/hiredis_bench.py [--backend valkey|server|URL] [--leases 10000] [--repeats 9]``; it prints,
it does not assert. Both clients talk to the same store; the pure-Python one packs commands with redis-py's
``PythonRespSerializer`` and parses replies with ``_RESP2Parser`` (``_RESP3Parser`` on RESP3), what redis-py
uses without hiredis. Runs alternate between the two clients, so machine drift falls on both alike; each figure
is a median.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from redis._parsers import _HiredisParser, _RESP2Parser, _RESP3Parser
from redis.connection import HiredisRespSerializer, PythonRespSerializer
from redis.utils import HIREDIS_AVAILABLE

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from emq_dive.bench import _seed, server_usec
from emq_dive.echo_mq import jobs
from emq_dive.echo_mq.connector import Connector
from emq_dive.stores import open_store

LEASE_MS = 30_000


class PythonConnection(redis.Connection):
    """A connection that packs commands in Python whether or not hiredis is installed."""

    def _construct_command_packer(self, packer: Any) -> PythonRespSerializer:
        return PythonRespSerializer(self._buffer_cutoff, self.encoder.encode)


def client_like(client: redis.Redis, *, pure: bool) -> redis.Redis:
    """A client to the same server as ``client``: hiredis-packed and parsed, or pure Python."""
    kwargs = dict(client.connection_pool.connection_kwargs)
    if pure:
        kwargs.update(parser_class=_RESP3Parser if str(kwargs.get("protocol")) == "3" else _RESP2Parser)
        pool = redis.ConnectionPool(connection_class=PythonConnection, **kwargs)
    else:
        kwargs.update(parser_class=_HiredisParser)
        pool = redis.ConnectionPool(connection_class=client.connection_pool.connection_class, **kwargs)
    return redis.Redis(connection_pool=pool)


def _packer(client: redis.Redis) -> Any:
    conn = client.connection_pool.get_connection()
    try:
        return conn._command_packer, type(conn._parser).__name__
    finally:
        client.connection_pool.release(conn)


def _secs(run: Callable[[], Any]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def _figures(admin: redis.Redis, client: redis.Redis, wire: Connector, queue: str, batch: list[tuple[str, int]],
             repeats: int) -> dict[str, float]:
    """Median µs per lease of ``repeats`` runs of ``batch``: round trip, server share, client share, packing."""
    rows: list[tuple[float, float, float]] = []
    packer = _packer(client)[0]
    command = ("EVALSHA", "0" * 40, 2, "active", "job:", LEASE_MS, *(part for pair in batch for part in pair))
    for _ in range(repeats):
        before = server_usec(admin, "evalsha")
        whole = _secs(lambda: jobs.extend_locks(wire, queue, batch, LEASE_MS))
        after = server_usec(admin, "evalsha")
        server = (after - before) / 1e6 if before is not None and after is not None else float("nan")
        rows.append((whole, server, _secs(lambda: packer.pack(*command))))
    whole, server, packing = (statistics.median(column) * 1e6 / len(batch) for column in zip(*rows, strict=True))
    return {"round trip": whole, "server": server, "client": whole - server, "packing": packing}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="valkey", help="a server store: valkey (default), server or a URL")
    parser.add_argument("--leases", type=int, default=10_000, help="members of the batch (default 10,000)")
    parser.add_argument("--repeats", type=int, default=9, help="runs per client, alternating (default 9)")
    args = parser.parse_args()
    if not HIREDIS_AVAILABLE:
        print("hiredis is not installed (pip install hiredis): nothing to compare")
        return 1
    store = open_store(args.backend)
    try:
        print(f"{store.description}; {args.leases:,} leases, {args.repeats} alternating runs per client, medians")
        held = _seed(store, args.leases)
        queue = store.queue
        clients = {"hiredis": client_like(store.client, pure=False), "pure Python": client_like(store.client,
                                                                                                pure=True)}
        for name, client in clients.items():
            packer, parser_name = _packer(client)
            assert isinstance(packer, HiredisRespSerializer if name == "hiredis" else PythonRespSerializer), name
            print(f"  {name}: packs with {type(packer).__name__}, parses with {parser_name}")
        wires = {name: Connector(client, 4) for name, client in clients.items()}
        for wire in wires.values():
            jobs.extend_locks(wire, queue, held[:1], LEASE_MS)  # loads the script and connects, outside the timing
        stale = [(job_id, token + 1) for job_id, token in held]  # every token off by one: all come back failed
        print(f"  µs per lease, median of {args.repeats}: the batch's round trip, the server's own share "
              "(INFO commandstats), the client's (the rest), and packing the command alone")
        for label, batch in (("all live, reply []", held), (f"all stale, reply {len(held):,} ids", stale)):
            print(f"  {label}")
            figures = {name: _figures(store.client, client, wires[name], queue, batch, args.repeats)
                       for name, client in clients.items()}
            for name, row in figures.items():
                print(f"    {name:<12}" + "".join(f"{key} {value:6.2f}  " for key, value in row.items()))
            fast, slow = figures["hiredis"], figures["pure Python"]
            print(f"    hiredis: client share {slow['client'] / fast['client']:.2f}× as fast, "
                  f"packing {slow['packing'] / fast['packing']:.2f}× as fast")
        for client in clients.values():
            client.close()
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
