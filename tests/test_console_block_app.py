"""Pilot tests: the console's MULTI block over the dive on the frozen store: the prompt says a block is open, EXEC
sends it and the store pane follows, back undoes the whole block, DISCARD drops one, and `x` writes the lines sent."""

from __future__ import annotations

from emq_dive.engine.echo_mq.console import Refusal
from emq_dive.present.console import Replied
from emq_dive.present.console_block import Blocked, Executed, Stand
from emq_dive.views.tui.screens.console_screen import INTRO
from emq_dive.views.tui.widgets.console_prompt import ConsolePrompt
from tests.test_console_app import active, send
from tests.tui_support import NOW_MS, SIZE, asynctest, frozen_app, press, settle

EXTEND_JOB03 = "EMQ.EXTENDS 2 $active $base 99000 JOB03 1"


def intro(app) -> str:
    """The console's first line, which says whether a block is open."""
    return str(app.screen.query_one("#console-intro").content)


@asynctest
async def test_a_block_is_queued_then_sent_by_exec_and_back_undoes_all_of_it():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        before = active(app)
        await press(app, pilot, "colon")
        screen, prompt = app.screen, app.screen.query_one(ConsolePrompt)
        await send(app, pilot, "MULTI")
        assert isinstance(screen.outcome, Blocked) and screen.outcome.stand is Stand.OPENED
        assert intro(app).startswith("MULTI block · 0 queued · EXEC sends them") and prompt.has_class("-block")
        assert prompt.placeholder.startswith("(TX) a line to queue it")
        for line in (EXTEND_JOB03, "FLUSHALL", "EVALSHA $sha 2 $active $base 99000 JOB01 1", "ZSCORE $active JOB03"):
            await send(app, pilot, line)
        assert intro(app).startswith("MULTI block · 3 queued"), "the refused FLUSHALL was not queued"
        assert active(app) == before, "nothing was sent before EXEC"
        await press(app, pilot, "escape", "colon")
        assert app.screen is not screen and intro(app).startswith("MULTI block · 3 queued"), "the block outlives esc"
        screen, prompt = app.screen, app.screen.query_one(ConsolePrompt)
        assert prompt.has_class("-block")
        await send(app, pilot, "EXEC")
        executed = screen.outcome
        assert isinstance(executed, Executed) and executed.undoable
        assert executed.lines == ("1) (empty array)", "2) (empty array)", f'3) "{NOW_MS + 99_000}"')
        reply = str(screen.query_one("#console-reply").content)
        assert reply.startswith(f"> MULTI\n> {EXTEND_JOB03}\n> EVALSHA") and reply.endswith(executed.lines[-1])
        assert intro(app) == INTRO and not prompt.has_class("-block") and not prompt.placeholder.startswith("(TX)")
        assert active(app)["JOB03"] == active(app)["JOB01"] == NOW_MS + 99_000, "the store pane follows"
        await press(app, pilot, "escape", "left")
        assert active(app) == before and app.dive.target == 0, "back undid the whole block, not a step"


@asynctest
async def test_discard_drops_the_block_and_exec_without_one_is_refused():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        before = active(app)
        await press(app, pilot, "colon")
        screen = app.screen
        for line in ("MULTI", EXTEND_JOB03, "DISCARD"):
            await send(app, pilot, line)
        assert isinstance(screen.outcome, Blocked) and screen.outcome.stand is Stand.DISCARDED
        assert intro(app) == INTRO and active(app) == before
        await send(app, pilot, "EXEC")
        assert isinstance(screen.outcome, Refusal) and "EXEC without MULTI" in screen.outcome.reason
        assert len(app.dive.recorder.entries) == 1, "nothing sent, nothing recorded but the step on screen"


@asynctest
async def test_x_writes_the_console_lines_sent_with_their_raw_replies(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "colon")
        for line in ("ZCARD $active", "MULTI", "TYPE $active", "EXEC"):
            await send(app, pilot, line)
        await press(app, pilot, "escape", "right", "x")
        kinds = [type(entry) for entry in app.dive.recorder.entries]
        assert kinds[1:3] == [Replied, Executed] and len(kinds) == 4
    written = list(tmp_path.glob("emq-dive-*.md"))
    assert len(written) == 1
    text = written[0].read_text(encoding="utf-8")
    read = "#### Console\n\n```\n> ZCARD $active\n(integer) 3\n```"
    block = "#### Console: a MULTI block of 1\n\n```\n> MULTI\n> TYPE $active\n> EXEC\n1) zset\n```"
    assert read in text and block in text
    assert text.index("### Step 0") < text.index(read) < text.index(block) < text.index("### Step 1")
