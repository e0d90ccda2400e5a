"""Pilot tests: the locals pane beside the code, changed ones marked; b marks a line, space plays to it."""

from __future__ import annotations

from emq_dive.views.tui.widgets.code_pane import CodePane
from emq_dive.views.tui.widgets.locals_pane import LocalsPane
from tests.tui_support import SIZE, asynctest, dive, frozen_app, press, settle, showing


def pane(app) -> LocalsPane:
    return dive(app).query_one(LocalsPane)


def marked(app) -> dict[str, tuple[str, bool]]:
    return {one.name: (one.value, one.changed) for one in pane(app).shown}


def rows(widget) -> list[str]:
    return [widget.render_line(y).text for y in range(widget.size.height)]


def said(widget) -> str:
    """The pane's rows as the learner reads them, a wrapped sentence whole again."""
    return " ".join(row.strip() for row in rows(widget) if row.strip())


async def play(app, pilot) -> int:
    """Press space and let the pace's timer tick (called, not waited for) until the run pauses; the step it stops at."""
    screen = dive(app)
    before = screen.step.index
    await press(app, pilot, "space")
    assert screen.playing or screen.step.index > before, "space plays (on a slow machine its timer may tick already)"
    for _ in range(10):
        if not screen.playing:
            break
        screen._tick()
        await settle(app, pilot)
    assert not screen.playing
    return screen.step.index


@asynctest
async def test_the_locals_pane_shows_the_scripts_locals_and_marks_the_changed_ones():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert showing(pane(app)) and "no Lua locals yet: the handle is Python" in said(pane(app))
        await press(app, pilot, "right")
        assert pane(app).border_title == "locals · line 22"
        assert marked(app)["now"] == ("1700000000000", True) and marked(app)["att"] == ('"1"', True)
        await press(app, pilot, "right")
        assert pane(app).border_title == "locals · line 19"
        assert {name for name, (_, changed) in marked(app).items() if changed} == {"i", "id", "row"}
        assert marked(app)["i"] == ("4", True) and marked(app)["token"] == ('"1"', False)
        text = "\n".join(rows(pane(app)))
        assert '*i      4' in text and '*id     "JOB02"' in text and ' token  "1"' in text
        assert '*row    "emq:{q}:job:JOB' in text, "the queue's base whole once, then as the lesson writes it"
        await press(app, pilot, "left")
        assert marked(app)["att"] == ('"1"', True), "back shows the step as it was"


@asynctest
async def test_on_the_native_wire_the_pane_says_there_are_no_lua_locals():
    app = frozen_app(wire=6)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right")
        assert pane(app).shown == ()
        assert "no Lua locals: EMQ.EXTENDS is C inside the server" in said(pane(app))


@asynctest
async def test_b_marks_the_highlighted_line_and_space_plays_to_the_next_step_that_runs_it():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right")
        code = dive(app).query_one(CodePane)
        assert dive(app).step.focus == 22
        await press(app, pilot, "b")
        assert code.breakpoints == {("extend_locks.lua", 22)}
        assert any(row.startswith("22●>") for row in (r.strip() for r in rows(code)))
        await press(app, pilot, "home")
        assert await play(app, pilot) == 1, "step 1 re-scores JOB01 on line 22"
        assert await play(app, pilot) == 2, "JOB02 fails on the way to the next"
        assert await play(app, pilot) == 3 and 22 in dive(app).step.lines
        await press(app, pilot, "b")
        assert code.breakpoints == frozenset() and not any("●" in row for row in rows(code))


@asynctest
async def test_space_stops_at_a_failing_member_and_pauses_on_a_second_press():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert await play(app, pilot) == 2, "JOB02 is stale: the run pauses on it"
        assert dive(app).step.members[1].verdict.value == "failed"
        screen = dive(app)
        await pilot.press("space")
        assert screen.playing
        await pilot.press("space")
        assert not screen.playing, "space still pauses"


@asynctest
async def test_at_80x24_the_locals_are_a_row_under_the_code_the_changed_ones_first():
    app = frozen_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right", "right")
        locals_pane, code = pane(app), dive(app).query_one(CodePane)
        assert showing(locals_pane) and locals_pane.size.height == 1 and locals_pane.flowing
        assert locals_pane.region.y >= code.region.bottom and code.content_size.height >= 1, "the code keeps its line"
        assert rows(locals_pane)[0].lstrip().startswith('i*=4  id*="JOB02"  row*=')


@asynctest
async def test_at_80x24_a_step_without_locals_says_why_whole_in_fewer_words():
    """The one row cannot hold the whole reason, so the pane says the brief one, every word of it on show."""
    for wire, brief in ((4, "no Lua locals yet: the handle is Python"), (6, "no Lua locals: EMQ.EXTENDS is C")):
        app = frozen_app(wire=wire)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            if wire == 6:
                await press(app, pilot, "right")
            locals_pane = pane(app)
            assert locals_pane.size.height == 1 and dive(app).step.no_locals.startswith(brief)
            assert said(locals_pane) == brief
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert said(pane(app)) == dive(app).step.no_locals, "where the rows hold it, the whole reason"
