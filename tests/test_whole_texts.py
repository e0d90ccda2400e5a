"""Issue 18 §1: each cut text the issue lists, read off the widget that holds it, is whole at the size it was seen."""

from __future__ import annotations

from emq_dive.views.tui.widgets.answer_card import AnswerCard
from emq_dive.views.tui.widgets.batch_table import BatchTable
from emq_dive.views.tui.widgets.dive_header import DiveHeader
from emq_dive.views.tui.widgets.lesson_pane import LessonPane
from emq_dive.views.tui.widgets.mode_notes import ModeNotes
from emq_dive.views.tui.widgets.pushed_away import PushedAway
from emq_dive.views.tui.widgets.race_timeline import RaceTimeline
from emq_dive.views.tui.widgets.step_column import StepColumn
from emq_dive.views.tui.widgets.store_pane import StorePane
from emq_dive.views.tui.widgets.wire_pane import WirePane
from tests.sweep_support import rows_of
from tests.test_app_fates import pick
from tests.tui_support import SIZE, asynctest, dive, frozen_app, frozen_store, press, settle, showing

SMALL = (80, 24)


def joined(widget) -> str:
    """The widget's rows, borders cut off, joined by spaces: a phrase wrapped over two rows reads whole."""
    return " ".join(" ".join(row.strip("│ ").split()) for row in rows_of(widget))


def one_row_with(widget, phrase: str) -> bool:
    """Whether one of the widget's rows holds ``phrase`` whole."""
    return any(phrase in row for row in rows_of(widget))


@asynctest
async def test_a_lesson_title_the_border_cannot_hold_heads_the_text_whole():
    app = frozen_app(step=2)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        lesson = app.screen.query_one(LessonPane)
        title = "The two beats · the Lua script"
        assert "…" not in str(lesson.border_title) and title.startswith(str(lesson.border_title))
        assert title in " ".join(" ".join(line.text.split()) for line in lesson.lines[:3])


@asynctest
async def test_the_header_on_wire_6_in_predict_mode_says_every_part_whole():
    app = frozen_app(wire=6)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "p")
        header = joined(app.screen.query_one(DiveHeader))
        assert "…" not in header
        for part in ("Batches · dive 03", "wire 6 · EMQ.EXTENDS", "predicted 0/0", "embedded fakeredis"):
            assert part in header


@asynctest
async def test_the_header_with_the_guard_off_names_the_valkey_and_its_address_whole():
    store = frozen_store()
    store.description = "valkey 9.1.2 · embedded on 127.0.0.1:43210"
    for size in (SMALL, SIZE):
        app = frozen_app(store)
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            await press(app, pilot, "g")
            header = app.screen.query_one(DiveHeader)
            assert one_row_with(header, "valkey 9.1.2 · embedded on 127.0.0.1:43210"), rows_of(header)
            assert "guard off (what-if)" in joined(header) and "…" not in joined(header)


@asynctest
async def test_the_singles_notes_wrap_whole_at_80x24():
    app = frozen_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "m")
        notes = app.screen.query_one(ModeNotes)
        assert "a batch puts the id in failed instead)" in joined(notes)
        await press(app, pilot, "end")
        assert "JOB02 Stale, JOB04 NotActive" in joined(notes) and "…" not in joined(notes)


@asynctest
async def test_a_raised_verdict_is_whole_in_the_batch_table():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "m", "end")
        table = app.screen.query_one(BatchTable)
        row = next(row for row in rows_of(table) if "JOB04" in row)
        assert "raises NotActive" in row and "…" not in row


@asynctest
async def test_a_failed_verdict_is_whole_in_the_batch_table_at_80x24():
    app = frozen_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "end")
        row = next(row for row in rows_of(app.screen.query_one(BatchTable)) if "JOB04" in row)
        assert "not-active" in row and "failed" in row and "…" not in row


@asynctest
async def test_the_store_panes_group_column_holds_a_lane_whole():
    app = frozen_app(batch=["live", "lane"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pane = app.screen.query_one(StorePane)
        group = next(value for row in dive(app).frame.view.rows for field, value in row.fields
                     if field == "group" and value)
        lines = [line.plain for line in pane.lines]
        table = lines[next(i for i, line in enumerate(lines) if line.startswith("rows")):]
        row = next(line for line in table if line.startswith("JOB02"))
        assert group in row.split() and "…" not in row


@asynctest
async def test_a_number_keeps_its_unit_on_its_row_in_a_note_and_a_pane_that_wrap():
    from rich.text import Text

    from emq_dive.views.tui.widgets.scrolled import hanging

    said = "✓ run 1: the atomic run agrees: the same store, the same reply, a now of its own (+10046 ms)"
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        notes = app.screen.query_one(ModeNotes)
        for width in range(20, len(said)):
            for rows in ([row.plain for row in notes.laid_rows([(said, "clock")], width)],
                         [row.plain for row in hanging(Text(said), width, app.console)]):
                assert any("(+10046 ms)" in row for row in rows), (width, rows)
                assert all(len(row) <= width for row in rows)


@asynctest
async def test_a_lease_epoch_write_keeps_its_run_id_on_the_row_and_v_shows_it_whole():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pick(app, pilot, "live")
        card = next(card for card in app.screen.query(AnswerCard) if "lease_epoch" in joined(card))
        assert one_row_with(card, "lease_epoch: ∅ → 0000…0000"), rows_of(card)
        await press(app, pilot, "v")
        assert "0" * 40 in joined(card).replace(" ", "")


@asynctest
async def test_at_80x24_step_4_keeps_every_panes_bottom_border_on_screen_or_says_how_to_see_it():
    app = frozen_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "m", "right", "right", "right", "right")
        line = app.screen.query_one(PushedAway)
        for pane in ("CodePane", "WirePane", "StorePane", "BatchTable"):
            widget = app.screen.query_one(pane)
            off = widget.region.bottom > app.screen.size.height - 3  # the caption, Try it row and footer below
            if off:
                assert showing(line) and widget.display, f"{pane} is pushed away and nothing says so"
        assert not showing(line) or "tab" in str(line.content)


@asynctest
async def test_the_reaper_race_is_two_lanes_whose_rows_wrap_with_the_outcome_whole_at_80x24():
    app = frozen_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right", "k", "end")
        race = app.screen.query_one(RaceTimeline)
        rows = rows_of(race)
        assert "holder" in rows[1] and "reaper" in rows[1], "the lanes' heading"
        landed = next(event.text for event in dive(app).frame.played.race if event.kind == "lands")
        assert landed in joined(race), "the outcome sentence, whole"
        assert not any("…" in row for row in rows)
        lane = rows[1].index("reaper")
        assert all(row[lane:].strip(" │") == "" for row in rows if "EVALSHA returns" in row), "the holder's lane"
        assert showing(app.screen.query_one(PushedAway)), "the panes it pushes away say how to see them"
        await press(app, pilot, "tab")
        wire = app.screen.query_one(WirePane)
        column = app.screen.query_one(StepColumn)
        assert app.focused is wire and column.scrollable_content_region.contains_region(wire.region), "tab shows it"
