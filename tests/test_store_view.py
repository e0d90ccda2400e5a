"""The store pane's read: each row's kind, its fields and its score, as the store holds them, on every backend."""

from __future__ import annotations

import pytest

from emq_dive.engine.echo_mq import keyspace
from emq_dive.present import store_view

ROWS = {
    "FULL": ("hash", {"attempts": "2", "group": "lane-a", "lease_epoch": "r1"}),
    "ONE": ("hash", {"attempts": "1"}),
    "BARE": ("hash", {"token": "7"}),  # a hash with none of the fields the pane shows
    "GONE": ("none", None),
    "TEXT": ("string", "a plain string"),
    "LIST": ("list", ["x"]),
}


def _scores(ids: list[str]) -> dict[str, int]:
    return {job: 1000 + n for n, job in enumerate(ids) if job != "GONE"}


def _put(store, ids: list[str]) -> None:
    client, queue = store.client, store.queue
    for job in ids:
        kind, value = ROWS[job]
        key = keyspace.job_key(queue, job)
        if kind == "hash":
            client.hset(key, mapping=value)
        elif kind == "string":
            client.set(key, value)
        elif kind == "list":
            client.rpush(key, *value)
    client.zadd(keyspace.queue_key(queue, "active"), _scores(ids))
    client.rpush(keyspace.queue_key(queue, "pending"), "GONE")


@pytest.mark.parametrize("ids", [
    ["FULL", "ONE", "BARE", "GONE", "TEXT", "LIST"],
    ["FULL", "GONE"],  # the count alone says the field-less row is missing: no TYPE asked
    ["BARE", "BARE"],  # the count alone says both are hashes, each counted once an argument
    ["GONE", "BARE", "GONE"],  # the count leaves it open: TYPE says which
    ["TEXT"],
])
def test_each_row_is_read_as_the_store_holds_it(any_store, ids: list[str]) -> None:
    _put(any_store, ids)
    with any_store.io():
        view = store_view.read(any_store.client, any_store.queue, ids, 0)
    assert [row.kind for row in view.rows] == [ROWS[job][0] for job in ids]
    for row, job in zip(view.rows, ids, strict=True):
        kind, value = ROWS[job]
        if kind == "hash":
            assert dict(row.fields) == {name: value.get(name) for name in ("attempts", "group", "lease_epoch")}
        elif kind == "string":
            assert row.text == value and row.fields == ()
        else:
            assert row.fields == () and row.text == ""
    assert [entry.score for entry in view.active] == [_scores(ids).get(job) for job in ids]
    assert (view.active_count, view.pending, view.pending_count) == (len(set(ids) - {"GONE"}), ("GONE",), 1)


def test_an_empty_batch_reads_only_the_queue(fake_store) -> None:
    with fake_store.io():
        view = store_view.read(fake_store.client, fake_store.queue, [], 0)
    assert (view.rows, view.active, view.total, view.active_count, view.pending_count) == ((), (), 0, 0, 0)
