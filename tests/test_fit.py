"""Issue 18 §4, quieter and higher-contrast screens: faint text meets WCAG AA, keys and clocks are shortened with
the whole value one key away, the lesson's code block keeps its labels, and quit leaves no start-up line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.segment import Segment
from textual.color import Color
from textual.widget import Widget

from emq_dive.views.tui.widgets.cost_chart import CostChart
from emq_dive.views.tui.widgets.style import FAINT, FAINT_COLOR, SUBTITLE, Faint
from tests.test_app_fates import pick
from tests.tui_support import SIZE, asynctest, frozen_app, press, settle

ROOT = Path(__file__).resolve().parents[1]
AA = 4.5
"""WCAG 2.x AA: the least contrast ratio for normal-size text."""


def luminance(color: Color) -> float:
    """The relative luminance of an opaque ``color``, per WCAG 2.x."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(a: Color, b: Color) -> float:
    """The WCAG contrast ratio of two opaque colours, from 1 to 21."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def colours(widget: Widget, faint: Faint) -> tuple[Color, Color]:
    """The foreground and background ``faint`` is drawn in on ``widget``, from the theme's colours."""
    background = widget.background_colors[1]
    if faint.part == SUBTITLE:
        color = widget.styles.border_subtitle_color
        return background + (background.get_contrast_text(color.a) if color.auto else color), background
    style = widget.get_component_rich_style(faint.part)
    assert style.color is not None, f"{faint} has no colour of its own"
    fg = Color.from_rich_color(style.color)
    if faint.over is not None:
        over = widget.get_component_rich_style(faint.over).bgcolor
        assert over is not None
        background = Color.from_rich_color(over)
    return fg, background


@asynctest
async def test_every_faint_part_meets_aa_contrast_in_the_default_theme():
    app = frozen_app(theme="textual-dark")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right", "right")
        checked: dict[Faint, float] = {}

        def measure() -> None:
            for faint in FAINT:
                for widget in app.screen.query(faint.widget):
                    checked[faint] = min(checked.get(faint, 99.0), contrast(*colours(widget, faint)))

        measure()
        await pick(app, pilot, "gone")  # the fate view's answer cards
        measure()
        await app.screen.mount(CostChart())  # the cost view's chart needs a measurement; its parts are the CSS's
        await settle(app, pilot)
        measure()
    assert set(checked) == set(FAINT), f"faint parts not on any screen checked: {set(FAINT) - set(checked)}"
    low = {f"{f.widget} {f.part} over {f.over}": round(r, 2) for f, r in checked.items() if r < AA}
    assert low == {}, "faint text under WCAG AA (4.5:1)"


def _faint_rules() -> set[tuple[str, str]]:
    """Each ``Widget > .part`` rule of the widgets' CSS whose colour is faint (muted or disabled text)."""
    found = set()
    for path in (ROOT / "emq_dive" / "views" / "tui" / "widgets").glob("*.py"):
        for widget, part, body in re.findall(r"(\w+) > \.([\w-]+) \{([^}]*)\}", path.read_text(encoding="utf-8")):
            if re.search(r"color: \$text-(muted|disabled)", body):
                found.add((widget, part))
    return found


def test_every_faint_rule_of_the_widgets_is_in_the_faint_table_and_no_widget_asks_the_terminal_to_dim():
    table = {(f.widget, f.part) for f in FAINT}
    assert _faint_rules() - table == set(), "a faint style the contrast test does not check"
    assert FAINT_COLOR == "$text-muted"
    for path in (ROOT / "emq_dive" / "views" / "tui" / "widgets").glob("*.py"):
        # SGR dim leaves the contrast to the terminal: the faint colour is the theme's, which the test checks
        assert 'style="dim"' not in path.read_text(encoding="utf-8"), path.name


def _segments_with(app, phrase: str) -> list[Segment]:
    """The segments of the screen as drawn whose text holds ``phrase``."""
    return [seg for strip in app.screen._compositor.render_strips() for seg in strip if phrase in seg.text]


@pytest.mark.parametrize("size, phrases", [
    (SIZE, ["waiting", "> the line this step ran", "· [ ] browse"]),
    ((80, 24), ["> the line this step ran", " more · tab"]),  # a pane's scroll hint, ``↓7 more · tab, ↑↓``
])
@asynctest
async def test_the_issues_faint_texts_meet_aa_contrast_as_drawn(size: tuple[int, int], phrases: list[str]):
    app = frozen_app(theme="textual-dark")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right")
        for phrase in phrases:
            segments = _segments_with(app, phrase)
            assert segments, f"{phrase!r} is not on the screen"
            for seg in segments:
                assert seg.style is not None and seg.style.color is not None and seg.style.bgcolor is not None
                ratio = contrast(Color.from_rich_color(seg.style.color), Color.from_rich_color(seg.style.bgcolor))
                assert ratio >= AA, f"{phrase!r} is drawn at {ratio:.2f}:1"


def _rows(pane) -> list[str]:
    """The pane's rows as it holds them, each a line of its own."""
    return [line.plain for line in pane.lines]


@asynctest
async def test_the_store_pane_names_the_queue_whole_once_then_as_the_lesson_writes_it_and_v_shows_it_whole():
    from emq_dive.views.tui.widgets.store_pane import StorePane

    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right")
        pane = app.dive.query_one(StorePane)
        rows = _rows(pane)
        whole = [i for i, row in enumerate(rows) if "{dive-snap}" in row]
        short = [i for i, row in enumerate(rows) if "emq:{q}:" in row]
        assert len(whole) == 1 and rows[whole[0]] == "{q} is {dive-snap}", rows
        assert short and min(short) > whole[0], rows
        assert any(row.startswith("emq:{q}:active (") for row in rows)
        assert any(row.startswith("emq:{q}:pending (") for row in rows)
        assert "JOB01 now+30000  ← ZADD" in rows, "the re-scored deadline, relative to the shared now"
        await press(app, pilot, "v")
        rows = _rows(pane)
        assert not any("emq:{q}:" in row for row in rows)
        assert any(row.startswith("emq:{dive-snap}:active (") for row in rows)
        assert any(row.startswith("emq:{dive-snap}:pending (") for row in rows)
        assert "JOB01 1700000030000  ← ZADD" in rows, "the deadline as the store holds it"
        await press(app, pilot, "v")
        assert any(row.startswith("emq:{q}:active (") for row in _rows(pane))


@asynctest
async def test_the_wire_pane_shows_clocks_relative_to_now_and_the_queue_whole_once():
    from emq_dive.views.tui.widgets.wire_pane import WirePane

    app = frozen_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right")
        pane = app.dive.query_one(WirePane)
        text = pane.full_text()
        assert text.count("{dive-snap}") == 1, text
        assert "emq:{dive-snap}:active emq:{q}: 30000 JOB01 1" in text
        assert "HGET emq:{q}:job:JOB01 attempts" in text
        assert 'ZSCORE emq:{q}:active JOB01  → "now+10000"' in text
        assert "ZADD emq:{q}:active now+30000 JOB01" in text
        assert "1700000030000" not in text and "1700000010000" not in text
        await press(app, pilot, "v")
        text = pane.full_text()
        assert "ZADD emq:{dive-snap}:active 1700000030000 JOB01" in text
        assert 'ZSCORE emq:{dive-snap}:active JOB01  → "1700000010000"' in text
        assert "emq:{q}:" not in text


def _lesson_rows(app, key: str) -> list[str]:
    """The rows the lesson pane holds for section ``key``, as laid out at its width."""
    from emq_dive.views.tui.widgets.lesson_pane import LessonPane

    pane = app.dive.query_one(LessonPane)
    assert pane.section == key
    return [line.text.strip() for line in pane.lines]


@asynctest
async def test_the_native_twins_code_block_keeps_its_labels_on_rows_of_their_own_at_80_and_120_columns():
    from emq_dive.views.tui.widgets.lesson_pane import LessonPane

    for size, keys in (((120, 40), ()), ((80, 24), ("l",))):
        app = frozen_app()
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            await press(app, pilot, *keys)
            pane = app.dive.query_one(LessonPane)
            while pane.section != "native":
                await press(app, pilot, "right_square_bracket")
            rows = _lesson_rows(app, "native")
            assert "# scripted (wire 4)" in rows and "# native (wire 6)" in rows, (size, rows)
            scripted, native = rows.index("# scripted (wire 4)"), rows.index("# native (wire 6)")
            assert rows[scripted + 1].startswith("EVALSHA <sha> 2"), (size, rows)
            assert rows[native + 1].startswith("EMQ.EXTENDS 2"), (size, rows)
            # a command that wraps keeps its continuation indented under it, never a row that looks like a command
            block = [line.text for line in pane.lines[scripted + 1: native]]
            assert all(row.startswith("   ") or not row.strip() for row in block[1:]), (size, block)


def _main_screen(output: bytes) -> list[str]:
    """The lines a terminal's main screen holds after ``output``: the alternate screen's drawing left out, and
    carriage returns, newlines and erase-line sequences applied as a terminal applies them."""
    text = output.decode("utf-8", "replace")
    text = re.sub(r"\x1b\[\?1049h.*?(\x1b\[\?1049l|$)", "", text, flags=re.S)
    lines: list[list[str]] = [[]]
    col = 0
    for token in re.findall(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b.|\r|\n|[^\x1b\r\n]", text, flags=re.S):
        line = lines[-1]
        if token == "\r":
            col = 0
        elif token == "\n":
            lines.append([])
            col = 0
        elif token in ("\x1b[2K", "\x1b[K", "\x1b[0K"):
            del line[0 if token == "\x1b[2K" else col:]
        elif not token.startswith("\x1b"):
            line[col:col + 1] = [token]
            col += 1
    return ["".join(line) for line in lines]


def test_main_screen_reads_erasing_as_a_terminal_does():
    assert _main_screen(b"starting server\xe2\x80\xa6\r\x1b[2K\x1b[?1049hdrawn\x1b[?1049l$ ") == ["$ "]
    assert _main_screen(b"starting server\xe2\x80\xa6\n\x1b[?1049hdrawn\x1b[?1049l") == ["starting server…", ""]


@pytest.mark.server
def test_quitting_the_tui_leaves_no_starting_line_on_the_terminal(tmp_path: Path) -> None:
    from tests.test_processes import DEADLINE, _poll, _Terminal, _tmpdir

    term = _Terminal(_tmpdir(tmp_path), backend="server")
    try:
        _poll(lambda: b"Batch" in term.screen or term.proc.poll() is not None, "the app's first frame", seconds=30)
        assert term.proc.poll() is None, f"the app exited early: {bytes(term.screen)[-2000:]!r}"
        term.send(b"q")
        assert term.proc.wait(timeout=DEADLINE) == 0
        term._reader.join(timeout=DEADLINE)
        screen = bytes(term.screen)
        assert "starting server…".encode() in screen, "the line is said while the server starts"
        left = [line for line in _main_screen(screen) if "starting" in line]
        assert left == [], "a start-up line is left on the terminal after quit"
    finally:
        term.close()


@asynctest
async def test_each_answer_card_names_the_queue_whole_once_and_v_shows_every_key_whole():
    from emq_dive.views.tui.widgets.answer_card import AnswerCard

    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pick(app, pilot, "gone")
        cards = list(app.screen.query(AnswerCard))
        assert cards
        for card in cards:
            text = card.content.plain
            assert text.count("{dive-snap}") == 1 and "emq:{q}:" in text, text
            assert text.index("{dive-snap}") < text.index("emq:{q}:")
        await press(app, pilot, "v")
        for card in app.screen.query(AnswerCard):
            assert "emq:{q}:" not in card.content.plain and card.content.plain.count("{dive-snap}") > 1


def test_shorthand_names_the_queue_whole_once_and_reads_only_clock_values_near_now_as_relative():
    from emq_dive.views.tui.widgets.shorthand import Shorthand

    names = Shorthand("emq:{dive-8b3821c6}:", 1_700_000_000_000)
    assert names.args([b"ZADD", b"emq:{dive-8b3821c6}:active", b"1700000030000", b"JOB01"]) == (
        b"ZADD", b"emq:{dive-8b3821c6}:active", b"now+30000", b"JOB01")
    assert names.args([b"HGET", b"emq:{dive-8b3821c6}:job:JOB01", b"attempts"])[1] == b"emq:{q}:job:JOB01"
    assert names.reply([b"1699999995000", b"9999999999999", 7]) == [b"now-5000", b"9999999999999", 7]
    whole = Shorthand("emq:{dive-8b3821c6}:", 1_700_000_000_000, whole=True)
    assert whole.args([b"emq:{dive-8b3821c6}:a", b"emq:{dive-8b3821c6}:b", b"1700000030000"]) == (
        b"emq:{dive-8b3821c6}:a", b"emq:{dive-8b3821c6}:b", b"1700000030000")
    assert Shorthand("emq:{d}:", None).word("1700000030000") == "1700000030000", "no now read yet: as it is"


def _drawn_contrast(segment: Segment) -> float:
    """The contrast of a drawn segment's text against its background."""
    style = segment.style
    assert style is not None and style.color is not None and style.bgcolor is not None, segment
    return contrast(Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor))


@asynctest
async def test_an_answer_cards_verdict_asides_and_writes_meet_aa_contrast_as_drawn():
    app = frozen_app(theme="textual-dark")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pick(app, pilot, "gone")
        for phrase in ("raises Gone", "returns ['JOBX']", "wrote:", "» ", "active JOBA:", "→ (error)"):
            segments = _segments_with(app, phrase)
            assert segments, f"{phrase!r} is not on the screen"
            assert min(map(_drawn_contrast, segments)) >= AA, phrase
