"""The script editor's moves on a session: run the learner's script (checked and tried first) or the course's again."""

from __future__ import annotations

from dataclasses import dataclass

from ..course.user_state import StateProblem, UserState
from ..engine.echo_mq import scripts
from ..engine.stepper import Stepper
from ..engine.stepper.modes import RUN_MODES, choose
from ..engine.stepper.user_script import ScriptRefused, checked, course_script, fault
from .session import Frame, Session

SCRIPT_OF_MODE = {"batch": "extend_locks", "singles": "extend_lock"}
"""The Lua script each run mode sends on wire 4; guard off edits the batch's (saving turns the guard back on)."""
NATIVE_REFUSAL = ("wire 6 runs the native twin (native.py, the C module), not a Lua script: press w for wire 4 "
                  "to edit the script")


ORIGINS_SAID = {"running": "your script, running now", "saved": "the course's, and your saved copy waits",
                "course": "the course's script"}
"""Each origin of the script the editor opens, in words."""


@dataclass(frozen=True)
class Opened:
    """What the editor opens: the script's name, its text, the course's text, and where that text came from."""

    name: str
    source: str
    course: str
    origin: str
    """``running`` (your edit runs now), ``saved`` (your saved copy, not running yet) or ``course``."""


@dataclass(frozen=True)
class Loaded:
    """A script the dive now runs from step 0, and what became of saving it."""

    frame: Frame
    script: scripts.Script
    saved: str
    """Where your copy was saved (or deleted, for the course's), or why it was not."""


def script_name(session: Session) -> str:
    """The name of the Lua script the session's run sends, or ScriptRefused on the native wire."""
    if session.wire != 4:
        raise ScriptRefused(NATIVE_REFUSAL)
    return SCRIPT_OF_MODE[session.run_mode]


def opened(session: Session, state: UserState) -> Opened:
    """The script ``E`` opens: your edit that runs, else your saved copy, else the course's."""
    name = script_name(session)
    course = course_script(name).source
    if name in session.yours:
        return Opened(name, session.yours[name].source, course, "running")
    saved = state.read_script(session.lesson.id, name)
    return Opened(name, saved, course, "saved") if saved is not None else Opened(name, course, course, "course")


def tried(session: Session, script: scripts.Script) -> None:
    """Step ``script`` through the held list on the live store and back again; ScriptRefused (the old script back
    where it stood) when it stops on a Lua error, a runaway, or a key it may not send."""
    stepper = session.stepper
    assert stepper is not None
    position = stepper.position
    stepper.home()
    trial = Stepper(session.store, session.held, session.lesson.lease_ms, session.wire,
                    choose(session.run_mode, False, session.wire), {**session.yours, script.name: script})
    try:
        try:
            end = trial.end()
        finally:
            trial.home()
        if fault(end.error) is not None:
            raise ScriptRefused(f"your script stopped: {end.error}; nothing was changed, the old script still runs")
    except ScriptRefused:
        session.goto(position)
        raise


def load(session: Session, source: str, state: UserState) -> Loaded:
    """Run ``source`` in place of the running script from step 0 and save it; ScriptRefused changes nothing."""
    name = script_name(session)
    script = checked(course_script(name), source)
    tried(session, script)
    session.yours[name] = script
    if name == SCRIPT_OF_MODE[RUN_MODES[0]]:
        session.guard_off = False  # the what-if runs its own file: your script runs with the guard as you wrote it
    frame = session.open(0)
    try:
        saved = f"saved to {state.write_script(session.lesson.id, name, source)}"
    except StateProblem as problem:
        saved = str(problem)
    return Loaded(frame, script, saved)


def restore(session: Session, state: UserState) -> Loaded:
    """Run the course's script again from step 0 and forget your saved copy."""
    name = script_name(session)
    session.yours.pop(name, None)
    frame = session.open(0)
    try:
        state.forget_script(session.lesson.id, name)
        saved = "your saved copy is deleted"
    except StateProblem as problem:
        saved = str(problem)
    return Loaded(frame, course_script(name), saved)
