"""The missions only a real server supports: NOPERM for a read-only caller, and the cached command time."""

from __future__ import annotations

import pytest

from emq_dive.course.lessons import load
from emq_dive.course.user_state import UserState
from emq_dive.engine.echo_mq import keyspace
from emq_dive.engine.fates import prepare
from emq_dive.present import missions as mp
from emq_dive.present.mission_check import Seen, Sent
from emq_dive.present.session import Session

LESSON = load("batches-03")
pytestmark = pytest.mark.server


def _tracker(store, tmp_path, mission_id):
    tracker = mp.Missions(LESSON, store, UserState(tmp_path))
    mission = next(m for m in LESSON.missions if m.id == mission_id)
    assert mp.unsupported(mission, store) == "", "a spawned server with the module runs it"
    tracker.begin(mission)
    return tracker


@pytest.mark.parametrize(("fate", "met"), [("restricted", True), ("live", False)])
def test_noperm_for_a_read_only_caller_on_wire_6_only(server_store, tmp_path, fate, met):
    if not server_store.native:
        pytest.skip(f"wire 6 is not served here: {server_store.native_reason}")
    tracker = _tracker(server_store, tmp_path, "noperm")
    session = Session(server_store, LESSON)
    ran, _frame = session.run_fate(fate)
    assert (tracker.observe(Seen(answers=(*ran.answers, *ran.raw_answers))) is not None) is met


def _send(store, job: str, token: int, multi: bool) -> Sent:
    """Two EMQ.EXTENDS of ``job`` in one MULTI or apart (the second once the server's clock has moved), each with
    the score it wrote in active read back."""
    q = store.queue
    active, base = keyspace.queue_key(q, "active"), keyspace.queue_key(q, "")
    command = ("EMQ.EXTENDS", 2, active, base, 30000, job, token)
    if multi:
        pipe = store.client.pipeline(transaction=True)
        for _ in range(2):
            pipe.execute_command(*command)
            pipe.zscore(active, job)
        replies = pipe.execute()
        deadlines = (int(replies[1]), int(replies[3]))
    else:
        store.client.execute_command(*command)
        first = int(store.client.zscore(active, job))
        def ms() -> int:
            seconds, micros = store.client.time()
            return seconds * 1000 + micros // 1000

        start = ms()
        while ms() == start:
            pass  # until the server's clock reaches its next millisecond: no sleep, reads of TIME
        store.client.execute_command(*command)
        deadlines = (first, int(store.client.zscore(active, job)))
    sent = tuple(tuple(str(part).encode() for part in command) for _ in range(2))
    return Sent(sent, multi, deadlines)


def test_the_cached_clock_in_one_multi_and_apart(valkey_store, tmp_path):
    """On a spawned Valkey: the module reads the cached command time there (Redis 7.0 has no such API, so its
    Milliseconds() can cross a millisecond inside one MULTI, which failed a CI run on Debian's redis-server)."""
    if not valkey_store.native:
        pytest.skip(f"wire 6 is not served here: {valkey_store.native_reason}")
    tracker = _tracker(valkey_store, tmp_path, "cached-clock")
    token = prepare(valkey_store.client, valkey_store.queue, "JOBC", "live", 10_000)
    apart = _send(valkey_store, "JOBC", token, multi=False)
    assert tracker.observe(Seen(sent=apart)) is None, "apart first: the stages go in order"
    together = _send(valkey_store, "JOBC", token, multi=True)
    assert together.deadlines[0] == together.deadlines[1], "one MULTI: one cached command time"
    assert tracker.observe(Seen(sent=together)) is None and tracker.stage == 1
    assert tracker.observe(Seen(sent=_send(valkey_store, "JOBC", token, multi=False))) is not None
