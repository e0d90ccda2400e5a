"""Each mission reached by its intended route through the engine, and not by a wrong one; nothing here is faked."""

from __future__ import annotations

import itertools

import pytest
import redis

from emq_dive.course.lessons import load
from emq_dive.course.mission_goals import Mission
from emq_dive.course.sandbox import SandboxBatch, SandboxMember
from emq_dive.course.user_state import UserState
from emq_dive.engine.echo_mq import keyspace, scripts
from emq_dive.engine.echo_mq.connector import raw
from emq_dive.engine.stepper.outcome import Verdict
from emq_dive.engine.stepper.predict import decided_by
from emq_dive.engine.stores import open_store
from emq_dive.present import missions as mp
from emq_dive.present.mission_check import Seen, Sent
from emq_dive.present.session import Frame, Session

FROZEN = 1_700_000_000.0
LESSON = load("batches-03")


def _mission(mission_id: str) -> Mission:
    return next(m for m in LESSON.missions if m.id == mission_id)


@pytest.fixture
def store():
    """An embedded store whose clock moves 3 ms at every read, so single calls read their own now."""
    ticks = itertools.count()
    store = open_store("fakeredis", clock=lambda: FROZEN + next(ticks) * 0.003, run_id="f" * 40)
    yield store
    store.close()


class Run:
    """One mission under way on a real session: its start state set up, every move observed."""

    def __init__(self, store, mission_id: str, tmp_path) -> None:
        self.session = Session(store, LESSON)
        self.tracker = mp.Missions(LESSON, store, UserState(tmp_path))
        self.mission = _mission(mission_id)
        self.tracker.begin(self.mission)
        self.met: list[mp.Met] = []
        self.frame(mp.start(self.session, LESSON, self.mission))

    def frame(self, frame: Frame) -> Frame:
        self.see(mp.seen_frame(self.session, frame))
        return frame

    def see(self, seen: Seen) -> None:
        met = self.tracker.observe(seen)
        if met is not None:
            self.met.append(met)

    def end(self) -> Frame:
        assert self.session.stepper is not None
        return self.frame(self.session.goto(self.session.stepper.count))

    def fate(self, key: str) -> None:
        ran, frame = self.session.run_fate(key)
        self.see(Seen(answers=(*ran.answers, *ran.raw_answers)))
        self.frame(frame)

    @property
    def done(self) -> bool:
        return bool(self.met) and self.mission.id in self.tracker.state.progress().done(LESSON.id)


def test_every_mission_loads_with_a_sentence_of_the_lesson():
    assert len(LESSON.missions) >= 12
    text = " ".join(" ".join(s.body.split()) for s in LESSON.sections)
    for mission in LESSON.missions:
        assert mission.proves in text, mission.id
        assert mission.goal and mission.hint and mission.stages


def test_deadlines_differ_by_singles_not_by_the_batch(store, tmp_path):
    right = Run(store, "deadlines-differ", tmp_path / "a")
    right.frame(right.session.set_mode("singles", False))
    last = right.end()
    assert len({m.new_score for m in last.step.members}) == 4 and right.done
    wrong = Run(store, "deadlines-differ", tmp_path / "b")
    wrong.end()
    assert not wrong.met


@pytest.mark.parametrize(("fate", "met"), [("stale", True), ("gone", False), ("reaped", False)])
def test_token_check_only_by_a_stale_token(store, tmp_path, fate, met):
    run = Run(store, "token-check", tmp_path)
    run.frame(run.session.apply(1, fate))
    run.end()
    assert run.done is met


@pytest.mark.parametrize(("fate", "met"), [("stale", True), ("gone", False), ("live", False)])
def test_single_raises_stale_for_the_id_the_batch_fails(store, tmp_path, fate, met):
    run = Run(store, "single-stale", tmp_path)
    run.fate(fate)
    assert run.done is met


def test_resurrect_with_the_guard_off_not_with_it_on(store, tmp_path):
    right = Run(store, "resurrect", tmp_path / "a")
    right.frame(right.session.set_mode("batch", True))
    right.end()
    assert right.done
    wrong = Run(store, "resurrect", tmp_path / "b")
    wrong.end()
    assert not wrong.met


def test_guard_back_is_not_met_by_the_courses_guard(store, tmp_path):
    run = Run(store, "guard-back", tmp_path)
    run.frame(run.session.set_mode("batch", True))
    run.end()
    assert run.tracker.stage == 1, "the resurrection is seen"
    run.frame(run.session.set_mode("batch", False))
    last = run.end()
    assert any(m.verdict is Verdict.FAILED for m in last.step.members)
    assert run.tracker.stage == 1 and not run.met, "g puts the course's guard back, not the learner's"


@pytest.mark.parametrize(("fate", "met"), [("wrongtype", True), ("live", False), ("gone", False)])
def test_native_writes_nothing_on_a_wrongtype_row(store, tmp_path, fate, met):
    run = Run(store, "native-writes-nothing", tmp_path)
    run.fate(fate)
    assert run.done is met


def test_native_writes_nothing_through_the_wire_switch(store, tmp_path):
    run = Run(store, "native-writes-nothing", tmp_path)
    run.frame(run.session.apply(1, "wrongtype"))
    compared, _frame = run.session.switch(6)
    run.see(Seen(answers=(compared.scripted, compared.native)))
    assert run.done


@pytest.mark.parametrize(("fate", "met"), [("unpaired", True), ("live", False), ("bad-lease", False)])
def test_unpaired_on_both_wires(store, tmp_path, fate, met):
    run = Run(store, "unpaired", tmp_path)
    run.fate(fate)
    assert run.done is met


def test_noperm_is_skipped_on_fakeredis(store, tmp_path):
    tracker = mp.Missions(LESSON, store, UserState(tmp_path))
    entry = next(e for e in tracker.entries() if e.mission.id == "noperm")
    assert "ACL" in entry.skipped
    with pytest.raises(ValueError, match="skipped here"):
        tracker.begin(entry.mission)
    done, counted = tracker.count()
    assert counted == len(LESSON.missions) - sum(1 for e in tracker.entries() if e.skipped) and done == 0


def test_lease_epoch_on_wire_6_not_on_wire_4(store, tmp_path):
    right = Run(store, "lease-epoch", tmp_path / "a")
    _compared, frame = right.session.switch(6)
    right.frame(frame)
    right.end()
    assert right.done
    wrong = Run(store, "lease-epoch", tmp_path / "b")
    wrong.end()
    assert not wrong.met


def test_reaper_between_single_calls(store, tmp_path):
    right = Run(store, "reaper-between", tmp_path / "a")
    right.frame(right.session.set_mode("singles", False))
    right.frame(right.session.goto(1))
    _asked, frame = right.session.reap()
    right.frame(frame)
    right.end()
    assert right.done
    batch = Run(store, "reaper-between", tmp_path / "b")
    batch.frame(batch.session.reap()[1])
    batch.end()
    assert not batch.met, "in a batch the reaper lands after the one command"


def test_a_member_reaped_before_the_run_is_not_the_reaper_between(store, tmp_path):
    run = Run(store, "reaper-between", tmp_path)
    run.frame(run.session.apply(2, "reaped"))
    run.frame(run.session.set_mode("singles", False))
    last = run.end()
    assert any(m.raised is not None for m in last.step.members) and not run.met


@pytest.mark.parametrize("wire", [4, 6])
def test_group_unread_with_a_lane_member(store, tmp_path, wire):
    run = Run(store, "group-unread", tmp_path)
    if wire == 6:
        run.frame(run.session.switch(6)[1])
    run.frame(run.session.apply(1, "lane"))
    run.end()
    assert run.done
    flat = Run(store, "group-unread", tmp_path / "flat")
    flat.end()
    assert not flat.met, "no member carries a group"


def _predict(run: Run, right: bool) -> None:
    session = run.session
    run.frame(session.predict(True))
    assert session.stepper is not None
    # the verdicts the batch comes to, from a run of the same batch on the same store, taken back after
    decided = [decided_by(m) for m in session.goto(session.stepper.count).step.members]
    session.goto(0)
    for index, check in enumerate(decided):
        assert check is not None
        if not right and index == 0:
            check = next(c for c in session.frame().played.choices if c != check)
        run.frame(session.guess(index, check, index + 1))
    run.end()


def test_predict_all_right_not_with_a_miss(store, tmp_path):
    right = Run(store, "predict-all", tmp_path / "a")
    _predict(right, True)
    assert right.done
    wrong = Run(store, "predict-all", tmp_path / "b")
    _predict(wrong, False)
    assert not wrong.met


def test_token_above_through_the_sandbox_not_by_a_stale_fate(store, tmp_path):
    right = Run(store, "token-above", tmp_path / "a")
    members = tuple(SandboxMember(f"JOB0{i}", "live", 9 if i == 2 else None) for i in range(1, 5))
    right.frame(right.session.restart(SandboxBatch(members, LESSON.lease_ms)))
    right.end()
    assert right.done
    wrong = Run(store, "token-above", tmp_path / "b")
    wrong.frame(wrong.session.apply(1, "stale"))
    wrong.end()
    assert not wrong.met, "a stale fate's token is below the attempts"


def test_token_string_by_a_raw_send_of_01_not_of_1(store, tmp_path):
    """The console sends ``… JOB01 01`` raw; here the engine's connector sends it to the store the same way."""
    run = Run(store, "token-string", tmp_path)
    frame = run.session.goto(0)
    job, token = run.session.held[0]
    script = scripts.extend_locks()
    q = store.queue
    for sent_token, met in ((str(token), False), ("0" + str(token), True)):
        args = ("EVALSHA", script.sha, "2", keyspace.queue_key(q, "active"), keyspace.queue_key(q, ""), "30000", job,
                sent_token)
        try:
            reply = raw(store.client, *args)
        except redis.exceptions.NoScriptError:
            raw(store.client, "SCRIPT", "LOAD", script.source)
            reply = raw(store.client, *args)
        assert (reply == [job.encode()]) is met, reply  # "01" fails the string compare; "1" is re-scored
        run.see(Seen(sent=Sent((tuple(a.encode() for a in args),), replies=(reply,)), frame=run.session.frame()))
        assert bool(run.met) is met, sent_token
    assert frame.step.index == 0


def test_progress_survives_a_restart(store, tmp_path):
    run = Run(store, "single-stale", tmp_path)
    run.fate("stale")
    assert run.done
    again = mp.Missions(LESSON, store, UserState(tmp_path))
    assert next(e for e in again.entries() if e.mission.id == "single-stale").done


def test_a_state_that_cannot_be_written_says_so_and_the_mission_is_still_met(store, tmp_path):
    session = Session(store, LESSON)
    tracker = mp.Missions(LESSON, store, UserState(None, "the browser tab saves nothing"))
    tracker.begin(_mission("single-stale"))
    mp.start(session, LESSON, tracker.current)
    ran, _frame = session.run_fate("stale")
    met = tracker.observe(Seen(answers=ran.answers))
    assert met is not None and "not saved" in met.unsaved and tracker.met_now


def test_a_frame_of_the_run_under_way_is_seen_with_every_call_up_to_its_step(store):
    session = Session(store, LESSON)
    session.open(0)
    third = session.goto(3)
    assert session.stepper is not None
    expected = tuple(call for index in (1, 2, 3) for call in session.stepper.steps[index].calls)
    assert len(expected) > len(third.step.calls) and mp.seen_frame(session, third).run_calls == expected
    session.goto(1)
    again = session.goto(3)  # the same steps run again: the older frame is no longer the run's own
    assert mp.seen_frame(session, third).run_calls == third.step.calls
    assert mp.seen_frame(session, again).run_calls == tuple(
        call for index in (1, 2, 3) for call in session.stepper.steps[index].calls)
