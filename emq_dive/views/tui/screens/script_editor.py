"""The script editor (``E``): the running Lua script, yours to change; saving restarts the dive on it, for real."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from ....course.user_state import UserState
from ....engine.stepper.user_script import ATOMIC_OFF, ScriptRefused
from ....engine.stores.kinds import kind_of
from ....present import yours
from ....present.session import Session
from ..widgets.lua_area import LuaArea, lua_grammar
from ..widgets.script_diff import ScriptDiff
from .dive_messages import FrameReady

ORIGINS = {"running": "your script, running now", "saved": "your saved copy (not running yet: ctrl+s runs it)",
           "course": "the course's script"}


@dataclass
class Ran(Message):
    """The store worker ran the edited script (or the course's again): the dive restarts on it."""

    loaded: yours.Loaded


@dataclass
class Stopped(Message):
    """The script was refused before anything changed: the message names its line."""

    reason: str


class ScriptEditor(Screen[yours.Loaded | None]):
    """Edits the Lua script the run sends: ctrl+s checks it, tries it on the store and runs it; esc leaves it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "run", "run your script", priority=True),
        Binding("ctrl+d", "diff", "diff to the course's", priority=True),  # over the text area's delete-right
        Binding("R", "restore", "course's script back (in the diff)"),
        Binding("ctrl+r", "restore", "course's script back", priority=True),
        Binding("escape", "leave", "leave, unchanged", priority=True),
    ]
    DEFAULT_CSS = """
    ScriptEditor #script-title { height: 1; background: $primary 30%; padding: 0 1; }
    ScriptEditor LuaArea { height: 1fr; }
    ScriptEditor ScriptDiff { display: none; }
    ScriptEditor.diffing ScriptDiff { display: block; }
    ScriptEditor.diffing LuaArea { display: none; }
    ScriptEditor #script-said { height: auto; max-height: 4; padding: 0 1; color: $text-muted; }
    ScriptEditor #script-said.bad { color: $text-error; text-style: bold; }
    """

    def __init__(self, session: Session, state: UserState, opened: yours.Opened) -> None:
        super().__init__()
        self.session, self.state, self.opened = session, state, opened
        self.said = ""
        """The editor's last word: a refusal with its line, or what it is doing."""

    def compose(self) -> ComposeResult:
        yield Static(f"{self.opened.name}.lua · {ORIGINS[self.opened.origin]}", id="script-title")
        yield LuaArea(self.opened.source, id="script-text")
        yield ScriptDiff(id="script-diff")
        plain = "" if lua_grammar() is not None else " (plain text: pip install 'emq-dive[lua]' for Lua colours)"
        here = "" if kind_of(self.session.store).app_started else f" · {ATOMIC_OFF}"
        self.said = f"ctrl+s runs it from step 0 on the store; esc leaves it unchanged{plain}{here}"
        yield Static(self.said, id="script-said")
        yield Footer()

    @property
    def text(self) -> str:
        """The script as edited now."""
        return self.query_one(LuaArea).text

    def say(self, words: str, bad: bool = False) -> None:
        self.said = words
        said = self.query_one("#script-said", Static)
        said.update(words)
        said.set_class(bad, "bad")

    def action_run(self) -> None:
        self.say("checking your script, then trying it on the store…")
        self._load(self.text)

    def action_restore(self) -> None:
        """Put the course's script back (R reaches here only from the diff: in the text area it types an R)."""
        self.say("putting the course's script back…")
        self._load(None)

    def action_diff(self) -> None:
        diffing = not self.has_class("diffing")
        self.set_class(diffing, "diffing")
        if diffing:
            lines = self.query_one(ScriptDiff).show(self.opened.name, self.opened.course, self.text)
            self.say(f"{sum(line[:1] in '+-' for line in lines[2:])} lines differ · R puts the course's back · "
                     "ctrl+d edits again")
            self.query_one(ScriptDiff).focus()
        else:
            self.query_one(LuaArea).focus()

    def action_leave(self) -> None:
        self.dismiss(None)

    @work(thread=True, group="store", exclusive=True, exit_on_error=False)
    def _load(self, source: str | None) -> None:
        try:
            with self.session.store.io():
                loaded = yours.restore(self.session, self.state) if source is None else \
                    yours.load(self.session, source, self.state)
        except ScriptRefused as refused:
            self.post_message(Stopped(str(refused)))
            return
        self.post_message(Ran(loaded))

    def on_stopped(self, message: Stopped) -> None:
        self.say(message.reason, bad=True)

    def on_ran(self, message: Ran) -> None:
        self.dismiss(message.loaded)


def open_script_editor(app: App[Any], session: Session) -> None:
    """``E``: the running script in $EDITOR when it is set (the app suspended), else in the editor screen."""
    from .dive import DiveScreen

    dive = next(s for s in app.screen_stack if isinstance(s, DiveScreen))
    state = UserState.from_environ()
    try:
        opened = yours.opened(session, state)
    except ScriptRefused as refused:
        app.notify(str(refused), title="not here", timeout=6)
        return
    dive.playing = False

    def ran(loaded: yours.Loaded | None) -> None:
        if loaded is not None:
            dive.post_message(FrameReady(dive.moves.adopt(loaded.frame)))
            words = f"{loaded.script.file} runs from step 0" if loaded.script.yours else \
                f"the course's {loaded.script.file} runs again"
            app.notify(f"{words}; {loaded.saved}", title="the script", timeout=6)

    editor = os.environ.get("EDITOR", "").strip()
    if editor and not app.is_headless:
        source = _in_editor(app, editor, opened)
        if source is not None:  # None: the editor could not run, so the app's own opens
            if source != opened.source:
                screen = ScriptEditor(session, state, yours.Opened(opened.name, source, opened.course, opened.origin))
                app.push_screen(screen, ran)
                screen.call_after_refresh(screen.action_run)  # refused, it stays open on your text with the reason
            return
    app.push_screen(ScriptEditor(session, state, opened), ran)


def _in_editor(app: App[Any], editor: str, opened: yours.Opened) -> str | None:
    """Edit a copy of the script in ``editor`` with the app suspended: the text saved, or None if it could not run."""
    with tempfile.TemporaryDirectory(prefix="emq-dive-") as folder:
        path = Path(folder) / f"{opened.name}.lua"
        path.write_text(opened.source, encoding="utf-8")
        try:
            with app.suspend():
                subprocess.run([*shlex.split(editor), str(path)], check=False)
        except Exception as err:  # no terminal to hand over (the browser), or no such editor: the app's own
            app.notify(f"$EDITOR ({editor}) did not run: {err}; using the app's editor", timeout=6)
            return None
        return path.read_text(encoding="utf-8")
