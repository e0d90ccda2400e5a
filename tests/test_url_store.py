"""The user's own server, by URL: the lesson's whole run touches only its own queue, deletes it, and never FLUSHes.

A real server is started here holding foreign keys of every kind (in db 0 and db 1, some with TTLs, one named
like another queue's active set); the lesson's work runs through the engine against it, and afterwards every
foreign key is byte-identical (DUMP and its absolute expiry), none of the run's keys remain, MONITOR saw no
FLUSH and no write outside the run's own queue, and INFO commandstats counts no FLUSHALL / FLUSHDB.
"""

from __future__ import annotations

import re
import secrets
import threading
from pathlib import Path

import pytest
import redis
from conftest import IN_CI, own_server

from emq_dive.course.lessons import load
from emq_dive.engine import fates
from emq_dive.engine.stepper import Stepper
from emq_dive.engine.stores import StoreError, open_store
from emq_dive.engine.stores.url import open_url

pytestmark = pytest.mark.server

FOREIGN_PASSWORD = "foreign-" + secrets.token_hex(8)
_WRITES = {"SET", "SETEX", "PSETEX", "SETNX", "APPEND", "INCR", "INCRBY", "DECR", "HSET", "HMSET", "HSETNX",
           "HINCRBY", "HDEL", "ZADD", "ZREM", "ZINCRBY", "ZREMRANGEBYSCORE", "RPUSH", "LPUSH", "LREM", "LPOP",
           "RPOP", "LSET", "LTRIM", "SADD", "SREM", "XADD", "RESTORE", "EXPIRE", "PEXPIRE", "PERSIST", "RENAME",
           "GETDEL", "GETSET", "COPY", "MOVE"}
_MULTI_KEY_WRITES = {"DEL", "UNLINK"}
_NEVER = {"FLUSHALL", "FLUSHDB", "SWAPDB", "MOVE", "SHUTDOWN", "DEBUG", "CONFIG"}






@pytest.fixture(scope="module")
def foreign(tmp_path_factory):
    """A server of the user's: password, db 0 and db 1, the EMQ module loaded when it can be built."""
    workdir = tmp_path_factory.mktemp("foreign")
    args = ["--unixsocket", str(workdir / "s.sock"), "--unixsocketperm", "700"]
    try:
        from emq_dive.engine.native.build import build_module
        args += ["--loadmodule", str(build_module())]
    except Exception:  # no compiler here: the URL store then serves wire 4 only, which CI does not accept
        if IN_CI:
            raise
    with own_server(workdir, *args, password=FOREIGN_PASSWORD) as (port, client):
        yield {"port": port, "sock": workdir / "s.sock", "client": client}


def _plant(client: redis.Redis) -> None:
    """The user's own data: every type, TTLs, a key shaped like another queue's, and a second db."""
    client.flushall()  # the test's own fresh server, before the run: never the app's doing
    client.set("user:greeting", b"hello \x00\xff bytes")
    client.set("user:session", "abc", px=3_600_000)
    client.hset("user:profile", mapping={"name": "Ada", "attempts": "7"})
    client.zadd("leaderboard", {"alice": 10, "bob": 20.5})
    client.rpush("user:todo", "a", "b", "c")
    client.sadd("user:tags", "x", "y")
    client.xadd("user:events", {"kind": "login"})
    client.zadd("emq:{other}:active", {"JOB01": 1_700_000_030_000, "JOB02": 1})
    client.hset("emq:{other}:job:JOB01", mapping={"attempts": "1", "group": "lane-a"})
    client.rpush("emq:{other}:pending", "JOB03")
    client.set("emq:{other}:", "base")
    client.zadd("emq:{dive-00000000}:active", {"JOB01": 5})  # what an earlier run's queue would look like
    client.hset("emq:{dive-00000000}:job:JOB01", "attempts", "1")
    client.expire("emq:{other}:job:JOB01", 7200)
    other = redis.Redis(connection_pool=redis.ConnectionPool(**{
        **client.connection_pool.connection_kwargs, "db": 1}))
    other.set("db1:key", "untouched", px=5_000_000)
    other.zadd("emq:{other}:active", {"JOB09": 9})
    other.close()


def _image(client: redis.Redis) -> dict[tuple[int, bytes], tuple[bytes, int]]:
    """Every key of db 0 and db 1: its DUMP and its absolute expiry (PEXPIRETIME, stable as time passes)."""
    out = {}
    for db in (0, 1):
        conn = redis.Redis(connection_pool=redis.ConnectionPool(**{
            **client.connection_pool.connection_kwargs, "db": db}))
        for key in conn.scan_iter(count=1000):
            out[(db, key)] = (conn.dump(key), conn.execute_command("PEXPIRETIME", key))
        conn.close()
    return out


def _commandstats(client: redis.Redis) -> dict[str, int]:
    return {name: stats["calls"] for name, stats in client.info("commandstats").items()}


class _Monitor:
    """MONITOR on a raw connection of its own, read in a thread until a sentinel ECHO comes by."""

    _ARG = re.compile(r'"((?:[^"\\]|\\.)*)"')

    def __init__(self, port: int) -> None:
        self.sentinel = "monitor-stop-" + secrets.token_hex(4)
        self.commands: list[list[str]] = []
        self.conn = redis.Connection(host="127.0.0.1", port=port, password=FOREIGN_PASSWORD, socket_timeout=15)
        self.conn.connect()
        self.conn.send_command("MONITOR")
        assert self.conn.read_response() == b"OK"
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.error: BaseException | None = None
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                line = self.conn.read_response().decode("utf-8", "backslashreplace")
                args = [m.group(1) for m in self._ARG.finditer(line.split("]", 1)[1])]
                if args[:2] == ["ECHO", self.sentinel] or args[:2] == ["echo", self.sentinel]:
                    return
                self.commands.append(args)
        except BaseException as err:
            self.error = err

    def stop(self, client: redis.Redis) -> list[list[str]]:
        client.echo(self.sentinel)
        self.thread.join(timeout=15)
        self.conn.disconnect()
        assert not self.thread.is_alive(), "MONITOR never saw the sentinel"
        assert self.error is None, f"MONITOR reader failed: {self.error!r}"
        return self.commands


def _lesson_work(store) -> None:
    """What a learner's session does: the default batch stepped on each wire and verified, then the fate table."""
    lesson = load("batches-03")
    wires = (4, 6) if store.native else (4,)
    for wire in wires:
        batch = fates.build_batch(store, lesson.batch, lesson.lease_ms, lesson.claim_lease_ms)
        stepper = Stepper(store, batch.held, lesson.lease_ms, wire=wire)
        for _ in range(10 * (len(batch.held) + 2)):
            if stepper.finished:
                break
            stepper.forward()
        assert stepper.finished
        stepper.back()
        stepper.forward()
        agreement = stepper.verify()
        assert agreement.agree, agreement.differences
    assert all(key.startswith(f"emq:{{{store.queue}}}:".encode()) for key in store.own_keys())
    assert store.own_keys(), "the run wrote nothing: the test would prove nothing"
    for key in ("live", "gone", "stale", "reaped", "wrongtype", "lane", "restricted", "unpaired",
                "ill-formed", "bad-lease", "bad-shape", "empty"):
        run = fates.run_fate(store, key, lesson.lease_ms, lesson.claim_lease_ms)
        assert run.answers or run.raw_answers
    batch = fates.build_batch(store, ["live", "wrongtype", "live"], lesson.lease_ms, lesson.claim_lease_ms)
    fates.compare(store, batch.held, lesson.lease_ms)


@pytest.mark.parametrize("form", ["tcp", "unix"])
def test_url_store_leaves_every_foreign_key_untouched(foreign, form: str) -> None:
    client = foreign["client"]
    _plant(client)
    before = _image(client)
    users_before = client.acl_users()
    stats_before = _commandstats(client)
    monitor = _Monitor(foreign["port"])
    if form == "tcp":
        url = f"redis://:{FOREIGN_PASSWORD}@127.0.0.1:{foreign['port']}/0"
    else:
        url = f"unix://:{FOREIGN_PASSWORD}@{foreign['sock']}?db=0"

    store = open_store(url)
    try:
        assert re.fullmatch(r"dive-[0-9a-f]{8}", store.queue)
        assert store.kind == "url"
        assert FOREIGN_PASSWORD not in store.description
        _lesson_work(store)
    finally:
        store.close()
    store.close()  # twice is safe

    commands = monitor.stop(client)
    prefix = f"emq:{{{store.queue}}}:"
    assert commands, "MONITOR saw nothing"
    names = [c[0].upper() for c in commands if c]
    assert not _NEVER & set(names), sorted(_NEVER & set(names))
    assert "SELECT" not in names or all(c[1] == "0" for c in commands if c and c[0].upper() == "SELECT")
    outside = []
    for command in commands:
        name = command[0].upper() if command else ""
        targets = command[1:] if name in _MULTI_KEY_WRITES else command[1:2] if name in _WRITES else []
        outside += [" ".join(command) for key in targets if not key.startswith(prefix)]
    assert not outside, f"writes outside the run's queue: {outside[:5]}"

    stats_after = _commandstats(client)
    for flush in ("cmdstat_flushall", "cmdstat_flushdb"):
        assert stats_after.get(flush) == stats_before.get(flush)
    assert _image(client) == before
    assert not list(client.scan_iter(match=f"{prefix}*"))
    assert client.acl_users() == users_before


def test_a_url_store_of_a_spawned_servers_details_also_cleans_up(server_store) -> None:
    """The same promise through server_store's own connection details, with no foreign data planted by us."""
    kwargs = server_store.client.connection_pool.connection_kwargs
    url = f"redis://:{kwargs['password']}@{kwargs['host']}:{kwargs['port']}/0"
    store = open_store(url)
    try:
        batch = fates.build_batch(store, ["live", "stale", "live", "reaped"], 30_000, 10_000)
        stepper = Stepper(store, batch.held, 30_000)
        assert stepper.verify().agree
        assert store.own_keys()
    finally:
        store.close()
    assert not list(server_store.client.scan_iter(match=f"emq:{{{store.queue}}}:*"))


# -- a bad URL ---------------------------------------------------------------------


@pytest.mark.parametrize("url, shown", [
    ("redis://:s3cret@127.0.0.1:1/0", "redis://***@127.0.0.1:1/0"),
    ("redis://alice:s3cret@127.0.0.1:1/0", "redis://***@127.0.0.1:1/0"),
    ("unix://:s3cret@/nonexistent/emq.sock", "unix://***@/nonexistent/emq.sock"),
])
def test_an_unreachable_url_is_a_store_error_naming_the_masked_url(url: str, shown: str) -> None:
    with pytest.raises(StoreError) as caught:
        open_store(url)
    assert shown in str(caught.value)
    assert "s3cret" not in str(caught.value)


def test_a_wrong_password_is_a_store_error(foreign) -> None:
    url = f"redis://:wrong-s3cret@127.0.0.1:{foreign['port']}/0"
    with pytest.raises(StoreError) as caught:
        open_store(url)
    assert f"redis://***@127.0.0.1:{foreign['port']}/0" in str(caught.value)
    assert "wrong-s3cret" not in str(caught.value)


@pytest.mark.parametrize("url", ["redis://:s3cret@127.0.0.1:notaport/0", "redis://:s3cret@127.0.0.1:99999/0"])
def test_a_malformed_port_is_a_store_error(url: str) -> None:
    with pytest.raises(StoreError) as caught:
        open_store(url)
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize("url", ["redis://127.0.0.1:1/0?password=s3cret",
                                 "unix:///nonexistent/emq.sock?db=0&password=s3cret"])
def test_a_query_string_password_is_masked(url: str) -> None:
    with pytest.raises(StoreError) as caught:
        open_store(url)
    assert "s3cret" not in str(caught.value)


def test_an_unknown_scheme_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="fakeredis, server"):
        open_store("http://127.0.0.1:1/")


@pytest.mark.server
def test_a_server_that_refuses_the_markers_gets_one_line_only(tmp_path: Path, capfd: pytest.CaptureFixture) -> None:
    """A user who may read but neither write nor SCAN: the store error says it cannot write, and the close that
    follows adds no line about a queue it could not delete (the run wrote nothing there)."""
    with own_server(tmp_path) as (port, client):
        client.execute_command("ACL", "SETUSER", "reader", "on", ">pw", "~*", "+@all", "-@write", "-scan")
        with pytest.raises(StoreError) as raised:
            open_url(f"redis://reader:pw@127.0.0.1:{port}/0", "dive-0f1e2d3c")
        assert "cannot write on" in str(raised.value)
        assert "could not delete" not in capfd.readouterr().err
        assert client.keys("emq:*") == []
