"""The console's policy and its moves on a store: what it lets through, what it refuses before anything is sent,
the raw reply, the history and the undo of a write; in the plain mode too, and once on a spawned server."""

from __future__ import annotations

import io

import pytest
import redis

from emq_dive.cli import output_problem
from emq_dive.course.lessons import load
from emq_dive.engine.echo_mq import scripts
from emq_dive.engine.echo_mq.cli_reply import cli_lines, resp2
from emq_dive.engine.echo_mq.console import Kind, Line, Place, Refusal, parse
from emq_dive.engine.stores import snapshot
from emq_dive.present.console import Console, Failed, History, Replied
from emq_dive.present.session import Session
from emq_dive.views.text.plain.dive import NoStyle, PlainDive
from emq_dive.views.text.recorder import Recorder

LESSON = load("batches-03")
PLACE = Place("dive-abc", 30_000, native=False, native_reason="no module here")
STRING_COMPARE = "EVALSHA $sha 2 $active $base $lease JOB01 01"
"""JOB01's attempts is 1: a token of 01 equals it as a number, not as the string the script compares."""


def test_the_lessons_evalsha_is_filled_in_from_the_running_dive():
    line = parse(STRING_COMPARE, PLACE)
    assert isinstance(line, Line) and line.kind is Kind.SCRIPT and line.kind.writes
    assert line.args == (b"EVALSHA", scripts.extend_locks().sha.encode(), b"2", b"emq:{dive-abc}:active",
                         b"emq:{dive-abc}:", b"30000", b"JOB01", b"01")
    assert b"emq:{dive-abc}:job:JOB01" in line.touched and b"emq:{dive-abc}:active" in line.touched
    single = parse("evalsha $sha_one 2 $active $job:JOB02 $lease JOB02 1", PLACE)
    assert isinstance(single, Line) and single.args[4] == b"emq:{dive-abc}:job:JOB02"
    read = parse("HGETALL $job:JOB01", PLACE)
    assert isinstance(read, Line) and read.kind is Kind.READ and not read.kind.writes and read.touched == ()


@pytest.mark.parametrize(("typed", "says"), [
    ("ZSCORE emq:{other}:active JOB01", "is not a key of this dive"),
    ("EXISTS $active emq:{dive-abcd}:active", "emq:{dive-abcd}:active is not a key of this dive"),
    ("EVALSHA $sha 2 emq:{x}:active $base 1 JOB01 1", "emq:{x}:active is not a key of this dive"),
    ("FLUSHALL", "FLUSHALL is not a console command"),
    ("CONFIG GET *", "CONFIG is not a console command"),
    ("DEL $active", "DEL is not a console command"),
    ("EVAL 'return 1' 0", "EVAL is not a console command"),
    ("EVALSHA 0123456789abcdef0123456789abcdef01234567 0", "only the course's scripts"),
    ('HGET "$job:JOB01 attempts', "malformed line: no closing quotation"),
    ("ZSCORE $active", "wrong number of arguments for ZSCORE: 1"),
    ("EVALSHA $sha 3 $active $base", "numkeys 3, but 2 after it"),
    ("EVALSHA $sha two $active", "numkeys must be a number"),
    ("EVALSHA $sha", "wrong number of arguments for EVALSHA"),
    ("HGET $nope attempts", "unknown placeholder $nope"),
    ("EMQ.EXTENDS 2 $active $base $lease JOB01 1", "EMQ.EXTENDS is not on this backend: no module here"),
    ("EVALSHA $sha 2 emq:{dive-abc}:dive-alive $base 1 JOB01 1", "owner marker"),
    ("", "nothing to send"),
])
def test_a_line_the_console_will_not_send_gets_one_line(typed, says):
    refused = parse(typed, PLACE)
    assert isinstance(refused, Refusal), typed
    assert says in refused.reason and "\n" not in refused.reason


def test_the_native_verbs_pass_where_the_store_serves_them_and_an_unpaired_id_is_left_to_the_module():
    native = Place("dive-abc", 30_000, native=True)
    line = parse("EMQ.EXTENDS 2 $active $base $lease JOB01 1 JOB02", native)
    assert isinstance(line, Line) and line.kind is Kind.NATIVE


def test_replies_print_as_redis_cli_prints_them():
    assert cli_lines(None) == ["(nil)"] and cli_lines(3) == ["(integer) 3"] and cli_lines([]) == ["(empty array)"]
    assert cli_lines(b'a "q"\n') == ['"a \\"q\\"\\n"'] and cli_lines(b"zset", status=True) == ["zset"]
    assert cli_lines(redis.ResponseError("WRONGTYPE Operation against a key")) == [
        "(error) WRONGTYPE Operation against a key"]
    assert cli_lines([b"a", [b"b", 1]]) == ['1) "a"', '2) 1) "b"', '   2) (integer) 1']
    assert cli_lines([b"x"] * 10)[0] == ' 1) "x"'
    assert resp2({b"a": b"1"}) == [b"a", b"1"] and resp2([[b"m", b"1"]], pairs=True) == [b"m", b"1"]


def test_history_walks_back_and_forward():
    history = History()
    for line in ("ZCARD $active", "ZCARD $active", "", "TIME"):
        history.add(line)
    assert history.lines == ["ZCARD $active", "TIME"]
    assert (history.older(), history.older(), history.older()) == ("TIME", "ZCARD $active", None)
    assert (history.newer(), history.newer()) == ("TIME", "")


def opened(store) -> Console:
    session = Session(store, LESSON)
    with store.io():
        session.open(0)
    return Console(session)


def test_refused_lines_send_nothing_and_the_string_compare_fails_on_the_store(fake_store):
    console = opened(fake_store)
    before = snapshot.take(fake_store.client, fake_store.queue)
    with fake_store.io():
        for typed in ("FLUSHALL", "ZSCORE emq:{other}:active JOB01", "HGET '$job:JOB01 attempts"):
            outcome, frame = console.run(typed)
            assert isinstance(outcome, Refusal) and frame is None
        assert snapshot.take(fake_store.client, fake_store.queue) == before
        outcome, frame = console.run(STRING_COMPARE)
    assert isinstance(outcome, Replied) and outcome.lines == ('1) "JOB01"',) and frame is not None
    assert snapshot.take(fake_store.client, fake_store.queue) == before, "a failed id is never re-scored"
    assert console.dirty and console.undoable()


def test_back_puts_back_exactly_the_keys_a_console_write_replaced(fake_store):
    console = opened(fake_store)
    before = snapshot.take(fake_store.client, fake_store.queue)
    with fake_store.io():
        outcome, frame = console.run("EVALSHA $sha 2 $active $base 99000 JOB01 1 JOB02 2")
        assert outcome.lines == ("(empty array)",)
        assert frame is not None and {e.id: e.score for e in frame.view.active}["JOB01"] == 1_700_000_099_000
        assert snapshot.take(fake_store.client, fake_store.queue) != before
        frame = console.undo()
    assert snapshot.take(fake_store.client, fake_store.queue) == before
    assert not console.undoable(), "one undo per write"
    with fake_store.io():
        console.session.open(0)
    assert not console.dirty, "a set-up drops what the console wrote, and its undo"


def test_a_write_at_the_handle_is_undone_after_the_steps_above_it_are(fake_store):
    console = opened(fake_store)
    before = snapshot.take(fake_store.client, fake_store.queue)
    with fake_store.io():
        console.run("EVALSHA $sha 2 $active $base 99000 JOB01 1")
        console.session.goto(2)
        assert not console.undoable(), "at step 2, back undoes the step"
        console.session.goto(0)
        assert console.undoable()
        console.undo()
    assert snapshot.take(fake_store.client, fake_store.queue) == before


def test_a_store_that_does_not_answer_is_said_in_one_line(fake_store):
    console = opened(fake_store)
    fake_store.client.connection_pool.get_connection = lambda *a, **k: (_ for _ in ()).throw(
        redis.ConnectionError("gone"))
    outcome, frame = console.run("ZCARD $active")
    assert isinstance(outcome, Failed) and "gone" in outcome.reason and frame is None


def plain_on(store, lines: str) -> tuple[str, PlainDive]:
    out = io.StringIO()
    dive = PlainDive(Session(store, LESSON), out, NoStyle(), Recorder(LESSON.heading, store.description),
                     output_problem)
    assert dive.run(iter(lines.splitlines(keepends=True))) == 0
    return out.getvalue(), dive


def test_the_plain_console_sends_with_the_same_policy_and_b_undoes_its_write(fake_store):
    said, dive = plain_on(fake_store, ": FLUSHALL\n: ZSCORE emq:{x}:active JOB01\n"
                                      f": {STRING_COMPARE}\n: EVALSHA $sha 2 $active $base 99000 JOB03 1\n"
                                      ": ZSCORE $active JOB03\nb\n:ZSCORE $active JOB03\nh\n")
    assert "Refused, nothing sent: FLUSHALL is not a console command" in said
    assert "Refused, nothing sent: ZSCORE refused: emq:{x}:active is not a key of this dive" in said
    assert "EVALSHA answered (the store had not loaded extend_locks yet: SCRIPT LOAD sent first): b undoes it.\n" \
           '1) "JOB01"' in said
    assert 'ZSCORE answered:\n"1700000099000"' in said
    assert "Back put back what the console's write replaced" in said
    assert 'ZSCORE answered:\n"1700000010000"' in said
    assert ": COMMAND: the console:" in said and "R: reset:" in said
    assert dive.console.history.lines[:2] == ["FLUSHALL", "ZSCORE emq:{x}:active JOB01"], "refused lines are kept too"


@pytest.mark.server
def test_the_console_on_a_spawned_server(server_store):
    console = opened(server_store)
    before = snapshot.take(server_store.client, server_store.queue)
    with server_store.io():
        refused, _ = console.run("FLUSHALL")
        outcome, _ = console.run(STRING_COMPARE)
        typed, _ = console.run("TYPE $active")
        native, _ = console.run("EMQ.EXTENDS 2 $active $base $lease JOB03 1 JOB01")
        extended, _ = console.run("EMQ.EXTENDS 2 $active $base $lease JOB03 1")
        row, _ = console.run("HGET $job:JOB03 lease_epoch")
    assert isinstance(refused, Refusal)
    assert outcome.lines == ('1) "JOB01"',)
    assert typed.lines == ("zset",)
    assert native.errored and native.lines == ("(error) ERR EMQ.EXTENDS wrong number of arguments",)
    assert extended.lines == ("(empty array)",)
    assert row.lines == (f'"{server_store.run_id().decode()}"',)
    with server_store.io():
        console.undo()
        console.undo()
    assert snapshot.take(server_store.client, server_store.queue) == before, "back put the row's field back too"
