"""The local cluster: three primaries say ok, the dive runs on the slot owner, the hashtag probe, no node left."""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
import redis
from redis.crc import key_slot
from test_valkey_store import CLAIM, LEASE, LESSON_BATCH, alive, require_wheel, run_default_batch

from emq_dive.engine import fates
from emq_dive.engine.echo_mq import jobs, keyspace
from emq_dive.engine.echo_mq.connector import Connector, error_text, raw
from emq_dive.engine.stores import open_store
from emq_dive.engine.stores.cluster import SLOTS, ClusterStore, follow_slot_owner, no_hashtag, untagged

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 10.0


@pytest.fixture(scope="module")
def cluster():
    require_wheel()
    store = open_store("cluster")
    assert isinstance(store, ClusterStore)
    yield store
    store.close()


@pytest.fixture
def fresh(cluster: ClusterStore):
    """The module's cluster seen through a fresh queue of its own; its keys go at teardown."""
    queue = f"dive-{os.urandom(4).hex()}"
    home = cluster.owner(key_slot(keyspace.queue_key(queue, "active").encode()))
    store = dataclasses.replace(cluster, queue=queue, client=cluster.client_on(home.address), _closers=[])
    yield store
    store.forget()


def _password(store: ClusterStore) -> str:
    return store.client.connection_pool.connection_kwargs["password"]


def _poll(predicate, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {DEADLINE:.0f} s waiting for {what}")
        time.sleep(0.02)


def test_three_primaries_serve_every_slot_once_and_say_ok(cluster: ClusterStore) -> None:
    assert len(cluster.nodes) == 3 and len({node.address for node in cluster.nodes}) == 3
    covered = sorted(slot for node in cluster.nodes for low, high in node.slots for slot in range(low, high + 1))
    assert covered == list(range(SLOTS))
    for node in cluster.nodes:
        client = cluster.client_on(node.address)
        info = raw(client, "CLUSTER", "INFO").decode()
        assert "cluster_state:ok" in info and "cluster_known_nodes:3" in info and "cluster_size:3" in info
        assert raw(client, "CLUSTER", "MYID").decode() == node.node_id
        assert alive(node.pid)
        assert not (Path(f"/proc/{node.pid}/cwd").resolve() / "server.conf").exists(), "the password outlived start"
    assert cluster.kind == "cluster" and cluster.native, cluster.native_reason
    assert "3-node cluster" in cluster.description and cluster.node.address in cluster.description


@pytest.mark.parametrize("wire", [4, 6])
def test_the_default_batch_runs_on_the_slot_owner(fresh: ClusterStore, wire: int) -> None:
    run_default_batch(fresh, wire)
    here = fresh.node
    assert raw(fresh.client, "CLUSTER", "MYID").decode() == here.node_id
    keys = fresh.own_keys()
    assert len(keys) >= 6, keys  # the active set, the base and the job rows
    assert {fresh.keyslot(key) for key in keys} == {key_slot(keyspace.queue_key(fresh.queue, "").encode())}
    assert {fresh.node_for(key) for key in keys} == {here.address}


@pytest.mark.parametrize("wire", [4, 6])
def test_the_single_verb_runs_on_the_slot_owner(fresh: ClusterStore, wire: int) -> None:
    (job, token), *_ = fates.build_batch(fresh, ["live"], LEASE, CLAIM).held
    conn = Connector(fresh.client, wire)
    jobs.extend_lock(conn, fresh.queue, job, token, LEASE)
    assert conn.last is not None and conn.last.sent[0] == (b"EVALSHA" if wire == 4 else b"EMQ.EXTEND")
    stamped = fresh.client.hget(keyspace.job_key(fresh.queue, job), "lease_epoch")
    assert stamped == (fresh.run_id() if wire == 6 else None)


def test_keyslot_and_node_for_agree_with_the_cluster_s_own_redirects(fresh: ClusterStore) -> None:
    fates.build_batch(fresh, LESSON_BATCH, LEASE, CLAIM)
    other = fresh.other_node()
    for key in fresh.own_keys():
        slot = fresh.keyslot(key)
        assert slot == key_slot(key) == int(raw(fresh.client_on(other.address), "CLUSTER", "KEYSLOT", key))
        with pytest.raises(redis.ResponseError) as refused:
            raw(fresh.client_on(other.address), "TYPE", key)
        assert error_text(refused.value) == f"MOVED {slot} {fresh.node_for(key)}"


def _dbsizes(store: ClusterStore) -> list[int]:
    return [int(raw(store.client_on(node.address), "DBSIZE")) for node in store.nodes]


@pytest.mark.parametrize("wire", [4, 6])
def test_no_hashtag_gets_crossslot_and_writes_nothing(fresh: ClusterStore, wire: int) -> None:
    batch = fates.build_batch(fresh, LESSON_BATCH, LEASE, CLAIM)
    keys = [untagged(keyspace.queue_key(fresh.queue, suffix)) for suffix in ("active", "")]
    assert keys == [f"emq:{fresh.queue}:active", f"emq:{fresh.queue}:"]
    assert key_slot(keys[0].encode()) != key_slot(keys[1].encode())
    before, sizes = fates.read_state(fresh.client, fresh.queue), _dbsizes(fresh)
    exchange = no_hashtag(fresh, batch.held, LEASE, wire)
    assert exchange.sent[0] == (b"EVALSHA" if wire == 4 else b"EMQ.EXTENDS")
    assert [arg.decode() for arg in exchange.sent[-(len(batch.held) * 2 + 3):][:2]] == keys
    assert error_text(exchange.reply).startswith("CROSSSLOT Keys in request don't hash to the same slot")
    assert fates.read_state(fresh.client, fresh.queue) == before and _dbsizes(fresh) == sizes


def _queue_with_one_untagged_slot() -> str:
    """A queue name whose two untagged batch keys happen to hash to the same slot."""
    for index in range(1_000_000):
        queue = f"dive-{index:x}"
        if key_slot(f"emq:{queue}:active".encode()) == key_slot(f"emq:{queue}:".encode()):
            return queue
    raise AssertionError("no queue name found")


@pytest.mark.parametrize("wire", [4, 6])
def test_no_hashtag_on_one_slot_is_moved_and_never_runs(fresh: ClusterStore, wire: int) -> None:
    queue = _queue_with_one_untagged_slot()
    home = fresh.owner(key_slot(keyspace.queue_key(queue, "active").encode()))
    shared = dataclasses.replace(fresh, queue=queue, client=fresh.client_on(home.address))
    batch = fates.build_batch(shared, ["live", "live"], LEASE, CLAIM)
    slot = key_slot(f"emq:{shared.queue}:active".encode())
    sizes = _dbsizes(shared)
    try:
        exchange = no_hashtag(shared, batch.held, LEASE, wire)
        assert error_text(exchange.reply) == f"MOVED {slot} {shared.owner(slot).address}"
        assert _dbsizes(shared) == sizes
    finally:
        shared.forget()


def test_follow_slot_owner_moves_a_client_to_the_owner(fresh: ClusterStore) -> None:
    other = fresh.other_node()
    host, port = other.address.split(":")
    client = redis.Redis(host=host, port=int(port), password=_password(fresh))
    owner = follow_slot_owner(client, fresh.queue)
    try:
        assert owner is not client
        assert raw(owner, "CLUSTER", "MYID").decode() == fresh.node.node_id
    finally:
        owner.close()
    same = redis.Redis(host=host, port=int(port), password=_password(fresh))
    queue_here = next(f"dive-{i}" for i in range(100_000)
                      if other.serves(key_slot(keyspace.queue_key(f"dive-{i}", "active").encode())))
    assert follow_slot_owner(same, queue_here) is same
    same.close()


def test_a_url_store_on_another_node_runs_on_the_owner(fresh: ClusterStore) -> None:
    other = fresh.other_node()
    store = open_store(f"redis://:{_password(fresh)}@{other.address}/0", queue=fresh.queue)
    try:
        assert raw(store.client, "CLUSTER", "MYID").decode() == fresh.node.node_id
        run_default_batch(store, 6)
    finally:
        store.close()
    assert fresh.own_keys() == []


def test_close_stops_every_node_and_removes_their_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_wheel()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    store = open_store("cluster")
    assert isinstance(store, ClusterStore)
    pids = [node.pid for node in store.nodes]
    assert len(list(tmp_path.glob("emq-dive-*/node-*"))) == 3
    store.close()
    assert not [pid for pid in pids if alive(pid)], "a node outlived close"
    assert not list(tmp_path.glob("emq-dive-*")), "close left the cluster's dirs behind"


def test_sigkill_of_the_owner_process_stops_every_node(tmp_path: Path) -> None:
    """No finally runs on SIGKILL: each node has PR_SET_PDEATHSIG, so the kernel stops it."""
    require_wheel()
    script = textwrap.dedent("""
        import signal
        from emq_dive.engine.stores import open_store
        store = open_store("cluster")
        print(" ".join(str(node.pid) for node in store.nodes), flush=True)
        signal.pause()
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)})
    pids: list[int] = []
    assert proc.stdout is not None
    try:
        pids = [int(pid) for pid in proc.stdout.readline().split()]
        assert len(pids) == 3 and all(alive(pid) for pid in pids), pids
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=DEADLINE)
    _poll(lambda: not any(alive(pid) for pid in pids), "every node to die with its parent")


def test_a_url_store_on_a_cluster_node_says_it_follows_the_slot_owner(fresh: ClusterStore) -> None:
    other = fresh.other_node()
    store = open_store(f"redis://:{_password(fresh)}@{other.address}/0", queue=fresh.queue)
    try:
        assert store.description.endswith(f" · cluster: the queue's slot is on {fresh.node.address}")
        assert _password(fresh) not in store.description
    finally:
        store.close()


@pytest.mark.parametrize("wire", [4, 6])
def test_the_store_pane_shows_the_slot_and_node_every_key_shares(fresh: ClusterStore, wire: int) -> None:
    """Stepped on the cluster: the pane names the queue's slot and its node, asked once per key, not per step."""
    from tui_support import asynctest, lesson, press, screen_text, settle

    from emq_dive.views.tui.app import make_app

    slot = key_slot(keyspace.queue_key(fresh.queue, "active").encode())
    tag = "{" + fresh.queue + "}"

    def keyslot_calls() -> int:
        stats = raw(fresh.client, "INFO", "commandstats").decode()
        found = re.search(r"cmdstat_cluster\|keyslot:calls=(\d+)", stats)
        return int(found.group(1)) if found else 0

    @asynctest
    async def check() -> tuple[list[str], int, int]:
        app = make_app(lesson(), fresh, wire=wire)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            screens = [screen_text(app)]
            asked = keyslot_calls()
            await press(app, pilot, "right", "right")
            screens.append(screen_text(app))
            return screens, asked, keyslot_calls()

    screens, asked, later = check()
    for screen in screens:
        assert f"slot {slot} · {fresh.node.address}" in screen
        # the pane names the queue's hashtag whole once, and as the lesson writes it after
        assert f"{{q}} is {tag}" in screen, screen
        assert re.search(r"all \d+ keys share \{q\}", screen), screen
    assert later == asked, "a step asked the cluster for slots it had already asked"
    ours = {slot for key, slot in fresh.slots.items() if key.startswith(f"emq:{tag}:".encode())}
    assert ours == {slot}


def test_the_no_hashtag_fate_is_refused_by_the_cluster_on_every_verb(fresh: ClusterStore) -> None:
    run = fates.run_fate(fresh, "no-hashtag")
    sizes = _dbsizes(fresh)
    verbs = {answer.verb: answer for answer in run.answers}
    assert len(verbs) == 4 and "one {q} tag" in run.note
    for verb, answer in verbs.items():
        assert not answer.unavailable, answer.unavailable
        (sent,) = answer.exchanges
        assert b"{" not in b" ".join(part for part in sent.sent if part.startswith(b"emq:")), sent.sent
        assert error_text(answer.value).startswith(("CROSSSLOT", "MOVED")), (verb, answer.value)
        assert answer.writes == (), f"{verb} wrote {answer.writes}"
    assert _dbsizes(fresh) == sizes
