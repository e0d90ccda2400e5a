"""The stepper on the frozen embedded store and the spawned server: every step real, every step undoable."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import redis

from emq_dive.course import lessons
from emq_dive.engine import fates
from emq_dive.engine.echo_mq import jobs, keyspace, moves, native, scripts
from emq_dive.engine.echo_mq.connector import raw
from emq_dive.engine.stepper import NOT_REACHED, Failed, Passed, Reason, Stepper, Verdict

try:
    from tests.conftest import FROZEN
except ImportError:  # tests/ is not a package: pytest put tests/ itself on sys.path
    from conftest import FROZEN

LEASE = 30_000
CLAIM = 10_000
NOW_MS = int(FROZEN * 1000)
LESSON_BATCH = ("live", "stale", "live", "reaped")
LUA = scripts.marker_lines(scripts.extend_locks().source)
NATIVE = scripts.marker_lines(inspect.getsource(native))
HANDLE = scripts.marker_lines(inspect.getsource(jobs))
WIRES = [4, 6]


def dumps(store: Any) -> dict[bytes, Any]:
    """Every key of the queue as (PTTL, DUMP payload) on a real server: a byte-for-byte picture of the store.

    fakeredis's DUMP pickles Python objects whose dict insertion order changes when a member is re-scored and put
    back, so there the picture is each key's PTTL and contents instead.
    """
    if store.kind == "fakeredis":
        state = fates.read_state(store.client, store.queue)
        return {key: (store.client.pttl(key), value) for key, value in state.items()}
    return {key: (store.client.pttl(key), store.client.dump(key)) for key in store.own_keys()}


def build(store: Any, fate_keys=LESSON_BATCH, lease: int = LEASE) -> fates.Batch:
    return fates.build_batch(store, list(fate_keys), lease, CLAIM)


def run_all(stepper: Stepper) -> list:
    steps = [stepper.current]
    while not stepper.finished:
        steps.append(stepper.forward())
    return steps


def same_step(a, b, *, clock_too: bool = True) -> None:
    """Two runs of one step show the same thing (the clock read excepted on a live server)."""
    def calls(step):
        return [(c.source, c.line, c.sent if clock_too or c.sent[0] != b"ZADD" else c.sent[:2] + c.sent[3:],
                 c.reply if clock_too or c.sent[0] not in (b"TIME", b"ZSCORE") else None) for c in step.calls]
    assert calls(a) == calls(b)
    assert (a.index, a.title, a.lines, a.focus, a.failed, a.done, a.error, a.changed) == \
        (b.index, b.title, b.lines, b.focus, b.failed, b.done, b.error, b.changed)
    if clock_too:
        assert a.members == b.members and a.now == b.now and a.reply == b.reply


# -- the handle --------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_the_handle_step_sends_nothing(any_store, wire):
    batch = build(any_store)
    before = dumps(any_store)
    stats = _commandstats(any_store)
    stepper = Stepper(any_store, batch.held, LEASE, wire)
    step = stepper.current
    assert _commandstats(any_store) == stats, "constructing the stepper sent a lease command"
    assert dumps(any_store) == before
    assert step.index == 0 and step.source == "handle" and step.calls == () and not step.done
    assert step.failed == () and step.now is None
    assert all(not m.ran and m.row == NOT_REACHED for m in step.members)
    # what the handle would send, in full
    q = any_store.queue
    verb = (b"EVALSHA", scripts.extend_locks().sha.encode()) if wire == 4 else (b"EMQ.EXTENDS",)
    pairs = [part for job_id, token in batch.held for part in (job_id.encode(), str(token).encode())]
    assert step.command == (*verb, b"2", keyspace.queue_key(q, "active").encode(),
                            keyspace.queue_key(q, "").encode(), b"30000", *pairs)
    assert step.focus == HANDLE["send"]
    assert {HANDLE["gate"], HANDLE["flatten"], HANDLE["argv"], HANDLE["keys"], HANDLE["send"]} <= set(step.lines)
    assert HANDLE["failed"] not in step.lines, "the handle's answer comes only after the reply"


@pytest.mark.parametrize("mode", ["batch", "singles"])
def test_a_new_run_traces_the_batch_handle_once(fake_store, monkeypatch, mode):
    """The first step's lines come from the capture the run already made: a second traced capture cost about a
    second at 100,000 members."""
    from emq_dive.engine.stepper import handle
    batch, captures, capture = build(fake_store), [], handle.capture
    monkeypatch.setattr(handle, "capture", lambda *args: captures.append(args) or capture(*args))
    step = Stepper(fake_store, batch.held, LEASE, 4, mode).current
    assert len(captures) == 1
    source = inspect.getsource(jobs).splitlines()
    sends = {n for n, text in enumerate(source, 1) if "conn.eval(scripts.extend_lock()," in text}
    assert (HANDLE["send"] in step.lines) if mode == "batch" else (sends & set(step.lines))


def _commandstats(store: Any) -> dict[str, int]:
    """Calls per lease-relevant command on a real server (fakeredis keeps no command stats)."""
    if store.kind != "server":
        return {}
    info = raw(store.client, "INFO", "commandstats").decode()
    counts = {}
    for line in info.splitlines():
        if line.startswith("cmdstat_"):
            name, rest = line[len("cmdstat_"):].split(":", 1)
            if name in ("evalsha", "eval", "emq.extends", "emq.extend", "zadd", "hset", "hget", "zscore", "time"):
                counts[name] = int(rest.split(",")[0].split("=")[1])
    return counts


# -- the Lua steps ------------------------------------------------------------


def test_lua_steps_send_the_scripts_real_commands(any_store):
    batch = build(any_store, ("live", "stale", "gone", "reaped", "lane", "live"))
    start = fates.read_state(any_store.client, any_store.queue)
    q = any_store.queue
    active, lines = keyspace.queue_key(q, "active").encode(), scripts.extend_locks().lines
    stepper = Stepper(any_store, batch.held, LEASE, 4)
    steps = run_all(stepper)[1:]
    assert len(steps) == stepper.count == len(batch.held)
    for step in steps:
        assert step.source == "lua"
        for call in step.calls:
            command = call.sent[0].decode()
            assert f"redis.call('{command}'" in lines[call.line - 1], f"{command} sent from line {call.line}"
    # step 1 reads the clock, once, for the whole run
    time_calls = [c for s in steps for c in s.calls if c.sent[0] == b"TIME"]
    assert len(time_calls) == 1 and time_calls[0] is steps[0].calls[0]
    seconds, micros = time_calls[0].reply
    now = int(seconds) * 1000 + int(micros) // 1000
    if any_store.kind == "fakeredis":
        assert now == NOW_MS
    for step, (job_id, _token), fate_key in zip(steps, batch.held, batch.fates, strict=True):
        member_calls = [c for c in step.calls if c.sent[0] != b"TIME"]
        row = keyspace.job_key(q, job_id).encode()
        # the replies are the store's: HGET attempts of the row, ZSCORE from active as it was
        hget = member_calls[0]
        assert hget.sent == (b"HGET", row, b"attempts")
        row_before = start.get(row, {})
        assert hget.reply == row_before.get(b"attempts")
        if fate_key in ("live", "lane", "reaped"):
            zscore = member_calls[1]
            assert zscore.sent == (b"ZSCORE", active, job_id.encode())
            expected = start.get(active, {}).get(job_id.encode())
            assert (zscore.reply is None) == (expected is None)
            if expected is not None:
                assert float(zscore.reply) == expected
        if fate_key in ("live", "lane"):
            zadd = member_calls[2]
            assert zadd.sent == (b"ZADD", active, str(now + LEASE).encode(), job_id.encode())
            assert zadd.reply == 0, "the member was already in active"
            assert step.changed == {active}
        else:
            assert all(c.sent[0] != b"ZADD" for c in member_calls) and step.changed == frozenset()
        assert step.now == now
    # the store now holds what the steps wrote
    for job_id, fate_key in zip([j for j, _ in batch.held], batch.fates, strict=True):
        expected = now + LEASE if fate_key in ("live", "lane") else None
        got = moves.deadline(any_store.client, q, job_id)
        if expected is not None:
            assert got == expected
        elif fate_key == "stale":
            assert got is not None and got != now + LEASE


@pytest.mark.parametrize("wire", WIRES)
def test_one_now_in_every_zadd(any_store, wire):
    batch = build(any_store, ("live",) * 7 + ("stale", "live"))
    steps = run_all(Stepper(any_store, batch.held, LEASE, wire))
    zadds = [c for s in steps for c in s.calls if c.sent[0] == b"ZADD"]
    assert len(zadds) == 8
    assert len({c.sent[2] for c in zadds}) == 1, "every re-scored member shares one score"
    assert {s.now for s in steps[1:]} == {int(zadds[0].sent[2]) - LEASE}
    if any_store.kind == "fakeredis":
        assert zadds[0].sent[2] == str(NOW_MS + LEASE).encode()
    assert {m.new_score for m in steps[-1].members if m.verdict is Verdict.RESCORED} == {int(zadds[0].sent[2])}


@pytest.mark.parametrize("wire", WIRES)
def test_a_check_not_reached_is_not_evaluated(any_store, wire):
    batch = build(any_store, ("gone", "stale", "reaped", "live"))
    final = run_all(Stepper(any_store, batch.held, LEASE, wire))[-1]
    gone, stale, reaped, live = final.members
    assert (*gone.checks, gone.reason) == (Failed(None), NOT_REACHED, NOT_REACHED, Reason.GONE)
    assert (*stale.checks, stale.reason) == (Passed(b"2"), Failed(b"2"), NOT_REACHED, Reason.STALE)
    assert (*reaped.checks, reaped.reason) == (Passed(b"1"), Passed(b"1"), Failed(None), Reason.NOT_ACTIVE)
    assert (live.row, live.match, live.reason) == (Passed(b"1"), Passed(b"1"), None)
    assert isinstance(live.active, Passed) and live.score is not None
    assert all(m.ran for m in final.members)
    assert [m.verdict for m in final.members] == [Verdict.FAILED] * 3 + [Verdict.RESCORED]


@pytest.mark.parametrize("wire", WIRES)
def test_unreached_members_have_not_run(fake_store, wire):
    batch = build(fake_store)
    stepper = Stepper(fake_store, batch.held, LEASE, wire)
    step = stepper.forward()
    assert step.members[0].ran
    assert all(not m.ran and m.match == m.active == NOT_REACHED for m in step.members[1:])


@pytest.mark.parametrize("wire", WIRES)
def test_a_dropped_stepper_is_freed_without_the_cycle_collector(fake_store, wire):
    """No reference cycle keeps a replaced stepper alive (the app freezes its heap, so a cycle would leak)."""
    import gc
    import weakref

    batch = build(fake_store)
    stepper = Stepper(fake_store, batch.held, LEASE, wire)
    stepper.forward()
    stepper.forward()
    ref = weakref.ref(stepper)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del stepper
        assert ref() is None
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize("wire", WIRES)
def test_failed_grows_in_input_order(any_store, wire):
    keys = ("stale", "live", "gone", "reaped", "live", "stale", "gone")
    batch = build(any_store, keys)
    steps = run_all(Stepper(any_store, batch.held, LEASE, wire))
    expected = [job_id for (job_id, _), k in zip(batch.held, keys, strict=True) if k not in ("live", "lane")]
    previous: tuple = ()
    for step in steps:
        assert step.failed[: len(previous)] == previous, "failed only grows, at its end"
        assert len(step.failed) - len(previous) <= 1
        previous = step.failed
    assert list(steps[-1].failed) == expected
    assert [f.decode() for f in steps[-1].reply] == expected
    for i, step in enumerate(steps[1: len(keys) + 1], start=1):
        assert list(step.failed) == expected[: sum(k not in ("live", "lane") for k in keys[:i])]


# -- back, forward, home, end -------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_back_restores_the_store_byte_for_byte(any_store, wire):
    batch = build(any_store, ("live", "stale", "live", "reaped", "lane", "gone"))
    stepper = Stepper(any_store, batch.held, LEASE, wire)
    pictures = [dumps(any_store)]
    steps = [stepper.current]
    while not stepper.finished:
        steps.append(stepper.forward())
        pictures.append(dumps(any_store))
    assert pictures[0] != pictures[-1], "the run wrote something"
    for position in range(len(steps) - 1, 0, -1):
        shown = stepper.back()
        assert stepper.position == position - 1 and shown is stepper.current
        assert dumps(any_store) == pictures[position - 1], f"back from step {position} left the store changed"
        same_step(shown, steps[position - 1])
    assert stepper.back() is stepper.current and stepper.position == 0


@pytest.mark.parametrize("wire", WIRES)
def test_forward_after_back_gives_the_same_step(any_store, wire):
    batch = build(any_store, ("live", "stale", "live", "reaped", "live"))
    stepper = Stepper(any_store, batch.held, LEASE, wire)
    first = run_all(stepper)
    frozen = any_store.kind == "fakeredis"
    for position in range(len(first) - 1, 0, -1):
        while stepper.position >= position:
            stepper.back()
        again = stepper.forward()
        # step 1 re-reads the clock; on a live server that read moves, so only its shape must match
        same_step(again, first[position], clock_too=frozen or position > 1)
        for later in range(position + 1, len(first)):
            same_step(stepper.forward(), first[later], clock_too=frozen or position > 1)


def test_forward_after_back_is_identical_on_the_frozen_store(fake_store):
    batch = build(fake_store)
    for wire in WIRES:
        fates.reset(fake_store)
        batch = build(fake_store)
        stepper = Stepper(fake_store, batch.held, LEASE, wire)
        first = run_all(stepper)
        after = dumps(fake_store)
        stepper.home()
        second = run_all(stepper)
        assert first == second
        assert dumps(fake_store) == after


@pytest.mark.parametrize("wire", WIRES)
def test_home_and_end(any_store, wire):
    batch = build(any_store)
    start = dumps(any_store)
    stepper = Stepper(any_store, batch.held, LEASE, wire)
    assert stepper.home() is stepper.current and stepper.position == 0
    stepper.forward()
    stepper.forward()
    assert stepper.home().index == 0 and stepper.position == 0
    assert dumps(any_store) == start
    last = stepper.end()
    assert last.done and stepper.finished and last is stepper.current
    assert stepper.position == stepper.count == (len(batch.held) if wire == 4 else len(batch.held) + 1)
    assert stepper.forward() is last, "forward past the end stays at the end"
    assert stepper.end() is last
    end_picture = dumps(any_store)
    stepper.home()
    assert dumps(any_store) == start
    stepper.end()
    if any_store.kind == "fakeredis":
        assert dumps(any_store) == end_picture


@pytest.mark.parametrize("wire", WIRES)
def test_empty_batch_steps(any_store, wire):
    fates.reset(any_store)
    stepper = Stepper(any_store, [], LEASE, wire)
    last = stepper.end()
    assert last.done and last.error is None and list(last.reply) == [] and last.failed == ()
    assert stepper.count == 1
    assert not any(c.sent[0] in (b"ZADD", b"HSET") for c in last.calls)
    assert stepper.verify().agree


# -- WRONGTYPE mid-batch --------------------------------------------------------------


def test_wrongtype_mid_batch_lua_keeps_the_earlier_zadd(any_store):
    batch = build(any_store, ("live", "wrongtype", "live"))
    q = any_store.queue
    start_a = moves.deadline(any_store.client, q, "JOB01")
    start_c = moves.deadline(any_store.client, q, "JOB03")
    stepper = Stepper(any_store, batch.held, LEASE, 4)
    steps = run_all(stepper)
    last = steps[-1]
    assert last.done and last.error is not None and last.error.startswith("WRONGTYPE"), last.error
    assert len(steps) == 3, "the run ends at the bad row; the member after it never runs"
    assert not last.members[2].ran
    hget = next(c for c in last.calls if c.sent[0] == b"HGET")
    assert isinstance(hget.reply, redis.ResponseError)
    # the ZADD of member 1 stays; member 3 keeps its claim deadline
    assert moves.deadline(any_store.client, q, "JOB01") == steps[1].now + LEASE != start_a
    assert moves.deadline(any_store.client, q, "JOB03") == start_c
    seen, answer = stepper.handle_answer()
    assert isinstance(answer, redis.ResponseError) and HANDLE["failed"] not in seen
    assert stepper.verify().agree


def test_wrongtype_mid_batch_native_writes_nothing(any_store):
    batch = build(any_store, ("live", "wrongtype", "live"))
    start = dumps(any_store)
    stepper = Stepper(any_store, batch.held, LEASE, 6)
    steps = run_all(stepper)
    last = steps[-1]
    assert last.done and last.error is not None and last.error.startswith("WRONGTYPE"), last.error
    assert not any(c.sent[0] in (b"ZADD", b"HSET") for s in steps for c in s.calls)
    assert dumps(any_store) == start
    assert stepper.verify().agree


# -- verify on the lesson's default batch ----------------------------------------------


def test_lesson_default_batch_is_the_one_tested():
    lesson = lessons.load("batches-03")
    assert lesson.batch == LESSON_BATCH and lesson.lease_ms == LEASE and lesson.claim_lease_ms == CLAIM


@pytest.mark.parametrize("wire", WIRES)
def test_verify_agrees_on_the_lesson_batch(any_store, wire):
    batch = build(any_store)
    stepper = Stepper(any_store, batch.held, LEASE, wire)
    stepper.forward()
    agreement = stepper.verify()
    assert agreement.agree, agreement.differences
    assert agreement.differences == ()
    assert agreement.rescored == ("JOB01", "JOB03")
    assert [f.decode() if isinstance(f, bytes) else f for f in agreement.stepped_reply] == ["JOB02", "JOB04"]
    assert list(agreement.atomic_reply) == [b"JOB02", b"JOB04"]
    assert agreement.command[0] == (b"EVALSHA" if wire == 4 else b"EMQ.EXTENDS")
    if any_store.kind == "fakeredis":
        assert agreement.stepped_now == agreement.atomic_now == NOW_MS
    else:
        assert agreement.atomic_now >= agreement.stepped_now
    # verify leaves the store as the stepped run left it
    q = any_store.queue
    assert moves.deadline(any_store.client, q, "JOB01") == agreement.stepped_now + LEASE
    stamped = any_store.client.hget(keyspace.job_key(q, "JOB01"), "lease_epoch")
    assert stamped == (any_store.run_id() if wire == 6 else None)


def test_verify_notices_a_store_changed_under_it(fake_store):
    """verify is not a rubber stamp: a stepped end that the atomic run cannot reach is reported."""
    batch = build(fake_store)
    stepper = Stepper(fake_store, batch.held, LEASE, 4)
    stepper.end()
    fake_store.client.hset(keyspace.job_key(fake_store.queue, "JOB01"), "attempts", "9")
    agreement = stepper.verify()
    active = keyspace.queue_key(fake_store.queue, "active")
    assert not agreement.agree
    assert [d.split(": stepped")[0] for d in agreement.differences] == [
        "failed lists differ", "the atomic run did not re-score every member at one shared score", active]
    assert "b'JOB01': 'now+lease'" in agreement.differences[-1].split(", atomic")[0]
    # the atomic run left JOB01 unscored; the check put the stepped end back
    assert moves.deadline(fake_store.client, fake_store.queue, "JOB01") == stepper.current.now + LEASE


def test_the_ends_keep_only_what_differs_and_see_a_key_the_atomic_run_left_out(fake_store):
    """The agreement's two ends: a key only the stepped end has is put back and reported; equal keys are not kept."""
    from emq_dive.engine.stepper.agreement import Ends
    from emq_dive.engine.stores import snapshot

    build(fake_store)
    client, queue = fake_store.client, fake_store.queue
    stepped = snapshot.take(client, queue)
    extra = keyspace.queue_key(queue, "extra").encode()
    stepped[extra] = snapshot.Entry("string", b"only stepped")
    row = keyspace.job_key(queue, "JOB01").encode()
    client.hset(row, "attempts", "7")
    ends = Ends(client, queue, stepped)
    active = keyspace.queue_key(queue, "active").encode()
    assert set(ends.atomic) == {row, active}, "an unlike key and the active set are kept, nothing else"
    assert sorted(ends.differing()) == sorted([extra, row])
    assert ends.atomic_value(extra) is None and ends.atomic_value(row)[b"attempts"] == b"7"
    said = ends.differences({}, {}, None)
    assert [d.split(": stepped")[0] for d in said] == sorted([extra.decode(), row.decode()])
    assert said[sorted([extra, row]).index(extra)].endswith("stepped b'only stepped', atomic None")


# -- where the focus points --------------------------------------------------------------


def test_lua_focus_points_at_the_markers(any_store):
    batch = build(any_store)  # live, stale, live, reaped
    steps = run_all(Stepper(any_store, batch.held, LEASE, 4))
    assert [s.focus for s in steps[1:]] == [LUA["rescore"], LUA["fail"], LUA["rescore"], LUA["reply"]]
    assert LUA["clock"] in steps[1].lines and LUA["clock"] not in steps[2].lines
    assert steps[2].lines[0] == LUA["loop"], "a member step starts at the loop header"
    assert LUA["check-active"] not in steps[2].lines, "the stale member never reaches ZSCORE"
    assert LUA["check-active"] in steps[4].lines and LUA["fail"] in steps[4].lines
    for step in steps[1:]:
        marked = [n for n in step.lines if n in set(LUA.values())]
        assert step.focus == marked[-1]


def test_native_focus_points_at_the_markers(any_store):
    batch = build(any_store)  # live, stale, live, reaped
    steps = run_all(Stepper(any_store, batch.held, LEASE, 6))
    assert [s.focus for s in steps[1:]] == [NATIVE["read-live"], NATIVE["read-fail"], NATIVE["read-live"],
                                             NATIVE["read-fail"], NATIVE["write-rescore"]]
    assert all(s.source == "native" for s in steps[1:])
    assert NATIVE["clock"] in steps[1].lines and NATIVE["shape"] in steps[1].lines
    writes = steps[-1]
    assert {NATIVE["write-pass"], NATIVE["write-rescore"], NATIVE["write-epoch"]} <= set(writes.lines)
    assert not any(n in (NATIVE["write-rescore"], NATIVE["write-epoch"]) for s in steps[1:-1] for n in s.lines), \
        "the read pass writes nothing"
    from emq_dive.engine.stepper.native_driver import NATIVE_MARKS  # the marks a highlight may land on

    for step in steps[1:]:
        marked = [n for n in step.lines if n in NATIVE_MARKS]
        assert step.focus == marked[-1]
    assert NATIVE["reply"] in writes.lines and writes.focus != NATIVE["reply"], "the reply runs; the ZADD is lit"
    # every call of a step is attributed to the native.py line that made it
    source = inspect.getsource(native).splitlines()
    for step in steps[1:]:
        for call in step.calls:
            line = source[call.line - 1]
            assert "host." in line or "_check(" in line, (call.sent[0], line)


# -- the longest lease: a deadline must stay an exact integer score ------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_the_longest_lease_steps_and_verifies_exactly(any_store, wire):
    lease = jobs.MAX_LEASE_MS
    assert lease == 2**52
    batch = build(any_store, ("live", "stale", "live"), lease)
    stepper = Stepper(any_store, batch.held, lease, wire)
    last = stepper.end()
    scores = {m.new_score for m in last.members if m.verdict is Verdict.RESCORED}
    assert scores == {last.now + lease}
    assert moves.deadline(any_store.client, any_store.queue, "JOB01") == last.now + lease
    agreement = stepper.verify()
    assert agreement.agree, agreement.differences


@pytest.mark.parametrize("lease", [2**52 + 1, 10**17, 2**63])
def test_a_lease_past_the_exact_range_is_refused_before_the_wire(fake_store, lease):
    batch = build(fake_store, ("live",))
    before = dumps(fake_store)
    for wire in WIRES:
        with pytest.raises(jobs.BadLease):
            Stepper(fake_store, batch.held, lease, wire)
    assert dumps(fake_store) == before


@pytest.mark.parametrize("wire", WIRES)
def test_verify_agrees_when_an_untouched_deadline_equals_now_plus_lease(fake_store, wire):
    # a stale member sits in active at its re-claim deadline, now+10000 on the frozen clock
    batch = build(fake_store, ("stale",), CLAIM)
    agreement = Stepper(fake_store, batch.held, CLAIM, wire).verify()
    assert agreement.rescored == ()
    assert agreement.agree, agreement.differences
