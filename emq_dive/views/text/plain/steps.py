"""The plain mode's stepping commands: step, back, the wire switch, a fate, and the lesson by section."""

from __future__ import annotations

from ....engine.fate_table import FATES
from ....engine.fates.availability import unavailable_reason
from . import console as plain_console
from . import lesson as plain_lesson
from .state import Dive
from .words import compared_text, fate_text, question


def forward(dive: Dive, _key: str, _argument: str) -> None:
    """Run the next step; in predict mode the step waits for the guess, typed as its number."""
    frame = dive.current()
    if frame.step.done:
        dive.say("The run is over. b goes back, w runs it on the other wire, f gives a member a fate.")
        return
    played = frame.played
    if played is not None and played.asks is not None:
        dive.say(f"The step waits for your guess. {question(frame)} Or p stops predicting.")
        return
    dive.move(lambda: dive.session.goto(frame.step.index + 1))


def back(dive: Dive, _key: str, _argument: str) -> None:
    """Undo the last step in the store (or, first, a console write made at this step)."""
    if plain_console.undo(dive):
        return
    frame = dive.current()
    if frame.step.index == 0:
        dive.say("At the handle already; nothing was sent, so there is nothing to undo.")
        return
    dive.move(lambda: dive.session.goto(frame.step.index - 1))


def home(dive: Dive, _key: str, _argument: str) -> None:
    """Back to the handle, before anything was sent: every step undone in the store."""
    if dive.current().step.index == 0:
        dive.say("At the handle already; nothing was sent, so there is nothing to undo.")
        return
    dive.move(lambda: dive.session.goto(0))


def end(dive: Dive, _key: str, _argument: str) -> None:
    """Run every remaining step, and say where the run ends."""
    frame = dive.current()
    if frame.step.done:
        dive.say("The run is over already. home goes back to the handle.")
        return
    dive.move(lambda: dive.session.goto(frame.step.count))


def wire(dive: Dive, _key: str, _argument: str) -> None:
    """Run the batch on both wires from the start, then carry on on the other one."""
    session = dive.session
    other = 6 if session.wire == 4 else 4
    if other == 6 and not session.store.native:
        dive.say(f"Wire 6 is not on this backend: {session.store.native_reason}. Staying on wire 4.")
    with session.store.io():
        compared, frame = session.switch(other)
    dive.recorder.compared(compared)
    dive.say(compared_text(compared))
    dive.noticed(compared)
    dive.show(frame)


def fate(dive: Dive, _key: str, _argument: str) -> None:
    """Pick a fate by number, as the TUI's picker offers them, see the verbs on it, then give it to a member or not."""
    session = dive.session
    descriptions = session.lesson.fates
    offered = []
    for number, each in enumerate(FATES, 1):
        reason = unavailable_reason(session.store, each)
        kind = "a member fate" if each.member else "a whole-call fate"
        offered.append(f"{number} {each.key}, {each.title}, {kind}{f' (unavailable here: {reason})' if reason else ''}"
                       f": {descriptions.get(each.key, '')}")
    answer = dive.ask("\n".join(["Fates: each runs the single verb, the batch verb and both native commands on one "
                                  "job, each from the same starting state.", *offered,
                                  "Type a number, or Enter to go back."]))
    keys = [each.key for each in FATES]
    chosen = keys.index(answer) if answer in keys else choice(answer, len(keys))
    if chosen is None:
        dive.say("No fate chosen.")
        return
    picked = FATES[chosen]
    with session.store.io():
        ran, frame = session.run_fate(picked.key)
    dive.recorder.fate_ran(ran)
    dive.say(fate_text(ran, descriptions.get(picked.key, "")))
    dive.noticed(ran)
    dive.frame = frame
    if not picked.member:
        dive.show(frame)
        return
    members = "; ".join(f"{i} {job}, now {fate}" for i, ((job, _), fate) in
                        enumerate(zip(frame.held, frame.fates, strict=True), 1))
    index = choice(dive.ask(f"Give {picked.key} to which member? {members}. Type a number, or Enter to keep the "
                            "batch as it is."), len(frame.held))
    if index is None:
        dive.say("The batch is as it was.")
        dive.show(frame)
        return
    dive.move(lambda: session.apply(index, picked.key))


def lesson(dive: Dive, _key: str, argument: str) -> None:
    """``l`` lists the lesson's sections; ``l N`` reads section N whole."""
    taught = dive.session.lesson
    if not argument:
        dive.say(f"{plain_lesson.listing(taught)} l N reads section N; ] reads the next, [ the previous.")
        return
    index = choice(argument, len(taught.sections))
    if index is None:
        dive.say(f"There is no section {argument!r}: type l and a number from 1 to {len(taught.sections)}.")
        return
    read_section(dive, index)


def browse(dive: Dive, key: str, _argument: str) -> None:
    """``]`` reads the next section, ``[`` the previous one, round the lesson as the lesson pane browses it."""
    count = len(dive.session.lesson.sections)
    read_section(dive, (dive.section + (1 if key == "]" else -1)) % count)


def read_section(dive: Dive, index: int) -> None:
    """Say section ``index`` whole: its heading, then its text line by line, as plain words."""
    taught = dive.session.lesson
    dive.section = index
    lines = plain_lesson.paragraphs(plain_lesson.body(taught, index))
    dive.say("\n".join([plain_lesson.heading(taught, index), *lines]))


def choice(answer: str | None, count: int) -> int | None:
    """A 1-based number typed in answer, as an index below ``count``, or None."""
    if answer is None or not answer.isdigit():
        return None
    number = int(answer)
    return number - 1 if 1 <= number <= count else None
