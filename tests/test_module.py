"""The EMQ module on a spawned redis-server answers exactly as the Python twin in native.py."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emq_dive.engine.echo_mq import native, scripts
from emq_dive.engine.native import build

try:
    from tests.conftest_module import SERVERS, ClientHost, Err, Raw, python_twin, snapshot, spawn
except ImportError:  # tests/ is not a package: pytest put tests/ itself on sys.path
    from conftest_module import SERVERS, ClientHost, Err, Raw, python_twin, snapshot, spawn

Q = b"emq:{q}:"
ACTIVE = Q + b"active"
BATCH = [b"2", ACTIVE, Q]
LEASE = b"30000"

SEED = [
    ["HSET", Q + b"job:live", "attempts", "1"], ["ZADD", ACTIVE, "100", "live"],
    ["HSET", Q + b"job:live2", "attempts", "7"], ["ZADD", ACTIVE, "100", "live2"],
    ["HSET", Q + b"job:stale", "attempts", "2"], ["ZADD", ACTIVE, "100", "stale"],
    ["HSET", Q + b"job:pend", "attempts", "1"], ["ZADD", Q + b"pending", "100", "pend"],
    ["HSET", Q + b"job:lane", "attempts", "3", "group", "g1"], ["ZADD", ACTIVE, "100", "lane"],
    ["SET", Q + b"job:wrong", "not a hash"], ["ZADD", ACTIVE, "100", "wrong"],
    ["ZADD", ACTIVE, "100", "gone"],
    ["HSET", b"emq:{w}:job:x", "attempts", "1"], ["SET", b"emq:{w}:active", "not a zset"],
    ["SET", b"sentinel:s", "untouched"],
]


def single(job_id: bytes, token: bytes, lease: bytes = LEASE) -> list[bytes]:
    """EMQ.EXTEND's arguments for one member of queue q."""
    return [b"2", ACTIVE, Q + b"job:" + job_id, lease, job_id, token]


BATCH_FATES = {
    "live": [*BATCH, LEASE, b"live", b"1"],
    "row gone": [*BATCH, LEASE, b"gone", b"1"],
    "stale token": [*BATCH, LEASE, b"stale", b"1"],
    "pending not active": [*BATCH, LEASE, b"pend", b"1"],
    "lane job": [*BATCH, LEASE, b"lane", b"3"],
    "duplicate ids": [*BATCH, LEASE, b"live", b"1", b"live", b"1", b"stale", b"1", b"stale", b"1"],
    "mixed": [*BATCH, LEASE, b"live", b"1", b"gone", b"1", b"stale", b"1", b"pend", b"1", b"lane", b"3",
              b"live2", b"7"],
    "wrongtype row mid-batch": [*BATCH, LEASE, b"live", b"1", b"wrong", b"1", b"lane", b"3"],
    "wrongtype active": [b"2", b"emq:{w}:active", b"emq:{w}:", LEASE, b"x", b"1"],
    "wrongtype active unreached": [b"2", b"emq:{w}:active", b"emq:{w}:", LEASE, b"x", b"9"],
    "unpaired trailing id": [*BATCH, LEASE, b"live", b"1", b"gone"],
    "empty batch": [*BATCH, LEASE],
    "no args": [],
    "numkeys 3": [b"3", ACTIVE, Q, LEASE, b"live", b"1"],
    "numkeys 02": [b"02", ACTIVE, Q, LEASE, b"live", b"1"],
    "numkeys only": [b"2"],
    "three args": BATCH,
    "keys of another base": [b"2", ACTIVE, b"emq:{other}:", LEASE, b"live", b"1"],
    "active misspelt": [b"2", Q + b"activ", Q, LEASE, b"live", b"1"],
    "lease 0": [*BATCH, b"0", b"live", b"1"],
    "lease -5": [*BATCH, b"-5", b"live", b"1"],
    "lease abc": [*BATCH, b"abc", b"live", b"1"],
    "lease 05": [*BATCH, b"05", b"live", b"1"],
    "lease +5": [*BATCH, b"+5", b"live", b"1"],
    "lease with space": [*BATCH, b"5 ", b"live", b"1"],
    "lease 2**63-1 out of range": [*BATCH, str(2 ** 63 - 1).encode(), b"live", b"1"],
    "lease 2**63": [*BATCH, str(2 ** 63).encode(), b"live", b"1"],
    "lease 20 digits": [*BATCH, b"9" * 20, b"live", b"1"],
    "lease that fits": [*BATCH, b"1", b"live", b"1"],
    "lease near the top": [*BATCH, str(2 ** 62).encode(), b"live", b"1"],
}

SINGLE_FATES = {
    "live": single(b"live", b"1"),
    "lane job": single(b"lane", b"3"),
    "row gone": single(b"gone", b"1"),
    "stale token": single(b"stale", b"1"),
    "pending not active": single(b"pend", b"1"),
    "wrongtype row": single(b"wrong", b"1"),
    "wrongtype active": [b"2", b"emq:{w}:active", b"emq:{w}:job:x", LEASE, b"x", b"1"],
    "row of another id": [b"2", ACTIVE, Q + b"job:live", LEASE, b"live2", b"7"],
    "active misspelt": [b"2", Q + b"activx", Q + b"job:live", LEASE, b"live", b"1"],
    "five args": single(b"live", b"1")[:5],
    "seven args": [*single(b"live", b"1"), b"extra"],
    "eight args": [*single(b"live", b"1"), b"extra", b"more"],
    "no args": [],
    "numkeys 1": [b"1", *single(b"live", b"1")[1:]],
    "lease 0": single(b"live", b"1", b"0"),
    "lease 05": single(b"live", b"1", b"05"),
    "lease 2**63-1 out of range": single(b"live", b"1", str(2**63 - 1).encode()),
    "lease 2**63": single(b"live", b"1", str(2**63).encode()),
    "lease that fits": single(b"live", b"1", b"1"),
}


@pytest.fixture(scope="module")
def module_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module, built into a private cache."""
    return build.build_module(tmp_path_factory.mktemp("emq-cache"))


@pytest.fixture(scope="module", params=sorted(SERVERS))
def server(request: pytest.FixtureRequest, module_path: Path):
    """One server of each kind with the module loaded, stopped after the module's tests."""
    with spawn(module_path, binary=SERVERS[request.param]()) as running:
        yield running


@pytest.fixture
def admin(server) -> Raw:
    """A default-user connection on db 0, with both test databases flushed."""
    conn = server.raw()
    conn.call("FLUSHALL")
    yield conn
    conn.close()


def _seed(conn: Raw, db: int) -> None:
    conn.call("SELECT", db)
    conn.call("FLUSHDB")
    for reply in conn.pipeline(SEED):
        assert not isinstance(reply, Err), reply
    conn.call("SELECT", 0)


def _run_id(conn: Raw) -> bytes:
    info = conn.call("INFO", "server")
    return re.search(rb"run_id:(\w+)", info).group(1)


def _rescored(before: dict, after: dict) -> tuple[dict, set, set]:
    """After-store with re-scored zset members' scores masked, the re-scored members and their scores."""
    masked, members, scores = {}, set(), set()
    for key, (kind, value) in after.items():
        if kind == "zset" and key in before:
            old = before[key][1]
            value = dict(value)
            for member, score in list(value.items()):
                if old.get(member) != score:
                    members.add((key, member))
                    scores.add(score)
                    value[member] = "rescored"
        masked[key] = (kind, value)
    return masked, members, scores


def both_twins(server, admin: Raw, verb: str, args: list[bytes], *, user: str | None = None,
               password: str | None = None) -> object:
    """Run the module on db 0 and native.py on db 1 over the same seed; assert replies and stores match."""
    _seed(admin, 0)
    _seed(admin, 1)
    twin = server.raw()
    twin.call("SELECT", 1)
    before = snapshot(admin)
    caller = server.raw(user, password) if user else server.raw()
    start = int(time.time() * 1000)
    module_reply = caller.call(verb, *args)
    twin_reply = python_twin(ClientHost(twin, acl_user=user), verb, args)
    assert module_reply == twin_reply
    after_module = snapshot(admin)
    after_twin = snapshot(twin)
    caller.close()
    twin.close()

    masked_m, members_m, scores_m = _rescored(before, after_module)
    masked_t, members_t, scores_t = _rescored(before, after_twin)
    assert masked_m == masked_t
    assert members_m == members_t
    assert len(scores_m) <= 1 and len(scores_t) <= 1, "one clock read for every member"
    if isinstance(module_reply, Err):
        assert after_module == before, "an error reply writes nothing"
    if scores_m:
        lease = int(args[3])
        (score,) = scores_m
        slack = 2048  # a double near 2**62 is exact only to 1024
        assert start + lease - slack <= score <= int(time.time() * 1000) + lease + slack
    run_id = _run_id(admin)
    for key, (kind, value) in after_module.items():
        if kind == "hash" and b"lease_epoch" in value:
            assert value[b"lease_epoch"] == run_id
            assert (ACTIVE, key.rsplit(b":", 1)[1]) in members_m or key.startswith(b"emq:{w}")
    return module_reply


@pytest.mark.parametrize("fate", list(BATCH_FATES))
def test_extends_matches_the_python_twin(server, admin, fate):
    both_twins(server, admin, "EMQ.EXTENDS", BATCH_FATES[fate])


@pytest.mark.parametrize("fate", list(SINGLE_FATES))
def test_extend_matches_the_python_twin(server, admin, fate):
    both_twins(server, admin, "EMQ.EXTEND", SINGLE_FATES[fate])


def test_expected_replies(server, admin):
    assert both_twins(server, admin, "EMQ.EXTENDS", BATCH_FATES["mixed"]) == [b"gone", b"stale", b"pend"]
    assert both_twins(server, admin, "EMQ.EXTENDS", BATCH_FATES["empty batch"]) == []
    assert both_twins(server, admin, "EMQ.EXTENDS", BATCH_FATES["wrongtype row mid-batch"]) == Err(native.WRONGTYPE)
    assert both_twins(server, admin, "EMQ.EXTEND", SINGLE_FATES["live"]) == 1
    assert both_twins(server, admin, "EMQ.EXTEND", SINGLE_FATES["stale token"]) == Err(
        "EMQSTALE token does not match attempts")
    assert both_twins(server, admin, "EMQ.EXTENDS", BATCH_FATES["unpaired trailing id"]) == Err(
        "ERR EMQ.EXTENDS wrong number of arguments")
    assert both_twins(server, admin, "EMQ.EXTENDS", BATCH_FATES["lease 2**63-1 out of range"]) == Err(
        "ERR EMQ.EXTENDS lease_ms is out of range")
    assert admin.call("HGET", Q + b"job:lane", "group") == b"g1"


IDS = [b"live", b"live2", b"stale", b"pend", b"lane", b"gone", b"wrong", b"", b"job:live"]


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs=st.lists(st.tuples(st.sampled_from(IDS), st.sampled_from([b"1", b"2", b"3", b"7", b""])),
                      max_size=8),
       lease=st.one_of(st.integers(min_value=-3, max_value=2**64).map(lambda n: str(n).encode()),
                       st.sampled_from([b"05", b"abc", b"", b"1e3"])),
       trailing=st.booleans(), verb=st.sampled_from(["EMQ.EXTENDS", "EMQ.EXTEND"]))
def test_random_batches_match_the_python_twin(server, pairs, lease, trailing, verb):
    conn = server.raw()
    conn.call("FLUSHALL")
    try:
        if verb == "EMQ.EXTENDS":
            args = BATCH + [lease] + [part for pair in pairs for part in pair] + ([b"live"] if trailing else [])
        else:
            job_id, token = pairs[0] if pairs else (b"live", b"1")
            args = single(job_id, token, lease) + ([b"x"] if trailing else [])
        both_twins(server, conn, verb, args)
    finally:
        conn.close()


READER_ACL = ["on", ">pw-reader", "+@all", "~emq:{q}:active", "~emq:{q}:", "%R~emq:{q}:job:*"]
BLIND_ACL = ["on", ">pw-blind", "+@all", "~emq:{q}:active", "~emq:{q}:"]


def test_read_only_rows_refuse_the_writes_but_not_the_script(server, admin):
    assert admin.call("ACL", "SETUSER", "reader", "reset", *READER_ACL) == b"OK"
    reply = both_twins(server, admin, "EMQ.EXTENDS", BATCH_FATES["mixed"], user="reader",
                       password="pw-reader")
    assert reply == Err("NOPERM EMQ.EXTENDS may not write a job row")
    # with nothing live there is nothing to write, so the reader gets the failed ids
    reply = both_twins(server, admin, "EMQ.EXTENDS", [*BATCH, LEASE, b"gone", b"1", b"stale", b"1"],
                       user="reader", password="pw-reader")
    assert reply == [b"gone", b"stale"]

    # wire 4: the Lua script reads rows and writes only active, so the same user may run it
    script = scripts.extend_locks()
    assert admin.call("SCRIPT", "LOAD", script.source).decode() == script.sha
    reader = server.raw("reader", "pw-reader")
    before = admin.call("ZSCORE", ACTIVE, "live")
    assert reader.call("EVALSHA", script.sha, 2, ACTIVE, Q, LEASE, "live", "1") == []
    assert admin.call("ZSCORE", ACTIVE, "live") != before
    # the single verb names the row as a key, so the server's own ACL refuses it first
    single_reply = reader.call("EMQ.EXTEND", *single(b"live", b"1"))
    assert isinstance(single_reply, Err) and single_reply.text.startswith("NOPERM")
    assert admin.call("HGET", Q + b"job:live", "lease_epoch") is None
    reader.close()


def test_rows_the_user_may_not_read_refuse_the_read(server, admin):
    assert admin.call("ACL", "SETUSER", "blind", "reset", *BLIND_ACL) == b"OK"
    reply = both_twins(server, admin, "EMQ.EXTENDS", BATCH_FATES["mixed"], user="blind",
                       password="pw-blind")
    assert reply == Err("NOPERM EMQ.EXTENDS may not read a job row")
    assert both_twins(server, admin, "EMQ.EXTENDS", BATCH_FATES["empty batch"], user="blind",
                      password="pw-blind") == []


NO_HSET_ACL = ["on", ">pw-nohset", "~emq:*", "+@all", "-hset"]
NO_HGET_ACL = ["on", ">pw-nohget", "~emq:*", "+@all", "-hget"]


@pytest.mark.parametrize(("name", "acl", "refused"), [("nohset", NO_HSET_ACL, "write"),
                                                      ("nohget", NO_HGET_ACL, "read")])
def test_a_user_denied_the_command_is_refused_as_acl_dryrun_predicts(server, admin, name, acl, refused):
    """Every key is allowed, the command is not: the module decides as ACL DRYRUN of HGET / HSET does."""
    assert admin.call("ACL", "SETUSER", name, "reset", *acl) == b"OK"
    password = acl[1][1:]
    expected = Err(f"NOPERM EMQ.EXTENDS may not {refused} a job row")
    assert both_twins(server, admin, "EMQ.EXTENDS", BATCH_FATES["mixed"], user=name, password=password) == expected
    assert both_twins(server, admin, "EMQ.EXTEND", SINGLE_FATES["live"], user=name,
                      password=password) == Err(f"NOPERM EMQ.EXTEND may not {refused} a job row")
    # nothing live leaves nothing to write: only the reader's refusal remains
    nothing_live = both_twins(server, admin, "EMQ.EXTENDS", [*BATCH, LEASE, b"gone", b"1", b"stale", b"1"],
                              user=name, password=password)
    assert nothing_live == (Err("NOPERM EMQ.EXTENDS may not read a job row") if refused == "read"
                            else [b"gone", b"stale"])


def test_a_script_calling_the_module_runs_as_its_caller(server, admin):
    _seed(admin, 0)
    admin.call("ACL", "SETUSER", "reader", "reset", *READER_ACL)
    reader = server.raw("reader", "pw-reader")
    body = "return redis.call('EMQ.EXTENDS', '2', KEYS[1], KEYS[2], ARGV[1], 'live', '1')"
    reply = reader.call("EVAL", body, 2, ACTIVE, Q, LEASE)
    assert isinstance(reply, Err) and "NOPERM EMQ.EXTENDS may not write a job row" in reply.text
    assert admin.call("EVAL", body, 2, ACTIVE, Q, LEASE) == []
    assert admin.call("HGET", Q + b"job:live", "lease_epoch") == _run_id(admin)
    reader.close()


def test_multi_exec_and_the_registration(server, admin):
    _seed(admin, 0)
    replies = admin.pipeline([["MULTI"], ["EMQ.EXTENDS", *BATCH_FATES["mixed"]],
                              ["EMQ.EXTEND", *single(b"lane", b"3")], ["EXEC"]])
    assert replies[-1] == [[b"gone", b"stale", b"pend"], 1]
    info = admin.call("COMMAND", "INFO", "EMQ.EXTENDS", "EMQ.EXTEND")
    for entry in info:
        name, arity, flags, first, last, step = entry[:6]
        assert (arity, first, last, step) == (-1, 2, 3, 1), name
        assert b"write" in flags and b"denyoom" in flags


def test_writes_reach_a_replica_without_the_module(server, admin):
    _seed(admin, 0)
    with spawn(None, binary=server.binary, extra=["--replicaof", "127.0.0.1", str(server.port),
                                                  "--masterauth", server.password]) as replica_server:
        replica = replica_server.raw()
        deadline = time.monotonic() + 15
        while b"master_link_status:up" not in replica.call("INFO", "replication"):
            assert time.monotonic() < deadline, "replica did not sync"
            time.sleep(0.05)
        assert admin.call("EMQ.EXTENDS", *BATCH_FATES["mixed"]) == [b"gone", b"stale", b"pend"]
        assert admin.call("EMQ.EXTEND", *single(b"lane", b"3", b"60000")) == 1
        assert admin.call("WAIT", 1, 5000) == 1
        for member in (b"live", b"live2", b"lane", b"stale"):
            assert replica.call("ZSCORE", ACTIVE, member) == admin.call("ZSCORE", ACTIVE, member)
        run_id = _run_id(admin)
        for row in (b"live", b"live2", b"lane"):
            assert replica.call("HGET", Q + b"job:" + row, "lease_epoch") == run_id
        assert replica.call("HGET", Q + b"job:stale", "lease_epoch") is None
        replica.close()


def test_markers_name_the_same_steps_as_native_py():
    c_markers = scripts.marker_lines(build.module_source().read_text())
    py_markers = scripts.marker_lines(Path(native.__file__).read_text())
    assert set(c_markers) <= set(py_markers)
    for name in ("clock", "read-acl", "check-row", "check-token", "check-active", "write-acl",
                 "epoch", "write-rescore", "write-epoch", "reply", "one-clock", "one-read-acl",
                 "one-write-acl", "one-rescore", "one-epoch", "one-reply"):
        assert name in c_markers, name


def test_build_is_cached_by_source_and_flags(tmp_path, monkeypatch):
    first = build.build_module(tmp_path)
    assert first.name.startswith("emq-") and first.suffix == ".so"
    assert re.fullmatch(r"emq-[0-9a-f]{12}\.so", first.name)
    stamp = first.stat().st_mtime_ns
    assert build.build_module(tmp_path) == first and first.stat().st_mtime_ns == stamp
    other = build.build_module(tmp_path, extra_flags=["-DEMQ_TEST_VARIANT"])
    assert other != first and other.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([first.name, other.name])


def test_build_failures_say_what_happened(tmp_path, monkeypatch):
    with pytest.raises(build.BuildFailed) as failed:
        build.build_module(tmp_path, extra_flags=["-fno-such-flag-for-emq"])
    assert "no-such-flag-for-emq" in str(failed.value)
    monkeypatch.setenv("CC", "no-such-compiler-for-emq")
    with pytest.raises(build.NoCompiler, match="install gcc"):
        build.build_module(tmp_path)


def test_build_command_prints_the_path(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert build.build_command() == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed.is_file() and printed.parent == tmp_path / "emq-dive"
    monkeypatch.setenv("CC", "no-such-compiler-for-emq")
    assert build.build_command() == 1
    assert "install gcc" in capsys.readouterr().err
