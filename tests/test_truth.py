"""What the screen says is true: each test reads the widget that says it, on a run against a real store."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from emq_dive.engine.fates import FATES
from emq_dive.engine.stores import open_store
from emq_dive.views.tui.screens.fate_picker import FatePicker
from emq_dive.views.tui.screens.fate_view import FateView
from emq_dive.views.tui.widgets.answer_card import AnswerCard
from emq_dive.views.tui.widgets.race_timeline import RaceTimeline
from emq_dive.views.tui.widgets.wire_pane import WirePane
from tests.tui_support import FROZEN, SIZE, asynctest, dive, frozen_app, frozen_store, press, record_notices, settle

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "batches-03.toml"

def _names(title: str, path: str) -> bool:
    """True when a code pane title names the file ``path``: whole, or cut at a folder (``…/echo_mq/jobs.py``) to
    fit its border."""
    tail = title.rsplit(" · ", 1)[-1]
    return tail == path or (tail.startswith("…/") and path.endswith(tail[1:]))



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
    assert "its lease lapses and" not in body, "a lease just claimed has not lapsed"
    assert "the lesson forces the lapse, and says so" in body


def test_help_says_native_py_serves_the_native_command_on_fakeredis_not_on_the_embedded_store():
    from emq_dive.views.tui.screens.help import HELP

    assert "(the embedded store: `echo_mq/native.py`)" not in HELP, "the default embedded Valkey runs the C module"
    assert "(on fakeredis: `echo_mq/native.py`)" in HELP


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
        said = [plain(s) for s in view.query(Static) if not isinstance(s, AnswerCard)]
        assert said[-2:] == [line, "escape closes"], "the modal ends with the line, before the key that closes it"


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


# -- §4 mutants: the agreement's ✗, a stale frame, the code pane's file -----------------------------------------

def _step_bar_text(app) -> str:
    from emq_dive.views.tui.widgets.step_bar import StepBar

    rendered = app.screen.query_one(StepBar).render()
    return getattr(rendered, "plain", str(rendered))


@asynctest
async def test_a_store_changed_under_the_run_shows_a_cross_on_screen_and_in_every_text_view():
    from emq_dive.engine.echo_mq import keyspace
    from emq_dive.views.text.plain.dive import NoStyle
    from emq_dive.views.text.plain.words import paragraph
    from emq_dive.views.text.recorder import Recorder

    store = frozen_store()
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right", "right", "right")
        store.client.hset(keyspace.job_key(store.queue, "JOB01"), "attempts", "9")  # not through the stepper
        await press(app, pilot, "right")
        frame = dive(app).frame
        assert frame.step.done and frame.agreement is not None and not frame.agreement.agree
        bar = _step_bar_text(app)
        assert "✗ run" in bar and "the stepped and atomic runs differ" in bar and "✓" not in bar
        said = paragraph(frame, NoStyle())
        assert "The stepped and atomic runs differ" in said and "agrees" not in said
        recorder = Recorder("the dive", "embedded fakeredis")
        recorder.frame(frame)
        written = recorder.markdown()
        assert "same start): ✗ the stepped and atomic runs differ" in written and "✓" not in written


@asynctest
async def test_an_agreeing_run_shows_the_tick():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "end")
        assert dive(app).frame.agreement.agree
        assert "✓ run" in _step_bar_text(app) and "✗" not in _step_bar_text(app)


def _frame_ready(screen):
    """The message a store move posts with its frame."""
    from emq_dive.views.tui.screens.dive_messages import FrameReady
    return FrameReady


@asynctest
async def test_a_stale_frame_moves_neither_the_target_nor_the_busy_line():
    from emq_dive.present.session import with_seq

    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right")
        screen = dive(app)
        old = screen.frame
        assert old.step.index == 1 and old.seq == screen.moves.seq
        screen.moves.seq += 1  # a newer store move is on its way
        screen.busy, screen.target = "stepping…", 3
        screen.post_message(_frame_ready(screen)(with_seq(old, old.seq)))
        await pilot.pause()
        assert (screen.busy, screen.target) == ("stepping…", 3), "an older request's frame is not the answer"
        screen.post_message(_frame_ready(screen)(with_seq(old, screen.moves.seq)))
        await pilot.pause()
        assert (screen.busy, screen.target) == ("", 1), "the newest request's frame is"


@asynctest
async def test_the_code_pane_title_names_the_file_each_mode_runs():
    from emq_dive.views.tui.widgets.code_pane import CodePane

    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pane = app.screen.query_one(CodePane)
        await press(app, pilot, "right")
        assert _names(str(pane.border_title), "emq_dive/engine/echo_mq/scripts/extend_locks.lua")
        await press(app, pilot, "m", "right")
        assert _names(str(pane.border_title), "emq_dive/engine/echo_mq/scripts/extend_lock.lua")
        await press(app, pilot, "m", "g", "right")
        assert dive(app).session.guard_off
        assert _names(str(pane.border_title), "emq_dive/engine/echo_mq/scripts/extend_locks_no_guard.lua")


@asynctest
async def test_shown_leaves_out_what_a_hidden_widget_holds():
    from emq_dive.views.tui.widgets.race_timeline import RaceTimeline
    from tests.tui_support import shown

    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        timeline = app.screen.query_one(RaceTimeline)
        assert not timeline.display
        timeline.border_title = "a phrase only a hidden widget holds"
        assert "a phrase only a hidden widget holds" not in shown(app)
        timeline.display = True
        await pilot.pause()
        assert "a phrase only a hidden widget holds" in shown(app)


# -- §3.7 each step highlights the code that did its work ----------------------------------------------------------

def focused(app) -> tuple[str, str]:
    """The code pane's title and the source line it highlights (the row marked ``>``), as the pane draws them."""
    import re

    from emq_dive.views.tui.widgets.code_pane import CodePane

    pane = app.screen.query_one(CodePane)
    drawn = pane.render().plain.splitlines()
    starts = [at for at, row in enumerate(drawn) if re.match(r"\s*\d+ >", row)]
    assert len(starts) == 1, f"one line is highlighted, not {[drawn[at] for at in starts]}"
    at = starts[0]
    parts = [re.sub(r"^\s*\d+ >", "", drawn[at]).strip()]
    for row in drawn[at + 1:]:  # the rows a long line wraps onto carry no line number
        if re.match(r"\s*\d+", row) or not row.strip():
            break
        parts.append(row.strip())
    return str(pane.border_title), " ".join(parts)


@asynctest
async def test_wire_6_write_pass_highlights_the_re_score_not_the_reply():
    app = frozen_app(wire=6, step=5)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert dive(app).step.title.startswith("the write pass")
        title, line = focused(app)
        assert _names(title, "emq_dive/engine/echo_mq/native.py")
        assert line.startswith("host.zadd(active, score, job_id)"), line


@asynctest
async def test_wire_6_handle_step_highlights_the_line_that_sends_emq_extends():
    app = frozen_app(wire=6)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert dive(app).step.index == 0 and dive(app).step.command[0] == b"EMQ.EXTENDS"
        title, line = focused(app)
        assert _names(title, "emq_dive/engine/echo_mq/connector.py")
        assert line.startswith("return self.send(verb, numkeys, *keys, *argv)"), line


@asynctest
async def test_wire_4_handle_step_still_highlights_its_send_in_jobs_py():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        title, line = focused(app)
        assert _names(title, "emq_dive/engine/echo_mq/jobs.py")
        assert line.startswith("failed = conn.eval(scripts.extend_locks(), keys, argv)"), line


@pytest.mark.server
@asynctest
async def test_on_a_server_the_write_pass_highlights_the_module_s_zadd_not_reply_with_array(embedded_store):
    app = frozen_app(embedded_store, wire=6, step=5)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        title, line = focused(app)
        assert _names(title, "emq_dive/engine/native/emq_module.c")
        assert '"ZADD"' in line and "ReplyWithArray" not in line, line


def test_the_text_views_end_a_fate_with_the_same_what_differs_line(fake_store):
    from emq_dive.engine.fates import run_fate, what_differs
    from emq_dive.views.text.plain.words import fate_text
    from emq_dive.views.text.recorder import Recorder

    run = run_fate(fake_store, "wrongtype")
    line = what_differs(run)
    assert line.startswith("what differs: both twins raise WRONGTYPE, but the script kept the writes")
    assert fate_text(run).endswith(f"W{line[1:]}.")
    recorder = Recorder("the dive", "embedded fakeredis")
    recorder.fate_ran(run)
    assert f"W{line[1:]}." in recorder.markdown()
