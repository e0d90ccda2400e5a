"""A whole batch set up in pipelined chunks ends as one member after another would leave it, at any size."""

from __future__ import annotations

import pytest

from emq_dive.engine import fates
from emq_dive.engine.echo_mq import moves
from emq_dive.engine.stores import open_store, snapshot
from tests.conftest import FROZEN

CLAIM, LEASE = 10_000, 30_000
MIX = ("live", "stale", "gone", "reaped", "wrongtype", "lane", "reaped", "stale", "live")


def _one_by_one(fate_keys: list[str]) -> dict[bytes, snapshot.Entry]:
    """The store after each member is prepared alone, one after another (the single-job path)."""
    store = open_store("fakeredis", clock=lambda: FROZEN, run_id="f" * 40)
    try:
        width = max(2, len(str(len(fate_keys))))
        for i, key in enumerate(fate_keys, 1):
            fates.prepare(store.client, store.queue, fates.job_id(i, width), key, CLAIM)
        return _named(snapshot.take(store.client, store.queue), store.queue)
    finally:
        store.close()


def _named(snap: dict[bytes, snapshot.Entry], queue: str) -> dict[bytes, snapshot.Entry]:
    """The snapshot with the run's own queue name taken out of its keys, so two runs compare."""
    return {key.replace(queue.encode(), b"Q"): entry for key, entry in snap.items()}


@pytest.mark.parametrize("size", [len(MIX), moves.CHUNK * 2 + 7])
def test_a_chunked_batch_ends_as_one_member_after_another(fake_store, size):
    fate_keys = [MIX[i % len(MIX)] for i in range(size)]
    built = fates.build_batch(fake_store, fate_keys, LEASE, CLAIM)
    assert [token for _, token in built.held] == [1] * size
    assert _named(snapshot.take(fake_store.client, fake_store.queue), fake_store.queue) == _one_by_one(fate_keys)


def test_the_chunks_cover_every_item_in_order():
    items = list(range(2 * moves.CHUNK + 3))
    parts = list(moves.chunks(items))
    assert [len(p) for p in parts] == [moves.CHUNK, moves.CHUNK, 3]
    assert [x for p in parts for x in p] == items


def test_a_snapshot_read_plain_is_what_a_read_gives(fake_store):
    fates.build_batch(fake_store, list(MIX), LEASE, CLAIM)
    client, queue = fake_store.client, fake_store.queue
    assert {key: snapshot.plain_value(entry) for key, entry in snapshot.take(client, queue).items()} == \
        snapshot.read(client, queue)


def _state(store) -> dict[bytes, snapshot.Entry]:
    return snapshot.take(store.client, store.queue)


def _exact_at(size: int) -> None:
    """End, the agreement check, a step back and Home on ``size`` members leave the store exactly as they should."""
    from emq_dive.course.lessons import load
    from emq_dive.present.session import Session

    store = open_store("fakeredis", clock=lambda: FROZEN, run_id="f" * 40)
    try:
        session = Session(store, load("batches-03"), batch=[("live", "stale", "live", "reaped")[i % 4]
                                                            for i in range(size)])
        with store.io():
            session.open(0)
            start = _state(store)
            stepper = session.stepper
            assert stepper is not None and stepper.count == size
            session.goto(size - 1)
            before_last = _state(store)
            stepper.end()
            stepped_end = _state(store)
            frame = session.frame()  # the run is over: the agreement check runs the batch unstepped, then puts back
            assert frame.agreement is not None and frame.agreement.agree, frame.agreement
            assert frame.agreement.differences == ()
            assert _state(store) == stepped_end
            assert len(frame.step.failed) == size // 2  # every stale and every reaped member
            session.goto(size - 1)
            assert _state(store) == before_last
            session.goto(0)
            assert _state(store) == start
    finally:
        store.close()


def test_the_agreement_check_and_back_step_are_exact_on_a_batch_of_several_chunks():
    _exact_at(moves.CHUNK * 2 + 4)


@pytest.mark.slow
def test_at_100000_members_the_agreement_check_and_back_step_are_exact():
    _exact_at(100_000)


def test_opening_a_lesson_reads_only_its_own_file(tmp_path, monkeypatch):
    from emq_dive.course import lessons

    (tmp_path / "zz-broken.toml").write_text("this is not toml [")
    monkeypatch.setattr(lessons, "user_lessons_dir", lambda: tmp_path)
    read = []
    real = lessons.load_file
    monkeypatch.setattr(lessons, "load_file", lambda path: read.append(path.name) or real(path))
    assert lessons.load("batches-03").id == "batches-03"
    assert read == ["batches-03.toml"]
    assert {entry.id for entry in lessons.entries()} >= {"batches-03", "zz-broken"}  # `list` still reads them all


def test_a_write_and_the_read_its_undo_needs_share_one_round_trip(fake_store):
    from emq_dive.engine.echo_mq.connector import raw, raw_pair
    from emq_dive.engine.stepper.timeline import Timeline

    client = fake_store.client
    client.zadd(b"z", {b"m": 5})
    client.set(b"s", b"x")
    timeline = Timeline(client, [])
    timeline.open()
    write = (b"ZADD", b"z", b"7", b"m")
    paired = timeline.paired(write)
    assert paired is not None and paired.read == (b"ZSCORE", b"z", b"m")
    old, reply = raw_pair(client, paired.read, write)
    paired.noted(old)
    assert (old, reply) == (b"5", 0)
    assert timeline.paired((b"DEL", b"z")) is None
    old, reply = raw_pair(client, (b"ZSCORE", b"s", b"m"), (b"ZADD", b"s", b"1", b"m"))
    assert isinstance(old, Exception) and isinstance(reply, Exception)  # both refused, and nothing left unread
    with pytest.raises(Exception, match="WRONGTYPE"):
        timeline.paired((b"ZADD", b"s", b"1", b"m")).noted(old)
    assert raw(client, "GET", "s") == b"x"
    timeline.undo(1)
    assert client.zscore(b"z", b"m") == 5
