"""What the screen says is true: each test reads the widget that says it, on a run against a real store."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from emq_dive.fates import FATES
from emq_dive.screens.fate_picker import FatePicker
from emq_dive.screens.fate_view import FateView
from emq_dive.stores import open_store
from emq_dive.widgets.answer_card import AnswerCard
from emq_dive.widgets.race_timeline import RaceTimeline
from emq_dive.widgets.wire_pane import WirePane
from tests.tui_support import FROZEN, SIZE, asynctest, dive, frozen_app, press, record_notices, settle

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "batches-03.toml"


def plain(widget: Static) -> str:
    """The text a Static holds, unwrapped."""
    content = widget.content
    return getattr(content, "plain", str(content))


async def pick(app, pilot, key: str) -> FateView:
    """Open the fate view of ``key`` from the dive."""
    await press(app, pilot, "f")
    assert isinstance(app.screen, FatePicker)
    await press(app, pilot, *["down"] * [f.key for f in FATES].index(key), "enter")
    assert isinstance(app.screen, FateView)
    return app.screen


def cards(view: FateView) -> dict[str, list[str]]:
    """Each verb's answer cards in the open fate view, as their text, in the order shown."""
    out: dict[str, list[str]] = {}
    for card in view.query(AnswerCard):
        out.setdefault(str(card.border_title).split(" · ")[0], []).append(plain(card))
    return out


def differs(view: FateView) -> str:
    """The fate view's "what differs" line."""
    return plain(view.query_one("#what-differs", Static))


# -- §3.2 the reaper reaps a lapsed lease, or says that the lesson forces one -----------------------------------

@asynctest
async def test_k_right_after_start_says_the_lapse_is_forced_and_why():
    app = frozen_app()
    notices = record_notices(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "k")
        waits = dive(app).frame.played.race[-1]
        assert (waits.actor, waits.kind, waits.job_id) == ("reaper", "waits", "JOB01")
        said = next(n for n in notices if "JOB01" in n)
        assert said.startswith("forced: the reaper treats JOB01's lease as lapsed")
        assert "10000 ms away on the server's clock" in said, "the lease had its whole claim left to run"
        assert "lease lapsed (deadline" not in said
        assert "forced: the reaper treats JOB01's lease as lapsed" in app.screen.query_one(RaceTimeline).full_text()


@asynctest
async def test_a_lease_past_its_deadline_is_reaped_without_forcing():
    clock = [FROZEN]
    store = open_store("fakeredis", clock=lambda: clock[0], queue="dive-snap", run_id="0" * 40)
    app = frozen_app(store)
    notices = record_notices(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        clock[0] = FROZEN + 12.5  # the claim's 10 s lease has run out on the server's clock
        await press(app, pilot, "k")
        said = next(n for n in notices if "JOB01" in n)
        assert said.startswith("the reaper finds JOB01's lease lapsed: its deadline")
        assert "has passed on the server's clock" in said and "2500 ms ago" in said
        assert "forced" not in said
    store.close()


# -- §3.3, §3.4 the lesson's words ------------------------------------------------------------------------------

def test_the_lesson_puts_the_batch_on_the_left_and_names_fakeredis_for_the_missing_acl():
    body = " ".join(LESSON.read_text("utf-8").split())
    assert "the batch on the right" not in body and "Step the batch on the left" in body
    assert "embedded store keeps no ACL rules" not in body
    assert "The fakeredis store (`--backend fakeredis`) keeps no ACL key patterns" in body


# -- §3.5, §3.10, §3.11 the fate view ------------------------------------------------------------------------------

@asynctest
async def test_the_lane_summary_names_every_re_scored_job():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        view = await pick(app, pilot, "lane")
        batch = cards(view)["extend_locks"][0]
        assert "the course's extend_locks/4: {:ok, []} · re-scored: JOBA, JOBX, JOBB" in batch
        assert "· JOBX re-scored" not in batch


@asynctest
async def test_the_first_use_of_a_script_is_one_line_not_noise():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        view = await pick(app, pilot, "wrongtype")
        single = cards(view)["extend_lock"][0]
        assert "the server loads the script (first use)" in single
        assert "NOSCRIPT No matching script" not in single and "SCRIPT LOAD <" not in single
        assert single.count("» EVALSHA") == 1, "the call that ran is shown once"


@asynctest
async def test_the_wrongtype_fate_ends_with_what_differs():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        view = await pick(app, pilot, "wrongtype")
        line = differs(view)
        assert line.startswith("what differs: both twins raise WRONGTYPE, but the script kept the writes")
        assert "active JOBA:" in line and "the native twin checks every row first and wrote nothing" in line
        assert list(view.query(Static))[-1].id in ("what-differs", None)


@asynctest
async def test_bad_lease_on_the_raw_wire_says_the_script_moved_deadlines_back():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        view = await pick(app, pilot, "bad-lease")
        line = differs(view)
        assert "the script moved JOBA, JOBB back to an earlier deadline than the one held" in line
        assert "the native twin refused the lease and wrote nothing" in line
        scores = [w for w in cards(view)["extend_locks"][1].splitlines() if w.strip().startswith("active JOBA")]
        old, new = (int(part) for part in scores[0].split(": ")[1].split(" → "))
        assert new < old, "the line says what the raw run wrote"


@asynctest
async def test_a_fate_this_store_cannot_run_says_so_as_its_what_differs():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        view = await pick(app, pilot, "restricted")
        assert differs(view) == ("what differs: nothing could be compared here (fakeredis keeps no ACL key "
                                 "patterns; the restricted user needs a real server)")


# -- §3.6 the restricted fate on a store that keeps ACL rules ------------------------------------------------------

@pytest.mark.server
@asynctest
async def test_restricted_says_why_the_single_is_refused_and_the_batch_served(embedded_store):
    app = frozen_app(embedded_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        view = await pick(app, pilot, "restricted")
        shown = cards(view)
        assert "NOPERM" in shown["extend_lock"][0] and "re-scored: JOBA, JOBB" in shown["extend_locks"][0]
        line = differs(view)
        assert "on wire 4 the single verb is refused and the batch is served, for the same user" in line
        assert "the single declares the job's row key" in line and "builds each row key inside the script" in line
        note = next(plain(s) for s in view.query(Static) if plain(s).startswith("note:"))
        assert "may only read the job rows" in note and "read-only access" in note


# -- §3.9 the stand-in legend names the command the step runs --------------------------------------------------

@asynctest
async def test_wire_6_singles_legend_names_emq_extend():
    app = frozen_app(wire=6)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "m", "right")
        assert dive(app).session.stepper.mode == "singles"
        wire = app.screen.query_one(WirePane).full_text()
        assert "not sent by EMQ.EXTEND" in wire
        assert "not sent by EMQ.EXTENDS" not in wire
