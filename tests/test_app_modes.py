"""Pilot tests: run modes, guard off, the reaper race and predict mode, driven by keys and checked on the store."""

from __future__ import annotations

import itertools

from textual.widgets import Static

from emq_dive.engine.echo_mq import keyspace
from emq_dive.engine.stepper import REMOVED_TEXT, Check, Raised, Verdict
from emq_dive.engine.stepper.modes import WHAT_IF_REFUSAL
from emq_dive.engine.stores import open_store
from emq_dive.views.tui.widgets.batch_table import BatchTable
from emq_dive.views.tui.widgets.code_pane import CodePane
from emq_dive.views.tui.widgets.mode_notes import ModeNotes
from emq_dive.views.tui.widgets.wire_pane import WirePane
from tests.tui_support import (
    FROZEN,
    SIZE,
    asynctest,
    dive,
    frozen_app,
    frozen_store,
    press,
    record_notices,
    settle,
    shown,
)


def ticking_store():
    """An embedded store whose clock moves 3 ms at every read, so each single call reads a now of its own."""
    ticks = itertools.count()
    return open_store("fakeredis", clock=lambda: FROZEN + next(ticks) * 0.003, queue="dive-snap", run_id="0" * 40)


def where(store, job_id):
    """(in active, in pending) for ``job_id``, read off the store."""
    active = keyspace.queue_key(store.queue, "active")
    pending = keyspace.queue_key(store.queue, "pending")
    return (store.client.zscore(active, job_id) is not None,
            job_id.encode() in store.client.lrange(pending, 0, -1))


@asynctest
async def test_singles_mode_reads_the_clock_per_call_and_raises_stale():
    store = ticking_store()
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "m")
        screen = dive(app)
        assert screen.session.stepper.mode == "singles"
        assert "singles · extend_lock ×4" in shown(app)
        await press(app, pilot, "end")
        step = screen.step
        assert step.done and step.round_trips == 4
        assert len(set(step.clock_reads)) == 4 and step.spread > 0
        stale = step.members[1]
        assert (stale.raised, stale.error_class) == (Raised.STALE, "EMQSTALE")
        text = shown(app)
        assert all(str(now) in text for now in step.clock_reads)
        assert f"spread {step.spread} ms" in text
        assert "JOB02 Stale, JOB04 NotActive" in text and "raised: 2 of 4 calls" in text
        table = screen.query_one(BatchTable)
        header = table.render_line(0).text
        verdicts = {row.split()[1]: row[header.index("verdict"):].rstrip()
                    for row in (table.render_line(y).text for y in range(1, 5))}
        # both raised calls are worded alike: the class is cut from the column where NotActive's does not fit
        assert (verdicts["JOB02"], verdicts["JOB04"]) == ("raises Stale", "raises NotActive")
        assert "EMQSTALE token does not match attempts" in screen.query_one(WirePane).full_text()
        assert "extend_lock.lua" in text
        assert "the atomic run agrees" in text
        await press(app, pilot, "m")
        assert screen.session.stepper.mode == "batch" and screen.step.done, "back to the batch, at the same step"


@asynctest
async def test_guard_off_resurrects_the_reaped_member_and_back_removes_it():
    store = frozen_store()
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "g")
        screen = dive(app)
        assert screen.session.stepper.mode == "guard-off"
        assert where(store, "JOB04") == (False, True), "the reaped member is in pending only"
        assert REMOVED_TEXT.split(" --")[0] in screen.query_one(ModeNotes).full_text(), "the line it lacks, whole"
        await press(app, pilot, "right", "right", "right", "right")
        assert screen.step.done
        assert where(store, "JOB04") == (True, True), "without the guard it is in active and pending"
        text = shown(app)
        assert "guard off (what-if)" in text and "extend_locks_no_guard.lua" in text
        assert str(screen.query_one(CodePane).border_title).endswith("extend_locks_no_guard.lua")
        assert "This is the resurrection the guard prevents" in text
        assert "the atomic run agrees" in text, "checked against the what-if's own atomic run"
        assert "JOB04 now+30000  ← pending too" in text, "the store pane marks the id it holds twice"
        await press(app, pilot, "left")
        assert where(store, "JOB04") == (False, True), "back takes the what-if's re-score away"
        assert "← pending too" not in shown(app)
        await press(app, pilot, "g")
        assert screen.session.stepper.mode == "batch"


@asynctest
async def test_guard_off_is_refused_in_singles_and_on_wire_6():
    app = frozen_app(frozen_store(), wire=6)
    notices = record_notices(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        await press(app, pilot, "g")  # on wire 6 it offers wire 4 (tests/test_layout.py), and says why
        assert WHAT_IF_REFUSAL in str(app.screen.query_one("#switch-wire", Static).content)
        await press(app, pilot, "escape")
        assert screen.session.stepper.mode == "batch" and not screen.session.guard_off
        await press(app, pilot, "m", "g")
        assert screen.session.stepper.mode == "singles" and screen.session.stepper.wire == 6
        assert any(WHAT_IF_REFUSAL in said for said in notices), "in singles it is refused, with the reason"


@asynctest
async def test_a_reaper_waits_for_the_batch_and_lands_between_single_calls():
    store = frozen_store()
    app = frozen_app(store, batch=["live", "stale", "live"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        await press(app, pilot, "right", "right", "k")
        events = screen.frame.played.race
        assert [(e.actor, e.kind) for e in events] == [("holder", "sends"), ("reaper", "waits")]
        assert events[-1].job_id == "JOB03"
        await press(app, pilot, "right")
        assert screen.step.done and screen.step.members[2].verdict is Verdict.RESCORED
        events = screen.frame.played.race
        kinds = [(e.actor, e.kind) for e in events]
        assert kinds.index(("reaper", "lands")) > kinds.index(("holder", "returns")), "it lands after the script"
        assert events[-1].moved is False and where(store, "JOB03") == (True, False), "it found JOB03 extended"
        assert "the reaper lands" in shown(app)

        await press(app, pilot, "home", "m", "right", "right", "k", "right")
        member = screen.step.members[2]
        assert (member.raised, member.error_class) == (Raised.NOT_ACTIVE, "EMQNOTACTIVE")
        assert where(store, "JOB03") == (False, True), "the reaper moved it before the third call"
        await press(app, pilot, "left")
        assert where(store, "JOB03") == (True, False), "back undoes the reaper's move too"


@asynctest
async def test_k_with_nothing_to_reap_says_why():
    app = frozen_app(frozen_store())
    notices = record_notices(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "end", "k")
        assert any("the run is over" in said for said in notices)
        assert dive(app).frame.played.race[-1].actor == "holder"


@asynctest
async def test_predict_mode_scores_a_right_and_a_wrong_guess():
    app = frozen_app(frozen_store())
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        await press(app, pilot, "p", "right")
        assert screen.asking and screen.session.stepper.position == 0, "→ asks before it steps"
        assert "what will the next step decide for JOB01?" in shown(app)
        await press(app, pilot, "1")
        assert screen.session.stepper.position == 1
        assert "JOB01: you said re-scored, right" in shown(app)
        await press(app, pilot, "right", "1")
        assert screen.frame.played.score == (1, 2)
        assert "predicted 1/2" in shown(app)
        await press(app, pilot, "left", "right")
        assert not screen.asking and screen.frame.played.score == (1, 2), "back keeps the guesses"
        await press(app, pilot, "right", "1", "right", "4")
        judged = screen.frame.played.judged
        assert [j.right for j in judged] == [True, False, True, True]
        assert judged[1].actual is Check.STALE
        text = shown(app)
        assert "score: 3 of 4 predictions right" in text
        assert Check.STALE.explains in text
