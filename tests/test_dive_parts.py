"""The dive screen is one screen of parts that talk by messages: its store moves post results and nothing else."""

from __future__ import annotations

import inspect

from textual.message_pump import MessagePump
from textual.screen import Screen

from emq_dive.views.tui.screens import dive_messages, dive_tools, store_moves
from emq_dive.views.tui.screens.dive import DiveScreen
from emq_dive.views.tui.screens.store_moves import StoreMoves
from emq_dive.views.tui.widgets.code_pane import CodePane
from tests.tui_support import SIZE, asynctest, dive, frozen_app, frozen_store, press, settle


def test_the_dive_is_one_screen_and_its_store_moves_are_no_widget():
    assert DiveScreen.__bases__ == (Screen,), "no mixin tower"
    assert not issubclass(StoreMoves, MessagePump)
    assert "DiveScreen" not in inspect.getsource(dive_tools), "the tools take what they need, not the screen"
    posted = {name for name, value in vars(dive_messages).items()
              if isinstance(value, type) and value.__module__ == dive_messages.__name__}
    assert posted == {"FrameReady", "Compared", "FateRan", "Refused", "Reaped"}
    assert "self.host." in inspect.getsource(store_moves) and "host.query" not in inspect.getsource(store_moves)


@asynctest
async def test_each_store_move_comes_back_as_a_frame_with_the_newest_number():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        for key, position in (("right", 1), ("right", 2), ("left", 1), ("m", 1), ("end", 4)):
            asked = screen.moves.seq
            await press(app, pilot, key)
            frame = screen.frame
            assert frame is not None and frame.seq == screen.moves.seq == asked + 1, key
            assert screen.target == frame.step.index == position and screen.busy == "", key


@asynctest
async def test_the_code_pane_asks_the_store_kind_whether_a_real_server_runs():
    for kind, server in (("fakeredis", False), ("valkey", True)):
        store = frozen_store()
        store.kind = kind  # the embedded store under another kind's name: only what the pane is told changes
        app = frozen_app(store)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert dive(app).query_one(CodePane).server is server
