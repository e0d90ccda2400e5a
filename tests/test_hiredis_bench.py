"""The hiredis bench compares what it says: one client packs and parses with hiredis, the other in pure Python."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from redis._parsers import _HiredisParser
from redis.connection import HiredisRespSerializer, PythonRespSerializer

from emq_dive.engine.stores import Store

pytestmark = pytest.mark.server


def bench() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "hiredis_bench.py"
    spec = importlib.util.spec_from_file_location("hiredis_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_two_clients_pack_alike_with_different_code_and_parse_differently(server_store: Store) -> None:
    hb = bench()
    fast, pure = hb.client_like(server_store.client, pure=False), hb.client_like(server_store.client, pure=True)
    (fast_packer, fast_parser), (pure_packer, pure_parser) = hb._packer(fast), hb._packer(pure)
    assert isinstance(fast_packer, HiredisRespSerializer) and fast_parser == _HiredisParser.__name__
    assert isinstance(pure_packer, PythonRespSerializer) and pure_parser in ("_RESP2Parser", "_RESP3Parser")
    command = ("EVALSHA", "0" * 40, 2, "active", "job:", 30_000, "B00001", 1)
    assert b"".join(fast_packer.pack(*command)) == b"".join(pure_packer.pack(*command))
    assert fast.ping() is True and pure.ping() is True
    fast.close()
    pure.close()


def test_compare_times_both_batches_on_both_clients_and_leaves_no_keys(server_store: Store) -> None:
    rows = bench().compare(server_store, leases=50, repeats=1)
    assert list(rows) == ["all live, reply []", "all stale, reply 50 ids"]
    for figures in rows.values():
        assert list(figures) == ["hiredis", "pure Python"]
        for row in figures.values():
            assert row["round trip"] > 0 and row["server"] > 0 and row["packing"] > 0
    assert server_store.own_keys() == []
