"""The plain mode's script command (E): load your edited Lua script from a file or your saved copy, or the course's."""

from __future__ import annotations

from pathlib import Path

from ....course.user_state import UserState
from ....engine.stepper.user_script import ScriptRefused, diff
from ....present import yours
from .state import Dive

USAGE = ("E FILE runs your edit of the script from that file, E saved runs your saved copy, E course puts the "
         "course's back; each restarts the dive at step 0 (E ./saved reads a file named saved)")


def script(dive: Dive, _key: str, argument: str) -> None:
    """Say which script runs, or load one: ``E FILE``, ``E saved`` or ``E course``."""
    session, state, argument = dive.session, UserState.from_environ(), argument.strip()
    try:
        opened = yours.opened(session, state)
    except ScriptRefused as refused:
        dive.say(f"{refused}.")
        return
    if not argument:
        changed = diff(opened.name, opened.course, opened.source)
        differs = f", {sum(line[:1] in '+-' for line in changed[2:])} lines differ from the course's" if changed else ""
        dive.say(f"The run sends {opened.name}.lua: {yours.ORIGINS_SAID[opened.origin]}{differs}. {USAGE}.")
        return
    if argument == "course":
        with session.store.io():
            loaded = yours.restore(session, state)
        dive.say(f"The course's {opened.name}.lua runs again from step 0; {loaded.saved}.")
        dive.show(loaded.frame)
        return
    source = _source(dive, state, opened.name, argument)
    if source is None:
        return
    try:
        with session.store.io():
            loaded = yours.load(session, source, state)
    except ScriptRefused as refused:
        dive.say(f"Your script was not run: {refused}.")
        return
    dive.say(f"{loaded.script.file.capitalize()} runs from step 0, stepped for real; {loaded.saved}.")
    dive.show(loaded.frame)


def _source(dive: Dive, state: UserState, name: str, argument: str) -> str | None:
    """The text ``argument`` names (your saved copy, or a file), or None after saying why there is none."""
    if argument == "saved":
        saved = state.read_script(dive.session.lesson.id, name)
        if saved is None:
            dive.say(f"You have no saved copy of {name}.lua ({state.reason or 'none in your data directory'}); "
                     "nothing was changed.")
        return saved
    try:
        return Path(argument).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        dive.say(f"Cannot read {argument}: {getattr(err, 'strerror', None) or err}; nothing was changed.")
        return None
