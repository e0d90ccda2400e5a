"""Pilot tests: the first frame that shows the batch is laid out at the panes' own sizes, not redrawn after it."""

from __future__ import annotations

import json
from typing import Any

from fresh_python import fresh_output

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


LATER = ("emq_dive.present.console", "emq_dive.engine.echo_mq.console", "emq_dive.present.console_seen",
         "emq_dive.present.missions", "emq_dive.present.mission_check", "emq_dive.views.tui.widgets.mission_bar",
         "emq_dive.engine.fates.answers", "emq_dive.engine.fates.runs", "emq_dive.engine.fates.wire_compare",
         "emq_dive.engine.stores.cluster", "emq_dive.views.tui.screens.palette", "emq_dive.views.text.transcript")
"""Modules of moves the learner has not made yet (the console, a mission, a fate, a wire switch, the palette, a
transcript): none is needed to open the dive and step its batch, so none may hold up the first frame."""


def test_opening_the_dive_and_stepping_its_batch_and_back_loads_nothing_the_learner_has_not_asked_for() -> None:
    code = ("import asyncio, json, sys\n"
            "from emq_dive.course.lessons import load\n"
            "from emq_dive.engine.stores import open_store\n"
            "from emq_dive.views.tui.app import make_app, wait_ready\n"
            "async def main():\n"
            "    store = open_store('fakeredis')\n"
            "    try:\n"
            "        app = make_app(load('batches-03'), store)\n"
            "        async with app.run_test(size=(120, 40)) as pilot:\n"
            "            await wait_ready(app, pilot)\n"
            "            first = sorted(sys.modules)\n"
            "            while not app.dive.frame.step.done:\n"
            "                await pilot.press('right')\n"
            "                await wait_ready(app, pilot)\n"
            "            last = app.dive.frame.step.index\n"
            "            await pilot.press('left')\n"
            "            await wait_ready(app, pilot)\n"
            "            print(json.dumps({'first': first, 'stepped': sorted(sys.modules),\n"
            "                              'step': last, 'back': app.dive.frame.step.index}))\n"
            "    finally:\n"
            "        store.close()\n"
            "asyncio.run(main())\n")
    seen = json.loads(fresh_output(code, timeout=120))
    assert seen["step"] == 4  # the handle, then the lesson's four members: the whole batch ran
    assert seen["back"] == 3  # and ← stepped back (the console's undo, asked first, had nothing to undo)
    assert "emq_dive.engine.fates.setups" in seen["first"]  # the set-up did run: the check below is not vacuous
    for when in ("first", "stepped"):
        assert [name for name in LATER if name in seen[when]] == [], when
