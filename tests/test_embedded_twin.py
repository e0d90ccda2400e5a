"""The embedded store's native twin: its clock is the value TIME reports, and the fakeredis internals it stands on."""

from __future__ import annotations

import importlib
import sys
import tomllib
from pathlib import Path

import fakeredis
import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from emq_dive.engine.echo_mq import keyspace, scripts
from emq_dive.engine.echo_mq.connector import Connector, raw
from emq_dive.engine.stores import StoreError, embedded, open_store

ROOT = Path(__file__).resolve().parent.parent
LEASE = 30_000


def _split_clocks(count: int) -> list[float]:
    """Clocks near 2023 where whole milliseconds of the float and of TIME's rounded microseconds differ."""
    found = []
    for step in range(200_000):
        clock = 1_700_000_000.0 + step * 0.000_123_7
        if int(clock * 1000) != round(clock * 1_000_000) // 1000:
            found.append(clock)
            if len(found) == count:
                break
    return found


def _time_ms(client: object) -> int:
    seconds, micros = raw(client, "TIME")
    return int(seconds) * 1000 + int(micros) // 1000


@pytest.mark.parametrize("clock", _split_clocks(3))
def test_the_twins_clock_is_what_time_reports(clock: float) -> None:
    assert int(clock * 1000) != round(clock * 1_000_000) // 1000, "the clock must split the two readings"
    store = open_store("fakeredis", clock=lambda: clock, run_id="e" * 40)
    try:
        client, queue = store.client, store.queue
        active, base = keyspace.queue_key(queue, "active"), keyspace.queue_key(queue, "")
        for job_id in ("batch", "single", "script"):
            raw(client, "HSET", keyspace.job_key(queue, job_id), "attempts", "1")
            raw(client, "ZADD", active, "1", job_id)
        expected = _time_ms(client) + LEASE
        assert raw(client, "EMQ.EXTENDS", 2, active, base, LEASE, "batch", "1") == []
        assert raw(client, "EMQ.EXTEND", 2, active, keyspace.job_key(queue, "single"), LEASE, "single", "1") == 1
        assert Connector(client, 4).eval(scripts.extend_locks(), [active, base], [LEASE, "script", "1"]) == []
        scores = {job_id: raw(client, "ZSCORE", active, job_id) for job_id in ("batch", "single", "script")}
        assert scores == dict.fromkeys(scores, str(expected).encode()), scores
    finally:
        store.close()


def test_the_declared_fakeredis_range_is_the_one_the_store_checks() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [dep for dep in declared if dep.startswith("fakeredis")]
    assert spec == f"fakeredis[lua]{embedded.FAKEREDIS_RANGE}"
    assert Version(fakeredis.__version__) in SpecifierSet(embedded.FAKEREDIS_RANGE), (
        f"fakeredis {fakeredis.__version__} is outside the range the embedded store was tested on")


@pytest.mark.parametrize("hide", ["fakeredis._socket", "fakeredis._commands", "fakeredis._helpers"])
def test_a_moved_internal_says_so_plainly(monkeypatch: pytest.MonkeyPatch, hide: str) -> None:
    monkeypatch.setitem(sys.modules, hide, None)
    monkeypatch.delitem(sys.modules, "emq_dive.engine.stores.embedded")
    with pytest.raises(StoreError) as refused:
        importlib.import_module("emq_dive.engine.stores.embedded")
    message = str(refused.value)
    assert f"needs fakeredis{embedded.FAKEREDIS_RANGE}" in message and hide in message
    assert f"fakeredis {fakeredis.__version__} moved" in message


def test_a_reshaped_run_command_says_so_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    from fakeredis._socket import FakeSocket

    monkeypatch.setattr(FakeSocket, "_run_command", lambda self, func, sig, args: None)
    monkeypatch.delitem(sys.modules, "emq_dive.engine.stores.embedded")
    with pytest.raises(StoreError, match=r"moved FakeSocket\._run_command\(func, sig, args, from_script\)"):
        importlib.import_module("emq_dive.engine.stores.embedded")
