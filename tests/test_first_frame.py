"""Pilot tests: the first frame that shows the batch is laid out at the panes' own sizes, not redrawn after it."""

from __future__ import annotations

from typing import Any

from emq_dive.views.tui.screens.dive import DiveScreen
from emq_dive.views.tui.widgets.code_pane import CodePane
from tests.tui_support import SIZE, asynctest, frozen_app, settle


def left_text(screen: DiveScreen) -> list[str]:
    """The stepping column (step bar, batch, code, wire and store panes) as painted, line by line."""
    left = screen.query_one("#left").region
    return [strip.crop(left.x, left.right).text for strip in screen._compositor.render_strips()[left.y:left.bottom]]


@asynctest
async def test_the_first_paint_with_the_batch_is_the_settled_text_of_the_stepping_column(monkeypatch: Any) -> None:
    for size in (SIZE, (80, 24)):
        for wire in (4, 6):
            first: list[list[str]] = []
            refresh = DiveScreen._compositor_refresh

            def painted(self: DiveScreen, first: list[list[str]] = first, refresh: Any = refresh) -> None:
                refresh(self)
                if self.frame is not None and not first:
                    first.append(left_text(self))

            monkeypatch.setattr(DiveScreen, "_compositor_refresh", painted)
            app = frozen_app(wire=wire)
            async with app.run_test(size=size) as pilot:
                await settle(app, pilot)
                code = app.dive.query_one(CodePane)
                assert not code.deferred  # the code's colours are in: only they may come after the first paint
                assert first == [left_text(app.dive)], (size, wire)
            monkeypatch.undo()
