"""A step repaints what it changed and no more: the code pane's window holds still within a stretch of code, and a
verdict new to the batch table repaints its own row, not the table."""

from __future__ import annotations

from typing import Any

import pytest
from textual.geometry import Region

from emq_dive.views.tui.widgets.batch_table import BatchTable
from emq_dive.views.tui.widgets.code_pane import CodePane
from emq_dive.views.tui.widgets.code_source import steady_top, window_top
from tests.tui_support import asynctest, dive, frozen_app, press, settle


@pytest.mark.parametrize("height", [1, 2, 5, 12, 13, 30])
@pytest.mark.parametrize("total", [1, 12, 44, 100])
def test_the_window_holds_the_focus_and_a_row_above_it(height: int, total: int) -> None:
    for first in range(total):
        for last in range(first, min(total, first + height + 3)):
            top = steady_top(first, last, height, total)
            assert 0 <= top <= max(0, total - height)
            assert top <= first, "the focus's first row is in sight"
            if last - first < height:
                assert last < top + height, "a focus that fits is whole in sight"
            if 0 < first and last - first + 1 < height:
                assert top <= first - 1, "the row above a focus that leaves room is in sight"


def test_the_window_moves_only_from_stop_to_stop() -> None:
    tops = {steady_top(first, first, 12, 44) for first in range(44)}
    assert tops == {0, 2, 8, 14, 20, 26, 32}, "stops a half-page apart, counted up from the end (44 - 12 = 32)"
    assert {steady_top(first, first, 12, 44) for first in range(33, 44)} == {32}, "the file's end is one window"
    assert steady_top(5, 5, 12, 10) == 0, "a file shorter than the pane never scrolls"


def _window_top(pane: CodePane) -> tuple[Any, ...]:
    return pane._row_keys(pane.step)[0][:4]  # the file, its colour, and the line and part of the first row


@pytest.mark.parametrize("mode", ["batch", "m"])
@asynctest
async def test_a_member_to_member_step_keeps_the_code_pane_s_window(mode: str) -> None:
    app = frozen_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        if mode != "batch":
            await press(app, pilot, mode)
        await press(app, pilot, "right")
        pane = dive(app).query_one(CodePane)
        first = _window_top(pane)
        # singles: every call, each verdict a return of its own; the batch: the loop's members (the last step's
        # focus, the reply, lies past the line start the window opens on, so its window may open a row lower)
        for _ in range(3 if mode == "m" else 2):
            await press(app, pilot, "right")
            assert _window_top(pane) == first
            step = pane.step
            assert step is not None and any(number == step.focus for _, _, number, *_ in pane._row_keys(step))


@asynctest
async def test_a_verdict_new_to_the_table_repaints_its_row_not_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    app = frozen_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right")  # JOB01 re-scored
        table = dive(app).query_one(BatchTable)
        asked: list[tuple[Region, ...]] = []
        real = BatchTable.refresh

        def spied(self: BatchTable, *regions: Region, **kwargs: Any) -> Any:
            asked.append(regions)
            return real(self, *regions, **kwargs)

        monkeypatch.setattr(BatchTable, "refresh", spied)
        await press(app, pilot, "right")  # JOB02 joins failed: a verdict the table had not shown
        step = table.step
        assert step is not None and step.members[1].reason is not None
        width = table.content_size.width
        assert asked == [(Region(0, 1, width, 1), Region(0, 2, width, 1))], "the two rows whose mark or verdict moved"


def test_the_window_opens_on_a_line_s_first_row_where_the_focus_still_fits() -> None:
    rows = [(n, part) for n in range(1, 31) for part in range(2 if n % 3 == 0 else 1)]  # every third line wraps
    for first, (number, part) in enumerate(rows):
        if part:
            continue
        last = first + (1 if number % 3 == 0 else 0)
        top = window_top(rows, first, last, 7)
        assert top <= first and last < top + 7, "the focus whole in sight"
        if rows[top][1] > 0:
            start = next(row for row in range(top, -1, -1) if rows[row][1] == 0)
            assert last >= start + 7, "a tail row opens the window only where its line's start would hide the focus"
