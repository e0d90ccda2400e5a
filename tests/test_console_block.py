"""The console's MULTI block: its words, queuing with nothing sent, EXEC in one transaction, DISCARD, back undoing the
whole block, the plain mode and the transcript; on a spawned server, the native twin's cached command time."""

from __future__ import annotations

import itertools

import pytest

from emq_dive.engine.echo_mq.console import Refusal
from emq_dive.engine.echo_mq.console_block import Word, block_word
from emq_dive.engine.stores import open_store, snapshot
from emq_dive.present.console import Console, Replied
from emq_dive.present.console_block import Blocked, Executed, Stand
from emq_dive.present.session import Session
from tests.test_console import LESSON, opened, plain_on

EXTENDS = "EMQ.EXTENDS 2 $active $base $lease {} 1"
"""The native verb for one member with token 1 (JOB01's and JOB03's token in the lesson's batch)."""


def sent_commands(store) -> list[tuple]:
    """Every command the store's client sends from now on, once each (each connection's send_command wrapped once)."""
    pool = store.client.connection_pool
    seen: list[tuple] = []
    get = pool.get_connection

    def recording(*args, **kwargs):
        conn = get(*args, **kwargs)
        if not getattr(conn, "_recorded", False):
            send_command = conn.send_command

            def sending(*command, **options):
                seen.append(tuple(c.decode() if isinstance(c, bytes) else c for c in command))
                return send_command(*command, **options)

            conn.send_command, conn._recorded = sending, True
        return conn

    pool.get_connection = recording
    return seen


@pytest.mark.parametrize(("typed", "open_block", "says"), [
    ("MULTI", False, Word.MULTI), ("  multi ", False, Word.MULTI), ("exec", True, Word.EXEC),
    ("DISCARD", True, Word.DISCARD), ("ZCARD $active", True, None), ("'unclosed", False, None),
    ("MULTI now", False, "wrong number of arguments for MULTI"), ("MULTI", True, "can not be nested"),
    ("EXEC", False, "EXEC without MULTI"), ("DISCARD", False, "DISCARD without MULTI"),
])
def test_the_block_words_and_when_they_are_refused(typed, open_block, says):
    word = block_word(typed, open_block)
    if isinstance(says, str):
        assert isinstance(word, Refusal) and says in word.reason and "\n" not in word.reason
    else:
        assert word is says


def test_a_block_queues_checked_lines_sends_nothing_until_exec_and_back_undoes_all_of_it(fake_store):
    console = opened(fake_store)
    before = snapshot.take(fake_store.client, fake_store.queue)
    sent = sent_commands(fake_store)
    with fake_store.io():
        said = [console.run(typed)[0] for typed in (
            "MULTI", EXTENDS.format("JOB01"), "FLUSHALL", "ZSCORE emq:{x}:active JOB01",
            "EVALSHA $sha 2 $active $base 99000 JOB03 1", "TYPE $active", "HGET $job:JOB01 lease_epoch")]
        assert sent == [] and snapshot.take(fake_store.client, fake_store.queue) == before, "nothing sent yet"
        assert [type(s) for s in said] == [Blocked, Blocked, Refusal, Refusal, Blocked, Blocked, Blocked]
        assert said[-1].stand is Stand.QUEUED and len(said[-1].queued) == 4, "a refused line is not queued"
        executed, frame = console.run("exec")
    assert isinstance(executed, Executed) and frame is not None and console.block is None
    names = [command[0] for command in sent]
    assert names[names.index("MULTI"):] == ["MULTI", "EMQ.EXTENDS", "EVALSHA", "TYPE", "HGET", "EXEC"]
    assert executed.lines == ("1) (empty array)", "2) (empty array)", "3) zset", f'4) "{"f" * 40}"'), \
        "each reply raw, as redis-cli prints EXEC's, TYPE's status bare"
    assert {e.id: e.score for e in frame.view.active}["JOB03"] == 1_700_000_099_000, "the store pane follows"
    assert executed.undoable and console.undoable() and console.dirty
    with fake_store.io():
        console.undo()
    assert snapshot.take(fake_store.client, fake_store.queue) == before, "back put back every key the block wrote"
    assert not console.undoable(), "the block is one undo"


def test_discard_drops_the_block_and_sends_nothing(fake_store):
    console = opened(fake_store)
    sent = sent_commands(fake_store)
    with fake_store.io():
        for typed in ("MULTI", EXTENDS.format("JOB01")):
            console.run(typed)
        dropped, frame = console.run("DISCARD")
        refused, _ = console.run("EXEC")
    assert isinstance(dropped, Blocked) and dropped.stand is Stand.DISCARDED and len(dropped.queued) == 1
    assert frame is None and sent == [] and console.block is None and not console.undoable()
    assert isinstance(refused, Refusal) and "EXEC without MULTI" in refused.reason
    assert console.history.lines == ["MULTI", EXTENDS.format("JOB01"), "DISCARD", "EXEC"]


def test_without_the_module_the_native_lines_are_refused_in_a_block_too(fake_store):
    fake_store.native, fake_store.native_reason = False, "no module here"
    console = opened(fake_store)
    with fake_store.io():
        console.run("MULTI")
        refused, _ = console.run(EXTENDS.format("JOB01"))
    assert isinstance(refused, Refusal) and "EMQ.EXTENDS is not on this backend: no module here" in refused.reason
    assert console.block == ()


def test_fakeredis_reads_its_clock_per_command_and_the_block_says_it_cannot_show_the_cached_time():
    ticks = itertools.count(1_700_000_000_000)
    store = open_store("fakeredis", clock=lambda: next(ticks) / 1000, run_id="f" * 40)
    try:
        console = opened(store)
        with store.io():
            for typed in ("MULTI", EXTENDS.format("JOB01"), EXTENDS.format("JOB03"), "ZMSCORE $active JOB01 JOB03"):
                console.run(typed)
            executed, _ = console.run("EXEC")
    finally:
        store.close()
    assert isinstance(executed, Executed)
    first, second = (int(score) for score in executed.reply[2])
    assert second == first + 1, "each command read the ticking clock afresh, inside the block as well"
    assert "cannot show that the native twin's clock is the server's cached command time" in executed.note


def test_the_plain_console_runs_a_block_and_h_lists_its_words(fake_store):
    said, _ = plain_on(fake_store, ": MULTI\n: FLUSHALL\n: " + EXTENDS.format("JOB03") +
                       "\n: ZSCORE $active JOB03\n: EXEC\nb\n: ZSCORE $active JOB03\n: MULTI\n: DISCARD\nh\n")
    assert "MULTI: A MULTI block is open: each line is checked and queued, nothing is sent until EXEC" in said
    assert "Refused, nothing sent: FLUSHALL is not a console command" in said
    assert "ZSCORE $active JOB03: Queued, nothing sent yet (2 lines in the block;" in said
    assert "EXEC sent MULTI, EMQ.EXTENDS, ZSCORE, EXEC in one transaction;" in said
    assert ' b undoes the whole block.\n1) (empty array)\n2) "1700000030000"' in said
    assert 'Back put back what the console\'s write replaced' in said and 'ZSCORE answered:\n"1700000010000"' in said
    assert "DISCARD: The block is dropped (0 lines); nothing was sent." in said
    assert ("the reply raw, the store pane follows, back undoes a write (: MULTI opens a block whose lines are "
            "checked and queued, : EXEC sends them in one MULTI/EXEC transaction, : DISCARD drops them);") in said


def test_the_transcript_keeps_the_console_lines_sent_in_order_with_the_steps(fake_store):
    _, dive = plain_on(fake_store, ": FLUSHALL\n: MULTI\n: " + EXTENDS.format("JOB03") +
                       "\n: TYPE $active\n: EXEC\n\n: ZSCORE $active JOB03\n\n")
    entries = dive.recorder.entries
    kinds = [type(entry).__name__ for entry in entries]
    assert kinds == ["Frame", "Executed", "Frame", "Replied", "Frame"], "refused and queued lines sent nothing"
    text = dive.recorder.markdown()
    block = ("#### Console: a MULTI block of 2\n\n```\n> MULTI\n> EMQ.EXTENDS 2 $active $base $lease JOB03 1\n"
             "> TYPE $active\n> EXEC\n1) (empty array)\n2) zset\n```\n\n"
             f"- sent `EMQ.EXTENDS 2 emq:{{{fake_store.queue}}}:active emq:{{{fake_store.queue}}}: 30000 JOB03 1`")
    read = '#### Console\n\n```\n> ZSCORE $active JOB03\n"1700000030000"\n```'
    assert block in text and read in text
    assert text.index("### Step 0") < text.index(block) < text.index("### Step 1") < text.index(read) \
        < text.index("### Step 2")
    assert "Back to step" not in text, "a console line between two frames of a step is not a step back"


def deadline(console: Console, job: str) -> int:
    """``job``'s score in active, read through the console."""
    read, _ = console.run(f"ZSCORE $active {job}")
    assert isinstance(read, Replied)
    return int(read.reply)


def sent_apart(store) -> tuple[int, int]:
    """JOB01's and JOB03's deadlines, each extended by its own EMQ.EXTENDS; between them the test reads the server's
    TIME until it is past the first command's millisecond, so the second command's clock has moved (no sleep)."""
    console = opened(store)
    with store.io():
        first, _ = console.run(EXTENDS.format("JOB01"))
        assert isinstance(first, Replied) and first.lines == ("(empty array)",)
        now = deadline(console, "JOB01") - LESSON.lease_ms
        for _ in range(100_000):
            seconds, micros = store.client.time()
            if seconds * 1000 + micros // 1000 > now:
                break
        else:
            pytest.fail("the server's clock did not move past one millisecond in 100,000 TIME reads")
        console.run(EXTENDS.format("JOB03"))
        return deadline(console, "JOB01"), deadline(console, "JOB03")


@pytest.mark.server
@pytest.mark.parametrize("backend", ["server_store", "valkey_store", "embedded_store"])
def test_sent_apart_two_extends_read_two_clocks(backend, request):
    first, second = sent_apart(request.getfixturevalue(backend))
    assert second > first


@pytest.mark.server
@pytest.mark.parametrize("backend", ["valkey_store", "embedded_store"])
def test_in_one_multi_two_extends_get_the_same_deadline_from_the_cached_command_time(backend, request):
    """The block's TIME replies, first and last with 200 commands between, are the same microsecond: the command
    time is cached for the whole EXEC, and both deadlines are that time plus the lease."""
    store = request.getfixturevalue(backend)
    console = opened(store)
    before = snapshot.take(store.client, store.queue)
    with store.io():
        for typed in ("MULTI", "TIME", EXTENDS.format("JOB01"), *["TIME"] * 200, EXTENDS.format("JOB03"), "TIME",
                      "ZMSCORE $active JOB01 JOB03"):
            console.run(typed)
        executed, _ = console.run("EXEC")
        assert isinstance(executed, Executed) and not executed.errored and executed.note == ""
        (seconds, micros), last = executed.reply[0], executed.reply[-2]
        assert last == [seconds, micros], "the clock did not move inside EXEC: it is the cached command time"
        first, second = (int(score) for score in executed.reply[-1])
        assert first == second == int(seconds) * 1000 + int(micros) // 1000 + LESSON.lease_ms
        assert deadline(console, "JOB01") == deadline(console, "JOB03") == first
        console.undo()
    assert snapshot.take(store.client, store.queue) == before, "back put the block's writes back on the server"


def test_a_fresh_session_console_has_no_block(fake_store):
    assert Console(Session(fake_store, LESSON)).block is None
