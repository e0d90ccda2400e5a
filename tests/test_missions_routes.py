"""Pilot tests: the console and the script editor missions, each reached by its route and not by a wrong one."""

from __future__ import annotations

import pytest

from emq_dive.engine.stepper.outcome import Reason, Verdict
from emq_dive.engine.stepper.user_script import course_script
from emq_dive.present import missions as mp
from emq_dive.present.console_block import Executed
from emq_dive.views.tui.app import make_app
from emq_dive.views.tui.screens.script_editor import ScriptEditor
from emq_dive.views.tui.widgets.lua_area import LuaArea
from tests.test_console_app import send
from tests.test_missions_app import NUMBERS, _state, begin, done_ids, run_fate  # noqa: F401 (the data dir fixture)
from tests.tui_support import SIZE, asynctest, dive, frozen_app, lesson, press, settle

COURSE = course_script("extend_locks").source
GUARD = "if att and att == token -- @check-token\n    and redis.call('ZSCORE', active, id) then -- @check-active"
NO_GUARD = "if att and att == token then -- @check-token"


def attempts(app, job: str) -> str:
    """The attempts of ``job``'s row as the store pane read it."""
    row = next(r for r in dive(app).frame.view.rows if r.id == job)
    return str(dict(row.fields)["attempts"])


async def console(app, pilot, *lines: str) -> None:
    """Open the console, send ``lines`` one by one, and close it."""
    await press(app, pilot, "colon")
    for line in lines:
        await send(app, pilot, line)
    await press(app, pilot, "escape")


@asynctest
async def test_token_string_by_a_console_token_of_01_and_not_by_1():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, "token-string")
        held = attempts(app, "JOB01")
        await console(app, pilot, f"EVALSHA $sha 2 $active $base $lease JOB01 {held}")
        assert not app.missions.tracker.met_now and "token-string" not in done_ids(), "the same string: re-scored"
        await console(app, pilot, f"EVALSHA $sha 2 $active $base $lease JOB01 0{held}")
        assert app.missions.tracker.met_now and "token-string" in done_ids()


async def _edit_guard(app, pilot, old: str, new: str) -> None:
    """Open the editor with E, replace ``old`` by ``new`` in its text area, and save with ctrl+s."""
    await press(app, pilot, "E")
    editor = app.screen
    assert isinstance(editor, ScriptEditor)
    area = editor.query_one(LuaArea)
    text = area.text
    at = text.index(old)
    before = text[:at].split("\n")
    start = (len(before) - 1, len(before[-1]))
    lines = old.split("\n")
    end = (start[0] + len(lines) - 1, (start[1] if len(lines) == 1 else 0) + len(lines[-1]))
    area.replace(new, start, end)
    assert area.text == text.replace(old, new, 1)
    await press(app, pilot, "ctrl+s")
    assert app.screen is dive(app), getattr(app.screen, "said", "")


def _reaped(app):
    return next(m for m in dive(app).frame.step.members if m.id == "JOB04")


@asynctest
async def test_guard_back_by_your_script_without_then_with_the_guard_and_not_by_g_alone():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, "guard-back")
        await press(app, pilot, "g", "end")
        assert app.missions.tracker.stage == 1, "the what-if resurrects the reaped lease: part 1"
        await press(app, pilot, "g", "end")
        assert _reaped(app).reason is Reason.NOT_ACTIVE, "the course's guard, not yours"
        assert not app.missions.tracker.met_now and "guard-back" not in done_ids()

        await press(app, pilot, "r")
        assert app.missions.tracker.stage == 0
        await _edit_guard(app, pilot, GUARD, NO_GUARD)
        await press(app, pilot, "end")
        assert _reaped(app).verdict is Verdict.RESCORED and app.missions.tracker.stage == 1
        assert not app.missions.tracker.met_now
        await _edit_guard(app, pilot, NO_GUARD, GUARD)
        await press(app, pilot, "end")
        step = dive(app).frame.step
        assert step.code == dive(app).session.yours["extend_locks"].file and step.code != "extend_locks.lua"
        assert _reaped(app).reason is Reason.NOT_ACTIVE
        assert app.missions.tracker.met_now and "guard-back" in done_ids()


@asynctest
async def test_cached_clock_is_skipped_on_fakeredis_and_its_block_says_why():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        number = NUMBERS["cached-clock"]
        entry = app.missions.tracker.entries()[number - 1]
        assert "not a server process" in entry.skipped
        app.missions.start(number)
        await settle(app, pilot)
        assert app.missions.tracker.current is None
        assert any("cached-clock" in n.message or "cached clock" in n.message.lower() for n in app._notifications)
        await press(app, pilot, "colon")
        screen = app.screen
        for line in ("MULTI", "EMQ.EXTENDS 2 $active $base $lease JOB01 1",
                     "EMQ.EXTENDS 2 $active $base $lease JOB03 1", "EXEC"):
            await send(app, pilot, line)
        assert isinstance(screen.outcome, Executed) and "cannot show" in screen.outcome.note
        assert "cached-clock" not in done_ids()


def _next_millisecond(store) -> None:
    """Read the server's TIME until its millisecond moves on (no sleep): two sends apart cannot share one."""
    def ms() -> int:
        seconds, micros = store.client.time()
        return seconds * 1000 + micros // 1000

    start = ms()
    while ms() == start:
        pass


@pytest.mark.server
@asynctest
async def test_cached_clock_by_one_multi_then_two_sends_apart_on_valkey(embedded_store):
    store = embedded_store
    if not store.native:
        pytest.skip(f"wire 6 is not served here: {store.native_reason}")
    app = make_app(lesson(), store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, "cached-clock")
        one, three = attempts(app, "JOB01"), attempts(app, "JOB03")
        tracker = app.missions.tracker
        first = f"EMQ.EXTENDS 2 $active $base $lease JOB01 {one}"
        await console(app, pilot, first)
        _next_millisecond(store)
        await console(app, pilot, first)
        assert tracker.stage == 0, "apart first: the parts go in order"
        await console(app, pilot, "MULTI", first, first, "EXEC")
        assert tracker.stage == 0, "one job twice in a block: the first deadline is overwritten, never read back"
        await console(app, pilot, "MULTI", first, f"EMQ.EXTENDS 2 $active $base $lease JOB03 {three}", "EXEC")
        assert tracker.stage == 1, "two jobs in one MULTI share the server's cached command time"
        await console(app, pilot, "MULTI", first, "ZSCORE $active JOB01", first, "ZSCORE $active JOB01", "EXEC")
        assert tracker.stage == 1 and not tracker.met_now
        await console(app, pilot, first)
        _next_millisecond(store)
        await console(app, pilot, first)
        assert tracker.met_now and "cached-clock" in done_ids()


@pytest.mark.server
@asynctest
async def test_noperm_by_the_restricted_caller_and_not_by_a_live_one_on_a_server(server_store):
    store = server_store
    if not store.native:
        pytest.skip(f"wire 6 is not served here: {store.native_reason}")
    assert mp.unsupported(next(m for m in lesson().missions if m.id == "noperm"), store) == ""
    app = make_app(lesson(), store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, "noperm")
        await run_fate(app, pilot, "live")
        assert not app.missions.tracker.met_now
        await press(app, pilot, "escape")
        await run_fate(app, pilot, "restricted")
        assert app.missions.tracker.met_now and "noperm" in done_ids()


def _plain(store, lines: list[str]) -> str:
    """What the plain mode says for ``lines`` typed one after another."""
    from tests.test_console import plain_on

    said, _dive = plain_on(store, "".join(f"{line}\n" for line in lines))
    return said


def test_token_string_in_the_plain_mode_by_01_and_not_by_1(fake_store):
    number = NUMBERS["token-string"]
    said = _plain(fake_store, [f"missions {number}", ": EVALSHA $sha 2 $active $base $lease JOB01 1", "q"])
    assert "EVALSHA answered" in said and "Mission met" not in said and "token-string" not in done_ids()
    said = _plain(fake_store, [f"missions {number}", ": EVALSHA $sha 2 $active $base $lease JOB01 01", "q"])
    assert "Mission met: A string compare. This proves:" in said and "token-string" in done_ids()


def test_guard_back_in_the_plain_mode_by_your_script_and_not_by_g_alone(fake_store, tmp_path):
    number = NUMBERS["guard-back"]
    said = _plain(fake_store, [f"missions {number}", "g", "end", "g", "end", "q"])
    assert "JOB04" in said and "Mission met" not in said and "guard-back" not in done_ids()
    without, mine = tmp_path / "without.lua", tmp_path / "mine.lua"
    without.write_text(COURSE.replace(GUARD, NO_GUARD))
    mine.write_text(COURSE)  # the guard put back by hand: your copy, the course's text
    said = _plain(fake_store, [f"missions {number}", f"E {without}", "end", f"E {mine}", "end", "q"])
    assert said.count("runs from step 0, stepped for real") == 2
    assert "Mission met: Your guard. This proves:" in said and "guard-back" in done_ids()


def test_your_script_is_the_engines_record_of_your_edit_not_any_file_name(fake_store):
    from dataclasses import replace

    from emq_dive.course.mission_goals import Stage
    from emq_dive.engine.echo_mq import scripts
    from emq_dive.present.mission_check import Seen, holds
    from emq_dive.present.session import Session

    frame = Session(fake_store, lesson()).open(0)
    yours = Stage(script="yours")
    mine = scripts.edited(course_script("extend_locks"), COURSE.replace(GUARD, NO_GUARD))
    assert holds(yours, Seen(frame=replace(frame, step=replace(frame.step, code=mine.file))))
    for code in ("extend_locks.lua", "reaper.lua", "your extend_locks.lua @0000000"):
        assert not holds(yours, Seen(frame=replace(frame, step=replace(frame.step, code=code)))), code


def test_a_sends_deadlines_are_read_back_never_guessed(fake_store):
    from emq_dive.present.console import Console
    from emq_dive.present.console_seen import seen_sent
    from emq_dive.present.session import Session

    session = Session(fake_store, lesson())
    session.open(0)
    console = Console(session)
    extend = "EMQ.EXTENDS 2 $active $base 99000 JOB01 1"
    with fake_store.io():
        for line in ("MULTI", extend, extend, "ZSCORE $active JOB01"):
            assert console.run(line)[1] is None, "queued: nothing sent"
        outcome, frame = console.run("EXEC")
        twice = seen_sent(outcome, frame)
        outcome, frame = console.run("ZCARD $active")
        read = seen_sent(outcome, frame)
    assert twice is not None and twice.sent is not None and twice.sent.multi
    deadline = 1_700_000_099_000
    assert twice.sent.deadlines == (None, deadline, None), "the first write was overwritten before any read"
    assert read is not None and read.sent is not None and read.sent.deadlines == (None,), "a read writes no deadline"
