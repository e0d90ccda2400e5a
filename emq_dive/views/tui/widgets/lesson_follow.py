"""Which lesson section a new frame brings: the Try it of a learn mode just entered, else the one its code follows."""

from __future__ import annotations

from textual.message import Message

from ....course.lessons import Lesson
from ....engine.stepper import MODES
from ....engine.stepper.modes import RUN_MODES
from ....present.keymap import by_action
from ....present.session import Frame, Played


class SectionShown(Message):
    """The lesson pane shows another section: its title, and where it stands among them (from 1)."""

    def __init__(self, title: str, at: int, count: int) -> None:
        super().__init__()
        self.title = title
        self.at = at
        self.count = count


def entered(old: Played | None, new: Played | None) -> str:
    """The action of the learn mode ``new`` enters from ``old`` (``mode``, ``guard``, ``predict``, ``reap``), or
    empty when it enters none (going back to the batch is leaving one)."""
    if old is None or new is None:
        return ""
    if new.mode != old.mode and new.mode != RUN_MODES[0]:
        return "guard" if MODES[new.mode].what_if else "mode"
    if new.predicting and not old.predicting:
        return "predict"
    if reaped(new) and not reaped(old):
        return "reap"
    return ""


def reaped(played: Played) -> bool:
    """True once a reaper races the holder in this run (the race timeline's test too)."""
    return any(event.actor == "reaper" for event in played.race)


def brought(lesson: Lesson, old: Frame | None, new: Frame | None) -> str | None:
    """The key of the section ``new`` brings after ``old``, or None to stay on the section shown."""
    if new is None:
        return None
    key = by_action(entered(old.played if old is not None else None, new.played) or "no learn mode")
    if key is not None and any(section.key == key.section for section in lesson.sections):
        return key.section
    if (old is None or old.step.source != new.step.source) and not trying(new.played):
        section = lesson.section_for(new.step.source)
        return section.key if section is not None else None
    return None  # in a learn mode its Try it stays on show while the steps go on


def trying(played: Played | None) -> bool:
    """True while the run is in a learn mode: singles, the what-if, predictions or a reaper's race."""
    return played is not None and (played.mode != RUN_MODES[0] or played.predicting or reaped(played))
