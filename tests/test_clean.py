"""``emq-dive clean`` deletes the dive queues whose owner is gone, and nothing else: not a live dive's queue, not a
look-alike key, not another database; a cluster's work dir whose owner is gone goes at the next start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import redis
from conftest import own_server

from emq_dive.cli import main
from emq_dive.engine.echo_mq import keyspace, moves
from emq_dive.engine.stores import open_store
from emq_dive.engine.stores.cluster import OWNER_FILE, remove_orphans
from emq_dive.engine.stores.expiry import Owner, mark, marker_keys

FOREIGN = {0: [b"emq:{dive-00000000}:active", b"emq:{dive-*}:active", b"emq:{dive-11111111}:dive-owner",
               b"emq:{dive-22222222}:dive-owner", b"emq:{dive-22222222}:active", b"other"],
           1: [b"emq:{dive-33333333}:active"]}
"""Look-alike keys: no marker, a glob in the name, a marker this app did not write, a key in db 1."""


def _gone_owner() -> Owner:
    """An owner on this host whose process has exited."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    return Owner(Owner.me().host, int(done.stdout), "")


def _seed(port: int) -> dict[tuple[int, bytes], bytes]:
    """Write the foreign keys; their DUMPs."""
    dumps = {}
    for db, keys in FOREIGN.items():
        client = redis.Redis(port=port, db=db)
        for key in keys:
            client.rpush(key, b"theirs") if key.endswith(b"active") else client.set(key, b"not ours")
            dumps[(db, key)] = client.dump(key)
        client.close()
    return dumps


def _dumps(port: int, dumps: dict[tuple[int, bytes], bytes]) -> dict[tuple[int, bytes], bytes | None]:
    clients = {db: redis.Redis(port=port, db=db) for db in FOREIGN}
    try:
        return {(db, key): clients[db].dump(key) for db, key in dumps}
    finally:
        for client in clients.values():
            client.close()


def _dead_queue(client: redis.Redis, queue: str, owner: Owner, alive: bool = True) -> None:
    mark(client, queue, owner)
    if not alive:
        client.delete(marker_keys(queue)[1])
    moves.enqueue(client, queue, "J1")
    moves.claim(client, queue, "J1", 30_000)


@pytest.mark.server
def test_clean_deletes_only_the_queues_whose_owner_is_gone(tmp_path: Path, capsys) -> None:
    with own_server(tmp_path) as (port, client):
        foreign = _seed(port)
        _dead_queue(client, "dive-aaaaaaa1", _gone_owner())  # killed on this host: its alive marker still lives
        _dead_queue(client, "dive-aaaaaaa2", Owner("elsewhere", 1, ""), alive=False)  # its alive marker ran out
        live = open_store(f"redis://127.0.0.1:{port}/0")
        try:
            assert live.cleaned is not None
            assert live.cleaned.result(timeout=30) == 2  # the quiet check at start found both
            with live.io():
                moves.enqueue(live.client, live.queue, "J1")
            _dead_queue(client, "dive-aaaaaaa3", _gone_owner())
            _dead_queue(client, "dive-aaaaaaa4", Owner("elsewhere", 1, ""))  # its owner runs elsewhere
            assert main(["clean", "--backend", f"redis://127.0.0.1:{port}/0"]) == 0
            out = capsys.readouterr().out.splitlines()
            assert [line.split(":", 2)[1] for line in out if line.startswith("deleted")] == ["{dive-aaaaaaa3}"]
            assert sorted(line.split(":", 2)[1] for line in out if line.startswith("kept")) == \
                sorted(["{dive-aaaaaaa4}", f"{{{live.queue}}}"])
            assert out[-1] == f"1 dive queue deleted on redis://127.0.0.1:{port}/0, 2 kept"
            left = {key.split(b":")[1] for key in client.scan_iter(match="emq:{dive-*}:*") if (0, key) not in foreign}
            assert left == {b"{dive-aaaaaaa4}", f"{{{live.queue}}}".encode()}
            assert client.exists(keyspace.job_key(live.queue, "J1"))
        finally:
            live.close()
        assert _dumps(port, foreign) == foreign
        assert all(client.pttl(key) == -1 for db, key in foreign if db == 0), "a foreign key got a TTL"


def test_clean_needs_a_url(capsys) -> None:
    assert main(["clean", "--backend", "fakeredis"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "redis://" in err


def test_clean_says_in_one_line_when_the_server_is_not_there(capsys, monkeypatch) -> None:
    from emq_dive.engine.stores.spawned import free_port
    monkeypatch.setenv("EMQ_DIVE_PASSWORD", "secret-word")  # from the environment, as the dive takes it
    assert main(["clean", "--backend", f"redis://127.0.0.1:{free_port()}/0"]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "cannot clean" in err and "secret-word" not in err


def test_a_cluster_work_dir_whose_owner_is_gone_goes_at_the_next_start(tmp_path: Path) -> None:
    dead, live, unowned = (tmp_path / f"emq-dive-{name}" for name in ("dead", "live", "unowned"))
    for root in (dead, live, unowned):
        (root / "node-0").mkdir(parents=True)
        (root / "node-0" / "nodes.conf").write_text("x")
    (dead / OWNER_FILE).write_text(_gone_owner().text())
    (live / OWNER_FILE).write_text(Owner.me().text())
    assert remove_orphans(tmp_path) == [dead]
    assert not dead.exists() and live.exists() and unowned.exists()


@pytest.mark.server
def test_a_cluster_start_removes_the_work_dir_a_killed_one_left(tmp_path: Path, monkeypatch) -> None:
    import tempfile

    from test_valkey_store import require_wheel
    require_wheel()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    left = tmp_path / "emq-dive-killed"
    (left / "node-0").mkdir(parents=True)
    (left / "node-0" / "nodes.conf").write_text("x")
    (left / OWNER_FILE).write_text(_gone_owner().text())
    store = open_store("cluster")
    try:
        assert not left.exists()
        (root,) = tmp_path.glob("emq-dive-*")
        assert Owner.parse((root / OWNER_FILE).read_bytes()) == Owner.me()
    finally:
        store.close()
    assert not list(tmp_path.glob("emq-dive-*"))
