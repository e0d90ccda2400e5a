"""Pilot tests: what the screen shows is whole and true at 120×40 and 80×24, and says so below 80×24."""

from __future__ import annotations

from emq_dive.engine.fates import FATES
from emq_dive.engine.stepper import Failed, Member, Passed, Reason, Verdict
from emq_dive.engine.stores import open_store
from emq_dive.views.tui.app import make_app
from emq_dive.views.tui.screens.fate_view import FateView
from emq_dive.views.tui.screens.too_small import TooSmall
from emq_dive.views.tui.widgets.batch_table import BatchTable, cells, tiers
from emq_dive.views.tui.widgets.code_pane import CodePane
from emq_dive.views.tui.widgets.store_pane import StorePane
from emq_dive.views.tui.widgets.wire_pane import WirePane
from tests.tui_support import (
    FROZEN,
    SIZE,
    THEME,
    asynctest,
    dive,
    frozen_app,
    lesson,
    press,
    screen_text,
    settle,
    shown,
)


def last_reply(call, now: int | None = None) -> str:
    """The tail of the line a call's reply ends, as the wire pane wraps it (clock values relative to ``now``)."""
    from emq_dive.engine.echo_mq.render import reply_text
    from emq_dive.views.tui.widgets.shorthand import Shorthand

    return reply_text(Shorthand("", now).reply(call.reply))[-12:]


def window(pane: WirePane) -> str:
    """The lines of the pane on show."""
    return "\n".join(line.plain for line in pane.lines[pane.top: pane.top + pane.content_size.height])


@asynctest
async def test_each_steps_calls_are_on_screen_and_its_last_reply_at_the_bottom_edge():
    for size in (SIZE, (80, 24)):
        for wire in (4, 6):
            app = frozen_app(wire=wire)
            async with app.run_test(size=size) as pilot:
                await settle(app, pilot)
                screen = dive(app)
                pane = screen.query_one(WirePane)
                while not screen.step.done:
                    await press(app, pilot, "right")
                    step = screen.step
                    text = screen_text(app)
                    assert pane.hidden_below == 0, (size, wire, step.index)
                    if step.done:
                        assert "the reply:" in text
                    elif step.calls:
                        assert last_reply(step.calls[-1], step.now) in window(pane), (size, wire, step.index)
                    if size == SIZE:  # every call of the step, whole, at 120×40
                        for call in step.calls:
                            assert f"{call.source}:{call.line}" in text, (wire, step.index, call)
                    if pane.hidden_above:
                        assert f"↑{pane.hidden_above} more" in text


@asynctest
async def test_the_wire_pane_scrolls_from_the_keyboard_and_says_what_is_out_of_sight():
    app = frozen_app(step=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        pane = screen.query_one(WirePane)
        assert pane.hidden_above and f"↑{pane.hidden_above} more · tab, ↑↓" in screen_text(app)
        while not pane.has_focus:
            await press(app, pilot, "tab")
        await press(app, pilot, "up", "up")
        for _ in range(8):  # a page at a time, as far as the pane's height at this size takes it
            if pane.top:
                await press(app, pilot, "pageup")
        assert pane.top == 0 and "the command: EVALSHA" in screen_text(app)
        assert f"↓{pane.hidden_below} more · ↑↓ scroll" in screen_text(app)
        await press(app, pilot, "right")
        assert pane.hidden_below == 0 and screen.step.index == 2


@asynctest
async def test_the_store_pane_at_80x24_scrolls_to_pending_and_the_rows():
    app = frozen_app(step=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        store = screen.query_one(StorePane)
        assert store.hidden_below and "more · tab, ↑↓" in screen_text(app)
        while not store.has_focus:
            await press(app, pilot, "tab")
        await press(app, pilot, "end")  # the pane's own End: its last line, the run stays at step 2
        assert "JOB04 1" in screen_text(app) and store.hidden_below == 0 and screen.step.index == 2
        await press(app, pilot, "up")
        assert "JOB03 1" in screen_text(app)
        for _ in range(3):  # up a line at a time to the rows' header, as far as the pane's height needs
            if "rows" not in screen_text(app):
                await press(app, pilot, "up")
        assert "rows" in screen_text(app)
        assert "pending (1)" in store.full_text()


@asynctest
async def test_no_verdict_or_reply_is_cut_at_120x40():
    app = frozen_app(batch=("live", "wrongtype", "live"), wire=6)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right")
        text = screen_text(app)
        assert "live: write pass re-scores" in text  # the longest phrasing that fits beside the lesson
    app = frozen_app(batch=("live", "wrongtype", "live"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "end")
        text = screen_text(app)
        message = dive(app).step.error
        assert message.startswith("WRONGTYPE")
        assert "WRONGTYPE ✗" in text and "the run stops here" in text
        bar = " ".join(" ".join(line[:86] for line in text.split("\n")[1:7]).split())
        assert f"the run stops with an error: {message}" in bar
    app = frozen_app(step=4)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = screen_text(app)
        assert "the atomic run agrees: the same store, the same reply" in text
        assert "…" not in text.split("\n")[4]
        assert '["JOB02", "JOB04"]' in text


@asynctest
async def test_hiding_the_lesson_widens_the_verdicts():
    app = frozen_app(batch=("live", "live"), wire=6, step=1)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        table = dive(app).query_one(BatchTable)
        narrow = table._columns()[-1][1]
        assert "live: re-scored in the write pass" not in screen_text(app)
        await press(app, pilot, "l")
        assert table._columns()[-1][1] > narrow
        assert "live: re-scored in the write pass" in screen_text(app)


def test_a_refused_commands_live_members_read_not_written():
    member = Member(0, "JOB01", "1", ran=True, row=Passed(b"1"), match=Passed(b"1"), active=Passed(b"1700000010000"),
                    verdict=Verdict.NOT_WRITTEN)
    assert cells(member, 1_700_000_000_000, 40)[-1] == ("not written: the command was refused", "dim")
    assert cells(member, 1_700_000_000_000, 26)[-1][0] == "not written: refused"


def test_two_members_that_fail_alike_are_worded_alike_in_a_narrow_column():
    now = 1_700_000_000_000
    stale = Member(0, "JOB01", "2", ran=True, row=Passed(b"1"), match=Failed(b"1"), verdict=Verdict.FAILED,
                   reason=Reason.STALE)
    inactive = Member(1, "JOB02", "1", ran=True, row=Passed(b"1"), match=Passed(b"1"), active=Failed(None),
                      verdict=Verdict.FAILED, reason=Reason.NOT_ACTIVE)
    width = len("joins failed (stale)")  # the stale one's long wording fits, the not-active one's does not
    assert cells(stale, now, width)[-1][0] == "joins failed (stale)"  # alone, each takes the longest that fits
    tier = tiers([stale, inactive], now, width)[Verdict.FAILED]
    assert [cells(m, now, width, tier)[-1][0] for m in (stale, inactive)] == ["failed: stale", "failed: not-active"]
    assert tiers([stale], now, width) == {Verdict.FAILED: 0}


@asynctest
async def test_a_lapsed_lease_that_still_passes_says_why():
    clock = [FROZEN]
    store = open_store("fakeredis", clock=lambda: clock[0], queue="dive-lapsed", run_id="0" * 40)
    app = make_app(lesson(), store, theme=THEME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        clock[0] = FROZEN + 25  # the claims' 10 s leases ran out 15 s ago
        await press(app, pilot, "right")
        text = shown(app)
        assert "now-15000 ✓" in screen_text(app)
        assert "JOB01's lease ran out 15000 ms ago" in text
        assert "the check is membership of active, not the deadline, and no reaper has moved it back" in text
        assert "lease ran out 15000 ms ago" in screen_text(app)
    store.close()


@asynctest
async def test_wire_6_marks_the_clock_probe_as_a_stand_in():
    app = frozen_app(wire=6, step=1)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = screen_text(app)
        assert "≈ native:" in text and "TIME" in text
        assert "≈ stand-in for the module's in-process cached clock, not sent by EMQ.EXTENDS" in shown(app)


@asynctest
async def test_below_80x24_one_message_says_how_big_and_goes_away_when_resized():
    app = frozen_app(step=2)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, TooSmall)
        text = screen_text(app)
        assert "make the terminal at least 80×24 (now 60×20)" in text
        assert "not evaluated" not in text and "JOB04" not in text
        await pilot.resize_terminal(40, 12)
        await settle(app, pilot)
        assert "(now 40×12)" in " ".join(screen_text(app).split())
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        assert app.screen is dive(app)
        text = screen_text(app)
        assert "? help" in text and "q quit" in text and "verdict" in text


@asynctest
async def test_the_fate_views_member_list_follows_the_keyboard():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        index = [f.key for f in FATES].index("stale")
        await press(app, pilot, "f", *["down"] * index, "enter")
        view = app.screen
        assert isinstance(view, FateView)
        options = view.query_one("#members")
        assert app.focused is options and options.highlighted is None
        await press(app, pilot, "enter")
        assert app.screen is view, "enter gives no member the learner has not highlighted"
        await press(app, pilot, "end")
        assert options.highlighted == 3
        shown_rows = screen_text(app)
        assert "JOB04  now reaped" in shown_rows
        assert "give this fate to a member" in shown_rows
        await press(app, pilot, "enter")
        assert app.screen is dive(app)
        assert dive(app).session.fates == ("live", "stale", "live", "stale")


@asynctest
async def test_wire_6_on_a_server_labels_the_modules_lines_and_marks_its_stand_ins(server_store):
    app = make_app(lesson(), server_store, wire=6, theme=THEME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right")
        screen = dive(app)
        text = screen_text(app)
        assert screen.query_one(CodePane).border_subtitle in text  # the caption, whole
        assert screen.query_one(CodePane).border_subtitle.startswith("the steps run its twin, native.py")
        entries = screen.query_one(WirePane).full_text()
        labels = [line for line in entries.split("\n") if "HGET" in line and "ACL" not in line]
        assert labels and all(line.startswith("module:307  HGET") for line in labels), labels
        assert "module:307  HGET" in text and "native:" not in entries
        probes = [call for call in screen.step.calls if call.sent[0] in (b"ACL", b"TIME")]
        assert probes, screen.step.calls
        assert "≈ module:355  TIME" in entries  # the wire pane's own lines (it scrolls to show them)
        if server_store.acl:
            assert "≈ module:375  ACL" in entries
        words = shown(app)
        kinds = "cached clock and permission check" if server_store.acl else "cached clock"
        assert f"for the module's in-process {kinds}, not sent by EMQ.EXTENDS" in words
        for note in screen.step.notes:
            assert f"note: {note}" in words


def test_a_scroll_thumb_covers_the_share_on_show_where_it_is_shown() -> None:
    from emq_dive.views.tui.widgets.scrolled import thumb

    assert thumb(0, 10, 10) == (0, 0), "everything fits: no thumb"
    assert thumb(0, 10, 40) == (0, 2) and thumb(30, 10, 40) == (8, 10), "a quarter on show, at each end"
    assert thumb(15, 10, 40) == (4, 6)
