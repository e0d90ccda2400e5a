"""The mode notes: what this run mode lets the learner see that a plain batch does not."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.reactive import reactive

from ....engine.stepper import REMOVED_TEXT, Step
from ....present.session import Frame
from ....present.step_words import raised_name
from .shown import Shown

GUARD_OFF = (f"guard off: this script lacks the line {REMOVED_TEXT.split(' --')[0]}, so a member the reaper "
             "moved back to pending is re-scored anyway; step to it and watch the store pane")
"""The standing note while the guard is off, until a step resurrects a member (its note takes the place)."""
SHOWN_RAISES = 3
"""How many of the latest raised calls the singles' third line names."""


def listed_reads(reads: Sequence[int]) -> str:
    """The clock reads, or for many the first two, how many more, and the last two (the spread's two ends)."""
    if len(reads) <= 5:
        return ", ".join(map(str, reads))
    return f"{reads[0]}, {reads[1]}, … {len(reads) - 4} more …, {reads[-2]}, {reads[-1]}"


def singles_notes(step: Step) -> list[tuple[str, str]]:
    """Three lines, the same three from the handle on: the per-call clock reads, their spread, the raised calls."""
    reads, raised = step.clocks, step.raised
    calls = min(step.index, len(step.members))
    lines = [(f"clock reads, one per call: {len(reads)} so far, spread {step.spread} ms (a batch reads TIME once)",
              "clock"),
             ("  " + (listed_reads(reads) if reads else "none yet: each call reads TIME when it runs"), "clock")]
    if raised:
        latest = ", ".join(f"{step.members[index].id} {raised_name(step.members[index])}"
                           for index in raised[-SHOWN_RAISES:])
        lines.append((f"raised: {len(raised)} of {calls} calls, each its own error · "
                      f"{'…, ' if len(raised) > SHOWN_RAISES else ''}{latest}", "bad"))
    else:
        lines.append(("raised: none yet (a call raises its own error; a batch puts the id in failed instead)",
                      "clock"))
    return lines


def notes(frame: Frame) -> list[tuple[str, str]]:
    """Each line and its role (``clock``, ``bad``, ``warn`` or ``note``): singles' clock reads and raised calls,
    the step's own notes (such as the guard-off resurrection); a plain batch has none."""
    step, played = frame.step, frame.played
    if played is None or played.mode == "batch":
        return []
    lines = singles_notes(step) if played.mode == "singles" and step.members else []
    lines += [(note, "warn") for note in step.notes]
    if played.mode == "guard-off" and not step.notes:
        lines.append((GUARD_OFF, "note"))
    return lines


class ModeNotes(Shown):
    """Shown when the run mode has something to say about the step: per-call clocks, raises, a resurrection."""

    DEFAULT_CSS: ClassVar[str] = """
    ModeNotes { height: auto; padding: 0 1; background: $boost; display: none; }
    ModeNotes > .mode-notes--clock { color: $text-accent; }
    ModeNotes > .mode-notes--bad { color: $text-error; }
    ModeNotes > .mode-notes--warn { color: $text-warning; text-style: bold; }
    ModeNotes > .mode-notes--note { color: $text-muted; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"mode-notes--clock", "mode-notes--bad", "mode-notes--warn",
                                             "mode-notes--note"}
    ROLES = "mode-notes"

    frame: reactive[Frame | None] = reactive(None, always_update=True, repaint=False)
    """The frame whose step is noted."""

    def lines(self) -> list[tuple[str, str]]:
        return notes(self.frame) if self.frame is not None else []

    def shape(self) -> str | None:
        played = self.frame.played if self.frame is not None else None
        return played.mode if played is not None else None

    def watch_frame(self) -> None:
        self.redraw()
