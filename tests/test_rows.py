"""The row panes repaint only the columns a step changed: the diff of two rows, and the regions a pane asks for."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from tui_support import asynctest

from emq_dive.views.tui.widgets.rows import Rows, changed_cells, text_strip

BOLD = Style(bold=True)


def styled(name: str, value: str, style: Style | str = "") -> Text:
    row = Text(f"*{name} ", style=style)
    row.append(value)
    return row


def test_two_rows_that_draw_the_same_cells_change_nothing() -> None:
    assert changed_cells(Text("active emq"), Text("active emq"), 30) is None
    assert changed_cells(styled("id", '"JOB01"', BOLD), styled("id", '"JOB01"', BOLD), 30) is None


def test_a_changed_character_is_the_only_column_repainted() -> None:
    assert changed_cells(styled("id", '"JOB01"'), styled("id", '"JOB02"'), 30) == (9, 10)
    assert changed_cells(Text("now 1796236193549"), Text("now 1796236194360"), 30) == (13, 17)


def test_a_row_that_grows_or_shrinks_repaints_to_the_end_of_the_longer() -> None:
    assert changed_cells(Text("ab"), Text("abcd"), 30) == (2, 4)
    assert changed_cells(Text("abcd"), Text("ab"), 30) == (2, 4)  # the old tail's cells are blank now
    assert changed_cells(Text("xab"), Text("ab"), 30) == (0, 3)  # the same tail one column left is a change


def test_a_style_change_repaints_its_cells_and_a_base_style_change_the_row() -> None:
    plain, marked = Text("lease 30000"), Text("lease 30000")
    marked.stylize(BOLD, 6, 11)
    assert changed_cells(plain, marked, 30) == (6, 11)
    assert changed_cells(marked, plain, 30) == (6, 11)
    assert changed_cells(Text("lease", style=BOLD), Text("lease"), 30) == (0, 30)


def test_columns_are_cells_not_characters() -> None:
    assert changed_cells(Text("界界a"), Text("界界b"), 30) == (4, 5)


def test_a_change_past_the_pane_s_edge_is_not_repainted() -> None:
    assert changed_cells(Text("a" * 10 + "x"), Text("a" * 10 + "y"), 8) is None
    assert changed_cells(Text("a" * 6 + "xyz"), Text("a" * 6 + "XYZ"), 8) == (6, 8)


class Spy(Rows):
    """A row pane that keeps the regions it asks to repaint."""

    DEFAULT_CSS = "Spy { border: round white; padding: 0 1; height: 6; width: 30; }"

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[Region] = []

    def refresh(self, *regions: Region, **kwargs: Any) -> Any:
        self.asked += regions
        return super().refresh(*regions, **kwargs)


class OnePane(App[None]):
    def compose(self) -> ComposeResult:
        yield Spy()


@asynctest
async def test_a_pane_asks_for_the_changed_columns_and_the_screen_shows_the_new_row() -> None:
    app = OnePane()
    async with app.run_test(size=(40, 10)) as pilot:
        pane = app.query_one(Spy)
        pane.paint_rows([Text('*id "JOB01"'), Text("*now 1796236193549"), Text("")])
        await pilot.pause()
        pane.asked.clear()
        pane.paint_rows([Text('*id "JOB02"'), Text("*now 1796236193549"), Text("")])
        assert pane.asked == [Region(9, 0, 1, 1)]  # one cell of the first row; the others are as they were
        await pilot.pause()
        rows = [strip.text for strip in app.screen._compositor.render_strips()]
        assert rows[1][2:14] == '*id "JOB02" '
        assert rows[2][2:21] == "*now 1796236193549 "


@asynctest
async def test_a_left_title_repaints_its_border_up_to_the_longer_title_s_end(monkeypatch: Any) -> None:
    app = OnePane()
    async with app.run_test(size=(40, 10)) as pilot:
        pane = app.query_one(Spy)
        pane.set_border(title="locals · line 25")
        await pilot.pause()
        pane.asked.clear()
        refresh = Widget.refresh  # set_border asks the widget's own refresh, past the pane's

        def spied(self: Widget, *regions: Region, **kwargs: Any) -> Any:
            if self is pane:
                pane.asked.extend(regions)
            return refresh(self, *regions, **kwargs)
        monkeypatch.setattr(Widget, "refresh", spied)
        pane.set_border(title="locals · line 8")
        monkeypatch.undo()
        offset = pane.content_offset
        assert pane.asked == [Region(-offset.x, -offset.y, len("locals · line 25") + 5, 1)]
        await pilot.pause()
        top = app.screen._compositor.render_strips()[0].text
        assert top.startswith("╭─ locals · line 8 ─") and top.rstrip().endswith("╮")


@asynctest
async def test_a_border_set_as_it_is_repaints_nothing_and_a_new_subtitle_only_its_row(monkeypatch: Any) -> None:
    app = OnePane()
    async with app.run_test(size=(40, 10)) as pilot:
        pane = app.query_one(Spy)
        pane.set_border(title="locals · line 25", subtitle="{q} is {dive-1}")
        await pilot.pause()
        asked: list[Region] = []
        refresh = Widget.refresh

        def spied(self: Widget, *regions: Region, **kwargs: Any) -> Any:
            if self is pane:
                asked.append(regions[0] if regions else Region(0, 0, 0, 0))
            return refresh(self, *regions, **kwargs)
        monkeypatch.setattr(Widget, "refresh", spied)
        pane.set_border(title="locals · line 25", subtitle="{q} is {dive-1}")
        assert asked == [], "the same title and subtitle: no row repainted"
        pane.set_border(subtitle="{q} is {dive-2}")
        monkeypatch.undo()
        offset = pane.content_offset
        assert asked == [Region(-offset.x, pane.outer_size.height - 1 - offset.y, pane.outer_size.width, 1)]
        assert (pane.border_title, pane.border_subtitle) == ("locals · line 25", "{q} is {dive-2}")
        await pilot.pause()
        bottom = app.screen._compositor.render_strips()[pane.outer_size.height - 1].text
        assert "{q} is {dive-2}" in bottom


def _cells(strip: Strip) -> list[tuple[str, Style | None]]:
    return [(char, segment.style) for segment in strip for char in segment.text]


SPAN_STYLES = [Style(bold=True), Style(color="red"), Style(bgcolor="blue", italic=True), "green on black", "underline"]


@given(plain=st.text(alphabet="ab 界*", max_size=12), own=st.sampled_from(["", "bold", Style(dim=True)]),
       spans=st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14), st.sampled_from(SPAN_STYLES)), max_size=4),
       width=st.integers(1, 20))
def test_a_row_s_strip_draws_the_cells_rich_would(plain: str, own: str | Style, spans: list[Any], width: int) -> None:
    text = Text(plain, style=own)
    for start, end, style in spans:
        text.stylize(style, min(start, end), max(start, end))
    console, base = Console(), Style(color="white", bgcolor="black")
    rich = Strip(list(Segment.apply_style(text.render(console, end=""), text_style(text, console, base)))) \
        .crop_extend(0, width, base)
    ours = text_strip(text, width, base, console)
    assert _cells(ours) == _cells(rich)
    assert ours.cell_length == width


def text_style(text: Text, console: Console, base: Style) -> Style:
    """The base style with the row's own over it, as the rows draw a row with no spans."""
    own = text.style
    return base + (console.get_style(own) if isinstance(own, str) else own) if own else base
