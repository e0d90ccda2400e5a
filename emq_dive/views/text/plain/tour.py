"""The plain mode's tour (``t``): each slide's move made on the session, then its text read from the frame it left."""

from __future__ import annotations

from ....course.lesson_file import LessonError
from ....course.tour_file import Move, Opens, Pane, Slide, load_tour
from ....course.user_state import StateProblem, UserState
from ....engine.fate_table import FATES
from ....engine.fates.availability import unavailable_reason
from ....present.tour import heading, slide_text
from . import steps as plain_steps
from .state import Dive

SEEN = "tour-seen"
"""The flag the TUI keeps too: a tour finished or left here is not offered there again."""
PANES: dict[Pane, str] = {
    Pane.HEADER: "the header (the lesson, the wire, the store)", Pane.STEP: "the step lines (now, failed)",
    Pane.BATCH: "the batch table (a says it)", Pane.CODE: "the code (o says it)",
    Pane.WIRE: "the wire's calls (v says them)", Pane.STORE: "the store (s says it)",
    Pane.LESSON: "the lesson (l reads it)", Pane.TRY: "the try row", Pane.FOOTER: "the keys (h lists them)",
}
"""What each pane a slide means is called here, and the plain command that says it."""
KEYS = "Enter or n: the next slide; p: the previous; q: leave the tour."


def tour(dive: Dive, _key: str, _argument: str) -> None:
    """Read the lesson's tour slide by slide, each after its move, until the last or ``q``."""
    try:
        slides = load_tour(dive.session.lesson)
    except LessonError as err:
        dive.say(f"No tour: {err}")
        return
    if not slides:
        dive.say(f"{dive.session.lesson.id} has no tour.")
        return
    at = 0
    while 0 <= at < len(slides):
        _move(dive, slides[at].move)
        _read(dive, slides[at], at, len(slides))
        answer = dive.read()
        if answer is None or answer.lower() in ("q", "esc"):
            break
        at = at - 1 if answer.lower() == "p" and at > 0 else at if answer.lower() == "p" else at + 1
    dive.say("The tour is over; t takes it again." if at >= len(slides) else "You left the tour; t takes it again.")
    try:
        UserState.from_environ().set_flag(SEEN)
    except StateProblem as err:
        dive.say(f"The tour will be offered again: {err}")


def _move(dive: Dive, move: Move) -> None:
    """Make the slide's move as the plain commands do: the wire, the step, the lesson section, the fate list."""
    session = dive.session
    if move.wire is not None and dive.current().wire != move.wire:
        plain_steps.wire(dive, "w", "")
    count = dive.current().step.count
    target = count if move.to_end else move.step
    if target is not None and min(target, count) != dive.current().step.index:
        dive.move(lambda: session.goto(target))
    if move.section is not None:
        index = [s.key for s in session.lesson.sections].index(move.section)
        dive.section = index
        dive.say(f"The lesson turns to section {index + 1}, {session.lesson.sections[index].title}: "
                 f"l {index + 1} reads it.")
    if move.opens is Opens.FATES:
        offered = []
        for number, fate in enumerate(FATES, 1):
            reason = unavailable_reason(session.store, fate)
            offered.append(f"{number} {fate.key}{f' (unavailable here: {reason})' if reason else ''}")
        dive.say("The fates f offers: " + "; ".join(offered) + ". f picks one, after the tour.")


def _read(dive: Dive, slide: Slide, at: int, count: int) -> None:
    frame = dive.current()
    section = dive.session.lesson.sections[dive.section].key
    said = heading(slide, at, count)
    head = dive.style.head(said[:1].upper() + said[1:] + ".")
    dive.say(f"{head} About {PANES[slide.pane]}. {slide_text(slide, frame, dive.session.lesson, section)}\n{KEYS}")
