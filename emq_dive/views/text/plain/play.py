"""The plain mode's breakpoints and play: ``b N`` marks line N of the code on show, ``>`` plays forward to a
breakpoint, a failing member or the end, as the TUI's ``b`` and space do."""

from __future__ import annotations

from ....present.play_to import stop_at, stop_words
from ....present.session import Frame
from . import steps as plain_steps
from .state import Dive
from .words import question


def asks(frame: Frame) -> bool:
    """True while predict mode waits for a guess before the next step runs."""
    return frame.played is not None and frame.played.asks is not None


def back_or_break(dive: Dive, key: str, argument: str) -> None:
    """``b`` goes back; ``b N`` toggles a breakpoint on line N."""
    if argument:
        breakpoint_at(dive, key, argument)
    else:
        plain_steps.back(dive, key, argument)


def breakpoint_at(dive: Dive, _key: str, argument: str) -> None:
    """Toggle a breakpoint on line N of the code this step ran."""
    step = dive.current().step
    if not argument.isdigit() or int(argument) < 1:
        dive.say(f"{argument!r} is no line number: b N toggles a breakpoint on line N of {step.code}.")
        return
    session, line = dive.session, int(argument)
    session.breakpoints = session.breakpoints.toggled(step.code, line)
    marked = sorted(session.breakpoints.on(step.code))
    if (step.code, line) in session.breakpoints.lines:
        said = f"Breakpoint on line {line} of {step.code}: > plays to the next step that runs it."
    else:
        said = f"Breakpoint on line {line} of {step.code} taken away."
    dive.say(f"{said} Breakpoints in {step.code}: {', '.join(map(str, marked)) or 'none'}.")


def play(dive: Dive, _key: str, _argument: str) -> None:
    """Run step after step until one runs a breakpoint's line, checks a failing member, or ends the run."""
    frame = dive.current()
    if frame.step.done:
        dive.say("The run is over. home goes back to the handle, and > plays again from there.")
        return
    if asks(frame):
        dive.say(f"The step waits for your guess. {question(frame)} Or p stops predicting.")
        return
    session, start = dive.session, frame.step.index
    with session.store.io():
        while True:
            frame = session.goto(frame.step.index + 1)
            dive.recorder.frame(frame)
            stop = stop_at(frame.step, session.breakpoints)
            if stop is not None or asks(frame):
                break
    said = stop_words(frame.step, stop, session.breakpoints) if stop is not None else \
        "stopped where predict mode asks about the next member"
    dive.say(f"Played from step {start} to step {frame.step.index}: {said}.")
    dive.show(frame)
