"""Every run to the end gets its own atomic check, on a clock that moves between runs."""

from __future__ import annotations

from emq_dive.course.lessons import load
from emq_dive.engine.stores import open_store
from emq_dive.present.session import Session
from tests.tui_support import FROZEN, SIZE, asynctest, dive, frozen_app, press, settle, shown


class Clock:
    """The embedded store's TIME, moved on by hand between runs."""

    def __init__(self) -> None:
        self.at = FROZEN

    def __call__(self) -> float:
        return self.at


def test_each_run_to_the_end_gets_its_own_check():
    clock = Clock()
    store = open_store("fakeredis", clock=clock, run_id="0" * 40)
    try:
        session = Session(store, load("batches-03"))
        with store.io():
            first = session.open(0)
            assert first.agreement is None and first.run == 0
            end = session.goto(99)
            again = session.frame()
            clock.at += 5.717
            session.goto(0)
            replay = session.goto(99)
    finally:
        store.close()
    assert end.agreement is not None and end.agreement.agree and end.run == 1
    assert again.agreement is end.agreement and again.run == 1, "the same step is not checked twice"
    assert replay.agreement is not None and replay.agreement.agree and replay.run == 2
    assert replay.step.now == end.step.now + 5717
    assert replay.agreement.stepped_now == replay.step.now == replay.agreement.atomic_now
    assert end.agreement.stepped_now == end.step.now


def test_a_finished_run_is_checked_once_however_many_other_steps_are_read():
    """The session knows the end it checked by the step's record, not by a made Step the log may make again."""
    store = open_store("fakeredis", clock=Clock(), run_id="0" * 40)
    try:
        session = Session(store, load("batches-03"), batch=("live", "stale") * 50)
        with store.io():
            session.open(0)
            end = session.goto(100)
            assert session.stepper is not None
            for index in range(1, 100):  # more than the log keeps made
                session.stepper.steps[index]
            again = session.frame()
            session.goto(99)
            replay = session.goto(100)
    finally:
        store.close()
    assert end.run == 1 and again.run == 1 and again.agreement is end.agreement
    assert replay.run == 2, "a step run again is checked again"


@asynctest
async def test_the_agreement_line_names_the_run_it_checked_after_home_and_end():
    clock = Clock()
    store = open_store("fakeredis", clock=clock, queue="dive-runs", run_id="0" * 40)
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "end")
        first = dive(app).step.now
        assert "✓ run 1: the atomic run agrees" in shown(app)
        clock.at += 5.717
        await press(app, pilot, "home", "end")
        text = shown(app)
        assert dive(app).step.now == first + 5717
        assert f"now = {first + 5717}" in text
        assert "✓ run 2: the atomic run agrees" in text and "run 1:" not in text
        await press(app, pilot, "left", "right")
        assert "✓ run 3: the atomic run agrees" in shown(app)


def test_the_early_frame_is_kept_when_the_screen_takes_the_promise_before_the_worker_runs():
    """The app's set-up worker may start after the screen has mounted and taken the promised first frame."""
    store = open_store("fakeredis", clock=Clock(), run_id="0" * 40)
    try:
        session = Session(store, load("batches-03"))
        early = session.begin_early()
        assert session.take_early() is early  # the screen mounts first
        session.open_early(early, 2)  # then the worker thread runs
        assert early.done() and early.result().step.index == 2
    finally:
        store.close()
