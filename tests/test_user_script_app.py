"""Pilot tests: E opens the running script, ctrl+s restarts the dive stepping yours, a refusal keeps the old one."""

from __future__ import annotations

from typing import ClassVar

from emq_dive.engine.stepper import Verdict
from emq_dive.engine.stepper.user_script import changed_lines, course_script
from emq_dive.views.tui.screens.script_editor import ScriptEditor
from emq_dive.views.tui.widgets.code_pane import CodePane
from emq_dive.views.tui.widgets.code_source import plain_source
from emq_dive.views.tui.widgets.lua_area import LuaArea, lua_grammar
from emq_dive.views.tui.widgets.script_diff import ScriptDiff
from tests.test_user_script import NO_GUARD
from tests.tui_support import SIZE, asynctest, dive, frozen_app, press, settle

COURSE = course_script("extend_locks").source


@asynctest
async def test_edit_run_refuse_and_restore_the_script_in_the_app(tmp_path, monkeypatch):
    monkeypatch.setenv("EMQ_DIVE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("EDITOR", raising=False)
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "E")
        editor = app.screen
        assert isinstance(editor, ScriptEditor) and editor.opened.origin == "course"
        area = editor.query_one(LuaArea)
        assert area.text == COURSE and area.highlighted == (lua_grammar() is not None)
        await press(app, pilot, "R", "E")  # in the text area R and E are letters typed, not keys of the dive
        assert app.screen is editor and area.text.startswith("RE") and editor.said.startswith("ctrl+s")
        area.load_text(NO_GUARD)
        await press(app, pilot, "ctrl+s")
        screen = dive(app)
        assert app.screen is screen
        mine = screen.session.yours["extend_locks"]
        await press(app, pilot, "end")
        step = screen.frame.step
        assert step.code == mine.file and step.members[3].verdict is Verdict.RESCORED
        assert screen.frame.agreement is not None and screen.frame.agreement.agree
        pane = screen.query_one(CodePane)
        assert str(pane.border_title).startswith("your script")
        changed = changed_lines(COURSE, NO_GUARD)
        assert plain_source(mine.file).changed == changed and len(changed) == 1
        await press(app, pilot, "home", "right")  # member 1's step: the edited check is on screen
        assert any(line.lstrip().startswith(f"{min(changed)}*") for line in pane.render().plain.splitlines())
        assert (tmp_path / "data" / "scripts" / "batches-03" / "extend_locks.lua").read_text() == NO_GUARD

        await press(app, pilot, "E")
        editor = app.screen
        assert isinstance(editor, ScriptEditor) and editor.opened.origin == "running"
        editor.query_one(LuaArea).load_text("local x = \n")
        await press(app, pilot, "ctrl+s")
        assert app.screen is editor and "Lua syntax error, extend_locks.lua:2:" in editor.said
        assert screen.session.yours["extend_locks"] is mine and screen.frame.step.code == mine.file

        await press(app, pilot, "ctrl+d")
        assert editor.has_class("diffing") and editor.query_one(ScriptDiff).has_focus
        await press(app, pilot, "R")
        assert app.screen is screen and screen.session.yours == {}
        assert screen.frame.step.index == 0
        await press(app, pilot, "end")
        assert screen.frame.step.code == "extend_locks.lua"
        assert not (tmp_path / "data" / "scripts" / "batches-03" / "extend_locks.lua").exists()


@asynctest
async def test_on_wire_6_E_says_the_native_twin_is_not_a_lua_script(monkeypatch):
    monkeypatch.delenv("EDITOR", raising=False)
    notices: list[str] = []
    app = frozen_app(wire=6)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.notify = lambda message, **_: notices.append(message)  # type: ignore[method-assign]
        await press(app, pilot, "E")
        assert app.screen is dive(app)
        assert notices and "wire 6 runs the native twin" in notices[0]


def test_EDITOR_edits_a_copy_with_the_app_suspended_and_hands_back_its_text():
    import contextlib

    from emq_dive.present.yours import Opened
    from emq_dive.views.tui.screens.script_editor import _in_editor

    class App:
        suspended = 0
        notes: ClassVar[list[str]] = []

        @contextlib.contextmanager
        def suspend(self):
            App.suspended += 1
            yield

        def notify(self, message, **_):
            App.notes.append(message)

    opened = Opened("extend_locks", COURSE, COURSE, "course")
    text = _in_editor(App(), "sh -c 'echo \"-- mine\" >> \"$0\"'", opened)  # type: ignore[arg-type]
    assert text == COURSE + "-- mine\n" and App.suspended == 1
    assert _in_editor(App(), "/nonexistent/editor", opened) is None and "did not run" in App.notes[0]
