"""The engine's core contracts: no textual import, the key gate, the connector's wire, the verbs, the embedded store."""

from __future__ import annotations

import itertools
import json
import re

import pytest
import redis
from conftest import FROZEN
from fresh_python import fresh_output

from emq_dive.engine import fates
from emq_dive.engine.echo_mq import jobs, keyspace, scripts
from emq_dive.engine.echo_mq.connector import Connector, Exchange, error_text, raw
from emq_dive.engine.echo_mq.keyspace import IllFormed, job_key, queue_key
from emq_dive.engine.echo_mq.render import reply_text, wire_text
from emq_dive.engine.stores import open_store

# -- (a) the import boundary ----------------------------------------------------------

UI = ("emq_dive.views.tui", "emq_dive.__main__")
"""The modules that draw; every other module of the package is engine and must never import textual."""


def test_the_engine_never_imports_textual() -> None:
    """Every module outside the UI, found by walking the package (a new module is checked without listing it)."""
    code = ("import importlib, json, pkgutil, sys\n"
            "import emq_dive\n"
            f"ui = {UI!r}\n"
            "names = [m.name for m in pkgutil.walk_packages(emq_dive.__path__, 'emq_dive.')\n"
            "         if not any(m.name == u or m.name.startswith(u + '.') for u in ui)]\n"
            "for name in names:\n"
            "    importlib.import_module(name)\n"
            "print(json.dumps({'checked': names,\n"
            "                  'textual': sorted(m for m in sys.modules if m.split('.')[0] == 'textual')}))\n")
    result = json.loads(fresh_output(code))
    for name in ("emq_dive.engine.echo_mq.connector", "emq_dive.engine.stores.embedded", "emq_dive.engine.stepper",
                 "emq_dive.course.lessons", "emq_dive.engine.fates.runs", "emq_dive.engine.fate_table",
                 "emq_dive.present.session", "emq_dive.engine.echo_mq.render", "emq_dive.present.store_view"):
        assert name in result["checked"], name
    assert result["textual"] == [], "the engine imported textual"


def test_the_engine_runs_a_batch_without_textual() -> None:
    """Not only importing: a whole stepped and verified batch on the embedded store pulls in no textual."""
    code = ("import sys\n"
            "from emq_dive.engine.stores import open_store\n"
            "from emq_dive.engine import fates\n"
            "from emq_dive.engine.stepper import Stepper\n"
            "store = open_store('fakeredis', clock=lambda: 1.7e9)\n"
            "batch = fates.build_batch(store, ['live', 'stale', 'live', 'reaped'], 30000, 10000)\n"
            "for wire in (4, 6):\n"
            "    assert Stepper(store, batch.held, 30000, wire).verify().agree\n"
            "fates.run_fate(store, 'wrongtype')\n"
            "print([m for m in sys.modules if m.split('.')[0] == 'textual'])\n")
    assert fresh_output(code).strip() == "[]"


# -- (b) the key space --------------------------------------------------------------------


def test_key_shapes() -> None:
    assert queue_key("q", "active") == "emq:{q}:active"
    assert queue_key("q", "pending") == "emq:{q}:pending"
    assert queue_key("q", "") == "emq:{q}:"
    assert job_key("q", "JOB01") == "emq:{q}:job:JOB01"
    assert job_key(b"dive-1a2b3c4d", b"J-\xc3\xa9") == "emq:{dive-1a2b3c4d}:job:J-é"
    assert job_key("q", "x" * 128).endswith(":job:" + "x" * 128)
    assert job_key("q", "é" * 64) == "emq:{q}:job:" + "é" * 64  # 128 bytes in 64 characters
    assert job_key("q", "€" * 42 + "ab") == "emq:{q}:job:" + "€" * 42 + "ab"  # 126 + 2 bytes


ILL = [
    ("", "it is empty"),
    (b"", "it is empty"),
    ("a{b", "a '{'"),
    ("{", "a '{'"),
    ("a}b", "a '}'"),
    ("a:b", "a ':'"),
    ("job:1", "a ':'"),
    ("a b", "whitespace"),
    ("a\tb", "whitespace"),
    ("a\nb", "whitespace"),
    ("a\rb", "whitespace"),
    ("a\x0bb", "whitespace"),
    ("a\x0cb", "whitespace"),
    ("a\u00a0b", "whitespace"),  # no-break space
    ("a\u2003b", "whitespace"),  # em space
    ("a\u3000b", "whitespace"),  # ideographic space
    ("a\u2028b", "whitespace"),  # line separator
    ("a\x85b", "whitespace"),  # NEL counts as whitespace before it counts as a C1 control
    ("a\x00b", "control character"),
    ("a\x07b", "control character"),
    ("a\x1bb", "control character"),
    ("a\x7fb", "control character"),
    ("a\x9fb", "control character"),
    (b"\xff", "not valid UTF-8"),
    (b"ab\xc3", "not valid UTF-8"),
    (b"\xed\xa0\x80", "not valid UTF-8"),  # an encoded surrogate
    ("a\ud800b", "not valid UTF-8"),  # a lone surrogate in a str
    ("x" * 129, "over 128 bytes"),
    ("é" * 64 + "a", "over 128 bytes"),
    ("€" * 43, "over 128 bytes"),  # 129 bytes in 43 characters
    (b"x" * 129, "over 128 bytes"),
    (7, "must be text"),
    (None, "must be text"),
]


@pytest.mark.parametrize("value, rule", ILL, ids=[repr(v)[:24] + " " + r for v, r in ILL])
@pytest.mark.parametrize("where", ["queue", "job id"])
def test_the_gate_names_the_value_and_the_rule(value, rule: str, where: str) -> None:
    with pytest.raises(IllFormed) as caught:
        if where == "queue":
            queue_key(value, "active")
        else:
            job_key("q", value)
    err = caught.value
    assert isinstance(err, ValueError)
    assert err.value == value
    assert rule in err.rule
    assert repr(value) in str(err) and err.rule in str(err)


@pytest.mark.parametrize("value", ["x" * 128, "é" * 64, "€" * 42 + "ab", "JOB-01_a.b", "ü", "\U0001f600" * 32])
def test_the_gate_lets_128_bytes_and_any_printable_text_through(value: str) -> None:
    assert len(value.encode()) <= 128
    assert keyspace.gate(value) == value
    assert keyspace.gate(value.encode()) == value


# -- (c) the connector ------------------------------------------------------------------------


def _keys(queue: str) -> list[str]:
    return [queue_key(queue, "active"), queue_key(queue, "")]


def test_wire_4_sends_evalsha_and_loads_on_noscript(fake_store) -> None:
    client, queue = fake_store.client, fake_store.queue
    batch = fates.build_batch(fake_store, ["live", "stale"], 30_000, 10_000)
    assert raw(client, "SCRIPT", "FLUSH") == b"OK"
    script = scripts.extend_locks()
    argv = ["30000", *[part for job_id, token in batch.held for part in (job_id, str(token))]]
    conn = Connector(client, 4)
    assert conn.eval(script, _keys(queue), argv) == [b"JOB02"]
    assert [e.sent[:2] for e in conn.log] == [(b"EVALSHA", script.sha.encode()), (b"SCRIPT", b"LOAD"),
                                             (b"EVALSHA", script.sha.encode())]
    first, load, again = conn.log
    assert first.failed and error_text(first.reply).startswith("NOSCRIPT")
    assert load.sent[2] == script.source.encode() and load.reply == script.sha.encode()
    assert not again.failed and again.sent == first.sent
    assert first.sent == (b"EVALSHA", script.sha.encode(), b"2", *[k.encode() for k in _keys(queue)],
                          *[a.encode() for a in argv])
    # loaded now: the next call is one EVALSHA
    conn.log.clear()
    conn.eval(script, _keys(queue), argv)
    assert [e.sent[0] for e in conn.log] == [b"EVALSHA"]


def test_wire_6_sends_the_native_verb_with_the_same_keys_and_argv(fake_store) -> None:
    batch = fates.build_batch(fake_store, ["live", "gone", "live"], 30_000, 10_000)
    held = list(batch.held)
    four, six = Connector(fake_store.client, 4), Connector(fake_store.client, 6)
    jobs.extend_locks(four, fake_store.queue, held, 30_000)
    assert jobs.extend_locks(six, fake_store.queue, held, 30_000) == ["JOB02"]
    assert [e.sent[0] for e in six.log] == [b"EMQ.EXTENDS"]
    assert six.log[0].sent[1:] == four.log[-1].sent[2:]
    single = Connector(fake_store.client, 6)
    jobs.extend_lock(single, fake_store.queue, "JOB01", held[0][1], 30_000)
    assert single.log[0].sent == (b"EMQ.EXTEND", b"2", queue_key(fake_store.queue, "active").encode(),
                                  job_key(fake_store.queue, "JOB01").encode(), b"30000", b"JOB01",
                                  str(held[0][1]).encode())
    with pytest.raises(ValueError, match="wire"):
        Connector(fake_store.client, 5)


def test_wire_text_and_reply_text() -> None:
    assert wire_text(["EVALSHA", "abc", 2, b"emq:{q}:active", "emq:{q}:", "30000", "JOB01", "1"]) == \
        "EVALSHA abc 2 emq:{q}:active emq:{q}: 30000 JOB01 1"
    assert wire_text(["SET", "a b", ""]) == "SET 'a b' ''"
    assert wire_text(["ECHO", "tab\there"]) == r"ECHO 'tab\there'"
    assert "xff" in wire_text(["ECHO", b"\xff"])  # invalid UTF-8 shows as an escape, never raises
    with pytest.raises(TypeError):
        wire_text([1.5])
    with pytest.raises(TypeError):
        wire_text([True])
    assert reply_text(None) == "(nil)"
    assert reply_text(1) == "(integer) 1"
    assert reply_text(b"JOB01") == '"JOB01"'
    assert reply_text([]) == "(empty array)"
    assert reply_text([b"JOB02", None, 0]) == '["JOB02", (nil), (integer) 0]'
    assert reply_text(redis.ResponseError("EMQSTALE token does not match attempts")) == \
        "(error) EMQSTALE token does not match attempts"
    exchange = Exchange((b"ZSCORE", b"emq:{q}:active", b"JOB01"), b"1700000030000")
    assert (wire_text(exchange.sent), reply_text(exchange.reply)) == ("ZSCORE emq:{q}:active JOB01", '"1700000030000"')
    assert not exchange.failed


def _error(call) -> str:
    with pytest.raises(redis.ResponseError) as caught:
        call()
    return error_text(caught.value)


def test_error_text_keeps_the_class_word(any_store) -> None:
    client, queue = any_store.client, any_store.queue
    client.hset(job_key(queue, "H"), "attempts", "1")
    assert _error(lambda: raw(client, "GET", job_key(queue, "H"))).startswith("WRONGTYPE ")
    assert _error(lambda: raw(client, "NOPE-NOT-A-COMMAND")).startswith("ERR ")
    assert _error(lambda: raw(client, "EVALSHA", "0" * 40, 0)).startswith("NOSCRIPT ")
    batch = fates.build_batch(any_store, ["stale"], 30_000, 10_000)
    job_id, token = batch.held[0]
    conn = Connector(client, 4)
    text = _error(lambda: conn.eval(scripts.extend_lock(), [queue_key(queue, "active"), job_key(queue, job_id)],
                                    ["30000", job_id, str(token)]))
    assert text.startswith("EMQSTALE ")
    assert reply_text(conn.last.reply).startswith("(error) EMQSTALE ")
    if any_store.native:
        native = Connector(client, 6)
        text = _error(lambda: native.eval(scripts.extend_lock(),
                                          [queue_key(queue, "active"), job_key(queue, job_id)],
                                          ["30000", job_id, str(token)]))
        assert text.startswith("EMQSTALE ")


@pytest.mark.server
def test_error_text_keeps_noperm(server_store) -> None:
    client = server_store.client
    user, password = f"core-{server_store.queue}", "pw-" + server_store.queue
    client.execute_command("ACL", "SETUSER", user, "reset", "on", f">{password}", "+@all", "-@dangerous",
                           f"%R~emq:{{{server_store.queue}}}:*")
    kwargs = client.connection_pool.connection_kwargs
    limited = redis.Redis(host=kwargs["host"], port=kwargs["port"], username=user, password=password)
    try:
        with pytest.raises(redis.ResponseError) as caught:
            raw(limited, "SET", queue_key(server_store.queue, "x"), "1")
        assert error_text(caught.value).startswith("NOPERM "), error_text(caught.value)
        assert reply_text(caught.value).startswith("(error) NOPERM ")
    finally:
        limited.close()
        client.execute_command("ACL", "DELUSER", user)


# -- (d) the verbs --------------------------------------------------------------------


@pytest.mark.parametrize("lease", [0, -1, 1.5, True, False, "1", "30000", None, 30_000.0])
@pytest.mark.parametrize("wire", [4, 6])
def test_a_bad_lease_is_refused_before_anything_is_sent(fake_store, lease, wire: int) -> None:
    conn = Connector(fake_store.client, wire)
    with pytest.raises(jobs.BadLease) as caught:
        jobs.extend_locks(conn, fake_store.queue, [("JOB01", 1)], lease)
    assert repr(lease) in str(caught.value)
    with pytest.raises(jobs.BadLease):
        jobs.extend_lock(conn, fake_store.queue, "JOB01", 1, lease)
    with pytest.raises(jobs.BadLease):
        jobs.extend_locks(conn, fake_store.queue, [], lease)
    assert conn.log == []
    assert issubclass(jobs.BadLease, ValueError)


@pytest.mark.parametrize("token", ["1", 1.0, True, None, b"1"])
def test_a_token_must_be_an_int(fake_store, token) -> None:
    conn = Connector(fake_store.client, 4)
    with pytest.raises(jobs.BadToken):
        jobs.extend_locks(conn, fake_store.queue, [("JOB01", 1), ("JOB02", token)], 30_000)
    with pytest.raises(jobs.BadToken):
        jobs.extend_lock(conn, fake_store.queue, "JOB01", token, 30_000)
    assert conn.log == []


@pytest.mark.parametrize("bad", ["JOB 7", "job:7", "{JOB7}", "", "J\x00"])
def test_an_ill_formed_id_never_reaches_the_wire(fake_store, bad: str) -> None:
    conn = Connector(fake_store.client, 4)
    with pytest.raises(IllFormed):
        jobs.extend_locks(conn, fake_store.queue, [("JOB01", 1), (bad, 1)], 30_000)
    with pytest.raises(IllFormed):
        jobs.extend_lock(conn, fake_store.queue, bad, 1, 30_000)
    with pytest.raises(IllFormed):
        jobs.extend_locks(conn, "bad queue", [("JOB01", 1)], 30_000)
    assert conn.log == []


@pytest.mark.parametrize("wire", [4, 6])
def test_the_single_verb_maps_each_refusal(any_store, wire: int) -> None:
    if wire == 6 and not any_store.native:
        pytest.skip(f"no native twin on this backend: {any_store.native_reason}")
    batch = fates.build_batch(any_store, ["live", "gone", "stale", "reaped", "lane"], 30_000, 10_000)
    held = dict(batch.held)
    conn = Connector(any_store.client, wire)
    expected = {"JOB02": (jobs.Gone, "EMQGONE"), "JOB03": (jobs.Stale, "EMQSTALE"),
                "JOB04": (jobs.NotActive, "EMQNOTACTIVE")}
    for job_id, (kind, word) in expected.items():
        with pytest.raises(kind) as caught:
            jobs.extend_lock(conn, any_store.queue, job_id, held[job_id], 30_000)
        assert isinstance(caught.value, jobs.LeaseRefused)
        assert caught.value.reply.split(" ", 1)[0] == word
        assert type(caught.value) is kind  # never a sibling class
    assert jobs.extend_lock(conn, any_store.queue, "JOB01", held["JOB01"], 30_000) is None
    assert jobs.extend_lock(conn, any_store.queue, "JOB05", held["JOB05"], 30_000) is None
    assert jobs.extend_locks(conn, any_store.queue, list(batch.held), 30_000) == ["JOB02", "JOB03", "JOB04"]


def test_an_unmapped_error_is_not_a_lease_refusal(fake_store) -> None:
    batch = fates.build_batch(fake_store, ["wrongtype"], 30_000, 10_000)
    job_id, token = batch.held[0]
    with pytest.raises(redis.ResponseError) as caught:
        jobs.extend_lock(Connector(fake_store.client, 4), fake_store.queue, job_id, token, 30_000)
    assert not isinstance(caught.value, jobs.LeaseRefused)
    assert "WRONGTYPE" in error_text(caught.value)


# -- (e) the embedded store ---------------------------------------------------------------


def test_a_raw_emq_extends_runs_server_side_on_the_frozen_clock(fake_store) -> None:
    client, queue = fake_store.client, fake_store.queue
    batch = fates.build_batch(fake_store, ["live", "stale", "live", "gone"], 30_000, 10_000)
    argv = [part for job_id, token in batch.held for part in (job_id, str(token))]
    reply = client.execute_command("EMQ.EXTENDS", 2, queue_key(queue, "active"), queue_key(queue, ""), 30_000,
                                   *argv)
    assert reply == [b"JOB02", b"JOB04"]
    now = int(FROZEN * 1000)
    scores = dict(client.zrange(queue_key(queue, "active"), 0, -1, withscores=True))
    assert scores[b"JOB01"] == scores[b"JOB03"] == now + 30_000
    assert scores[b"JOB02"] == now + 10_000  # the stale holder's lease was left alone
    for job_id in ("JOB01", "JOB03"):
        assert client.hget(job_key(queue, job_id), "lease_epoch") == b"f" * 40
    assert client.hget(job_key(queue, "JOB02"), "lease_epoch") is None
    single = client.execute_command("EMQ.EXTEND", 2, queue_key(queue, "active"), job_key(queue, "JOB01"), 5,
                                    "JOB01", str(batch.held[0][1]))
    assert single == 1
    with pytest.raises(redis.ResponseError, match="wrong number of arguments"):
        client.execute_command("EMQ.EXTENDS", 2, queue_key(queue, "active"), queue_key(queue, ""), 30_000, "JOB01")


def test_time_follows_the_frozen_clock_and_run_id_is_pinned() -> None:
    moments = iter([1_700_000_000.0, 1_700_000_000.123456, 1_700_000_001.5])
    store = open_store("fakeredis", clock=lambda: next(moments), run_id="a" * 40)
    try:
        assert raw(store.client, "TIME") == [b"1700000000", b"0"]
        assert raw(store.client, "TIME") == [b"1700000000", b"123456"]
        assert store.client.time() == (1_700_000_001, 500_000)
        assert store.run_id() == b"a" * 40
        assert store.kind == "fakeredis" and store.native and not store.acl and store.acl_reason
    finally:
        store.close()


def test_an_unpinned_store_has_a_run_id_of_its_own() -> None:
    one, two = open_store("fakeredis"), open_store("fakeredis")
    try:
        assert re.fullmatch(rb"[0-9a-f]{40}", one.run_id())
        assert one.run_id() != two.run_id()
        assert one.queue != two.queue and re.fullmatch(r"dive-[0-9a-f]{8}", one.queue)
        one.client.set("k", "v")
        assert two.client.get("k") is None  # two embedded stores share nothing
    finally:
        one.close()
        two.close()


def test_close_waits_for_work_under_way_and_refuses_work_after(fake_store) -> None:
    """A worker still writing when the app quits finishes first; nothing can write once the store is closed."""
    import threading

    from emq_dive.engine.stores import StoreError

    class Watched:
        """The store's lock, telling when a second thread asks for it."""

        def __init__(self, lock) -> None:
            self.lock, self.asked = lock, threading.Event()

        def acquire(self, *args, **kwargs):
            if threading.current_thread() is not worker:
                self.asked.set()
            return self.lock.acquire(*args, **kwargs)

        def release(self) -> None:
            self.lock.release()

        __enter__ = acquire

        def __exit__(self, *exc) -> None:
            self.lock.release()

    watched = fake_store.lock = Watched(fake_store.lock)
    late = f"emq:{{{fake_store.queue}}}:late".encode()
    fake_store._closers.append(lambda: fake_store.client.delete(*fake_store.own_keys()))
    holding, finish = threading.Event(), threading.Event()

    def work() -> None:
        with fake_store.io():
            holding.set()
            finish.wait(10)
            fake_store.client.set(late, "written while the app was quitting")

    worker = threading.Thread(target=work)
    worker.start()
    assert holding.wait(10)
    closer = threading.Thread(target=fake_store.close)
    closer.start()
    assert watched.asked.wait(10), "close is waiting for the worker's hold on the store"
    finish.set()
    worker.join(10)
    closer.join(10)
    assert not worker.is_alive() and not closer.is_alive()
    assert fake_store.closed
    assert fake_store.client.exists(late) == 0, "close ran before the worker's write"
    with pytest.raises(StoreError, match="closed"):
        with fake_store.io():
            pass


@pytest.mark.parametrize("total", [8, 9, 30, 1000])
def test_the_store_window_pages_with_a_neighbour_on_each_side(total: int) -> None:
    from emq_dive.present.store_view import WINDOW, window

    starts = []
    for current in range(total):
        shown = window(total, current)
        assert len(shown) == min(total, WINDOW) and shown.start >= 0 and shown.stop <= total
        assert current in shown
        if current > 0:
            assert current - 1 in shown
        if current < total - 1:
            assert current + 1 in shown
        starts.append(shown.start)
    moves = sum(a != b for a, b in itertools.pairwise(starts))
    assert moves <= total // (WINDOW - 2), "the window moves once a page, not every step"


def test_a_paused_collector_comes_back_on_with_the_move_in_the_oldest_generation_and_nothing_frozen() -> None:
    import gc
    import weakref

    from emq_dive.views.tui.heap import collector_paused

    class Node:
        """A cycle's link that can be watched from outside it."""

    try:
        with collector_paused():
            assert not gc.isenabled()
            built = [[i] for i in range(1000)]
            looped = Node()
            looped.me = looped  # garbage only the collector can free, once it is dropped
        assert gc.isenabled() and gc.get_freeze_count() == 0, "nothing stays frozen"
        oldest = {id(obj) for obj in gc.get_objects(generation=2)}
        assert id(built[0]) in oldest and id(looped) in oldest, "the move's objects skipped the young passes"
        gone = weakref.ref(looped)
        del looped
        gc.collect()
        assert gone() is None, "a cycle the move left behind still goes at the next full pass"
        gc.disable()
        with collector_paused():
            pass
        assert not gc.isenabled(), "a collector that was off stays off"
    finally:
        gc.enable()


def test_start_up_holds_the_collector_until_it_settles_and_a_cli_error_gives_it_back() -> None:
    import gc

    from emq_dive import cli
    from emq_dive.views.tui import heap

    try:
        heap.hold_for_start_up()
        assert not gc.isenabled()
        heap.settle()
        assert gc.isenabled() and gc.get_freeze_count() > 0, "settled: what start-up built is frozen"
        heap.release()
        assert gc.isenabled(), "a release with nothing held leaves the collector on"
        assert cli.main(["no-such-lesson"]) != 0
        assert gc.isenabled(), "a run that ends before the app starts gives the collector back"
    finally:
        heap.hand_back()
        gc.enable()


def test_settled_the_young_passes_wait_for_tidy_and_hand_back_puts_the_thresholds_back() -> None:
    import gc
    import weakref

    from emq_dive.views.tui import heap

    class Node:
        me: object = None

    before = gc.get_threshold()
    heap.tidy()
    assert gc.get_threshold() == before, "before start-up settles, tidy leaves the collector alone"
    try:
        heap.settle()
        assert gc.get_threshold() == (heap.YOUNG, *before[1:]), "a step never waits on a young pass"
        heap.settle()
        heap.hand_back()
        assert gc.get_threshold() == before, "a second settle keeps the thresholds it found first"
        heap.settle()
        cycle = Node()
        cycle.me = cycle
        gone = weakref.ref(cycle)
        del cycle
        heap.tidy()
        assert gone() is None, "tidy ran a pass: the cycle is collected"
        for _ in range(before[1] + 2):
            heap.tidy()
            assert gc.get_count()[1] <= before[1], "every tenth pass takes the middle generation too"
    finally:
        heap.hand_back()
        gc.enable()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_long_commands_and_replies_are_cut_and_counted_only_when_asked() -> None:
    command = [b"EMQ.EXTENDS", b"2", b"a", b"b", b"30000", *[b"J"] * 20]
    assert wire_text(command) == "EMQ.EXTENDS 2 a b 30000 " + " ".join(["J"] * 20)
    assert wire_text(command, 6) == "EMQ.EXTENDS 2 a b 30000 J … (25 arguments in all)"
    assert wire_text(command, 25) == wire_text(command)
    ids = [b"JOB%d" % i for i in range(12)]
    assert reply_text(ids, 2) == '["JOB0", "JOB1", … (12 items in all)]'
    assert reply_text(ids, 12) == reply_text(ids) and reply_text([], 2) == "(empty array)"


def test_compare_names_one_deadline_per_wire_when_their_clocks_differ() -> None:
    from emq_dive.course.lessons import load

    ticks = iter(range(10**6))
    store = open_store("fakeredis", clock=lambda: FROZEN + next(ticks) / 100)  # 10 ms on at every TIME
    try:
        lesson = load("batches-03")
        batch = fates.build_batch(store, lesson.batch, lesson.lease_ms, lesson.claim_lease_ms)
        notes = fates.compare(store, batch.held, lesson.lease_ms).differences
    finally:
        store.close()
    rescored = [n for n in notes if n.startswith("the same members were re-scored")]
    assert len(rescored) == 1 and "each wire to one deadline from its own clock read" in rescored[0], notes
    assert "wire 4 writes no lease_epoch" in " ".join(notes)


@pytest.mark.parametrize("queue", ["a*", "a?", "a[b]", "a\\b"])
def test_a_queue_named_with_glob_characters_finds_only_its_own_keys(queue: str) -> None:
    from emq_dive.engine.stores import snapshot

    store = open_store("fakeredis", queue=queue)
    try:
        neighbours = [f"emq:{{{name}}}:active".encode() for name in ("ab", "a", "ax", "a]")]
        for key in neighbours:
            store.client.set(key, 1)
        own = queue_key(queue, "active").encode()
        store.client.set(own, 1)
        assert store.own_keys() == [own]
        assert list(snapshot.take(store.client, queue)) == [own]
    finally:
        store.close()


@pytest.mark.parametrize("queue", ["q", "a*", "a?", "a[b]", "a\\b"])
def test_key_and_job_patterns_match_only_the_queue_s_own_keys(queue: str) -> None:
    """The globs the restricted user's ACL rules are built from, checked by the store's own matcher (SCAN)."""
    store = open_store("fakeredis", queue=queue)
    try:
        others = [f"emq:{{{name}}}:{suffix}".encode() for name in ("ab", "a", "ax", "a]")
                  for suffix in ("active", "job:J1")]
        own = [queue_key(queue, s).encode() for s in ("active", "", "pending")] + [job_key(queue, "J1").encode()]
        for key in [*others, *own]:
            store.client.set(key, 1)
        store.client.set(queue_key(queue, "activeX"), 1)

        def scan(pattern: str) -> list[bytes]:
            return sorted(store.client.scan_iter(match=pattern))

        assert scan(keyspace.key_pattern(queue, "active")) == [queue_key(queue, "active").encode()]
        assert scan(keyspace.key_pattern(queue, "")) == [queue_key(queue, "").encode()]
        assert scan(keyspace.job_pattern(queue)) == [job_key(queue, "J1").encode()]
    finally:
        store.forget()
        store.close()
