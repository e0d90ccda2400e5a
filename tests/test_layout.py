"""Pilot tests: the layout follows the terminal, the learn keys are in sight, the palette finds a learner's words."""

from __future__ import annotations

import re

import pytest
from textual.widgets import Footer, Static

from emq_dive import cli
from emq_dive.views.tui.screens.guard_offer import SwitchWire
from emq_dive.views.tui.screens.palette import DiveCommands
from emq_dive.views.tui.widgets.lesson_caption import LessonCaption
from emq_dive.views.tui.widgets.lesson_pane import LessonPane
from emq_dive.views.tui.widgets.try_row import TryRow
from emq_dive.views.tui.widgets.wire_pane import WirePane
from tests.tui_support import SIZE, asynctest, dive, frozen_app, press, settle, showing

LEARN_KEYS = ["m singles", "g guard off", "k reaper", "p predict", "e sandbox", "c cost"]
"""The Try it row of a batch on wire 4 that has not finished."""


def footer_keys(app) -> list[str]:
    """The keys the Footer shows, each as ``key description``, read from its own key widgets."""
    footer = dive(app).query_one(Footer)
    return [f"{key.key_display} {key.description}" for key in footer.query("FooterKey") if showing(key)]


def try_keys(app) -> list[str]:
    """The learn keys the Try it row shows."""
    row = dive(app).query_one(TryRow)
    assert showing(row)
    return row.shown_keys()


@pytest.mark.parametrize(("size", "least"), [((100, 40), 29), (SIZE, 29), ((140, 40), 33), ((160, 45), 55),
                                             ((200, 50), 70), ((300, 60), 72)])
@asynctest
async def test_the_lesson_takes_a_share_of_the_width_up_to_72_columns(size, least):
    app = frozen_app()
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        pane = screen.query_one(LessonPane)
        assert least <= pane.text_width <= 72, (size, pane.text_width)
        left = screen.query_one("#left").outer_size.width
        assert left + pane.outer_size.width == size[0], "the stepping panes take what the lesson leaves"
        assert all(line.cell_length == pane.size.width for line in (pane.render_line(y) for y in range(3)))


@asynctest
async def test_a_wide_screen_gives_the_lesson_more_columns_than_a_standard_one():
    widths = []
    for size in (SIZE, (200, 50)):
        app = frozen_app()
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            widths.append(dive(app).query_one(LessonPane).text_width)
            assert dive(app).has_class("-w-wide" if size[0] >= 160 else "-w-mid")
    assert widths[1] >= widths[0] + 25, widths


@asynctest
async def test_at_80x24_a_caption_names_the_section_and_l_opens_the_lesson_over_the_batch():
    app = frozen_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        pane, caption = screen.query_one(LessonPane), screen.query_one(LessonCaption)
        assert not showing(pane) and showing(caption)
        sections = len(screen.session.lesson.sections)
        assert str(caption.content) == f"lesson 1/{sections} · The two beats · the Python handle · l opens it"
        assert "l lesson" in footer_keys(app)
        await press(app, pilot, "right")
        assert "The two beats · the Lua script" in str(caption.content), "the caption follows the step"
        await press(app, pilot, "l")
        assert showing(pane) and not showing(caption) and not showing(screen.query_one("#left"))
        assert pane.section == "beat-two" and pane.lines, "the section the caption named, laid out"
        await press(app, pilot, "l")
        assert showing(caption) and showing(screen.query_one("#left"))


@asynctest
async def test_below_80x24_the_message_names_plain_mode():
    app = frozen_app(step=2)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(app, pilot)
        text = " ".join(str(app.screen.query_one("#too-small", Static).content).split())
        assert "works at any size: emq-dive batches-03 --plain" in text


def test_screenshot_takes_a_size(tmp_path, capsys):
    path = tmp_path / "small.svg"
    assert cli.run_lesson(["batches-03", "--backend", "fakeredis", "--screenshot", str(path), "--size", "80x24"]) == 0
    svg = path.read_text()
    assert len(set(re.findall(r'-line-(\d+)"', svg))) == 24 - 1, "Textual clips every row but the last: 24 rows"
    assert "l&#160;opens&#160;it" in svg, "the 80×24 layout, with the lesson's caption"
    wide = tmp_path / "wide.svg"
    assert cli.run_lesson(["batches-03", "--backend", "fakeredis", "--screenshot", str(wide)]) == 0
    assert len(set(re.findall(r'-line-(\d+)"', wide.read_text()))) == 40 - 1, "the default is 120×40"


@pytest.mark.parametrize("size", ["80by24", "0x24", "80x", "5000x24"])
def test_a_bad_size_is_one_clear_line_before_anything_is_written(tmp_path, capsys, size):
    path = tmp_path / "shot.svg"
    with pytest.raises(SystemExit) as exited:
        cli.run_lesson(["batches-03", "--backend", "fakeredis", "--screenshot", str(path), "--size", size])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--size" in err and repr(size) in err
    assert not path.exists()


def test_size_without_a_screenshot_is_refused(capsys):
    assert cli.run_lesson(["batches-03", "--backend", "fakeredis", "--size", "80x24"]) == 2
    err = capsys.readouterr().err
    assert err == "emq-dive: --size goes with --screenshot (the TUI takes the terminal's own size)\n"


@asynctest
async def test_the_try_it_row_shows_the_learn_keys_that_apply_by_mode():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert try_keys(app) == LEARN_KEYS
        assert {"→ step", "← back", "space play", "w wire 4⇄6", "f fates", "l lesson", "q quit", "? help"} <= \
            set(footer_keys(app))
        await press(app, pilot, "m")
        assert try_keys(app) == ["m batch", "k reaper", "p predict", "e sandbox", "c cost"], "no guard in singles"
        await press(app, pilot, "m", "g")
        assert try_keys(app)[:2] == ["m singles", "g guard on"]
        await press(app, pilot, "g", "p")
        assert "p predict off" in try_keys(app)
        await press(app, pilot, "p", "end")
        assert dive(app).step.done and "k reaper" not in try_keys(app), "no member left for a reaper"
    app = frozen_app(wire=6)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert try_keys(app) == ["m singles", "g guard off · wire 4", "k reaper", "p predict", "e sandbox", "c cost"]
        row = dive(app).query_one(TryRow)
        assert row.size.height == 1, "at 80×24 the row fits on one line"


@asynctest
async def test_entering_a_mode_brings_its_try_it_section():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pane = dive(app).query_one(LessonPane)
        for keys, section in ((("m",), "try-singles"), (("m", "g"), "try-guard-off"), (("g", "p"), "try-predict"),
                              (("p", "k"), "try-reaper")):
            await press(app, pilot, "left_square_bracket", "left_square_bracket")
            assert pane.section != section
            await press(app, pilot, *keys)
            assert pane.section == section, keys
            assert pane.top == 0 and str(pane.border_title).startswith("Try it")
            if section == "try-singles":
                await press(app, pilot, "right", "right")
                assert pane.section == section, "the Try it stays while the steps of that mode go on"


@pytest.mark.parametrize(("typed", "title"), [
    ("singles", "Run mode: batch ⇄ singles"), ("single", "Run mode: batch ⇄ singles"),
    ("batch", "Run mode: batch ⇄ singles"), ("guard", "Guard off (what-if)"), ("reaper", "Race a reaper"),
    ("race", "Race a reaper"), ("predict", "Predict mode"), ("tab", "Move to a pane, to scroll it (tab)"),
    ("lesson", "Show / hide the lesson"), ("keys", "Help")])
@asynctest
async def test_the_palette_finds_an_action_by_a_learners_word_before_textuals_own(typed, title):
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        hits = sorted([hit async for hit in DiveCommands(app.screen).search(typed)], key=lambda hit: -hit.score)
        assert hits and hits[0].text == title, [hit.text for hit in hits]
        if typed == "keys":
            assert [hit.text for hit in hits].index("Keys") > 0, "Textual's own Keys entry comes after the dive's"


@asynctest
async def test_tab_in_the_palette_moves_to_a_pane():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.focused is None, "no pane has the focus at first"
        await press(app, pilot, "ctrl+p")
        await pilot.press(*"tab")
        await settle(app, pilot)
        await press(app, pilot, "enter")
        assert app.screen is dive(app) and isinstance(app.focused, WirePane)


@asynctest
async def test_g_on_wire_6_offers_wire_4_and_runs_the_what_if_there():
    app = frozen_app(wire=6, step=2)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "g")
        assert isinstance(app.screen, SwitchWire)
        assert "Move from wire 6 to wire 4" in str(app.screen.query_one(Static).content)
        await press(app, pilot, "n")
        screen = dive(app)
        assert app.screen is screen and screen.wire == 6 and screen.frame.played.mode == "batch"
        await press(app, pilot, "g")
        await press(app, pilot, "y")
        assert app.screen is screen and screen.wire == 4 and screen.frame.played.mode == "guard-off"
        assert screen.step.index == 2, "at the same step"
        assert screen.query_one(LessonPane).section == "try-guard-off"


@asynctest
async def test_home_and_end_scroll_a_focused_pane_and_step_the_run_otherwise():
    app = frozen_app(step=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        pane = screen.query_one(WirePane)
        assert pane.hidden_above, "the wire pane shows its newest lines"
        while not pane.has_focus:
            await press(app, pilot, "tab")
        await press(app, pilot, "home")
        assert pane.top == 0 and screen.session.stepper.position == 1, "Home scrolled the pane, not the run"
        await press(app, pilot, "end")
        assert pane.hidden_below == 0 and pane.hidden_above and screen.session.stepper.position == 1
        await press(app, pilot, "escape")
        assert app.focused is None
        await press(app, pilot, "end")
        assert screen.session.stepper.finished, "with no pane focused, End runs to the end"
        await press(app, pilot, "home")
        assert screen.session.stepper.position == 0


@asynctest
async def test_with_no_pane_focused_the_arrows_scroll_the_lesson():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pane = dive(app).query_one(LessonPane)
        assert app.focused is None
        await press(app, pilot, "down", "down", "pagedown", "up")
        assert pane.top == min(2 + int(0.9 * pane.size.height), len(pane.lines) - pane.size.height) - 1
        pane.focus()
        await press(app, pilot, "home")
        assert pane.top == 0 and dive(app).session.stepper.position == 0
