"""A framed pane draws every row as Textual's own pass over it would, draws again only the rows a change asks for,
and leaves the whole pane to Textual while its styles reach into the content."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region
from textual.strip import Strip
from tui_support import asynctest

from emq_dive.views.tui.widgets.framed import plain_frame
from emq_dive.views.tui.widgets.rows import Rows, text_strip

ROWS = [Text('*id "JOB01"'), Text("*now 1796236193549", style="bold"), Text("*failed {}", style="red"), Text("")]
"""Rows a locals pane shows; red is an ANSI colour, which the app's filter turns into the theme's truecolor."""


class Pane(Rows):
    """A row pane that counts the content rows it draws itself."""

    DEFAULT_CSS = """
    Pane { border: round $primary 50%; padding: 0 1; height: 7; width: 30; border-title-color: $text-primary; }
    Pane.-hot { border: heavy $error; background: $boost; }
    Pane.-tinted { tint: red 30%; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.drawn = 0
        self.rows_shown: list[Text] = []

    def paint_rows(self, rows: list[Text]) -> None:
        self.rows_shown = rows
        super().paint_rows(rows)

    def framed_line(self) -> Callable[[int], Strip] | None:
        line = super().framed_line()
        if line is None:
            return None

        def counted(y: int) -> Strip:
            self.drawn += 1
            return line(y)
        return counted


class Twin(Pane):
    """The same pane, every row of it drawn by Textual's own pass."""

    def framed_line(self) -> Callable[[int], Strip] | None:
        return None

    def render_line(self, y: int) -> Strip:
        width, base = self.content_size.width, self.visual_style.rich_style
        rows = self.rows_shown
        return text_strip(rows[y], width, base, self.app.console) if y < len(rows) else Strip.blank(width, base)


class Panes(App[None]):
    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Pane()
            yield Twin()


def cells(pane: Rows) -> list[list[tuple[str, Style | None]]]:
    """Each row of ``pane`` as drawn now, a (character, style) per cell."""
    size = pane.outer_size
    return [[(char, segment.style) for segment in strip for char in segment.text]
            for strip in pane.render_lines(Region(0, 0, size.width, size.height))]


def text(pane: Rows, y: int) -> str:
    return "".join(char for char, _ in cells(pane)[y])


def both(app: Panes, act: Callable[[Pane], None]) -> tuple[Pane, Twin]:
    pane, twin = app.query_one(Pane), app.query_one(Twin)
    act(pane)
    act(twin)
    return pane, twin


@asynctest
async def test_every_row_is_drawn_as_textual_draws_it_border_padding_and_titles_included() -> None:
    app = Panes()
    async with app.run_test(size=(70, 10)) as pilot:
        pane, twin = both(app, lambda p: (p.set_border(title="locals · line 22", subtitle="{q} is {dive-1}"),
                                          p.paint_rows(ROWS)))
        await pilot.pause()
        # the five content rows, and the one Textual drew to take the side cells from; the twin's all by Textual
        assert pane.drawn == 6 and twin.drawn == 0
        assert cells(pane) == cells(twin)
        assert text(pane, 0).startswith("╭─ locals · line 22 ─")


@asynctest
async def test_a_changed_row_is_the_only_one_drawn_again_and_a_new_title_is_drawn() -> None:
    app = Panes()
    async with app.run_test(size=(70, 10)) as pilot:
        both(app, lambda p: (p.set_border(title="locals · line 22"), p.paint_rows(ROWS)))
        await pilot.pause()
        pane, twin = both(app, lambda p: (p.set_border(title="locals · line 8"),
                                          p.paint_rows([Text('*id "JOB02"'), *ROWS[1:]])))
        pane.drawn = 0
        await pilot.pause()
        assert pane.drawn == 1
        assert cells(pane) == cells(twin)
        assert text(pane, 0).startswith("╭─ locals · line 8 ─") and text(pane, 1).startswith('│ *id "JOB02"')


@pytest.mark.parametrize("style", ["-hot", "-tinted"])
@asynctest
async def test_new_styles_are_drawn_as_textual_draws_them(style: str) -> None:
    app = Panes()
    async with app.run_test(size=(70, 10)) as pilot:
        both(app, lambda p: p.paint_rows(ROWS))
        await pilot.pause()
        before = cells(app.query_one(Pane))
        pane, twin = both(app, lambda p: (p.add_class(style), p.paint_rows(ROWS)))
        await pilot.pause()
        assert cells(pane) == cells(twin)
        assert cells(pane)[1][0] != before[1][0], "a heavy red border, or the tint over it"
        assert plain_frame(pane) is (style == "-hot")  # a tint reaches into the content: Textual draws it all


class Short(Pane):
    """A pane whose rows come out narrower than its content."""

    def framed_line(self) -> Callable[[int], Strip] | None:
        line = super().framed_line()
        return None if line is None else lambda y: line(y).crop(0, 5)


class ShortTwin(Twin):
    def render_line(self, y: int) -> Strip:
        return super().render_line(y).crop(0, 5)


class ShortPanes(App[None]):
    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Short()
            yield ShortTwin()


@asynctest
async def test_a_row_narrower_than_the_content_is_padded_as_textual_pads_it() -> None:
    app = ShortPanes()
    async with app.run_test(size=(70, 10)) as pilot:
        short, twin = app.query_one(Short), app.query_one(ShortTwin)
        short.paint_rows([Text("abc"), Text("")])
        twin.paint_rows([Text("abc"), Text("")])
        await pilot.pause()
        assert cells(short) == cells(twin)
        assert short.drawn == 6  # each row drawn once, none handed back to Textual
