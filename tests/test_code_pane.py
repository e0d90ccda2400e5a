"""The code pane wraps long lines: every step's executed line is whole on screen, at 120x40 and at 80x24."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from emq_dive.engine.echo_mq import jobs
from emq_dive.views.tui.widgets.code_pane import TITLES, CodePane
from emq_dive.views.tui.widgets.code_source import NATIVE_SEND, SOURCES, breaks, first_rows, hang, layout, plain_source
from emq_dive.views.tui.widgets.fitted_title import fitted_title
from tests.tui_support import asynctest, dive, frozen_app, press, screen_text, settle


@pytest.mark.parametrize("width", [12, 40, 60, 91])
def test_every_line_of_every_source_wraps_into_rows_that_fit_and_rebuild_it(width):
    for key in SOURCES:
        lines = plain_source(key).lines
        for number, text in enumerate(lines, 1):
            code = text.plain
            cuts = (0, *breaks(code, width), len(code))
            pieces = [code[a:b] for a, b in pairwise(cuts)]
            assert "".join(pieces) == code, (key, number)
            room = [width] + [width - hang(code, width)] * (len(pieces) - 1)
            assert all(len(piece) <= cells for piece, cells in zip(pieces, room, strict=True)), (key, number)
        rows = layout(key, width)
        assert [number for number, part in rows if part == 0] == list(range(1, len(lines) + 1))
        assert first_rows(key, width)[len(lines)] < len(rows)


def test_a_space_is_the_break_where_one_fits():
    line = "    pairs = [part for job_id, token in held for part in (job_id, _token(job_id, token))]  # @flatten"
    (cut,) = breaks(line, 60)
    assert line[cut - 1] == " " and line[:cut].rstrip().endswith("in")


def pane_rows(app) -> list[str]:
    """The code pane's rows as they are on screen."""
    region = dive(app).query_one(CodePane).content_region
    lines = screen_text(app).split("\n")
    return [lines[y][region.x : region.right] for y in range(region.y, region.bottom)]


def lines_on_screen(rows: list[str], digits: int) -> dict[int, tuple[str, bool]]:
    """Each line read back off the pane: its numbered row joined with the unnumbered rows after it, and whether
    its last row is the pane's bottom row (where the rest of it may be cut off)."""
    found: dict[int, tuple[str, bool]] = {}
    number = None
    for i, row in enumerate(rows):
        gutter, code = row[: digits + 2], row[digits + 2 :]
        if gutter[:digits].strip().isdigit():
            number, text = int(gutter[:digits]), code
        elif number is not None and not gutter.strip() and code.strip():
            text = found[number][0] + code
        else:
            continue
        found[number] = (text, i == len(rows) - 1)
    return found


def same_code(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` are the same code, spaces aside."""
    return "".join(a.split()) == "".join(b.split())


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
@pytest.mark.parametrize("wire", [4, 6])
@asynctest
async def test_every_step_shows_its_executed_line_whole(size, wire):
    app = frozen_app(wire=wire)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        wrapped = set()
        pane = screen.query_one(CodePane)
        while True:
            step = screen.step
            shown_key = next(key for key, title in TITLES.items()  # the longest wording that fits the border
                             if fitted_title(title, pane.outer_size.width) == str(pane.border_title))
            lines = plain_source(shown_key).lines
            on_screen = lines_on_screen(pane_rows(app), len(str(len(lines))))
            focus = plain_source(shown_key).markers[NATIVE_SEND] if shown_key == "connector" else step.focus
            if focus is not None:
                assert same_code(on_screen[focus][0], lines[focus - 1].plain), (step.index, on_screen)
            for number, (text, at_edge) in on_screen.items():
                assert at_edge or same_code(text, lines[number - 1].plain), (step.index, number, text)
                if not at_edge and text.rstrip() != lines[number - 1].plain.rstrip():
                    wrapped.add(number)
            if step.done:
                break
            await press(app, pilot, "right")
        if size == (120, 40):  # at 80x24 the pane has room for the executed line alone
            assert wrapped, "some line on show is too long for the pane and wraps"


@asynctest
async def test_a_wrapped_line_s_highlight_covers_all_its_rows():
    app = frozen_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        pane = dive(app).query_one(CodePane)
        rows = pane_rows(app)
        # the handle's keys line wraps at this width; the line that returns failed has not run yet
        marked = {m: n for n, line in enumerate(Path(jobs.__file__).read_text().splitlines(), 1)
                  for m in ("@keys", "@failed") if line.rstrip().endswith(f"# {m}")}
        wrapped, waiting = marked["@keys"], marked["@failed"]
        start = next(i for i, row in enumerate(rows) if row.lstrip().startswith(f"{wrapped} "))
        idle = next(i for i, row in enumerate(rows) if row.lstrip().startswith(f"{waiting} "))
        assert wrapped in dive(app).step.lines and waiting not in dive(app).step.lines
        assert not rows[start + 1][:4].strip(), f"line {wrapped} wraps onto an unnumbered row"

        def background(y):
            return {segment.style.bgcolor for segment in pane.render_line(y) if segment.style and segment.text.strip()}

        assert background(start + 1) == background(start) != background(idle)
