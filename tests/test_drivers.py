"""The stepper's parts: the driver registry, the undo log and snapshots in typed commands, the Lua run's now,
line tracing beside another tracer, and a whole run as a user who may not run @dangerous commands."""

from __future__ import annotations

import secrets
import sys
from collections.abc import Sequence
from types import FrameType
from typing import Any

import pytest
import redis

from emq_dive.course import lessons
from emq_dive.engine import fates
from emq_dive.engine.echo_mq import jobs, keyspace
from emq_dive.engine.stepper import DRIVERS, Call, Outcome, Step, Stepper, register
from emq_dive.engine.stepper.driver import Batch, Handle, run_atomic
from emq_dive.engine.stepper.handle import BatchHandle
from emq_dive.engine.stepper.hosts import RUN_ID_LEARNED, probe_refused
from emq_dive.engine.stepper.timeline import Timeline
from emq_dive.engine.stepper.tracing import lines_of
from emq_dive.engine.stores import open_store, snapshot

try:
    from tests.conftest import FROZEN
except ImportError:  # tests/ is not a package: pytest put tests/ itself on sys.path
    from conftest import FROZEN

LEASE = 30_000
CLAIM = 10_000
NOW_MS = int(FROZEN * 1000)


def _now_of(calls: Sequence[Call]) -> int:
    seconds, micros = next(c.reply for c in calls if c.sent[0] == b"TIME")
    return int(seconds) * 1000 + int(micros) // 1000


# -- the registry: a new way to run a batch touches no other driver ------------------------------


class _OneShot:
    """A driver of the test's own: the whole batch in one step, sent as one command."""

    wire = 99
    source = "lua"
    code = "extend_locks.lua"
    count = 1
    one_command = True
    handle: Handle = BatchHandle()

    def __init__(self, batch: Batch) -> None:
        self._batch = batch
        self.command = (b"EVALSHA", batch.script.sha.encode())

    def title(self, index: int, done: bool, error: str | None) -> str:
        return "all at once"

    def marked(self) -> Sequence[int]:
        return ()

    def start(self, recorded: Sequence[Call], position: int) -> None:
        pass

    def step(self, before: Step) -> Outcome:
        sent, reply = run_atomic(self._batch, 4)
        return Outcome(lines=(), calls=(Call("lua", 0, sent, reply),), now=None, reply=reply, done=True)

    def atomic(self, between) -> tuple[tuple[bytes, ...], Any]:
        return run_atomic(self._batch, 4, between)


def test_a_registered_driver_runs_its_wire(fake_store):
    batch = fates.build_batch(fake_store, ["live", "stale"], LEASE, CLAIM)
    register(99)(_OneShot)
    try:
        stepper = Stepper(fake_store, batch.held, LEASE, 99)
        step = stepper.forward()
    finally:
        del DRIVERS[("batch", 99)]
    assert set(DRIVERS) == {("batch", 4), ("batch", 6), ("singles", 4), ("singles", 6), ("guard-off", 4)}
    assert (step.title, step.done, step.wire, stepper.count) == ("all at once", True, 99, 1)
    assert list(step.reply) == [b"JOB02"], "the one command really ran: the stale member failed"
    with pytest.raises(ValueError, match="no driver runs wire 99"):
        Stepper(fake_store, batch.held, LEASE, 99)


# -- typed snapshots and the undo log ------------------------------------------------------------


def test_a_snapshot_puts_every_kind_back_with_its_ttl(any_store):
    client, q = any_store.client, any_store.queue
    keys = {kind: keyspace.queue_key(q, kind).encode() for kind in ("string", "list", "hash", "zset", "set")}
    client.set(keys["string"], b"\x00bytes\r\n", px=600_000)
    client.rpush(keys["list"], "b", "a", "b")
    client.hset(keys["hash"], mapping={"attempts": "2", "group": "lane-a"})
    client.zadd(keys["zset"], {"JOB01": 1_700_000_030_000, "JOB02": 0.1, "JOB03": 2**52 + 1_700_000_000_000})
    client.sadd(keys["set"], "x", "y")
    start = snapshot.take(client, q)
    assert {e.kind for e in start.values()} == set(keys)
    assert start[keys["string"]].ttl > 590_000 and start[keys["hash"]].ttl == -1
    client.delete(keys["list"], keys["string"])
    client.zadd(keys["zset"], {"JOB01": 5, "JOB04": 1})
    client.hdel(keys["hash"], "group")
    client.set(keyspace.queue_key(q, "extra").encode(), "x")
    snapshot.restore(client, q, start)
    assert snapshot.take(client, q) == start
    assert client.lrange(keys["list"], 0, -1) == [b"b", b"a", b"b"]
    assert client.zscore(keys["zset"], "JOB03") == 2**52 + 1_700_000_000_000
    assert client.zscore(keys["zset"], "JOB02") == 0.1
    assert 590_000 < client.pttl(keys["string"]) <= 600_000
    assert client.pttl(keys["list"]) == -1


def test_the_undo_log_puts_back_a_whole_key_it_saw_before_a_write(any_store):
    client, q = any_store.client, any_store.queue
    row = keyspace.job_key(q, "JOB01").encode()
    client.hset(row, mapping={"attempts": "1", "group": "g"})
    client.pexpire(row, 900_000)
    timeline = Timeline(client, [("JOB01", 1)])
    timeline.open()
    for write in ((b"DEL", row), (b"HSET", row, b"attempts", b"9"), (b"SET", row, b"x")):
        timeline.before_write(write)
        client.execute_command(*write)
    assert client.get(row) == b"x"
    timeline.undo(1)
    assert client.hgetall(row) == {b"attempts": b"1", b"group": b"g"}
    assert 890_000 < client.pttl(row) <= 900_000


# -- the Lua run's now -------------------------------------------------------------------------------


def test_an_empty_batch_on_wire_4_shows_the_now_it_read(any_store):
    fates.reset(any_store)
    last = Stepper(any_store, [], LEASE, 4).end()
    assert last.done and list(last.reply) == []
    assert last.now is not None and last.now == _now_of(last.calls)
    if any_store.kind == "fakeredis":
        assert last.now == NOW_MS


# -- tracing beside a debugger or coverage tool ------------------------------------------------------


def _traced_helper(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
    return total


def test_lines_of_leaves_the_tracer_already_installed_its_view():
    watched = {__file__, jobs.__file__}
    theirs: list[tuple[str, int]] = []

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename not in watched:
            return None

        def local(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                theirs.append((frame.f_code.co_filename, frame.f_lineno))
            return local
        return local

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        with lines_of(jobs.__file__) as ours:
            _traced_helper(3)
            jobs.check_lease(LEASE)
        after = sys.gettrace()
    finally:
        sys.settrace(previous)
    assert after is tracer, "lines_of put the earlier tracer back"
    assert ours, "lines_of saw the handle's lines"
    assert [n for f, n in theirs if f == jobs.__file__] == ours, "the earlier tracer saw the same handle lines"
    first = _traced_helper.__code__.co_firstlineno
    assert {first + 1, first + 2, first + 3, first + 4} <= {n for f, n in theirs if f == __file__}


# -- a least-privilege URL user ----------------------------------------------------------------------


@pytest.fixture
def least_privilege(server_store):
    """A URL store logged in as ``ACL SETUSER u on >pw resetkeys ~emq:* +@all -@dangerous`` on the spawned server."""
    admin = server_store.client
    details = admin.connection_pool.connection_kwargs
    user, password = f"emq-dive-least-{secrets.token_hex(4)}", secrets.token_hex(16)
    admin.execute_command("ACL", "SETUSER", user, "on", f">{password}", "resetkeys", "~emq:*", "+@all",
                          "-@dangerous")
    store = open_store(f"redis://{user}:{password}@{details['host']}:{details['port']}/0")
    try:
        yield store, user, admin
    finally:
        store.close()
        admin.execute_command("ACL", "DELUSER", user)


@pytest.mark.server
@pytest.mark.parametrize("wire", [4, 6])
def test_a_least_privilege_user_steps_verifies_and_rewinds(least_privilege, wire):
    store, user, admin = least_privilege
    for refused in (("RESTORE", keyspace.queue_key(store.queue, "x"), 0, b"x"), ("INFO", "server"),
                    ("ACL", "DRYRUN", user, "GET", keyspace.queue_key(store.queue, "x"))):
        with pytest.raises(redis.exceptions.NoPermissionError):
            store.client.execute_command(*refused)
    assert store.native, "the spawned server has the EMQ module"
    lesson = lessons.load("batches-03")
    batch = fates.build_batch(store, lesson.batch, lesson.lease_ms, lesson.claim_lease_ms)
    start = snapshot.take(store.client, store.queue)
    stepper = Stepper(store, batch.held, lesson.lease_ms, wire)
    pictures = [start]
    while not stepper.finished:
        step = stepper.forward()
        pictures.append(snapshot.take(store.client, store.queue))
        assert step.error is None, step.error
    last = stepper.current
    assert [f.decode() for f in last.reply] == ["JOB02", "JOB04"]
    assert pictures[-1] != start, "the run wrote"
    agreement = stepper.verify()
    assert agreement.agree, agreement.differences
    assert snapshot.take(store.client, store.queue) == pictures[-1], "verify put the stepped end back"
    row = keyspace.job_key(store.queue, "JOB01")
    if wire == 6:
        run_id = admin.info("server")["run_id"].encode()
        assert store.client.hget(row, "lease_epoch") == run_id, "the twin stamped the server's run_id"
        refused_note = probe_refused("NOPERM")
        assert all(refused_note in s.notes for s in stepper.steps[1:]), "each step says the probe could not run"
        assert RUN_ID_LEARNED in stepper.steps[-1].notes
        dryruns = [c for s in stepper.steps for c in s.calls if c.sent[:2] == (b"ACL", b"DRYRUN")]
        assert len(dryruns) == 1 and isinstance(dryruns[0].reply, redis.exceptions.NoPermissionError)
    else:
        assert all(s.notes == () for s in stepper.steps)
        assert store.client.hget(row, "lease_epoch") is None
    for position in range(len(pictures) - 1, 0, -1):
        stepper.back()
        assert snapshot.take(store.client, store.queue) == pictures[position - 1], f"back from step {position}"
    stepper.end()
    stepper.home()
    assert snapshot.take(store.client, store.queue) == start
