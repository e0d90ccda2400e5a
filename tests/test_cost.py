"""The cost measurement: its figures come from the commands that ran, and it leaves the run's keys as they were."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis

from emq_dive.engine.stores import Store
from emq_dive.tools import bench, cost


class Ticks:
    """A clock that moves only when a command goes to the store."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _SlowConnection:
    """A connection that costs ``delay`` seconds of the fake clock per command it sends."""

    def __init__(self, inner: Any, ticks: Ticks, delay: float) -> None:
        self.inner, self.ticks, self.delay = inner, ticks, delay

    def send_command(self, *args: Any, **kwargs: Any) -> Any:
        self.ticks.now += self.delay
        return self.inner.send_command(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class _SlowPool:
    """The store's connection pool, handing out slow connections."""

    def __init__(self, inner: Any, ticks: Ticks, delay: float) -> None:
        self.inner, self.ticks, self.delay = inner, ticks, delay

    def get_connection(self, *args: Any, **kwargs: Any) -> _SlowConnection:
        return _SlowConnection(self.inner.get_connection(*args, **kwargs), self.ticks, self.delay)

    def release(self, connection: _SlowConnection) -> None:
        self.inner.release(connection.inner)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class SlowStore:
    """The embedded store seen through a client whose every command takes ``delay`` on the fake clock."""

    client: redis.Redis
    native: bool
    closers: list[Callable[[], None]] = field(default_factory=list)

    def on_close(self, callback: Callable[[], None]) -> None:
        self.closers.append(callback)


def slow(store: Store, ticks: Ticks, delay: float) -> SlowStore:
    pool = _SlowPool(store.client.connection_pool, ticks, delay)
    return SlowStore(redis.Redis(connection_pool=pool), store.native)  # type: ignore[arg-type]


def _all_keys(store: Store) -> dict[bytes, Any]:
    return {key: store.client.dump(key) for key in store.client.scan_iter(match="*")}


def test_a_slower_store_gives_larger_figures(fake_store: Store) -> None:
    quick_ticks, slow_ticks = Ticks(), Ticks()
    quick = cost.measure(slow(fake_store, quick_ticks, 1e-5), (1, 100), clock=quick_ticks)
    slower = cost.measure(slow(fake_store, slow_ticks, 4e-5), (1, 100), clock=slow_ticks)
    assert quick.ways() == cost.WAYS  # the embedded store serves EMQ.EXTENDS
    for size in (1, 100):
        for way in cost.WAYS:
            fast, late = quick.rows[size][way], slower.rows[size][way]
            assert fast is not None and late is not None and late > fast > 0, (size, way, fast, late)
    # a batch makes one round trip for the hundred, the singles one each: the clock saw it
    row = slower.rows[100]
    assert row["single script ×N"] is not None and row["batch script"] is not None
    assert row["single script ×N"] > 10 * row["batch script"]


def test_measuring_leaves_the_runs_keys_as_they_were(any_store: Store) -> None:
    any_store.client.hset(f"emq:{{{any_store.queue}}}:job:JOB01", "attempts", 1)
    before = _all_keys(any_store)
    told: list[tuple[int, int, str]] = []
    costs = cost.measure(any_store, (1, 10), backend=any_store.description,
                         progress=lambda done, total, what: told.append((done, total, what)))
    assert _all_keys(any_store) == before
    ways = 4 if any_store.native else 2
    assert told[0] == (0, 2 * ways, "batch script · 1 lease") and told[-1] == (2 * ways, 2 * ways, "done")
    if any_store.kind != "fakeredis":  # a server keeps command statistics: the server's own share is measured
        assert all(row["server: script"] is not None for row in costs.rows.values())
    assert [done for done, _, _ in told] == sorted(done for done, _, _ in told)
    assert all(value is not None and value > 0 for row in costs.rows.values()
               for way, value in row.items() if way in cost.WAYS)


def test_the_bench_measures_with_the_same_code(fake_store: Store) -> None:
    row = bench.measure(fake_store, 5, repeats=1)
    assert tuple(row) == (*cost.WAYS, *cost.SERVER_SHARES)
    assert fake_store.own_keys() == []
    assert cost.figure(row["batch script"]) == f"{row['batch script']:.2f}" and cost.figure(None) == "—"


def test_bars_grow_with_the_figure_on_either_scale() -> None:
    for log in (False, True):
        lengths = [cost.bar_length(v, 1000.0, 1.0, 40, log) for v in (1.0, 10.0, 100.0, 1000.0)]
        assert lengths == sorted(lengths) and lengths[-1] == 40 and lengths[0] >= 1
    assert cost.Costs({1: {"batch script": 1.0, "single script ×N": 50.0}}, "x", False).log_scale()
    assert not cost.Costs({1: {"batch script": 1.0, "single script ×N": 5.0}}, "x", False).log_scale()


def test_the_measuring_queue_expires_on_its_own(fake_store: Store) -> None:
    """Every key the cost view seeds has the dive's TTL, so a measure cut short by a crash leaves nothing for good."""
    from emq_dive.engine.echo_mq import keyspace
    from emq_dive.engine.stores import fresh_queue
    from emq_dive.engine.stores.expiry import KEY_TTL_MS

    queue = fresh_queue()
    cost.seed(fake_store.client, queue, 3)
    keys = list(fake_store.client.scan_iter(match=keyspace.queue_pattern(queue)))
    assert len(keys) == 4  # three rows and the active set
    for key in keys:
        assert 0 < fake_store.client.pttl(key) <= KEY_TTL_MS, key
    cost.delete_queue(fake_store.client, queue)
