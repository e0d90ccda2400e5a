"""The fate table as tests: every verb on every fate answers what the seed says, on both backends.

Each fate is set up by real protocol moves (``fates.run_fate``) and the four verbs run from the same
starting state. The expectations are written out per fate: they are the lesson's specification.
On the embedded store the clock is frozen, so scores are exact; on the spawned server every score is
bracketed by TIME read before and after the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
import redis

from emq_dive.engine import fates
from emq_dive.engine.echo_mq import jobs, keyspace, moves, scripts
from emq_dive.engine.echo_mq.connector import Connector, error_text, raw

try:
    from tests.conftest import FROZEN
except ImportError:  # tests/ is not a package: pytest put tests/ itself on sys.path
    from conftest import FROZEN

LEASE = 30_000
CLAIM = 10_000
NOW_MS = int(FROZEN * 1000)
A, X, B = "JOBA", "JOBX", "JOBB"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"


# -- reading what a run did ---------------------------------------------------


@dataclass(frozen=True)
class Clock:
    """The server clock read before and after a run, in ms; on the frozen store both are FROZEN."""

    before: int
    after: int

    def holds(self, score: float, offset: float) -> bool:
        """True when ``score`` is ``now + offset`` for some ``now`` this run could have read."""
        return self.before + offset <= score <= self.after + offset


def server_ms(store: Any) -> int:
    return moves.server_now_ms(store.client)


def timed_fate(store: Any, key: str, **kwargs: Any) -> tuple[fates.FateRun, Clock]:
    before = server_ms(store)
    run = fates.run_fate(store, key, **kwargs)
    after = server_ms(store)
    if store.kind == "fakeredis":
        assert before == after == NOW_MS, "the embedded store's clock must be frozen at FROZEN"
    return run, Clock(before, after)


def writes(answer: fates.Answer) -> dict[tuple[str, ...], tuple[str, str]]:
    """An answer's writes as {(key, field): (old, new)}; a whole-key change has no field."""
    out = {}
    for line in answer.writes:
        head, change = line.split(": ", 1)
        old, new = change.split(" → ")
        out[tuple(head.split(" "))] = (old, new)
    return out


def by_verb(answers: tuple[fates.Answer, ...]) -> dict[str, fates.Answer]:
    assert [a.verb for a in answers] == list(fates.VERBS)
    return {a.verb: a for a in answers}


def error_of(answer: fates.Answer) -> str:
    """The wire text of the error an answer ended with (Lua's trailing script location dropped)."""
    value = answer.value
    if isinstance(value, jobs.LeaseRefused):
        return value.reply
    assert isinstance(value, redis.ResponseError), f"{answer.verb}: expected an error, got {value!r}"
    return error_text(value).split(" script: ")[0]


def last_reply(answer: fates.Answer) -> Any:
    assert answer.exchanges, f"{answer.verb} sent nothing"
    return answer.exchanges[-1].reply


def assert_sent_as(answer: fates.Answer, store: Any) -> None:
    """Wire 4 sends EVALSHA of the project's script; wire 6 sends the native verb, same keys and args."""
    sent = answer.exchanges[-1].sent
    single = answer.verb in ("extend_lock", "EMQ.EXTEND")
    script = scripts.extend_lock() if single else scripts.extend_locks()
    if answer.wire == 4:
        assert sent[:2] == (b"EVALSHA", script.sha.encode())
        rest = sent[2:]
    else:
        assert sent[0] == script.native_verb.encode()
        rest = sent[1:]
    active = keyspace.queue_key(store.queue, "active").encode()
    second = keyspace.job_key(store.queue, X).encode() if single else keyspace.queue_key(store.queue, "").encode()
    assert rest[:3] == (b"2", active, second)


def assert_rescored(answer: fates.Answer, store: Any, clock: Clock, ids: list[str], lease: float = LEASE,
                    stamped: bool | None = None) -> None:
    """Exactly ``ids`` were re-scored, all to ONE score now+lease; wire 6 (only) stamped lease_epoch."""
    stamped = answer.wire == 6 if stamped is None else stamped
    got = writes(answer)
    expected_keys = {("active", i) for i in ids}
    if stamped:
        expected_keys |= {(f"job:{i}", "lease_epoch") for i in ids}
    assert set(got) == expected_keys, f"{answer.verb}: wrote {answer.writes}"
    new_scores = {float(got[("active", i)][1]) for i in ids}
    assert len(new_scores) <= 1, f"{answer.verb}: members got different scores {new_scores}"
    for i in ids:
        old, new = got[("active", i)]
        assert clock.holds(float(old), CLAIM), f"{i} was not at its claim deadline before: {old}"
        assert clock.holds(float(new), lease), f"{i} re-scored to {new}, not now+{lease}"
        if store.kind == "fakeredis":
            assert float(new) == NOW_MS + lease
    if stamped:
        run_id = store.run_id().decode()
        for i in ids:
            assert got[(f"job:{i}", "lease_epoch")] == ("∅", run_id)


def assert_wrote_nothing(answer: fates.Answer) -> None:
    assert answer.writes == (), f"{answer.verb} wrote {answer.writes}"


# -- the member fates: live, gone, stale, reaped, lane, wrongtype -----------------


def test_live(any_store):
    run, clock = timed_fate(any_store, "live")
    assert run.held == ((A, 1), (X, 1), (B, 1))
    v = by_verb(run.answers)
    for answer in v.values():
        assert not answer.unavailable
        assert_sent_as(answer, any_store)
    assert v["extend_lock"].value is None and last_reply(v["extend_lock"]) == 1
    assert_rescored(v["extend_lock"], any_store, clock, [X])
    assert v["extend_locks"].value == [] and last_reply(v["extend_locks"]) == []
    assert_rescored(v["extend_locks"], any_store, clock, [A, X, B])
    assert last_reply(v["EMQ.EXTEND"]) == 1
    assert_rescored(v["EMQ.EXTEND"], any_store, clock, [X])
    assert v["EMQ.EXTENDS"].value == [] and last_reply(v["EMQ.EXTENDS"]) == []
    assert_rescored(v["EMQ.EXTENDS"], any_store, clock, [A, X, B])


@pytest.mark.parametrize("key, error_class, refusal", [
    ("gone", "EMQGONE", jobs.Gone),
    ("stale", "EMQSTALE", jobs.Stale),
    ("reaped", "EMQNOTACTIVE", jobs.NotActive),
])
def test_refused_member(any_store, key, error_class, refusal):
    run, clock = timed_fate(any_store, key)
    v = by_verb(run.answers)
    for verb in ("extend_lock", "EMQ.EXTEND"):
        answer = v[verb]
        assert isinstance(answer.value, refusal), f"{verb}: {answer.value!r}"
        assert error_of(answer).split(" ", 1)[0] == error_class
        assert isinstance(last_reply(answer), redis.ResponseError)
        assert_wrote_nothing(answer)
    for verb in ("extend_locks", "EMQ.EXTENDS"):
        answer = v[verb]
        assert answer.value == [X], f"{verb}: the batch collects the id, it does not error"
        assert last_reply(answer) == [X.encode()]
        assert_rescored(answer, any_store, clock, [A, B])


def test_reaped_is_never_resurrected(any_store):
    """A reaped lease keeps its attempts (the token matches) but is in pending: no verb puts it back."""
    fates.reset(any_store)
    q, c = any_store.queue, any_store.client
    token = fates.prepare(c, q, X, "reaped", CLAIM)
    pending = keyspace.queue_key(q, "pending")
    active = keyspace.queue_key(q, "active")
    assert c.hget(keyspace.job_key(q, X), "attempts") == str(token).encode(), "the token still matches"
    assert c.lrange(pending, 0, -1) == [X.encode()] and c.zscore(active, X) is None
    for wire in (4, 6):
        conn = Connector(c, wire)
        with pytest.raises(jobs.NotActive):
            jobs.extend_lock(conn, q, X, token, LEASE)
        assert jobs.extend_locks(conn, q, [(X, token), (X, token)], LEASE) == [X, X]
        assert c.zscore(active, X) is None, f"wire {wire} resurrected {X} into active"
        assert c.lrange(pending, 0, -1) == [X.encode()], f"wire {wire} took {X} out of pending"
        assert c.hget(keyspace.job_key(q, X), "lease_epoch") is None
    run, _ = timed_fate(any_store, "reaped")
    for answer in run.answers:
        assert ("active", X) not in writes(answer) and ("pending",) not in writes(answer)


def test_wrongtype_mid_batch(any_store):
    run, clock = timed_fate(any_store, "wrongtype")
    v = by_verb(run.answers)
    for answer in v.values():
        assert error_of(answer) == WRONGTYPE, answer.verb
        assert isinstance(last_reply(answer), redis.ResponseError)
    # the script keeps the ZADD it made before the bad row; the member after it is never reached
    assert_rescored(v["extend_locks"], any_store, clock, [A])
    # the native twin reads every verdict before any write: nothing
    assert_wrote_nothing(v["EMQ.EXTENDS"])
    assert_wrote_nothing(v["extend_lock"])
    assert_wrote_nothing(v["EMQ.EXTEND"])


def test_lane_job_extends_like_a_flat_job(any_store):
    run, clock = timed_fate(any_store, "lane")
    assert any_store.client.hget(keyspace.job_key(any_store.queue, X), "group") == b"lane-a"
    v = by_verb(run.answers)
    assert v["extend_lock"].value is None and last_reply(v["EMQ.EXTEND"]) == 1
    assert_rescored(v["extend_lock"], any_store, clock, [X])
    assert_rescored(v["EMQ.EXTEND"], any_store, clock, [X])
    for verb in ("extend_locks", "EMQ.EXTENDS"):
        assert v[verb].value == []
        assert_rescored(v[verb], any_store, clock, [A, X, B])
    for answer in v.values():
        assert not any("group" in w for w in answer.writes), f"{answer.verb} touched group"


# -- the whole-call fates ------------------------------------------------------------


def test_restricted_user_needs_a_real_server(fake_store):
    run = fates.run_fate(fake_store, "restricted")
    assert run.fate.needs_acl and not fake_store.acl
    assert fake_store.acl_reason
    assert len(run.answers) == 4
    for answer in run.answers:
        assert answer.unavailable == fake_store.acl_reason, "not faked: marked as needing a real server"
        assert answer.exchanges == () and answer.writes == () and answer.value is None


@pytest.mark.server
def test_restricted_user_on_a_real_server(server_store):
    run, clock = timed_fate(server_store, "restricted")
    assert run.held == ((A, 1), (B, 1))
    v = by_verb(run.answers)
    for answer in v.values():
        assert not answer.unavailable
    # wire 4 serves the batch: the script reads the rows (allowed) and writes only active
    assert v["extend_locks"].value == []
    assert_rescored(v["extend_locks"], server_store, clock, [A, B])
    # wire 6 opens each row as the caller for writing: NOPERM, and nothing written
    assert error_of(v["EMQ.EXTENDS"]) == "NOPERM EMQ.EXTENDS may not write a job row"
    assert_wrote_nothing(v["EMQ.EXTENDS"])
    # the single verbs declare the row as KEYS[2]; the server's own ACL refuses a read-only key there
    for verb in ("extend_lock", "EMQ.EXTEND"):
        assert error_of(v[verb]).startswith("NOPERM"), verb
        assert_wrote_nothing(v[verb])


def test_unpaired_trailing_id(any_store):
    run, clock = timed_fate(any_store, "unpaired")
    assert run.answers == () and len(run.raw_answers) == 4
    v = by_verb(run.raw_answers)
    batch_sent = v["extend_locks"].exchanges[-1].sent
    assert batch_sent[-3:] == (B.encode(), b"1", b"JOBZ"), "the raw wire really sent an unpaired id"
    # the script's `while i < #ARGV` never reads JOBZ: had it read it, the missing row would fail it
    assert v["extend_locks"].value == []
    assert_rescored(v["extend_locks"], any_store, clock, [A, B])
    assert error_of(v["EMQ.EXTENDS"]) == "ERR EMQ.EXTENDS wrong number of arguments"
    assert_wrote_nothing(v["EMQ.EXTENDS"])
    # the single, sent one argument too many: the script ignores ARGV[4], the twin refuses
    assert v["extend_lock"].value == 1
    assert_rescored(v["extend_lock"], any_store, clock, [A])
    assert error_of(v["EMQ.EXTEND"]) == "ERR EMQ.EXTEND wrong number of arguments"
    assert_wrote_nothing(v["EMQ.EXTEND"])


def test_extend_locks_never_sends_an_unpaired_id(fake_store):
    conn = Connector(fake_store.client, 4)
    jobs.extend_locks(conn, fake_store.queue, [(A, 1), (B, 2)], LEASE)
    argv = conn.last.sent[5:]
    assert argv == (b"30000", b"JOBA", b"1", b"JOBB", b"2") and len(argv) % 2 == 1


def test_ill_formed_fate(any_store):
    run, _ = timed_fate(any_store, "ill-formed")
    for answer in run.answers:
        assert isinstance(answer.value, keyspace.IllFormed), answer.verb
        assert answer.exchanges == (), f"{answer.verb} sent {answer.exchanges}"
        assert answer.sent_nothing
        assert_wrote_nothing(answer)


BAD_IDS = ["", "a b", "a:b", "{x}", "x}", "x" * 129, "é" * 65, b"\xff", "a\x01", "a\x7f", "a\tb", "\u3000"]


@pytest.mark.parametrize("bad", BAD_IDS, ids=repr)
@pytest.mark.parametrize("wire", [4, 6])
def test_ill_formed_ids_never_reach_the_wire(any_store, bad, wire):
    fates.reset(any_store)
    q, c = any_store.queue, any_store.client
    held = [(A, fates.prepare(c, q, A, "live", CLAIM)), (B, fates.prepare(c, q, B, "live", CLAIM))]
    before = fates.read_state(c, q)
    for batch in ([held[0], (bad, 1), held[1]], [*held, (bad, 1)], [(bad, 1)]):
        conn = Connector(c, wire)
        with pytest.raises(keyspace.IllFormed) as caught:
            jobs.extend_locks(conn, q, batch, LEASE)
        assert caught.value.value == bad and caught.value.rule
        assert conn.log == [], "an ill-formed id must be refused before anything is sent"
    conn = Connector(c, wire)
    with pytest.raises(keyspace.IllFormed):
        jobs.extend_lock(conn, q, bad, 1, LEASE)
    assert conn.log == []
    assert fates.read_state(c, q) == before


def test_id_of_128_bytes_is_well_formed(fake_store):
    conn = Connector(fake_store.client, 4)
    assert jobs.extend_locks(conn, fake_store.queue, [("x" * 128, 1)], LEASE) == ["x" * 128]


@pytest.mark.parametrize("lease", [0, -5, 1.5, True, False, "30000", None, 30_000.0, 2**52 + 1])
@pytest.mark.parametrize("wire", [4, 6])
def test_bad_lease_is_refused_before_the_wire(any_store, lease, wire):
    fates.reset(any_store)
    q, c = any_store.queue, any_store.client
    held = [(A, fates.prepare(c, q, A, "live", CLAIM))]
    before = fates.read_state(c, q)
    conn = Connector(c, wire)
    with pytest.raises(jobs.BadLease):
        jobs.extend_locks(conn, q, held, lease)
    with pytest.raises(jobs.BadLease):
        jobs.extend_lock(conn, q, A, held[0][1], lease)
    assert conn.log == []
    assert fates.read_state(c, q) == before


def test_bad_lease_fate(any_store):
    run, clock = timed_fate(any_store, "bad-lease")
    for answer in run.answers:
        assert isinstance(answer.value, jobs.BadLease) and answer.exchanges == (), answer.verb
        assert_wrote_nothing(answer)
    assert len(run.raw_answers) == 12
    per_lease = (run.raw_answers[0:4], run.raw_answers[4:8], run.raw_answers[8:12])
    for lease, rows in zip((0, -5, 1.5), per_lease, strict=True):
        v = by_verb(rows)
        assert v["EMQ.EXTENDS"].exchanges[-1].sent[4] == str(lease).encode()
        for verb in ("EMQ.EXTEND", "EMQ.EXTENDS"):
            assert error_of(v[verb]) == f"ERR {verb} lease_ms must be a positive integer"
            assert_wrote_nothing(v[verb])
        # the script itself does not gate the lease (the handle does): raw, it re-scores to now+lease
        assert v["extend_lock"].value == 1
        assert_rescored(v["extend_lock"], any_store, clock, [A], lease=lease)
        assert v["extend_locks"].value == []
        assert_rescored(v["extend_locks"], any_store, clock, [A, B], lease=lease)


RAW_BAD_LEASES = [b"0", b"-5", b"1.5", b"abc", b"", b"05", b"+5", b" 5", b"5 ", b"1e3", b"0x10",
                  str(2**63).encode(), b"9" * 20]


@pytest.mark.parametrize("lease", RAW_BAD_LEASES, ids=repr)
@pytest.mark.parametrize("verb", ["EMQ.EXTENDS", "EMQ.EXTEND"])
def test_native_refuses_a_bad_lease_and_writes_nothing(any_store, lease, verb):
    fates.reset(any_store)
    q, c = any_store.queue, any_store.client
    token = fates.prepare(c, q, A, "live", CLAIM)
    second = keyspace.queue_key(q, "") if verb == "EMQ.EXTENDS" else keyspace.job_key(q, A)
    before = fates.read_state(c, q)
    with pytest.raises(redis.ResponseError) as caught:
        raw(c, verb, 2, keyspace.queue_key(q, "active"), second, lease, A, str(token))
    assert error_text(caught.value) == f"ERR {verb} lease_ms must be a positive integer"
    assert fates.read_state(c, q) == before


def test_bad_shape_fate(any_store):
    run, _ = timed_fate(any_store, "bad-shape")
    assert run.answers == () and len(run.raw_answers) == 8
    numkeys, foreign = by_verb(run.raw_answers[:4]), by_verb(run.raw_answers[4:])
    for verb in ("EMQ.EXTEND", "EMQ.EXTENDS"):
        assert numkeys[verb].exchanges[-1].sent[1] == b"1"
        assert error_of(numkeys[verb]) == f"ERR {verb} numkeys must be 2"
        assert foreign[verb].exchanges[-1].sent[2].endswith(b":pending")
        assert error_of(foreign[verb]) == f"ERR {verb} keys do not match the queue layout"
    # the scripts have no shape check: numkeys 1 breaks them, pending as KEYS[1] fails every id
    for verb in ("extend_lock", "extend_locks"):
        assert error_of(numkeys[verb]).startswith("ERR ")
    assert isinstance(foreign["extend_lock"].value, redis.ResponseError)
    assert error_of(foreign["extend_lock"]).startswith("EMQNOTACTIVE")
    assert foreign["extend_locks"].value == [A.encode(), B.encode()]
    for answer in run.raw_answers:
        assert_wrote_nothing(answer)


def _shapes(q: str, other: str) -> dict[str, list[Any]]:
    active, base = keyspace.queue_key(q, "active"), keyspace.queue_key(q, "")
    tail = [LEASE, A, "1"]
    return {
        "numkeys 0": ["EMQ.EXTENDS", 0, active, base, *tail],
        "numkeys 1": ["EMQ.EXTENDS", 1, active, base, *tail],
        "numkeys 3": ["EMQ.EXTENDS", 3, active, base, *tail],
        "numkeys x": ["EMQ.EXTENDS", "x", active, base, *tail],
        "KEYS[1] pending": ["EMQ.EXTENDS", 2, keyspace.queue_key(q, "pending"), base, *tail],
        "KEYS[1] another queue's active": ["EMQ.EXTENDS", 2, keyspace.queue_key(other, "active"), base, *tail],
        "KEYS[2] another base": ["EMQ.EXTENDS", 2, active, keyspace.queue_key(other, ""), *tail],
        "single KEYS[1] pending": ["EMQ.EXTEND", 2, keyspace.queue_key(q, "pending"),
                                   keyspace.job_key(q, A), *tail],
        "single row of another id": ["EMQ.EXTEND", 2, active, keyspace.job_key(q, B), *tail],
        "single numkeys 1": ["EMQ.EXTEND", 1, active, keyspace.job_key(q, A), *tail],
    }


@pytest.mark.parametrize("case", list(_shapes("q", "o")))
def test_native_refuses_a_bad_shape_and_writes_nothing(any_store, case):
    fates.reset(any_store)
    q, c = any_store.queue, any_store.client
    fates.prepare(c, q, A, "live", CLAIM)
    fates.prepare(c, q, B, "live", CLAIM)
    args = _shapes(q, q + "x")[case]
    before = fates.read_state(c, q)
    with pytest.raises(redis.ResponseError) as caught:
        raw(c, *args)
    text = error_text(caught.value)
    expected = "numkeys must be 2" if "numkeys" in case else "keys do not match the queue layout"
    assert text == f"ERR {args[0]} {expected}"
    assert fates.read_state(c, q) == before


def test_empty_batch(any_store):
    run, _ = timed_fate(any_store, "empty")
    v = by_verb(run.answers)
    for verb in ("extend_lock", "EMQ.EXTEND"):
        assert v[verb].unavailable and v[verb].exchanges == ()
    for verb in ("extend_locks", "EMQ.EXTENDS"):
        assert v[verb].value == [] and last_reply(v[verb]) == []
        assert v[verb].exchanges[-1].sent[-1] == b"30000", "only the lease after the keys"
        assert_wrote_nothing(v[verb])


@pytest.mark.parametrize("wire", [4, 6])
def test_empty_batch_beside_live_leases_writes_nothing(any_store, wire):
    fates.reset(any_store)
    q, c = any_store.queue, any_store.client
    fates.prepare(c, q, A, "live", CLAIM)
    before = fates.read_state(c, q)
    assert jobs.extend_locks(Connector(c, wire), q, [], LEASE) == []
    assert fates.read_state(c, q) == before


# -- fakeredis and the real server answer alike, case by case ----------------------------


def _norm_sent(sent: tuple[bytes, ...], queue: str) -> tuple[bytes, ...]:
    return tuple(part.replace(queue.encode(), b"Q") for part in sent)


def _norm_reply(reply: Any, wire: int) -> Any:
    if isinstance(reply, redis.ResponseError):
        text = error_text(reply)
        # a Lua error names the script and line on a real server, and its wording is the runtime's own
        return text.split(" script: ")[0] if wire == 6 else text.split(" ", 1)[0]
    return reply


def _norm_writes(answer: fates.Answer, store: Any, clock: Clock, offsets: dict[tuple[str, ...], tuple]
                 ) -> dict[tuple[str, ...], tuple[Any, Any]]:
    run_id = store.run_id().decode()
    out = {}
    for key, (old, new) in writes(answer).items():
        if key[-1] == "lease_epoch":
            out[key] = (old, "<run_id>" if new == run_id else new)
        elif key[0] == "active":
            out[key] = tuple(None if v == "∅" else float(v) - clock.before for v in (old, new))
            offsets[key] = (clock, *(None if v == "∅" else float(v) for v in (old, new)))
        else:
            out[key] = (old, new)
    return out


TWIN_FATES = [f.key for f in fates.FATES if f.key != "restricted"]


@pytest.mark.server
@pytest.mark.parametrize("key", TWIN_FATES)
def test_fakeredis_twin_equals_the_real_server(fake_store, server_store, key):
    """Same fate on both stores: the same replies and the same writes, scores relative to each run's now."""
    fake_run, fake_clock = timed_fate(fake_store, key)
    real_run, real_clock = timed_fate(server_store, key)
    assert fake_run.held == real_run.held
    fake_all = fake_run.answers + fake_run.raw_answers
    real_all = real_run.answers + real_run.raw_answers
    assert [a.verb for a in fake_all] == [a.verb for a in real_all]
    for f, r in zip(fake_all, real_all, strict=True):
        where = f"{key}: {f.verb}"
        assert bool(f.unavailable) == bool(r.unavailable), where
        assert type(f.value) is type(r.value), where
        if not isinstance(f.value, Exception):
            assert f.value == r.value, where
        assert len(f.exchanges) <= len(r.exchanges) + 2, where  # a first EVALSHA may meet NOSCRIPT
        if f.exchanges:
            assert _norm_sent(f.exchanges[-1].sent, fake_store.queue) == \
                _norm_sent(r.exchanges[-1].sent, server_store.queue), where
            assert _norm_reply(f.exchanges[-1].reply, f.wire) == _norm_reply(r.exchanges[-1].reply, r.wire), where
        fake_offsets: dict = {}
        real_offsets: dict = {}
        fw = _norm_writes(f, fake_store, fake_clock, fake_offsets)
        rw = _norm_writes(r, server_store, real_clock, real_offsets)
        assert set(fw) == set(rw), f"{where}: {f.writes} vs {r.writes}"
        for k in fw:
            if k[0] != "active":
                assert fw[k] == rw[k], where
                continue
            # the frozen store gives each score's exact offset from now; the server's must fit its bracket
            _, f_old, f_new = fake_offsets[k]
            _, r_old, r_new = real_offsets[k]
            for f_score, r_score in ((f_old, r_old), (f_new, r_new)):
                assert (f_score is None) == (r_score is None), where
                if f_score is not None:
                    assert real_clock.holds(r_score, f_score - NOW_MS), \
                        f"{where} {k}: server {r_score} is not now+{f_score - NOW_MS}"


# -- the table drives the set-ups -----------------------------------------------


def test_every_fate_has_its_runner_and_every_member_fate_its_set_up():
    assert set(fates.RUNNERS) == set(fates.BY_KEY)
    assert set(fates.MEMBER_SETUPS) == {f.key for f in fates.FATES if f.member}


@pytest.mark.parametrize("key", [f.key for f in fates.FATES if not f.member])
def test_a_whole_call_fate_cannot_be_given_to_one_job(fake_store, key):
    with pytest.raises(ValueError, match="whole call"):
        fates.prepare(fake_store.client, fake_store.queue, A, key, CLAIM)
    assert fates.read_state(fake_store.client, fake_store.queue) == {}, "a refused set-up wrote nothing"


@pytest.mark.server
def test_the_restricted_user_is_deleted_when_the_store_closes(server_store):
    """The fate's ACL user is registered with the store's on_close, so closing the store deletes it."""
    run = fates.run_fate(server_store, "restricted")
    assert run.answers and not any(a.unavailable for a in run.answers)
    user = f"emq-dive-{server_store.queue}".encode()
    assert user in server_store.client.execute_command("ACL", "USERS")
    server_store.close()
    assert user not in server_store.client.execute_command("ACL", "USERS")
