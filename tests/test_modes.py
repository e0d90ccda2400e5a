"""Run modes, the reaper race, predictions and the refused native batch, each against a live store."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from emq_dive.engine import fates
from emq_dive.engine.echo_mq import keyspace
from emq_dive.engine.stepper import (
    DRIVERS,
    MODES,
    REMOVED,
    REMOVED_LINE,
    REMOVED_TEXT,
    WHAT_IF_MARKS,
    Check,
    ModeRefused,
    NothingToReap,
    Predictions,
    Raised,
    Stepper,
    Verdict,
    choices,
    decided_by,
    what_if_script,
)
from emq_dive.engine.stepper.modes import WHAT_IF_REFUSAL, available, choose
from emq_dive.engine.stores import open_store

try:
    from tests.conftest import FROZEN
except ImportError:  # tests/ is not a package: pytest put tests/ itself on sys.path
    from conftest import FROZEN

LEASE = 30_000
CLAIM = 10_000
LESSON_BATCH = ["live", "stale", "live", "reaped"]


@pytest.fixture
def ticking_store():
    """An embedded store whose clock moves 3 ms at every read, so each single call reads its own now."""
    ticks = itertools.count()
    store = open_store("fakeredis", clock=lambda: FROZEN + next(ticks) * 0.003, run_id="f" * 40)
    yield store
    store.close()


def _keys(store: Any) -> tuple[str, str]:
    return keyspace.queue_key(store.queue, "active"), keyspace.queue_key(store.queue, "pending")


def _where(store: Any, job_id: str) -> tuple[bool, bool]:
    """Whether ``job_id`` is in active, and whether it is in pending, read off the store."""
    active, pending = _keys(store)
    return (store.client.zscore(active, job_id) is not None,
            job_id.encode() in store.client.lrange(pending, 0, -1))


def _run(stepper: Stepper) -> list:
    steps = [stepper.current]
    while not stepper.finished:
        steps.append(stepper.forward())
    return steps


# -- the registry of modes ---------------------------------------------------------------------


def test_every_mode_is_registered_and_the_what_if_refused_where_it_does_not_apply(fake_store):
    assert {("batch", 4), ("batch", 6), ("singles", 4), ("singles", 6), ("guard-off", 4)} <= set(DRIVERS)
    assert available(4) == ("batch", "singles", "guard-off") and available(6) == ("batch", "singles")
    assert choose("batch", True, 4) == "guard-off" and choose("singles", False, 6) == "singles"
    for run_mode, wire in (("batch", 6), ("singles", 4), ("singles", 6)):
        with pytest.raises(ModeRefused, match="the what-if is for the batch script"):
            choose(run_mode, True, wire)
    batch = fates.build_batch(fake_store, LESSON_BATCH, LEASE, CLAIM)
    with pytest.raises(ModeRefused) as refused:
        Stepper(fake_store, batch.held, LEASE, 6, "guard-off")
    assert str(refused.value) == WHAT_IF_REFUSAL
    assert MODES["singles"].label(4) == "singles · extend_lock ×4" and MODES["guard-off"].what_if


# -- singles -----------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", [4, 6])
def test_singles_read_the_clock_per_call_and_raise_per_member(ticking_store, wire):
    batch = fates.build_batch(ticking_store, [*LESSON_BATCH, "gone"], LEASE, CLAIM)
    start = fates.read_state(ticking_store.client, ticking_store.queue)
    stepper = Stepper(ticking_store, batch.held, LEASE, wire, "singles")
    steps = _run(stepper)
    last = steps[-1]
    assert len(steps) == 6 and last.done and last.error is None and last.mode == "singles"
    assert last.round_trips == 5, "one command per member"
    assert len(set(last.clock_reads)) == 5 and last.spread == last.clock_reads[-1] - last.clock_reads[0] > 0
    members = {m.id: m for m in last.members}
    assert (members["JOB02"].raised, members["JOB02"].error_class) == (Raised.STALE, "EMQSTALE")
    assert (members["JOB04"].raised, members["JOB04"].error_class) == (Raised.NOT_ACTIVE, "EMQNOTACTIVE")
    assert (members["JOB05"].raised, members["JOB05"].error_class) == (Raised.GONE, "EMQGONE")
    assert list(last.failed) == [], "a single call raises; nothing joins a failed list"
    for step in steps[1:]:
        sent = [c.sent[0] for c in step.calls]
        assert sent[0] == b"TIME", f"every call reads its own clock: {sent}"
    active, _ = _keys(ticking_store)
    for job in ("JOB01", "JOB03"):
        member = members[job]
        assert member.verdict is Verdict.RESCORED and member.new_score == member.now + LEASE
        assert ticking_store.client.zscore(active, job) == member.new_score
    _, results = stepper.handle_answer()
    assert [type(r).__name__ for r in results] == ["NoneType", "Stale", "NoneType", "NotActive", "Gone"]
    assert stepper.verify().agree
    stepper.home()
    assert fates.read_state(ticking_store.client, ticking_store.queue) == start


def test_singles_back_puts_the_store_back(fake_store):
    batch = fates.build_batch(fake_store, LESSON_BATCH, LEASE, CLAIM)
    start = fates.read_state(fake_store.client, fake_store.queue)
    stepper = Stepper(fake_store, batch.held, LEASE, 4, "singles")
    _run(stepper)
    assert fates.read_state(fake_store.client, fake_store.queue) != start
    stepper.home()
    assert fates.read_state(fake_store.client, fake_store.queue) == start


# -- guard off ---------------------------------------------------------------------------------


def test_the_what_if_is_its_own_script_with_the_guard_line_marked():
    source = what_if_script().source
    assert source.splitlines()[0].startswith("-- extend_locks_no_guard.lua: a WHAT-IF")
    assert [n for n, line in enumerate(source.splitlines(), 1) if "ZSCORE" in line and not line.startswith("--")] \
        == [REMOVED_LINE], "ZSCORE is named only in the comment that stands where the guard was"
    assert REMOVED_TEXT.startswith("and redis.call('ZSCORE', active, id)")
    assert WHAT_IF_MARKS["guard-removed"] == REMOVED_LINE, "the what-if's lines sit where the real script's do"


def test_guard_off_resurrects_the_reaped_member_and_back_undoes_it(fake_store):
    batch = fates.build_batch(fake_store, LESSON_BATCH, LEASE, CLAIM)
    stepper = Stepper(fake_store, batch.held, LEASE, 4, "guard-off")
    assert stepper.command[1] == what_if_script().sha.encode()
    steps = _run(stepper)
    reaped = steps[4]
    assert reaped.code == "extend_locks_no_guard.lua" and reaped.members[3].verdict is Verdict.RESCORED
    assert reaped.members[3].active == REMOVED, "no ZSCORE is asked: the what-if removed it"
    assert _where(fake_store, "JOB04") == (True, True), "in both active and pending"
    assert any("resurrection the guard prevents" in note for note in reaped.notes)
    agreement = stepper.verify()
    assert agreement.agree and agreement.command[1] == what_if_script().sha.encode()
    assert list(agreement.atomic_reply) == [b"JOB02"]
    stepper.back()
    assert _where(fake_store, "JOB04") == (False, True)


# -- the reaper racing the holder --------------------------------------------------------------


@pytest.mark.parametrize("wire", [4, 6])
def test_the_reaper_waits_for_the_batch_and_lands_after_it(fake_store, wire):
    batch = fates.build_batch(fake_store, ["live", "live", "stale", "live"], LEASE, CLAIM)
    stepper = Stepper(fake_store, batch.held, LEASE, wire)
    for _ in range(3):
        stepper.forward()
    waits = stepper.reap_next()
    assert (waits.actor, waits.kind, waits.job_id) == ("reaper", "waits", "JOB04")
    assert _where(fake_store, "JOB04") == (True, False), "nothing moves while the script runs"
    last = stepper.end()
    kinds = [(e.actor, e.kind) for e in stepper.race_events()]
    assert kinds == [("holder", "sends"), ("reaper", "waits"), ("holder", "returns"), ("reaper", "lands")]
    lands = stepper.race_events()[-1]
    assert lands.moved is False and "found JOB04 extended" in lands.text and lands.step == last.index
    assert last.members[3].verdict is Verdict.RESCORED and _where(fake_store, "JOB04") == (True, False)
    assert stepper.verify().agree


def test_the_reaper_moves_a_failed_member_after_the_batch(fake_store):
    batch = fates.build_batch(fake_store, ["live", "stale"], LEASE, CLAIM)
    stepper = Stepper(fake_store, batch.held, LEASE, 4)
    stepper.forward()
    assert stepper.reap_next().job_id == "JOB02"
    stepper.end()
    assert stepper.race_events()[-1].moved is True and _where(fake_store, "JOB02") == (False, True)
    assert stepper.verify().agree
    stepper.back()
    assert _where(fake_store, "JOB02") == (True, False), "back undoes the reaper's move too"
    assert [e.kind for e in stepper.race_events()] == ["sends", "waits"], "it waits again"


@pytest.mark.parametrize("wire", [4, 6])
def test_in_singles_the_reaper_lands_between_calls_and_the_next_call_is_not_active(fake_store, wire):
    batch = fates.build_batch(fake_store, ["live", "live", "live"], LEASE, CLAIM)
    stepper = Stepper(fake_store, batch.held, LEASE, wire, "singles")
    stepper.forward()
    assert stepper.reap_next().job_id == "JOB02"
    second = stepper.forward()
    assert [e.kind for e in second.events] == ["lands", "call"], "the reaper moves before the holder's call"
    assert second.members[1].raised is Raised.NOT_ACTIVE and _where(fake_store, "JOB02") == (False, True)
    assert stepper.end().members[2].verdict is Verdict.RESCORED
    assert stepper.verify().agree
    stepper.home()
    assert _where(fake_store, "JOB02") == (True, False) and stepper.race_events() == ()


def test_the_reaper_refuses_when_nothing_is_left_to_race(fake_store):
    batch = fates.build_batch(fake_store, ["live", "reaped"], LEASE, CLAIM)
    stepper = Stepper(fake_store, batch.held, LEASE, 4)
    stepper.forward()
    with pytest.raises(NothingToReap, match="nothing to move"):
        stepper.reap_next()
    stepper.end()
    with pytest.raises(NothingToReap, match="the run is over"):
        stepper.reap_next()


# -- item 9.6: a refused EMQ.EXTENDS writes nothing --------------------------------------------


def test_after_a_refusal_the_live_members_are_not_written(fake_store):
    batch = fates.build_batch(fake_store, ["live", "live", "live"], LEASE, CLAIM)
    row = keyspace.job_key(fake_store.queue, "JOB02")
    fake_store.client.delete(row)
    fake_store.client.set(row, "not a hash")
    start = fates.read_state(fake_store.client, fake_store.queue)
    stepper = Stepper(fake_store, batch.held, LEASE, 6)
    first, refused = stepper.forward(), stepper.forward()
    assert first.members[0].verdict is Verdict.LIVE
    assert refused.done and refused.error.startswith("WRONGTYPE") and refused.changed == frozenset()
    assert refused.members[0].verdict is Verdict.NOT_WRITTEN and refused.members[0].reason is None
    assert refused.members[1].verdict is Verdict.STOPPED and refused.members[1].error_class == "WRONGTYPE"
    assert not refused.members[2].ran
    assert fates.read_state(fake_store.client, fake_store.queue) == start
    assert decided_by(refused.members[0]) is Check.REFUSED
    stepper.back()
    assert stepper.current.members[0].verdict is Verdict.LIVE


# -- predictions -------------------------------------------------------------------------------


def test_predictions_are_judged_by_the_check_that_decided_and_survive_back(fake_store):
    batch = fates.build_batch(fake_store, LESSON_BATCH, LEASE, CLAIM)
    stepper = Stepper(fake_store, batch.held, LEASE, 4)
    book = Predictions()
    assert choices(4)[:4] == (Check.RESCORED, Check.NO_ROW, Check.STALE, Check.NOT_ACTIVE)
    assert choices(6)[-1] is Check.REFUSED
    guesses = [Check.RESCORED, Check.RESCORED, Check.RESCORED, Check.NOT_ACTIVE]
    for index, guess in enumerate(guesses):
        book.guess(stepper.run_id, stepper.current.members[index], guess, stepper.position)
        stepper.forward()
    judged = book.judge(stepper.run_id, stepper.current.members)
    assert [j.right for j in judged] == [True, False, True, True]
    assert judged[1].actual is Check.STALE and "token" in judged[1].actual.explains
    assert book.score(stepper.run_id, stepper.current.members) == (3, 4)
    stepper.home()
    assert book.of(stepper.run_id, 1).guess is Check.RESCORED, "back keeps the guesses"
    assert book.score(stepper.run_id, stepper.current.members) == (0, 0), "nothing is judged before its step"
    assert book.guess(stepper.run_id, stepper.current.members[1], Check.STALE, 0).guess is Check.RESCORED


# -- a spawned real server ---------------------------------------------------------------------


@pytest.mark.server
@pytest.mark.parametrize("wire", [4, 6])
def test_singles_and_the_reaper_on_a_real_server(server_store, wire):
    batch = fates.build_batch(server_store, ["live", "stale", "live", "live"], LEASE, CLAIM)
    stepper = Stepper(server_store, batch.held, LEASE, wire, "singles")
    stepper.forward()
    stepper.forward()
    assert stepper.current.members[1].raised is Raised.STALE
    assert stepper.reap_next().job_id == "JOB03"
    third = stepper.forward()
    assert third.members[2].raised is Raised.NOT_ACTIVE and _where(server_store, "JOB03") == (False, True)
    last = stepper.end()
    assert last.round_trips == 4 and len(last.clock_reads) == 4 and last.spread >= 0
    assert stepper.verify().agree
    stepper.home()
    assert _where(server_store, "JOB03") == (True, False)
    batch_stepper = Stepper(server_store, batch.held, LEASE, wire)
    batch_stepper.forward()
    batch_stepper.forward()
    assert batch_stepper.reap_next().job_id == "JOB03"
    end = batch_stepper.end()
    assert stepper.race_events() == () and end.members[2].verdict is Verdict.RESCORED
    assert batch_stepper.race_events()[-1].moved is False and batch_stepper.verify().agree
