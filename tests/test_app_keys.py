"""Pilot tests: help, the lesson pane, the command palette, narrow terminals, screenshots and the code markers."""

from __future__ import annotations

import asyncio
import inspect
import re

from textual import events

from emq_dive.engine.echo_mq import jobs, native, scripts
from emq_dive.engine.echo_mq.scripts import marker_lines
from emq_dive.engine.stepper import LUA_MARKS
from emq_dive.present.keymap import in_palette
from emq_dive.views.tui.app import save_screenshot
from emq_dive.views.tui.screens.help import HelpScreen
from emq_dive.views.tui.screens.palette import DiveCommands
from emq_dive.views.tui.widgets.code_pane import SOURCES, TITLES, CodePane, module_line, source
from emq_dive.views.tui.widgets.code_source import NATIVE_SEND
from emq_dive.views.tui.widgets.fitted_title import fitted_title
from emq_dive.views.tui.widgets.lesson_pane import LessonPane
from tests.tui_support import SIZE, asynctest, dive, frozen_app, frozen_store, press, settle, shown

HANDLE_MARKS = {"gate", "flatten", "argv", "keys", "send", "failed"}
LUA_NEEDED = {"clock", "loop", "member", "row-key", "check-row", "check-token", "check-active", "rescore", "fail",
              "reply"}
NATIVE_NEEDED = {"shape", "clock", "read-pass", "read-acl", "read-verdict", "read-live", "read-fail", "write-pass",
                 "write-acl", "epoch", "write-rescore", "write-epoch", "reply", "check-row", "check-token",
                 "check-active"}


def test_every_marker_the_panes_rely_on_is_in_the_sources():
    assert HANDLE_MARKS <= set(marker_lines(inspect.getsource(jobs)))
    assert LUA_NEEDED <= set(marker_lines(scripts.extend_locks().source)) == set(LUA_MARKS)
    assert NATIVE_NEEDED <= set(marker_lines(inspect.getsource(native)))
    assert NATIVE_NEEDED <= set(source("module").markers)
    for name in NATIVE_NEEDED:
        assert module_line(source("native").markers[name]) == source("module").markers[name]
    for key, path in SOURCES.items():
        assert path.is_file() and len(source(key).lines) == len(path.read_text().splitlines())


@asynctest
async def test_every_step_highlights_a_marked_line_of_the_file_shown():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for wire in (4, 6):
            await press(app, pilot, "home")
            while True:
                step = dive(app).step
                pane = app.screen.query_one(CodePane)
                title = str(pane.border_title)  # the longest wording of the file's title that fits the border
                shown_key = next(key for key, named in TITLES.items()
                                 if fitted_title(named, pane.outer_size.width) == title)
                focus = source(shown_key).markers[NATIVE_SEND] if shown_key == "connector" else step.focus
                marks = set(source(shown_key).markers.values())
                assert focus in marks, (wire, step.index, focus)
                assert f"{focus} >" in shown(app)
                if step.done:
                    break
                await press(app, pilot, "right")
            await press(app, pilot, "w", "escape")


@asynctest
async def test_help_lesson_sections_and_quit():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "play or pause" in shown(app)
        await press(app, pilot, "escape")
        pane = app.screen.query_one(LessonPane)
        assert pane.section == "beat-one"
        await press(app, pilot, "right_square_bracket")
        assert pane.section == "beat-two"
        await press(app, pilot, "left_square_bracket", "left_square_bracket")
        assert pane.section == pane.keys[-1]
        await press(app, pilot, "right")
        assert pane.section == "beat-two"
        await press(app, pilot, "l")
        assert not pane.display or pane.styles.display == "none"
        await press(app, pilot, "l")
        assert pane.styles.display == "block"
        await press(app, pilot, "q")
    assert app.return_code == 0


@asynctest
async def test_the_lesson_scrolls_by_keys_wheel_and_bar_and_a_new_section_opens_at_its_top():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pane = dive(app).query_one(LessonPane)
        height = pane.size.height
        assert len(pane.lines) > height, "the first section is longer than the pane"
        pane.focus()
        await press(app, pilot, "down", "down")
        assert pane.top == 2
        await press(app, pilot, "pagedown")
        paged = min(2 + int(0.9 * height), len(pane.lines) - height)  # a page down, or to the section's last line
        assert pane.top == paged
        await press(app, pilot, "up")
        assert pane.top == paged - 1
        for _ in range(40):
            await press(app, pilot, "pagedown")
        assert pane.top == len(pane.lines) - height, "it stops at the section's last line"
        assert pane.lines[-1].text.strip() in shown(app)

        x, y = pane.content_region.right - 1, pane.content_region.y + 1
        for scroll in (events.MouseScrollUp, events.MouseScrollUp):
            app.post_message(scroll(widget=None, x=x - 5, y=y, delta_x=0, delta_y=0, button=0, shift=False,
                                    meta=False, ctrl=False, screen_x=x - 5, screen_y=y))
            await pilot.pause()
        assert pane.top == len(pane.lines) - height - 6
        await pilot.click(LessonPane, offset=(pane.outer_size.width - 2, 1))  # the bar, above the thumb
        assert pane.top == max(0, len(pane.lines) - height - 6 - int(0.9 * height))

        await press(app, pilot, "right")
        assert pane.section == "beat-two" and pane.top == 0, "the step brought its section, from the top"
        assert dive(app).session.stepper.position == 1, "→ steps the batch even while the lesson has focus"


@asynctest
async def test_the_command_palette_offers_every_action_of_the_keys_table():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        offered = [hit.text async for hit in DiveCommands(app.screen).discover()]
        ours = [key.title for key in in_palette()]
        assert offered[:len(ours)] == ours, "the dive's actions first"
        assert offered[len(ours):] and "Quit" in offered[len(ours):], "then Textual's own entries"
        for title in ("Step forward", "Step back", "Back to the handle", "Run to the end", "Play / pause",
                      "Switch the wire", "Pick a fate", "Run mode: batch ⇄ singles", "Guard off (what-if)",
                      "Race a reaper", "Predict mode", "Next lesson section", "Show / hide the lesson",
                      "Edit the batch", "Measure the cost", "Write the transcript", "Help"):
            assert title in offered
        for typed, title in (("undo", "Step back"), ("rewind", "Step back"), ("singles", "Run mode: batch ⇄ singles"),
                             ("benchmark", "Measure the cost"), ("quiz", "Predict mode"), ("hide lesson",
                                                                                           "Show / hide the lesson")):
            hits = sorted([hit async for hit in DiveCommands(app.screen).search(typed)], reverse=True)
            assert hits and hits[0].text == title, f"{typed!r} finds {title!r} first"


@asynctest
async def test_a_palette_command_runs_its_action_on_the_dive():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right", "right")
        assert dive(app).session.stepper.position == 2
        await press(app, pilot, "ctrl+p")
        await pilot.press(*"rewind")
        await settle(app, pilot)
        await press(app, pilot, "enter")
        assert app.screen is dive(app) and dive(app).session.stepper.position == 1, "rewind found Step back"
        pane = dive(app).query_one(LessonPane)
        before = pane.section
        await press(app, pilot, "ctrl+p")
        await pilot.press(*"next section")
        await settle(app, pilot)
        await press(app, pilot, "enter")
        assert pane.section == pane.keys[pane.keys.index(before) + 1]


@asynctest
async def test_narrow_terminal_folds_the_lesson_away_and_l_swaps_it_in():
    app = frozen_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        assert screen.has_class("-w-narrow", "-h-short"), "Textual's breakpoints set the size classes"
        pane = screen.query_one(LessonPane)
        assert pane.styles.display == "none"
        assert pane.lines == [], "a hidden pane lays nothing out"
        await press(app, pilot, "l")
        assert pane.styles.display == "block"
        assert pane.lines and all(line.cell_length == pane.size.width for line in
                                  (pane.render_line(y) for y in range(pane.size.height)))
        assert screen.query_one("#left").styles.display == "none"
        await press(app, pilot, "l", "right")
        assert screen.session.stepper.position == 1


def test_save_screenshot_writes_the_requested_step_and_wire(tmp_path):
    store = frozen_store()
    app = frozen_app(store, step=3, wire=6)
    path = asyncio.run(save_screenshot(app, tmp_path / "dive.svg"))
    svg = path.read_text()
    assert "EMQ.EXTENDS" in svg and "step&#160;3&#160;of&#160;5" in svg
    assert not re.search(r'textLength="[\d.]+"[^>]*>(&#160;)+(?!&#160;)[^<]', svg), "a run starts at its text"


@asynctest
async def test_the_heap_is_frozen_after_start_up_big_moves_pause_the_collector_and_exit_hands_back(monkeypatch):
    import gc
    from contextlib import contextmanager

    from textual.screen import Screen

    from emq_dive.views.tui import app as app_module
    from emq_dive.views.tui import heap
    from emq_dive.views.tui.heap import collector_paused
    from emq_dive.views.tui.screens import after_paint, store_moves

    paused = []

    @contextmanager
    def counted():
        with collector_paused():
            paused.append(gc.isenabled())
            yield

    seen: list[object] = []  # the screen's paints and the collector's tidy passes, in the order they ran
    tidy, paint = heap.tidy, Screen._compositor_refresh
    monkeypatch.setattr(app_module, "SETTLE_HEAP_AFTER", 0.001)
    monkeypatch.setattr(after_paint, "WRITTEN_AFTER", 0.001)
    monkeypatch.setattr(store_moves, "collector_paused", counted)
    monkeypatch.setattr(heap, "tidy", lambda: seen.append(gc.get_threshold()[0]) or tidy())
    monkeypatch.setattr(Screen, "_compositor_refresh", lambda screen: seen.append("paint") or paint(screen))
    gc.unfreeze()
    app = frozen_app(batch=("live", "stale") * 40)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for _ in range(100):  # the timer fires on one of the next turns of the loop
            if gc.get_freeze_count():
                break
            await pilot.pause()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold()[0] == heap.YOUNG, "the young passes wait for the paint"
        seen.clear()
        await press(app, pilot, "right")
        for _ in range(100):  # the pass's timer fires on one of the next turns of the loop
            if heap.YOUNG in seen:
                break
            await pilot.pause()
        assert seen.count(heap.YOUNG) == 1 and seen[-1] == heap.YOUNG, "the step ran the collector's pass once, last"
        assert "paint" in seen, "the pass waited for the step's paint (booked as the frame landed, it ran before it)"
        assert paused == [], "a single step does not pause the collector"
        await press(app, pilot, "end")
        assert dive(app).session.stepper.finished
        assert paused == [False] and gc.isenabled(), "End ran with the collector paused, and turned it back on"
    assert gc.get_freeze_count() == 0 and gc.get_threshold()[0] != heap.YOUNG, "the thresholds go back too"


@asynctest
async def test_the_lesson_takes_the_colours_of_a_new_theme():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pane = dive(app).query_one(LessonPane)
        before = pane.lines
        app.theme = "textual-light"
        await settle(app, pilot)
        after = pane.lines
        assert [line.text for line in after] == [line.text for line in before], "the same words"
        assert after != before, "in other colours"


@asynctest
async def test_a_section_that_cannot_be_laid_out_says_so_in_the_pane(monkeypatch):
    from emq_dive.views.tui.widgets import lesson_pane

    def broken(body, width, theme):
        raise ValueError("no parser today")

    monkeypatch.setattr(lesson_pane, "render_markdown", broken)
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pane = dive(app).query_one(LessonPane)
        assert not pane.deferred
        text = " ".join(line.text.strip() for line in pane.lines)
        assert "could not be laid out: ValueError: no parser today" in text
        await press(app, pilot, "right")
        assert dive(app).session.stepper.position == 1, "the steps go on"
