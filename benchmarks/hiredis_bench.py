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
from redis.connection import PythonRespSerializer
from redis.utils import HIREDIS_AVAILABLE

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from emq_dive.engine.echo_mq import jobs
from emq_dive.engine.echo_mq.connector import Connector
from emq_dive.engine.stores import Store, open_store
from emq_dive.tools.cost import seed, server_usec

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


def _run(admin: redis.Redis, wire: Connector, packer: Any, queue: str, batch: list[tuple[str, int]],
         command: tuple[Any, ...]) -> tuple[float, float, float]:
    """One run of ``batch``: its round trip, the server's share (INFO commandstats) and packing it alone, in s."""
    before = server_usec(admin, "evalsha")
    whole = _secs(lambda: jobs.extend_locks(wire, queue, batch, LEASE_MS))
    after = server_usec(admin, "evalsha")
    server = (after - before) / 1e6 if before is not None and after is not None else float("nan")
    return whole, server, _secs(lambda: packer.pack(*command))


def figures(admin: redis.Redis, clients: dict[str, redis.Redis], queue: str, batch: list[tuple[str, int]],
            repeats: int) -> dict[str, dict[str, float]]:
    """Per client, the median µs per lease of ``repeats`` runs of ``batch``, the clients taking turns."""
    wires = {name: Connector(client, 4) for name, client in clients.items()}
    packers = {name: _packer(client)[0] for name, client in clients.items()}
    command = ("EVALSHA", "0" * 40, 2, "active", "job:", LEASE_MS, *(part for pair in batch for part in pair))
    rows: dict[str, list[tuple[float, float, float]]] = {name: [] for name in clients}
    for _ in range(repeats):
        for name in clients:
            rows[name].append(_run(admin, wires[name], packers[name], queue, batch, command))
    out = {}
    for name, runs in rows.items():
        whole, server, packing = (statistics.median(column) * 1e6 / len(batch) for column in zip(*runs, strict=True))
        out[name] = {"round trip": whole, "server": server, "client": whole - server, "packing": packing}
    return out


def compare(store: Store, leases: int, repeats: int) -> dict[str, dict[str, dict[str, float]]]:
    """For a live batch and an all-stale one of ``leases`` on ``store``: each client's median figures."""
    held = seed(store.client, store.queue, leases)
    clients = {"hiredis": client_like(store.client, pure=False), "pure Python": client_like(store.client, pure=True)}
    try:
        for client in clients.values():  # loads the script and connects, outside the timing
            jobs.extend_locks(Connector(client, 4), store.queue, held[:1], LEASE_MS)
        stale = [(job_id, token + 1) for job_id, token in held]  # every token off by one: all come back failed
        return {label: figures(store.client, clients, store.queue, batch, repeats)
                for label, batch in (("all live, reply []", held), (f"all stale, reply {leases:,} ids", stale))}
    finally:
        for client in clients.values():
            client.close()
        store.forget()


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
        for pure in (False, True):
            client = client_like(store.client, pure=pure)
            packer, parser_name = _packer(client)
            print(f"  {'pure Python' if pure else 'hiredis'}: packs with {type(packer).__name__}, "
                  f"parses with {parser_name}")
            client.close()
        print(f"  µs per lease, median of {args.repeats}: the batch's round trip; the server's share of it (INFO "
              "commandstats); the client's, the rest (the project's own argv and record of the call included); "
              "packing the command alone")
        for label, rows in compare(store, args.leases, args.repeats).items():
            print(f"  {label}")
            for name, row in rows.items():
                print(f"    {name:<12}" + "".join(f"{key} {value:6.2f}  " for key, value in row.items()))
            fast, slow = rows["hiredis"], rows["pure Python"]
            print(f"    hiredis: the client's share {slow['client'] / fast['client']:.2f}× as fast, "
                  f"packing {slow['packing'] / fast['packing']:.2f}× as fast")
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
