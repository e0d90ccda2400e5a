"""Every key a dive writes on a URL store carries a TTL, kept by back, the agreement check and the fates, renewed
while the dive runs; the owner markers stay out of what the engine snapshots, resets and compares."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
from conftest import own_server

from emq_dive.course.lessons import load
from emq_dive.engine.echo_mq import keyspace, moves
from emq_dive.engine.echo_mq.connector import raw, raw_many
from emq_dive.engine.stepper.timeline import Timeline
from emq_dive.engine.stores import Store, open_store, snapshot
from emq_dive.engine.stores.expiry import ALIVE_TTL_MS, KEY_TTL_MS, SWEEP_EVERY, Keeper, Owner, marker_keys, renew
from emq_dive.present.session import Session

pytestmark = pytest.mark.server


@pytest.fixture
def url_store(tmp_path: Path):
    """A URL store on a redis-server of the test's own, and a client on that server."""
    with own_server(tmp_path) as (port, client):
        store = open_store(f"redis://127.0.0.1:{port}/0")
        try:
            # the store's quiet clean at start runs on a thread of its own: a test that takes a marker away while
            # it scans would have its own queue dropped as abandoned
            assert store.cleaned is not None
            store.cleaned.result(timeout=30)
            yield store, client
        finally:
            store.close()


def _ttls(client: redis.Redis) -> dict[bytes, int]:
    return {key: int(client.pttl(key)) for key in client.scan_iter(match="emq:*", count=1000)}


def _all_expire(client: redis.Redis, store: Store) -> dict[bytes, int]:
    """Every key on the server is the run's, and each but the alive marker lives up to 15 minutes; the ttls."""
    ttls = _ttls(client)
    alive = marker_keys(store.queue)[1]
    assert ttls and all(key.startswith(f"emq:{{{store.queue}}}:".encode()) for key in ttls)
    assert 0 < ttls.pop(alive) <= ALIVE_TTL_MS
    no_ttl = sorted(key for key, ttl in ttls.items() if not 0 < ttl <= KEY_TTL_MS)
    assert not no_ttl, f"keys without the dive's TTL: {no_ttl}"
    return ttls


def test_every_key_of_a_whole_run_carries_the_ttl(url_store) -> None:
    store, client = url_store
    session = Session(store, load("batches-03"))
    with store.io():
        session.open(0)
    _all_expire(client, store)
    with store.io():
        end = session.goto(session.stepper.count)  # the run to its end: the agreement check ran too
    assert end.agreement is not None and end.agreement.agree
    _all_expire(client, store)
    with store.io():
        session.goto(0)  # back, step by step, to the handle
    _all_expire(client, store)
    for move in (lambda: session.run_fate("gone"), lambda: session.switch(4), lambda: session.apply(0, "stale")):
        with store.io():
            move()
        _all_expire(client, store)


def test_a_batch_past_the_store_panes_window_carries_the_ttl_on_every_row(url_store) -> None:
    """Rows the pane never reads (past its window) get the TTL too: set-up, run-ahead and snapshots send packed in C
    (``raw_many``), and the URL store's connection notes what they name as well."""
    from emq_dive.present.store_view import WINDOW
    store, client = url_store
    session = Session(store, load("batches-03"), batch=("live", "stale", "gone") * WINDOW)
    with store.io():
        session.open(0)
    assert len(_all_expire(client, store)) > 2 * WINDOW
    with store.io():
        end = session.goto(session.stepper.count)  # End runs ahead in pipelines; the check snapshots and restores
    assert end.agreement is not None and end.agreement.agree
    _all_expire(client, store)


@pytest.mark.parametrize("how", ["command", "raw", "pipeline", "script", "packed"])
def test_a_key_a_move_creates_gets_the_ttl(url_store, how: str) -> None:
    """A ZADD on a new key creates it: the renewal after the move gives it the TTL too, however it was sent (the
    stepped code sends its commands raw, the moves in transactions, the batch as a script)."""
    store, client = url_store
    fresh = keyspace.queue_key(store.queue, "made-by-a-move")
    with store.io():
        if how == "command":
            store.client.zadd(fresh, {"x": 1})
        elif how == "raw":
            raw(store.client, "ZADD", fresh, 1, "x")
        elif how == "pipeline":
            with store.client.pipeline(transaction=True) as tx:
                tx.zadd(fresh, {"x": 1})
                tx.execute()
        elif how == "packed":
            raw_many(store.client, [(b"ZADD", fresh, 1, b"x")])
        else:
            store.client.eval("return redis.call('ZADD', KEYS[1], 1, 'x')", 1, fresh)
    assert 0 < client.pttl(fresh) <= KEY_TTL_MS


def test_the_renewal_after_a_move_costs_what_the_move_touched(url_store) -> None:
    """Only the keys a move named get PEXPIRE, so a step of a big batch does not renew every row."""
    store, client = url_store
    with store.io():
        moves.enqueue_many(store.client, store.queue, [(f"J{i}", None) for i in range(50)])
    before = int(client.info("commandstats").get("cmdstat_pexpire", {}).get("calls", 0))
    with store.io():
        raw(store.client, "HGET", keyspace.job_key(store.queue, "J7"), "attempts")
    after = int(client.info("commandstats").get("cmdstat_pexpire", {}).get("calls", 0))
    assert after - before == 1


def test_the_undo_log_restores_a_key_and_its_ttl(url_store) -> None:
    store, client = url_store
    pending = keyspace.queue_key(store.queue, "pending").encode()
    with store.io():
        moves.enqueue(client, store.queue, "J1")
    client.pexpire(pending, 600_000)
    timeline = Timeline(client, [])
    timeline.open()
    timeline.before_write((b"DEL", pending))
    client.delete(pending)
    timeline.undo(1)
    assert client.lrange(pending, 0, -1) == [b"J1"]
    assert 590_000 < client.pttl(pending) <= 600_000


def test_the_markers_stay_out_of_snapshots_and_resets(url_store) -> None:
    store, client = url_store
    owner, alive = marker_keys(store.queue)
    with store.io():
        moves.enqueue(client, store.queue, "J1")
    assert owner not in snapshot.take(client, store.queue) and alive not in snapshot.read(client, store.queue)
    with store.io():
        store.forget()  # a reset: the queue's keys go, the markers that say who owns it stay
    assert sorted(_ttls(client)) == sorted([owner, alive])
    assert Owner.parse(client.get(owner)) == Owner.me()
    store.close()
    assert _ttls(client) == {}


def test_the_keeper_renews_the_markers_and_the_keys(url_store) -> None:
    store, client = url_store
    with store.io():
        moves.enqueue(client, store.queue, "J1")
    row = keyspace.job_key(store.queue, "J1")
    client.pexpire(row, 60_000)  # far under the full TTL, and no second can pass it by before the check
    client.delete(marker_keys(store.queue)[1])
    Keeper(client, {store.queue}, Owner.me()).turn(SWEEP_EVERY)
    assert KEY_TTL_MS - 60_000 < client.pttl(row) <= KEY_TTL_MS
    assert 0 < client.pttl(marker_keys(store.queue)[1]) <= ALIVE_TTL_MS


def test_renew_leaves_other_queues_alone(url_store) -> None:
    store, client = url_store
    client.set("emq:{dive-00000000}:active", "theirs")
    assert renew(client, [store.queue]) == 1  # the owner marker alone; the alive marker keeps its short life
    assert client.pttl("emq:{dive-00000000}:active") == -1
